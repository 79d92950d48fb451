/**
 * What the SQLite store's tests share (Node only): fresh database paths removed after each test, and
 * the kill -9 check of sqlite-crash.test.ts and store-sqlite-worker.test.ts — a child that commits
 * numbered batches of three keys and prints each number once its commit resolved, killed at a random
 * moment, then every acknowledged batch looked for in the file it left.
 */
import type { ChildProcessByStdio } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { afterEach, expect } from "vitest";
import type { SqliteRuntimeStore } from "../src/node/index.js";
import { slack } from "../../../test/support/soak.js";

/**
 * For a `describe` block: a function giving a `store.db` path in a new directory from `tempDir` on each
 * call; an `afterEach` removes every directory it handed out.
 */
export function freshDbPaths(tempDir: () => string): () => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = tempDir();
    dirs.push(dir);
    return join(dir, "store.db");
  };
}

/** A crash child: stdin ignored, stdout and stderr piped. */
export type CrashChild = ChildProcessByStdio<null, Readable, Readable>;

/**
 * Waits until `child` has acknowledged at least one batch, lets it run `delayMs` more and kills it with
 * SIGKILL. Returns the batch numbers it acknowledged (complete lines only).
 */
export async function killAfterFirstBatch(child: CrashChild, delayMs: number): Promise<number[]> {
  let stdout = "";
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`child never acknowledged a batch; stderr:\n${stderr}`)), slack(8_000));
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      if (stdout.includes("\n")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on("close", () => {
      clearTimeout(timer);
      reject(new Error(`child exited early; stderr:\n${stderr}`));
    });
  });
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  child.kill("SIGKILL");
  await exited; // and with it, everything the child managed to write into the pipe
  expect(child.signalCode).toBe("SIGKILL");
  return stdout
    .split("\n")
    .slice(0, -1) // the text after the last newline is a line the child was cut off writing
    .map(Number);
}

/**
 * Expects `store` (the crash children's file, reopened after the latest kill) to be sound and to hold,
 * for every run so far, each batch that run acknowledged, all three keys of every batch it holds, and at
 * most one batch more than acknowledged. Closes `store` either way.
 */
export async function expectAcknowledgedBatchesKept(store: SqliteRuntimeStore, acknowledgedByRun: readonly (readonly number[])[]): Promise<void> {
  try {
    expect(await store.integrityCheck()).toBe(true);
    // Every run so far, including the ones recovered earlier: the same file is reopened after each kill.
    for (const [earlierRun, acknowledged] of acknowledgedByRun.entries()) {
      const parts = new Map<number, number>();
      for (const { key } of await store.range("batches", { prefix: `r${earlierRun}/` })) {
        const n = Number(key.split("/")[1]!.slice(1));
        parts.set(n, (parts.get(n) ?? 0) + 1);
      }
      for (const [n, count] of parts) expect(count, `run ${earlierRun} batch ${n}`).toBe(3);
      const lastAcknowledged = acknowledged.at(-1)!;
      expect(acknowledged).toEqual(Array.from({ length: lastAcknowledged + 1 }, (_, n) => n));
      for (const n of acknowledged) expect(parts.has(n), `run ${earlierRun} acknowledged batch ${n}`).toBe(true);
      // At most one batch can be committed without having been printed: the one in flight at the kill.
      expect(Math.max(...parts.keys())).toBeLessThanOrEqual(lastAcknowledged + 1);
    }
  } finally {
    await store.close();
  }
}
