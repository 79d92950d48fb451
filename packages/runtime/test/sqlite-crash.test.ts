import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, it } from "vitest";
import { openSqliteStore } from "../src/node/index.js";
import { expectAcknowledgedBatchesKept, killAfterFirstBatch } from "./sqlite-test-helpers.js";
import { seededRandom } from "./store-test-helpers.js";
import { slack } from "../../../test/support/soak.js";

const REPO_ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const CHILD = fileURLToPath(new URL("./fixtures/sqlite-crash-child.ts", import.meta.url));
const RUNS = 8;
const SEED = 0x5eed;

/** Starts the child and kills it with SIGKILL `delayMs` after its first acknowledged batch; returns the batches it acknowledged. */
function runAndKill(path: string, run: number, delayMs: number): Promise<number[]> {
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", CHILD, path, String(run)], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return killAfterFirstBatch(child, delayMs);
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

      await expectAcknowledgedBatchesKept(await openSqliteStore({ path, schema: { collections: ["batches"], migrations: [] } }), acknowledgedByRun);
    }
  }, slack(60_000));
});
