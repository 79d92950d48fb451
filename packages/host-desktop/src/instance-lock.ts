/**
 * One desktop host per profile: a lock file holding the running program's pid. A second start on the same
 * profile finds the first still running (its pid alive and its command line ours) and stops with a clear
 * message; a lock left by a program that died is taken over.
 */
import GLib from "gi://GLib";
import Gio from "gi://Gio";
import { exists, join, readText, writeText } from "./io.js";

export const PROGRAM_MARK = "lineup-desktop";

export type LockOutcome = { readonly ok: true; release(): void } | { readonly ok: false; readonly pid: number };

function isOurs(pid: number): boolean {
  const cmdline = readText(`/proc/${pid}/cmdline`);
  return cmdline !== undefined && cmdline.includes(PROGRAM_MARK);
}

export function takeInstanceLock(dataDir: string): LockOutcome {
  const path = join(dataDir, "desktop.lock");
  const self = new Gio.Credentials().get_unix_pid();
  const held = exists(path) ? Number.parseInt(readText(path) ?? "", 10) : Number.NaN;
  if (Number.isInteger(held) && held !== self && isOurs(held)) return { ok: false, pid: held };
  writeText(path, String(self));
  return {
    ok: true,
    release() {
      if (readText(path) === String(self)) GLib.unlink(path);
    },
  };
}
