import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ALL_SCHEMAS } from "@lineup/protocol";
import { generate } from "../scripts/generate-lib.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

describe("generated validators and schema files", () => {
  it("are up to date with the schemas (run npm run gen after changing a schema)", () => {
    const { files } = generate(ALL_SCHEMAS);
    for (const [path, content] of files) expect(readFileSync(join(root, path), "utf8"), path).toBe(content);
  });
  it("contain no eval and no runtime schema compilation", () => {
    const code = readFileSync(join(root, "src/generated/validators.ts"), "utf8");
    expect(code).not.toMatch(/\bnew Function\b|\beval\(/);
    expect(code).not.toMatch(/\brequire\(/);
  });
});
