/**
 * The record of a running `stdio-jsonrpc` program, so that one a killed host left behind is ended at the next start
 * (docs/security.md "Back-ends an app runs"). A host killed outright (SIGKILL, OOM, power) closes its programs'
 * stdin, and a program that ignores that lives on: no parent-death signal reaches it (`setpriv --pdeathsig` was not
 * delivered on the machine this was written on).
 *
 * The record lives at `<dataDir>/app-backend-pids/<app>/<id>.json`, outside both of the program's folders (it can
 * neither read nor write it, so it cannot name another process for the host to kill). It holds the pid, the process's
 * start time (`/proc/<pid>/stat` field 22, clock ticks since boot: the same across the `exec`s of the wrappers) and
 * the entry path the program was started with. A stale record's process is killed only when all three still match —
 * a pid the kernel has since given to another process has another start time, and its command line does not name
 * the entry — so the host kills nothing but its own program. Where there is no `/proc` (macOS) nothing is recorded
 * and nothing is killed: there an orphan lives until it exits by itself.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

interface PidRecord {
  readonly pid: number;
  readonly start_ticks: string;
  readonly entry: string;
}

/** Where the record of app `appScope`'s back-end `backendId` is kept under the host's (real) data folder. */
export function stdioPidFilePath(dataRoot: string, appScope: string, backendId: string): string {
  return join(dataRoot, "app-backend-pids", appScope, `${backendId}.json`);
}

/** A process's start time and state from `/proc/<pid>/stat`, or `undefined` when it is gone or there is no `/proc`. */
export function processStart(pid: number): { readonly start_ticks: string; readonly state: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) is in parentheses and may hold spaces or parentheses: count from the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const start = fields[19];
    return start === undefined || fields[0] === undefined ? undefined : { start_ticks: start, state: fields[0] };
  } catch {
    return undefined;
  }
}

function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return [];
  }
}

function readRecord(path: string): PidRecord | undefined {
  try {
    const value = JSON.parse(readFileSync(path, "utf8")) as Partial<PidRecord>;
    if (!Number.isSafeInteger(value.pid) || typeof value.start_ticks !== "string" || typeof value.entry !== "string") return undefined;
    return value as PidRecord;
  } catch {
    return undefined;
  }
}

/**
 * Ends the program a record at `path` names if it still runs and is ours (pid, start time and entry all match), and
 * removes the record. Returns what it found: `none` (no record), `gone` (the process ended, or is a zombie), `not_ours`
 * (the pid is another process now: left alone) or `killed` (sent SIGKILL).
 */
export function reapStaleProgram(path: string): "none" | "gone" | "not_ours" | "killed" {
  const record = readRecord(path);
  let found: "none" | "gone" | "not_ours" | "killed" = "none";
  if (record !== undefined) {
    const now = record.pid > 1 && record.pid !== process.pid ? processStart(record.pid) : undefined;
    if (now === undefined || now.state === "Z") found = "gone";
    else if (now.start_ticks !== record.start_ticks || !commandLine(record.pid).includes(record.entry)) found = "not_ours";
    else {
      try {
        process.kill(record.pid, "SIGKILL");
        found = "killed";
      } catch {
        found = "gone";
      }
    }
  }
  rmSync(path, { force: true });
  return found;
}

/** Records a program just started (written aside, then renamed); nothing where `/proc` does not say its start time. */
export function recordProgram(path: string, pid: number, entry: string): void {
  const start = processStart(pid);
  if (start === undefined) return;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, JSON.stringify({ pid, start_ticks: start.start_ticks, entry } satisfies PidRecord), { mode: 0o600 });
  renameSync(partial, path);
}

/** Removes the record once its program ended — only if it still names that program (a newer one may have replaced it). */
export function forgetProgram(path: string, pid: number): void {
  if (readRecord(path)?.pid === pid) rmSync(path, { force: true });
}
