/**
 * What `lineup` loads before it answers: a command's code, and what only it needs, loads when that command runs.
 * `lineup --help` loads no package at all; `lineup server` on SQLite listens without the MCP SDK, the agent SDK, the
 * Runtime (its catalog needs only the bundle format) or the PostgreSQL client, and loads the `/mcp` endpoint's code
 * with the first request to it. Each case runs the CLI from source in a child process whose module loader writes down
 * every module it loads. How long a start takes is `npm run bench -- startup`'s to measure.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const BIN = resolve(import.meta.dirname, "../src/bin.ts");
const work = mkdtempSync(join(tmpdir(), "lineup-startup-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// Module hooks run on the loader's own thread: each module's URL is appended to the file named in `data`.
const hooks = join(work, "hooks.mjs");
writeFileSync(hooks, `import { appendFileSync } from "node:fs";\nlet file;\nexport function initialize(data) { file = data.file; }\nexport async function load(url, context, next) { appendFileSync(file, url + "\\n"); return next(url, context); }\n`);
const recorder = join(work, "record.mjs");
writeFileSync(recorder, `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)}, { data: { file: process.env.LINEUP_TEST_MODULES } });\n`);

let runs = 0;
/** The node arguments and the file the child writes the loaded modules to. */
function recorded(args: readonly string[]): { argv: string[]; file: string } {
  const file = join(work, `modules-${++runs}.txt`);
  writeFileSync(file, "");
  return { argv: ["--conditions=source", "--import", "tsx", "--import", pathToFileURL(recorder).href, BIN, ...args], file };
}

const modules = (file: string): string[] => readFileSync(file, "utf8").split("\n").filter(Boolean);
/** Modules of a workspace package (its source) or of a dependency in node_modules. */
const fromPackage = (urls: readonly string[], name: RegExp): string[] => urls.filter((url) => name.test(url));
const MCP_AND_AGENT = /\/packages\/(mcp-server|agent-sdk)\/|\/node_modules\/(@modelcontextprotocol|zod|ajv|hono|@hono)\//;

describe("what lineup loads before it answers", () => {
  it("lineup --help and --version load the command table and nothing of any package", () => {
    for (const flag of ["--help", "--version"]) {
      const { argv, file } = recorded([flag]);
      const child = spawnSync(process.execPath, argv, { encoding: "utf8", env: { ...process.env, LINEUP_TEST_MODULES: file } });
      expect(child.status, child.stderr).toBe(0);
      expect(child.stdout).toMatch(flag === "--help" ? /^usage: lineup <command>/ : /^lineup \d+\.\d+\.\d+$/m);
      const loaded = modules(file);
      expect(loaded).toContain(pathToFileURL(BIN).href);
      expect(fromPackage(loaded, /\/packages\/(?!cli\/)[^/]+\/src\//)).toEqual([]);
      expect(fromPackage(loaded, /\/node_modules\/(?!tsx\/|esbuild\/|get-tsconfig\/|resolve-pkg-maps\/)/)).toEqual([]);
    }
  });

  it("lineup server listens without the MCP endpoint's code or the Runtime, and loads the endpoint with the first request to /mcp", async () => {
    const { argv, file } = recorded(["server", "--port", "0", "--data", join(work, "server")]);
    const child = spawn(process.execPath, argv, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LINEUP_TEST_MODULES: file } });
    try {
      const httpUrl = await new Promise<string>((resolveUrl, reject) => {
        let out = "";
        const seen = (chunk: Buffer) => {
          out += String(chunk);
          const match = /"httpUrl":"([^"]+)"/.exec(out);
          if (match !== null) resolveUrl(match[1]!);
        };
        child.stdout.on("data", seen);
        child.stderr.on("data", seen);
        child.once("exit", (code) => reject(new Error(`lineup server exited (${code}) before listening: ${out}`)));
      });
      const atListen = modules(file);
      expect(fromPackage(atListen, MCP_AND_AGENT)).toEqual([]);
      // The catalog's bundle checks come from the bundle format's own entry, not the Runtime's.
      expect(fromPackage(atListen, /\/packages\/runtime\/src\/(index|node\/)/)).toEqual([]);
      expect(fromPackage(atListen, /\/packages\/runtime\/src\/bundle\.ts$/)).toHaveLength(1);
      // On SQLite, the PostgreSQL client is never loaded.
      expect(fromPackage(atListen, /\/node_modules\/pg(-[a-z]+)?\//)).toEqual([]);
      expect(fromPackage(atListen, /\/node_modules\/better-sqlite3\//).length).toBeGreaterThan(0);

      // The first request to /mcp loads the endpoint, which answers it: no token is 401 `unauthorized`.
      const answer = await fetch(`${httpUrl}/mcp?session=new`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }) });
      expect(answer.status).toBe(401);
      expect(((await answer.json()) as { error: { data: { code: string } } }).error.data.code).toBe("unauthorized");
      expect(fromPackage(modules(file), /\/packages\/mcp-server\/src\/node\/http-endpoint\.ts$/)).toHaveLength(1);
    } finally {
      child.kill();
    }
  }, 60_000);
});
