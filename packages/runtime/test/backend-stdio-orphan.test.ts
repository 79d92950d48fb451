import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { processStart, reapStaleProgram, stdioPidFilePath } from "../src/node/stdio-pid-file.js";
import { until } from "./helpers/runtime-harness.js";

// A stdio back-end's program outlives a host killed outright when it ignores its stdin closing (no parent-death
// signal is relied on). The next host that starts the back-end ends it first — and only it.

const REPO_ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const CHILD = fileURLToPath(new URL("./fixtures/stdio-host-child.ts", import.meta.url));

/** Whether `pid` runs (a zombie, dead but not yet reaped by whoever adopted it, does not). */
const running = (pid: number): boolean => {
  const now = processStart(pid);
  return now !== undefined && now.state !== "Z";
};

/** Starts a host child; resolves with it and the pid of the program it started. */
function host(dataDir: string, mode: "hold" | "once"): Promise<{ child: ChildProcess; pid: number; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", CHILD, dataDir, mode], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line !== undefined) resolve({ child, pid: (JSON.parse(line) as { pid: number }).pid, exited });
    });
    void exited.then((code) => reject(new Error(`the host child ended (${code}) before its program answered: ${stderr}`)));
  });
}

const dataDir = realpathSync(mkdtempSync(join(tmpdir(), "lineup-orphan-")));
const strays: number[] = [];
afterAll(() => {
  for (const pid of strays) if (running(pid)) process.kill(pid, "SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

describe("a stdio back-end's program after its host was killed outright", () => {
  it("is killed by the next host that starts the back-end", { timeout: 60_000 }, async () => {
    const first = await host(dataDir, "hold");
    strays.push(first.pid);
    expect(first.pid).not.toBe(first.child.pid);
    first.child.kill("SIGKILL");
    await first.exited;
    // The host is gone; its program, which ignores its stdin closing, is not.
    await new Promise((r) => setTimeout(r, 300));
    expect(running(first.pid)).toBe(true);

    const second = await host(dataDir, "once");
    strays.push(second.pid);
    expect(await second.exited).toBe(0);
    await until(() => !running(first.pid), 5_000, "the orphan's end");
    // The next host's own program ran and was stopped cleanly; nothing of either is left.
    expect(second.pid).not.toBe(first.pid);
    expect(running(second.pid)).toBe(false);
  });

  it("leaves alone a process the record names that is not the program: another start time, another command", async () => {
    const sleeper = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      const pid = sleeper.pid!;
      await until(() => processStart(pid) !== undefined, 2_000, "the sleeper");
      const record = stdioPidFilePath(dataDir, "orphans", "stubborn");
      mkdirSync(dirname(record), { recursive: true });
      const entry = join(dataDir, "app-backends", "orphans", "stubborn", "x", "stubborn.mjs");
      // The pid is reused by a process started later (another start time).
      writeFileSync(record, JSON.stringify({ pid, start_ticks: "1", entry }));
      expect(reapStaleProgram(record)).toBe("not_ours");
      // The same start time, but the process runs something else (a forged or mistaken record).
      writeFileSync(record, JSON.stringify({ pid, start_ticks: processStart(pid)!.start_ticks, entry }));
      expect(reapStaleProgram(record)).toBe("not_ours");
      expect(running(pid)).toBe(true);
      // A record of a process that ended, or one that is not a record, is dropped.
      const start = processStart(pid)!.start_ticks;
      sleeper.kill("SIGKILL");
      await new Promise((r) => sleeper.on("close", r));
      writeFileSync(record, JSON.stringify({ pid, start_ticks: start, entry }));
      expect(reapStaleProgram(record)).toBe("gone");
      writeFileSync(record, "garbage");
      expect(reapStaleProgram(record)).toBe("none");
      expect(reapStaleProgram(record)).toBe("none");
    } finally {
      sleeper.kill("SIGKILL");
    }
  });
});
