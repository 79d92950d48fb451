/** `npm run gen`: regenerates src/generated/validators.ts and schemas/*.json. */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ALL_SCHEMAS } from "../src/schema-registry.js";
import { generate } from "./generate-lib.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { files } = generate(ALL_SCHEMAS);
for (const old of readdirSync(join(root, "schemas"), { withFileTypes: true })) {
  if (old.isFile() && old.name.endsWith(".json")) rmSync(join(root, "schemas", old.name));
}
for (const [path, content] of files) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}
console.log(`generated ${files.size} files`);
