import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The root test/layering.test.ts checks import arrows. This adds what an import scan misses: host globals
// used without an import (`indexedDB`, `Buffer`, `setTimeout`…) in the core, Node globals in browser/,
// and hidden clocks or randomness in the core (time and ids are injected, ARCHITECTURE 3).

const PACKAGE = fileURLToPath(new URL("..", import.meta.url));
const SRC = join(PACKAGE, "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : [],
  );
}

/** The code without comments and string contents, so words in prose do not count as uses. */
function codeOnly(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/(^|[^:])\/\/.*$/gm, "$1")
    .replace(/`(?:\\.|[^`\\])*`|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'/g, '""');
}

const files = sourceFiles(SRC).map((path) => {
  const top = relative(SRC, path).split(/[\\/]/)[0]!;
  return {
    path: relative(PACKAGE, path),
    layer: top === "node" || top === "browser" ? top : "core",
    code: codeOnly(readFileSync(path, "utf8")),
  };
});

const HOST_GLOBALS = /\b(indexedDB|IDB[A-Z]\w*|window|document|navigator|DOMException|localStorage|structuredClone|queueMicrotask|setTimeout|setInterval|setImmediate|Buffer|process|require|__dirname)\b/;
const NODE_GLOBALS = /\b(Buffer|process|require|setImmediate|__dirname)\b/;
const HIDDEN_CLOCK_OR_RANDOMNESS = /\b(Date\.now|Math\.random|new Date|performance\.now)\b/;

describe("platform-neutral sources", () => {
  it("finds sources in every layer", () => {
    expect(files.filter((file) => file.layer === "core").length).toBeGreaterThan(5);
    expect(files.some((file) => file.layer === "node")).toBe(true);
    expect(files.some((file) => file.layer === "browser")).toBe(true);
  });

  // The one core file that implements the Clock and IdSource ports on the platform (timers, clock, randomness).
  const PORT_DEFAULTS = join("src", "core", "system.ts");

  it.each(files.filter((file) => file.layer === "core" && file.path !== PORT_DEFAULTS))("core file $path uses no host globals, clock or randomness", ({ code }) => {
    expect(code).not.toMatch(HOST_GLOBALS);
    expect(code).not.toMatch(HIDDEN_CLOCK_OR_RANDOMNESS);
  });

  it("the port defaults use timers but no other host global", () => {
    const system = files.find((file) => file.path === PORT_DEFAULTS)!;
    expect(system.code.replace(/\b(setTimeout|clearTimeout)\b/g, "")).not.toMatch(HOST_GLOBALS);
  });

  it.each(files.filter((file) => file.layer === "browser"))("browser file $path uses no Node globals", ({ code }) => {
    expect(code).not.toMatch(NODE_GLOBALS);
  });

  it("the scan sees through comments and strings but not through code", () => {
    expect(codeOnly('// uses Buffer\nconst a = "process";')).not.toMatch(HOST_GLOBALS);
    expect(codeOnly("const b = Buffer.from(x); // fine")).toMatch(HOST_GLOBALS);
  });

  it("has a source file behind every export of package.json", () => {
    const manifest = JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8")) as { exports: Record<string, { source: string }> };
    expect(Object.keys(manifest.exports)).toEqual([".", "./node", "./bundle", "./browser", "./testing"]);
    for (const entry of Object.values(manifest.exports)) expect(existsSync(join(PACKAGE, entry.source))).toBe(true);
  });
});
