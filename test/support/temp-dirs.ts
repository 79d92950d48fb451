/**
 * Plumbing the end-to-end tests share: temporary directories removed after the file, and a wait on real time
 * for a condition another process or socket makes true.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { slack } from "./soak.js";

/** `temp(prefix)` makes a fresh directory under the system's temporary one; every one is removed after the file. */
export function tempDirs(): (prefix: string) => string {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  return (prefix) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
}

/** Polls `predicate` every 10 ms until it holds; fails with `what` after `ms` (longer under the soak: `slack`). */
export async function until(predicate: () => boolean, ms = 10_000, what = "condition"): Promise<void> {
  const deadline = Date.now() + slack(ms);
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
