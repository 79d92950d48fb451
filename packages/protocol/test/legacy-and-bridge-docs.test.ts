import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BRIDGE_EVENTS, BRIDGE_METHODS, ERROR_CODES, LEGACY_MAPPINGS, LEGACY_REFUSED_TYPES, LEGACY_REVERSE } from "@lineup/protocol";

const doc = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "docs", "protocol.md"), "utf8");

/** The text of one `## ` section of docs/protocol.md. */
function section(heading: string): string {
  const start = doc.indexOf(`\n## ${heading}\n`);
  if (start < 0) return "";
  const next = doc.indexOf("\n## ", start + heading.length + 4);
  return next < 0 ? doc.slice(start) : doc.slice(start, next);
}

describe("docs/protocol.md keeps up with the legacy and bridge tables", () => {
  it("documents every mapped, refused and reverse-mapped legacy type", () => {
    const legacy = section("Legacy lineup.v1 mapping");
    expect(legacy).not.toBe("");
    for (const [type, row] of Object.entries(LEGACY_MAPPINGS)) {
      expect(legacy, type).toContain(`| \`${type}\` | \`${row.envelope_type}\` |`);
    }
    for (const type of Object.keys(LEGACY_REFUSED_TYPES)) expect(legacy, type).toContain(`\`${type}\``);
    for (const [envelopeType, legacyType] of Object.entries(LEGACY_REVERSE)) {
      expect(legacy, envelopeType).toContain(`| \`${envelopeType}\` | \`${legacyType}\` |`);
    }
  });

  it("documents every bridge method, event and bridge error code", () => {
    const bridge = section("Surface Bridge v1");
    expect(bridge).not.toBe("");
    for (const [method, spec] of Object.entries(BRIDGE_METHODS)) {
      expect(bridge, method).toContain(`| \`${method}\` | ${spec.direction === "to_host" ? "app → host" : "host → app"} |`);
    }
    for (const event of Object.keys(BRIDGE_EVENTS)) expect(bridge, event).toContain(`| \`${event}\` |`);
    for (const [code, info] of Object.entries(ERROR_CODES)) if (info.area === "bridge") expect(bridge, code).toContain(`\`${code}\``);
  });
});
