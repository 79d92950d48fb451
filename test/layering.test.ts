/**
 * The architecture's one-way layering, enforced (ARCHITECTURE.md section 5, STYLE.md rule 1):
 * packages import only the workspace packages below them, platform-neutral code imports no
 * `node:*`, no Node built-in and no native/server package, adapters stay in their node/ and
 * browser/ folders, and no relative import reaches into another package. Inside the Runtime: only its
 * loop commits to its store, outbox keys are minted in one place, and the pure transition code reaches
 * neither the loop nor the connection.
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

function importsOf(file: string, text = readFileSync(file, "utf8")): string[] {
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

const runtimeSrc = join(root, "packages", "runtime", "src");
/** The Runtime's source files (path under src/ → text), without the store adapters and apps' own storage. */
function runtimeFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const file of walk(runtimeSrc)) {
    const rel = relative(runtimeSrc, file).split(sep).join("/");
    if (/^(persistence|node|browser|app-storage|testing)\//.test(rel)) continue;
    files.set(rel, readFileSync(file, "utf8"));
  }
  return files;
}

/** Problems with where the Runtime commits to its store: the loop, and restore before the loop starts; nothing else. */
function commitProblems(files: ReadonlyMap<string, string>): string[] {
  const problems: string[] = [];
  for (const [rel, text] of files) {
    const lines = text.split("\n").filter((line) => /\.commit\(/.test(line));
    if (lines.length === 0 || rel === "coordination/loop.ts" || rel === "coordination/restore.ts") continue;
    problems.push(`${rel} commits to the store; only coordination/loop.ts may (post an input instead)`);
  }
  return problems;
}

/** Problems with where outbox idempotency keys are minted: `newOutboxEntry` in communication/outbox.ts only. */
function idempotencyKeyProblems(files: ReadonlyMap<string, string>): string[] {
  return [...files].filter(([rel, text]) => rel !== "communication/outbox.ts" && /newId\(\s*["']idem["']\s*\)/.test(text)).map(([rel]) => `${rel} mints an idempotency key; use newOutboxEntry (communication/outbox.ts)`);
}

/** The pure decision code: handlers, the tools, App Manager and instance cores, the session-data rule, the Step and its folds. */
const PURE = /^(coordination\/(handlers\/|transition\.ts|step\.ts|call-folding\.ts|instance-folding\.ts|tool-envelopes\.ts|inventories\.ts)|tools\/|app-lifecycle\/manager\/|app-lifecycle\/instances\/|session-data\/semantics\.ts)/;
/** Each place `PURE` names, which must hold a file: a rename that empties one fails the check instead of silently leaving it unchecked. */
const PURE_PLACES = ["coordination/handlers/", "coordination/transition.ts", "coordination/step.ts", "coordination/call-folding.ts", "coordination/instance-folding.ts", "coordination/tool-envelopes.ts", "coordination/inventories.ts", "tools/", "app-lifecycle/manager/", "app-lifecycle/instances/", "session-data/semantics.ts"];

/** Problems with pure code importing the loop or the connection shell. */
function purityProblems(files: ReadonlyMap<string, string>): string[] {
  const problems: string[] = [];
  for (const [rel, text] of files) {
    if (!PURE.test(rel)) continue;
    for (const spec of importsOf(join(runtimeSrc, rel), text)) {
      if (/(^|\/)(loop|sync-driver|runtime|runtime-parts|runtime-object)\.js$/.test(spec)) problems.push(`${rel} imports "${spec}": a transition is pure; the loop runs it, the shell does the I/O and the Runtime's composition wires them`);
    }
  }
  return problems;
}

describe("the Runtime's structure", () => {
  const files = runtimeFiles();

  it("only the loop commits to the Runtime's store (and restore, before it starts)", () => {
    expect(files.has("coordination/loop.ts")).toBe(true);
    expect(commitProblems(files)).toEqual([]);
  });

  it("outbox idempotency keys are minted only by newOutboxEntry in communication/outbox.ts", () => {
    expect(files.get("communication/outbox.ts")).toMatch(/newId\("idem"\)/);
    expect(idempotencyKeyProblems(files)).toEqual([]);
  });

  it("the transition's code imports neither the loop nor the sync driver", () => {
    expect([...files.keys()].filter((rel) => PURE.test(rel)).length).toBeGreaterThan(20);
    expect(PURE_PLACES.filter((place) => ![...files.keys()].some((rel) => rel.startsWith(place) && PURE.test(rel)))).toEqual([]);
    expect(purityProblems(files)).toEqual([]);
  });

  it("the structure checks catch what they forbid", () => {
    expect(commitProblems(new Map([["session-data/service.ts", "await store.commit([w]);"]]))).toHaveLength(1);
    expect(commitProblems(new Map([["runtime.ts", "await store.commit([{ op: \"put\", collection: RUNTIME_COLLECTIONS.resultCards }]);"]]))).toHaveLength(1);
    expect(commitProblems(new Map([["coordination/loop.ts", "options.store.commit(turn.writes)"]]))).toEqual([]);
    expect(idempotencyKeyProblems(new Map([["coordination/handlers/ingest.ts", "idempotency_key: env.newId(\"idem\")"]]))).toHaveLength(1);
    expect(purityProblems(new Map([["coordination/handlers/tools.ts", 'import { toLineUpError } from "../loop.js";']]))).toHaveLength(1);
    expect(purityProblems(new Map([["capabilities/shell.ts", 'import { toLineUpError } from "../coordination/loop.js";']]))).toEqual([]);
    expect(purityProblems(new Map([["app-lifecycle/manager/decide-state.ts", 'import type { RuntimeLoop } from "../../coordination/loop.js";']]))).toHaveLength(1);
    expect(purityProblems(new Map([["app-lifecycle/instances/transitions.ts", 'import type { StartedParts } from "../../runtime-parts.js";']]))).toHaveLength(1);
  });
});
