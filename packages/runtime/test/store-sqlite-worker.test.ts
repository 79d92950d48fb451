// The SQLite store with its engine on a worker thread (`thread: "worker"`): the shared contract, the
// SQLite specifics of store-sqlite.test.ts, what happens when the worker dies, and kill -9 of a process
// mid-commit.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../src/node/index.js";
import { SqliteWorkerEngine } from "../src/node/sqlite-worker-engine.js";
import type { StoreSchema, StoreValue, StoreWrite } from "../src/index.js";
import { runStoreContract } from "./store-contract.js";
import { expectAcknowledgedBatchesKept, freshDbPaths, killAfterFirstBatch, type CrashChild } from "./sqlite-test-helpers.js";
import { expectStoreError, seededRandom } from "./store-test-helpers.js";
import { slack } from "../../../test/support/soak.js";

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "lineup-sqlite-worker-"));
}

runStoreContract("sqlite (worker)", async () => {
  const dir = tempDir();
  return {
    open: (schema) => openSqliteStore({ path: join(dir, "store.db"), schema, thread: "worker" }),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

const schema: StoreSchema = { collections: ["items"], migrations: [] };
const put = (key: string, value: StoreValue): StoreWrite => ({ op: "put", collection: "items", key, value });

describe("SQLite store on a worker thread", () => {
  const freshPath = freshDbPaths(tempDir);

  it("reports a sound file through integrityCheck(), and store_closed after close", async () => {
    const store = await openSqliteStore({ path: freshPath(), schema, thread: "worker" });
    await store.commit([put("a", { ok: true })]);
    expect(await store.integrityCheck()).toBe(true);
    await store.close();
    await expectStoreError(store.integrityCheck(), "store_closed");
    await expectStoreError(store.commit([put("b", 1)]), "store_closed");
    await expectStoreError(store.get("items", "a"), "store_closed");
  });

  it("refuses a file that is not a database with store_corrupt", async () => {
    const path = freshPath();
    writeFileSync(path, "this is not a SQLite database, just some text that is long enough to have a header".repeat(20));
    const error = await expectStoreError(openSqliteStore({ path, schema, thread: "worker" }), "store_corrupt");
    expect(error.message).toMatch(/^could not open .*SQLITE_NOTADB/);
  });

  it("fails to open in a missing directory with store_write_failed", async () => {
    await expectStoreError(openSqliteStore({ path: join(freshPath(), "missing", "store.db"), schema, thread: "worker" }), "store_write_failed");
  });

  it.each(["main", "worker"] as const)("refuses a file from a newer storage layout with store_migration_failed (%s)", async (thread) => {
    const path = freshPath();
    const db = new Database(path);
    db.pragma("user_version = 2");
    db.close();
    const error = await expectStoreError(openSqliteStore({ path, schema, thread }), "store_migration_failed");
    expect(error.message).toBe(`${path} has storage layout 2; this version reads up to 1`);
  });

  it("maps a full database to store_quota_exceeded with a message and no stack, and applies nothing of that batch", async () => {
    const store = await openSqliteStore({ path: freshPath(), schema, maxBytes: 64 * 1024, thread: "worker" });
    await store.commit([put("small", "fits")]);
    const error = await expectStoreError(store.commit([put("first", "would fit alone"), put("big", new Uint8Array(200 * 1024))]), "store_quota_exceeded");
    expect(error.message).toMatch(/^commit failed: SQLITE_FULL /);
    expect(error.message).not.toMatch(/\n\s+at /);
    expect((await store.range("items")).map((entry) => entry.key)).toEqual(["small"]);
    await store.commit([put("after", "still writable")]);
    expect(await store.count("items")).toBe(2);
    expect(await store.integrityCheck()).toBe(true);
    await store.close();
  });

  it("reads what the main-thread engine wrote, and the other way round", async () => {
    const path = freshPath();
    const bytes = Uint8Array.from({ length: 300 }, (_, i) => i % 256);
    const main = await openSqliteStore({ path, schema });
    await main.commit([put("json", { from: "main" }), put("bytes", bytes)]);
    await main.close();
    const worker = await openSqliteStore({ path, schema, thread: "worker" });
    expect(await worker.getMany([{ collection: "items", key: "json" }, { collection: "items", key: "bytes" }])).toEqual([{ from: "main" }, bytes]);
    await worker.commit([put("json", { from: "worker" }), { op: "deleteRange", collection: "items", range: { prefix: "bytes" } }]);
    await worker.close();
    const again = await openSqliteStore({ path, schema });
    expect(await again.range("items")).toEqual([{ key: "json", value: { from: "worker" } }]);
    await again.close();
  });

  it("close() lets commits already made finish, in order, then every call is store_closed", async () => {
    const path = freshPath();
    const store = await openSqliteStore({ path, schema, thread: "worker" });
    const commits = Array.from({ length: 20 }, (_, n) => store.commit([put("last", n), put(`k${String(n).padStart(2, "0")}`, n)]));
    const closed = store.close();
    await expect(Promise.all(commits)).resolves.toHaveLength(20);
    await closed;
    await expectStoreError(store.commit([put("late", 1)]), "store_closed");
    const reopened = await openSqliteStore({ path, schema, thread: "worker" });
    expect(await reopened.get("items", "last")).toBe(19);
    expect(await reopened.count("items")).toBe(21);
    await reopened.close();
  });

  it("fails the commit in flight and every later call with store_write_failed / store_read_failed when the worker dies", async () => {
    const engine = await SqliteWorkerEngine.open(freshPath(), undefined);
    const worker = (engine as unknown as { worker: Worker }).worker;
    const value = { kind: "json", text: JSON.stringify("x".repeat(1000)) } as const;
    const writes = Array.from({ length: 500 }, (_, n) => ({ op: "put", collection: "items", key: `k${n}`, value }) as const);
    const inFlight = engine.apply(writes);
    const read = engine.get("items", "k1");
    void worker.terminate(); // as if the thread crashed: nothing asked it to stop
    const writeError = await expectStoreError(inFlight, "store_write_failed");
    expect(writeError.message).toMatch(/^commit failed: the SQLite worker stopped unexpectedly/);
    // The read was served on the calling thread's own connection before the worker died: the last
    // committed state, which the batch in flight never reached.
    expect(await read).toBeUndefined();
    await expectStoreError(engine.apply(writes), "store_write_failed");
    await expectStoreError(engine.get("items", "k1"), "store_read_failed");
    await expectStoreError(engine.count("items", { lower: "a", lowerOpen: false, upper: "z", upperOpen: false }), "store_read_failed");
    await expectStoreError(engine.integrityCheck(), "store_read_failed");
    await engine.close();
  });
});

const REPO_ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const NODE_ENTRY = pathToFileURL(fileURLToPath(new URL("../src/node/index.ts", import.meta.url))).href;

/** Runs `code` (an ES module that may import `entry`, the Node adapters' source) in a child Node with tsx. */
function spawnChild(code: string, args: string[]): CrashChild {
  return spawn(process.execPath, ["--conditions=source", "--import", "tsx", "--input-type=module", "--eval", code, "--", ...args], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, LINEUP_NODE_ENTRY: NODE_ENTRY },
  });
}

// As test/fixtures/sqlite-crash-child.ts, on the worker engine: commits numbered batches of three keys and
// prints each number only after its commit resolved.
const CRASH_CHILD = `
  const { openSqliteStore } = await import(process.env.LINEUP_NODE_ENTRY);
  const [path, run] = process.argv.slice(-2);
  const store = await openSqliteStore({ path, schema: { collections: ["batches"], migrations: [] }, thread: "worker" });
  const padding = "x".repeat(512);
  for (let n = 0; ; n++) {
    const batch = "r" + run + "/b" + String(n).padStart(7, "0");
    await store.commit([0, 1, 2].map((part) => ({ op: "put", collection: "batches", key: batch + "/k" + part, value: { n, part, padding } })));
    process.stdout.write(n + "\\n");
  }
`;

/** Starts the crash child and kills it with SIGKILL `delayMs` after its first acknowledged batch; returns the batches it acknowledged. */
function runAndKill(path: string, run: number, delayMs: number): Promise<number[]> {
  return killAfterFirstBatch(spawnChild(CRASH_CHILD, [path, String(run)]), delayMs);
}

describe("SQLite store on a worker thread, in a child process", () => {
  const dir = mkdtempSync(join(tmpdir(), "lineup-crash-worker-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps every acknowledged batch under kill -9, never a partial one, and stays sound", async () => {
    const path = join(dir, "crash.db");
    const random = seededRandom(0x5eed);
    const acknowledgedByRun: number[][] = [];
    for (let run = 0; run < 4; run++) {
      acknowledgedByRun.push(await runAndKill(path, run, Math.floor(random() * 120)));
      await expectAcknowledgedBatchesKept(await openSqliteStore({ path, schema: { collections: ["batches"], migrations: [] }, thread: "worker" }), acknowledgedByRun);
    }
  }, slack(60_000));

  it("does not keep an idle process alive when the store is left open", async () => {
    const path = join(dir, "idle.db");
    const child = spawnChild(
      `
        const { openSqliteStore } = await import(process.env.LINEUP_NODE_ENTRY);
        const store = await openSqliteStore({ path: process.argv.at(-1), schema: { collections: ["items"], migrations: [] }, thread: "worker" });
        await store.commit([{ op: "put", collection: "items", key: "a", value: 1 }]);
        process.stdout.write("committed\\n");
      `,
      [path],
    );
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error("the child is still running with an idle store"));
      }, slack(8_000));
      child.on("close", (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
    expect(exitCode).toBe(0);
    expect(stdout).toBe("committed\n");
  });
});
