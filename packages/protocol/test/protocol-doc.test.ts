import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ENVELOPE_TYPES } from "@lineup/protocol";
import { renderErrorTable } from "../scripts/error-table.js";

const doc = readFileSync(join(import.meta.dirname, "..", "..", "..", "docs", "protocol.md"), "utf8");

describe("docs/protocol.md", () => {
  it("holds the error-code table exactly as src/errors.ts defines it", () => {
    const match = /<!-- error-table:begin[^>]*-->\n([\s\S]*?)\n<!-- error-table:end -->/.exec(doc);
    expect(match, "error-table markers").not.toBeNull();
    expect(match![1]).toBe(renderErrorTable());
  });
  it("documents every envelope type", () => {
    for (const type of Object.keys(ENVELOPE_TYPES)) expect(doc).toContain(`| \`${type}\` |`);
  });
});
