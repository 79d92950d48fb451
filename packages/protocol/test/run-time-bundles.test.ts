/**
 * No schema builder at run time, on the Node side and in an app: the Runtime and the surface SDK, bundled from their
 * entries as a build would (esbuild, tree-shaking, dynamic imports as chunks of their own), carry no TypeBox. Their
 * checks read generated validators by schema id (the `terms.ts` modules); the schema declarations are for the
 * generator and for types, and every call that builds one at load is marked `@__PURE__`.
 */
import { join } from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

const PACKAGES = join(import.meta.dirname, "..", "..");
const TYPEBOX = "TypeBox.Kind";

async function bundle(entry: string, platform: "node" | "browser"): Promise<{ path: string; text: string }[]> {
  const result = await build({
    entryPoints: [join(PACKAGES, entry)],
    bundle: true,
    splitting: true,
    format: "esm",
    platform,
    conditions: ["source"],
    outdir: join(PACKAGES, "protocol", "run-time-bundle"),
    write: false,
    minify: true,
    logLevel: "silent",
    external: ["better-sqlite3", "pg", "ws"],
  });
  return result.outputFiles.map((f) => ({ path: f.path, text: f.text }));
}

describe("run-time bundles", () => {
  it("the Runtime (@lineup/runtime) bundles no TypeBox, yet carries the generated validators it checks with", async () => {
    const files = await bundle("runtime/src/index.ts", "node");
    expect(files.some((f) => f.text.includes("urn:lineup:runtime-envelope.v1"))).toBe(true);
    expect(files.filter((f) => f.text.includes(TYPEBOX)).map((f) => f.path)).toEqual([]);
  }, 60_000);

  it("the surface SDK an app bundles (@lineup/surface-sdk) carries no TypeBox", async () => {
    const files = await bundle("surface-sdk/src/index.ts", "browser");
    // The bridge it speaks (BRIDGE_PROTOCOL) is there; the schemas its validators came from are not.
    expect(files.some((f) => f.text.includes("lineup.surface"))).toBe(true);
    expect(files.filter((f) => f.text.includes(TYPEBOX)).map((f) => f.path)).toEqual([]);
  }, 60_000);
});
