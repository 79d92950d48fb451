import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../src/node/index.js";
import { seededRandom } from "./store-test-helpers.js";

const REPO_ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const CHILD = fileURLToPath(new URL("./fixtures/sqlite-crash-child.ts", import.meta.url));
const RUNS = 8;
const SEED = 0x5eed;

/**
 * Starts the child, waits until it has acknowledged at least one batch, lets it run `delayMs` more and
 * kills it with SIGKILL. Returns the batch numbers it acknowledged (complete lines only).
 */
async function runAndKill(path: string, run: number, delayMs: number): Promise<number[]> {
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", CHILD, path, String(run)], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`child never acknowledged a batch; stderr:\n${stderr}`)), 8_000);
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

describe("SQLite store under kill -9", () => {
  const dir = mkdtempSync(join(tmpdir(), "lineup-crash-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps every acknowledged batch, never a partial one, and stays sound", async () => {
    const path = join(dir, "store.db");
    const random = seededRandom(SEED);
    const acknowledgedByRun: number[][] = [];

    for (let run = 0; run < RUNS; run++) {
      acknowledgedByRun.push(await runAndKill(path, run, Math.floor(random() * 120)));

      const store = await openSqliteStore({ path, schema: { collections: ["batches"], migrations: [] } });
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
  });
});
