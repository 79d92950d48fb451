/**
 * The architecture's one-way layering, enforced (ARCHITECTURE.md section 5, STYLE.md rule 1):
 * packages import only the workspace packages below them, platform-neutral code imports no
 * `node:*`, no Node built-in and no native/server package, adapters stay in their node/ and
 * browser/ folders, and no relative import reaches into another package.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..");

/** Which workspace packages each package may import. */
const ALLOWED: Record<string, readonly string[]> = {
  protocol: [],
  runtime: ["protocol"],
  "app-sdk": ["protocol", "runtime"],
  "surface-sdk": ["protocol"],
  "app-server": ["protocol", "runtime", "mcp-server"],
  "agent-sdk": ["protocol"],
  "mcp-server": ["protocol", "agent-sdk"],
  "host-web": ["protocol", "runtime", "app-sdk"],
  "host-desktop": ["protocol", "host-web"],
  cli: ["protocol", "runtime", "app-sdk", "app-server", "agent-sdk", "mcp-server", "surface-sdk"],
};
/** Packages whose src/ (outside node/ and a bin) must run in a browser as well as in Node. */
const PLATFORM_NEUTRAL = new Set(["protocol", "runtime", "app-sdk", "surface-sdk", "agent-sdk", "host-web"]);
const NODE_ONLY_PACKAGES = new Set(["ws", "better-sqlite3"]);
/** Packages whose src/ (outside node/) is a GJS program: GObject introspection and GJS's own modules, never Node's. */
const GJS_PROGRAMS = new Set(["host-desktop"]);
const NODE_BUILTINS = new Set(builtinModules);

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...walk(path));
    else if (/\.(ts|tsx)$/.test(name) && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specs: string[] = [];
  const re = /(?:^|[\s;])(?:import|export)\s[^"'`]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|^\s*import\s*["']([^"']+)["']/gm;
  for (const m of text.matchAll(re)) specs.push((m[1] ?? m[2] ?? m[3])!);
  return specs;
}

/** Problems with one file's imports; `rel` is the file's path under its package's src/. */
function checkImports(pkg: string, rel: string, specs: readonly string[]): string[] {
  const problems: string[] = [];
  const srcDir = join(root, "packages", pkg, "src");
  const file = join(srcDir, rel);
  const inNode = rel.startsWith("node/") || rel === "bin.ts";
  const inBrowser = rel.startsWith("browser/");
  const neutral = PLATFORM_NEUTRAL.has(pkg) && !inNode;
  for (const spec of specs) {
    const where = `${pkg}/src/${rel} imports "${spec}"`;
    if (spec.startsWith("@lineup/")) {
      const target = spec.slice("@lineup/".length).split("/")[0]!;
      if (target !== pkg && !(ALLOWED[pkg] ?? []).includes(target)) problems.push(`${where}: ${pkg} may not depend on ${target}`);
      if (neutral && /\/node$/.test(spec)) problems.push(`${where}: platform-neutral code may not use a node adapter`);
      if (!inBrowser && neutral && /\/browser$/.test(spec) && pkg !== "host-web") problems.push(`${where}: only browser/ code may use a browser adapter`);
    } else if (spec.startsWith(".")) {
      const target = resolve(join(file, ".."), spec);
      if (!target.startsWith(join(root, "packages", pkg) + sep)) problems.push(`${where}: relative import leaves the package`);
      const targetRel = relative(srcDir, target).split(sep).join("/");
      if (!inNode && targetRel.startsWith("node/")) problems.push(`${where}: only node/ code may import node/ adapters`);
      if (!inBrowser && !inNode && targetRel.startsWith("browser/") && pkg !== "host-web") problems.push(`${where}: only browser/ code may import browser/ adapters`);
    } else if (GJS_PROGRAMS.has(pkg) && !inNode) {
      if (!/^gi:\/\/[A-Za-z]+(\?version=[0-9.]+)?$/.test(spec) && spec !== "system") problems.push(`${where}: a GJS program imports only gi:// modules, GJS's own and workspace packages`);
    } else if (neutral) {
      const bare = spec.startsWith("node:") ? spec.slice(5) : spec;
      if (spec.startsWith("node:") || NODE_BUILTINS.has(bare.split("/")[0]!)) problems.push(`${where}: platform-neutral code may not import Node built-ins`);
      if (NODE_ONLY_PACKAGES.has(spec.split("/")[0]!)) problems.push(`${where}: platform-neutral code may not import a Node-only package`);
    }
  }
  return problems;
}

const packages = readdirSync(join(root, "packages")).filter((p) => statSync(join(root, "packages", p)).isDirectory());
const apps = readdirSync(join(root, "apps")).filter((p) => statSync(join(root, "apps", p)).isDirectory());
/** Installed apps run in a sandboxed frame: they may use only the protocol and the surface SDK. */
const APP_ALLOWED: ReadonlySet<string> = new Set(["protocol", "surface-sdk"]);

describe("layering", () => {
  it("every package is in the layering table", () => {
    for (const p of packages) expect(ALLOWED[p], `packages/${p} needs an entry in ALLOWED`).toBeDefined();
  });

  for (const pkg of packages) {
    it(`packages/${pkg} imports only what its layer allows`, () => {
      const srcDir = join(root, "packages", pkg, "src");
      const problems = walk(srcDir).flatMap((file) => checkImports(pkg, relative(srcDir, file).split(sep).join("/"), importsOf(file)));
      expect(problems).toEqual([]);
    });
  }

  for (const app of apps) {
    it(`apps/${app} imports only the protocol and the surface SDK, and no Node built-in`, () => {
      const srcDir = join(root, "apps", app, "src");
      const problems: string[] = [];
      for (const file of walk(srcDir)) {
        for (const spec of importsOf(file)) {
          const where = `apps/${app}/${relative(srcDir, file)} imports "${spec}"`;
          if (spec.startsWith("@lineup/") && !APP_ALLOWED.has(spec.slice(8).split("/")[0]!)) problems.push(`${where}: apps may use only the protocol and the surface SDK`);
          if (spec.startsWith("node:") || NODE_BUILTINS.has(spec.split("/")[0]!)) problems.push(`${where}: app code runs in a sandboxed frame`);
          if (spec.startsWith(".") && !resolve(join(file, ".."), spec).startsWith(join(root, "apps", app) + sep)) problems.push(`${where}: relative import leaves the app`);
        }
      }
      expect(problems).toEqual([]);
    });
  }

  it("the checker catches wrong-way arrows", () => {
    expect(checkImports("protocol", "json.ts", ["@lineup/runtime"])).toHaveLength(1);
    expect(checkImports("runtime", "core.ts", ["node:fs"])).toHaveLength(1);
    expect(checkImports("runtime", "core.ts", ["fs"])).toHaveLength(1);
    expect(checkImports("runtime", "core.ts", ["better-sqlite3"])).toHaveLength(1);
    expect(checkImports("runtime", "core.ts", ["./node/sqlite-store.js"])).toHaveLength(1);
    expect(checkImports("runtime", "core.ts", ["../../protocol/src/index.js"])).toHaveLength(1);
    expect(checkImports("runtime", "node/sqlite-store.ts", ["better-sqlite3", "node:fs", "../persistence/store.js"])).toEqual([]);
    expect(checkImports("app-sdk", "index.ts", ["@lineup/runtime/node"])).toHaveLength(1);
    expect(checkImports("host-desktop", "main.ts", ["node:fs"])).toHaveLength(1);
    expect(checkImports("host-desktop", "main.ts", ["ws"])).toHaveLength(1);
    expect(checkImports("host-desktop", "main.ts", ["gi://WebKit?version=6.0", "system", "@lineup/host-web/serving"])).toEqual([]);
    expect(checkImports("host-desktop", "node/build.ts", ["node:path", "esbuild"])).toEqual([]);
  });
});
