import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "..", "src");

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));
}

function imports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)].map((m) => m[1]!);
}

describe("layering", () => {
  // The app build (src/node) may also use esbuild and, for AssemblyScript back-ends, the AssemblyScript compiler.
  it("the SDK that runs in the sandbox imports only @lineup/protocol and itself (node:* only under src/node)", () => {
    const wrong: string[] = [];
    for (const file of files(SRC)) {
      const rel = relative(SRC, file);
      for (const spec of imports(file)) {
        const inNode = rel.startsWith("node/");
        const allowed = spec.startsWith(".") || spec === "@lineup/protocol" || (inNode && (spec.startsWith("node:") || spec === "esbuild" || spec === "assemblyscript/asc"));
        if (!allowed) wrong.push(`${rel} → ${spec}`);
        if (!inNode && spec.startsWith("./node/")) wrong.push(`${rel} → ${spec}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
