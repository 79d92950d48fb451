/**
 * The published packages work outside this repository: every package is packed as the registry would
 * get it (scripts/pack.ts), the tarballs are installed into a fresh project in a temporary directory
 * (from the tarballs and the npm cache), and that project — with no access to the workspace — builds
 * an app with the published surface SDK and `lineup build-app`, and runs the demo agent with the
 * published agent SDK against an AppServer started from the published package; a device then talks to
 * that agent over the wire and gets its answer.
 *
 * better-sqlite3 is installed with scripts off and given the native addon this machine already built,
 * so the test never compiles or downloads it.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RawDevice } from "../packages/agent-sdk/test/raw-device.js";
import { packPackages, PUBLISHED_PACKAGES, type PackedPackage } from "../scripts/pack.js";

const ROOT = resolve(import.meta.dirname, "..");

let dir: string;
let project: string;
let packed: PackedPackage[];
let agentProcess: ChildProcess | undefined;

const published = (name: string): Record<string, unknown> => JSON.parse(readFileSync(join(project, "node_modules", name, "package.json"), "utf8")) as Record<string, unknown>;
const run = (file: string, args: string[]): string => execFileSync(file, args, { cwd: project, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "lineup-packages-"));
  packed = packPackages(join(dir, "tarballs"));
  project = join(dir, "project");
  cpSync(join(ROOT, "packages/surface-sdk/test/fixtures/tiny-app"), join(project, "tiny-app"), { recursive: true });
  const dependencies = Object.fromEntries(packed.map((p) => [p.name, `file:${p.tarball}`]));
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "lineup-consumer", private: true, type: "module", dependencies }, null, 2));
  execFileSync("npm", ["install", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: project, stdio: ["ignore", "ignore", "pipe"] });
  cpSync(join(ROOT, "node_modules/better-sqlite3/build"), join(project, "node_modules/better-sqlite3/build"), { recursive: true });
}, 240_000);

afterAll(() => {
  agentProcess?.kill();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe("the published packages, installed outside the repository", () => {
  it("are all packed, each with the licence, engines and typed exports without the source condition", () => {
    expect(packed.map((p) => p.name)).toEqual(PUBLISHED_PACKAGES.map((dir) => `@lineup/${dir}`));
    for (const { name } of packed) {
      const manifest = published(name);
      expect(manifest["license"], name).toBe("Apache-2.0");
      expect(manifest["engines"], name).toEqual({ node: ">=20" });
      expect(existsSync(join(project, "node_modules", name, "LICENSE")), name).toBe(true);
      expect(JSON.stringify(manifest["exports"]), name).not.toContain('"source"');
      for (const [entry, conditions] of Object.entries(manifest["exports"] as Record<string, Record<string, string>>)) {
        expect(existsSync(join(project, "node_modules", name, conditions["types"]!)), `${name} ${entry} types`).toBe(true);
        expect(existsSync(join(project, "node_modules", name, conditions["default"]!)), `${name} ${entry}`).toBe(true);
      }
    }
  });

  it("keep native and Node-only modules out of what a browser user installs", () => {
    expect(Object.keys((published("@lineup/runtime")["dependencies"] as object) ?? {})).not.toContain("better-sqlite3");
    expect(Object.keys((published("@lineup/runtime")["dependencies"] as object) ?? {})).not.toContain("ws");
    expect(Object.keys((published("@lineup/agent-sdk")["dependencies"] as object) ?? {})).not.toContain("ws");
    expect(Object.keys((published("@lineup/surface-sdk")["dependencies"] as object) ?? {})).not.toContain("esbuild");
    expect(Object.keys((published("@lineup/protocol")["dependencies"] as object) ?? {})).not.toContain("ajv");
  });

  it("import from every entry point in Node", { timeout: 60_000 }, () => {
    const entries = packed.flatMap(({ name }) => Object.keys(published(name)["exports"] as object).map((entry) => (entry === "." ? name : `${name}/${entry.slice(2)}`)));
    const script = entries.map((specifier) => `await import(${JSON.stringify(specifier)});`).join("\n");
    writeFileSync(join(project, "imports.mjs"), `${script}\nconsole.log("imported ${entries.length}");\n`);
    expect(run(process.execPath, ["imports.mjs"]).trim()).toBe(`imported ${entries.length}`);
  });

  it("run their bins through the shebang", { timeout: 60_000 }, () => {
    for (const bin of ["lineup", "lineup-app-server", "lineup-build-app"]) {
      expect(readFileSync(join(project, "node_modules/.bin", bin), "utf8").startsWith("#!/usr/bin/env node\n"), bin).toBe(true);
    }
    expect(run(join(project, "node_modules/.bin/lineup"), ["--version"]).trim()).toMatch(/\d+\.\d+\.\d+/);
  });

  it("build an app with the published surface SDK and `lineup build-app`", { timeout: 120_000 }, () => {
    run(join(project, "node_modules/.bin/lineup"), ["build-app", "tiny-app", "--out", "tiny-app/dist"]);
    const manifest = JSON.parse(readFileSync(join(project, "tiny-app/dist/lineup.app.json"), "utf8")) as { tools: Array<{ method: string }> };
    expect(manifest.tools.map((t) => t.method)).toEqual(["tiny.echo"]);
    const html = readFileSync(join(project, "tiny-app/dist/index.html"), "utf8");
    expect(html).toContain("<script");
    expect(html).not.toContain("/src/");
  });

  it("run the demo agent with the published agent SDK against an AppServer started from the tarballs", { timeout: 120_000 }, async () => {
    writeFileSync(
      join(project, "agent.mjs"),
      [
        'import { silentLogger, startAppServer } from "@lineup/app-server";',
        'import { runDemoAgent } from "@lineup/agent-sdk";',
        'import { connectAgent } from "@lineup/agent-sdk/node";',
        'const server = await startAppServer({ dataDir: process.argv[2], port: 0, logger: silentLogger });',
        "const client = await connectAgent({ url: server.url, token: server.devCredentials.agent_token });",
        "runDemoAgent(client);",
        "console.log(JSON.stringify({ url: server.url, token: server.devCredentials.device_token }));",
      ].join("\n"),
    );
    agentProcess = spawn(process.execPath, ["agent.mjs", join(dir, "server-data")], { cwd: project, stdio: ["ignore", "pipe", "inherit"] });
    const firstLine = await new Promise<string>((resolveLine, reject) => {
      createInterface({ input: agentProcess!.stdout! }).once("line", resolveLine);
      agentProcess!.once("exit", (code) => reject(new Error(`agent.mjs exited with ${String(code)}`)));
    });
    const { url, token } = JSON.parse(firstLine) as { url: string; token: string };
    const device = await RawDevice.connect(url, token);
    try {
      await device.startSession("s-published");
      await device.startTurn("s-published", "hello", "t-hello");
      expect((await device.waitForTurnEnd("s-published", "t-hello", 20_000)).kind).toBe("turn.completed");
      const reply = await device.waitForEnvelope("s-published", "lineup.message", 1, 20_000);
      expect(reply.sender.kind).toBe("agent");
    } finally {
      device.close();
    }
  });
});
