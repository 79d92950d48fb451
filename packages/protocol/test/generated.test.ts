import { readdirSync, readFileSync } from "node:fs";
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
    for (const name of readdirSync(join(root, "src/generated"))) {
      const code = readFileSync(join(root, "src/generated", name), "utf8");
      expect(code, name).not.toMatch(/\bnew Function\b|\beval\(/);
      expect(code, name).not.toMatch(/\brequire\(/);
    }
  });
  it("holds no stale module: every file in src/generated is generated", () => {
    const { files } = generate(ALL_SCHEMAS);
    const expected = [...files.keys()].filter((p) => p.startsWith("src/generated/")).map((p) => p.slice("src/generated/".length)).sort();
    expect(readdirSync(join(root, "src/generated")).sort()).toEqual(expected);
  });
});
