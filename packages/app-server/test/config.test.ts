/**
 * The server's settings: flag over environment over config file over default; `--help` lists every one
 * with its flag, variable and default; bad values and unknown keys are usage errors. The bin follows
 * the command-line conventions as a real process (help on stdout and 0, a busy port one line and 1).
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { DEFAULT_SERVER_LIMITS, isUsageError } from "@lineup/protocol";
import { afterAll, describe, expect, it } from "vitest";
import { SERVER_SETTINGS, defaultDataDir, resolveServerConfig, serverHelp, settingEnv, settingFlag } from "../src/index.js";
import { tempDir } from "./helpers.js";

const dir = tempDir("lineup-config-");
afterAll(() => dir.remove());

const file = (name: string, body: unknown) => {
  const path = join(dir.path, name);
  writeFileSync(path, typeof body === "string" ? body : JSON.stringify(body));
  return path;
};

describe("server settings", () => {
  it("--help lists every setting with its flag, variable and default", () => {
    const help = serverHelp();
    expect(help.split("\n")[0]).toMatch(/^usage: lineup server/);
    for (const setting of SERVER_SETTINGS) {
      const row = help.split("\n").find((l) => l.trimStart().startsWith(`--${settingFlag(setting)} `));
      expect(row, setting.key).toBeDefined();
      expect(row).toContain(settingEnv(setting));
      expect(row).toContain(String(setting.fallback));
    }
    expect(help).toContain("LINEUP_CONFIG");
  });

  it("takes the flag over the environment over the config file over the default", () => {
    const config = file("server.json", { port: 9001, host: "127.0.0.2", log_level: "warn", max_batch: 8, heartbeat_interval_ms: 5000 });
    const resolved = resolveServerConfig({ config, host: "127.0.0.3" }, { LINEUP_PORT: "9002", HOME: "/home/x" });
    expect(resolved).toMatchObject({ port: 9002, host: "127.0.0.3", log_level: "warn", heartbeat_interval_ms: 5000, drain_timeout_ms: 10_000 });
    expect(resolved.limits).toEqual({ ...DEFAULT_SERVER_LIMITS, max_batch: 8 });
    expect(resolveServerConfig({}, { LINEUP_CONFIG: config }).port).toBe(9001);
    expect(resolveServerConfig({ "max-batch": "3" }, { LINEUP_MAX_BATCH: "4" }).limits.max_batch).toBe(3);
  });

  it("puts data in one per-user place unless told: LINEUP_DATA_DIR, else $XDG_DATA_HOME/lineup, else ~/.local/share/lineup", () => {
    expect(defaultDataDir({})).toBe(join(homedir(), ".local", "share", "lineup"));
    expect(defaultDataDir({ XDG_DATA_HOME: "/xdg" })).toBe("/xdg/lineup");
    expect(defaultDataDir({ XDG_DATA_HOME: "/xdg", LINEUP_DATA_DIR: "rel" })).toBe(resolve("rel"));
    expect(resolveServerConfig({}, { XDG_DATA_HOME: "/xdg" }).data).toBe("/xdg/lineup");
    expect(resolveServerConfig({ data: "d" }, { LINEUP_DATA_DIR: "/e" }).data).toBe(resolve("d"));
  });

  it("refuses bad values and unknown config keys as usage errors, and an unreadable config file as a failure", () => {
    const refused = (f: () => unknown) => {
      try {
        f();
      } catch (error) {
        return error;
      }
      throw new Error("accepted");
    };
    for (const bad of [() => resolveServerConfig({ port: "70000" }, {}), () => resolveServerConfig({}, { LINEUP_LOG_LEVEL: "loud" }), () => resolveServerConfig({ "max-batch": "0" }, {})]) {
      expect(isUsageError(refused(bad))).toBe(true);
    }
    const unknown = refused(() => resolveServerConfig({ config: file("unknown.json", { prot: 1 }) }, {})) as Error;
    expect(isUsageError(unknown)).toBe(true);
    expect(unknown.message).toContain("unknown settings: prot");
    const notJson = refused(() => resolveServerConfig({ config: file("bad.json", "{port:") }, {})) as Error;
    expect(isUsageError(notJson)).toBe(false);
    expect(notJson.message).toMatch(/not valid JSON/);
    expect((refused(() => resolveServerConfig({ config: join(dir.path, "none.json") }, {})) as Error).message).toMatch(/cannot read the config file .*ENOENT/);
  });
});

describe("the lineup-app-server bin", () => {
  const bin = join(import.meta.dirname, "..", "src", "bin.ts");
  const run = (args: string[]) => spawnSync(process.execPath, ["--conditions=source", "--import", "tsx", bin, ...args], { encoding: "utf8", timeout: 30_000, cwd: resolve(import.meta.dirname, "..", "..", "..") });

  it("prints its help to stdout and exits 0 (the other conventions: packages/cli/test/conventions.test.ts)", () => {
    const help = run(["--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout.trimEnd()).toBe(serverHelp());
  }, 60_000);

  it("on a busy port prints one line without a stack trace and exits 1", async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, "127.0.0.1", r));
    const port = (busy.address() as { port: number }).port;
    try {
      const result = run(["--data", join(dir.path, "busy"), "--port", String(port), "--log-level", "silent"]);
      expect(result.status).toBe(1);
      expect(result.stderr).toBe(`lineup-app-server: port ${port} on 127.0.0.1 is in use\n`);
    } finally {
      await new Promise((r) => busy.close(r));
    }
  }, 60_000);
});
