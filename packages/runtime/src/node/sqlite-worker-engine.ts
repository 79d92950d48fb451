// The SQLite store's engine on a `node:worker_threads` Worker: the worker owns the better-sqlite3
// Database (same layout, WAL, synchronous=FULL), so a commit's fsync blocks the worker and not the
// caller's JavaScript. Writes go over the worker's port and are answered in order, one at a time.
// Reads run on the calling thread, on a read-only connection of the same file (`sqlite-reader.ts`):
// WAL gives them the last committed transaction without waiting for one in flight.
//
// The worker body is a self-contained CommonJS source string run with `eval: true`: it loads the same
// way from TypeScript sources (vitest, tsx) and from the built `dist/`, with no loader in the worker.
// better-sqlite3's path is resolved here and handed over in `workerData`.
import { createRequire } from "node:module";
import Database from "better-sqlite3";
import { Worker } from "node:worker_threads";
import type { EncodedEntry, EncodedKeyRef, PreparedWrite, RangeOptions, StorageEngine } from "../persistence/engine.js";
import type { KeyBounds } from "../persistence/key-range.js";
import { StoreError, type StoreErrorCode } from "../persistence/store-error.js";
import type { EncodedValue } from "../persistence/value-codec.js";
import { toStoreErrorFromSqlite } from "./sqlite-errors.js";
import { CREATE_TABLE_SQL, DELETE_SQL, LAYOUT_VERSION, PUT_SQL, deleteRangeSql } from "./sqlite-layout.js";
import { SqliteReader } from "./sqlite-reader.js";

/**
 * Writes travel as one flat array, the cheapest shape to clone: `0, collection, key, value` for a put
 * (a string value is JSON text, a Uint8Array is bytes), `1, collection, key` for a delete and
 * `2, sql, collection, lower, upper` for a deleteRange.
 */
type WireWrites = Array<number | string | Uint8Array>;

type Request =
  | { readonly op: "apply"; readonly writes: WireWrites }
  | { readonly op: "integrity" }
  | { readonly op: "close" };

/** What is left of an error after it crossed the thread boundary: its message and codes, never its stack. */
interface WireError {
  readonly message: string;
  /** better-sqlite3's `SQLITE_*` code, or "". */
  readonly sqliteCode: string;
  /** better-sqlite3 throws a TypeError for a closed connection. */
  readonly typeError: boolean;
  /** Set when the worker itself decided the code (a newer layout), or "". */
  readonly storeCode: "store_migration_failed" | "";
}

type Reply = { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly error: WireError };

interface Pending {
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: StoreError) => void;
  /** The code a failure of this request gets when SQLite's own code says nothing more precise. */
  readonly fallback: StoreErrorCode;
  readonly action: string;
}

const WORKER_SOURCE = String.raw`"use strict";
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driverPath);
const { path, maxBytes, layoutVersion, sql } = workerData;

let db;
let applyBatch;
const statements = new Map();
const prepare = (text) => {
  let statement = statements.get(text);
  if (statement === undefined) {
    statement = db.prepare(text);
    statements.set(text, statement);
  }
  return statement;
};

function open() {
  db = new Database(path);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL");
    if (maxBytes !== undefined) {
      const pageSize = db.pragma("page_size", { simple: true });
      db.pragma("max_page_count = " + Math.max(1, Math.floor(maxBytes / pageSize)));
    }
    const layout = db.pragma("user_version", { simple: true });
    if (layout > layoutVersion) {
      const error = new Error(path + " has storage layout " + layout + "; this version reads up to " + layoutVersion);
      error.storeCode = "store_migration_failed";
      throw error;
    }
    db.exec(sql.createTable);
  } catch (error) {
    db.close();
    throw error;
  }
  const put = db.prepare(sql.put);
  const del = db.prepare(sql.delete);
  const batch = db.transaction((writes) => {
    for (let i = 0; i < writes.length; ) {
      switch (writes[i]) {
        case 0: {
          const value = writes[i + 3];
          put.run(writes[i + 1], writes[i + 2], typeof value === "string" ? "json" : "bytes", value);
          i += 4;
          break;
        }
        case 1:
          del.run(writes[i + 1], writes[i + 2]);
          i += 3;
          break;
        case 2:
          prepare(writes[i + 1]).run(writes[i + 2], writes[i + 3], writes[i + 4]);
          i += 5;
          break;
        default:
          throw new Error("unknown write tag " + String(writes[i]));
      }
    }
  });
  // IMMEDIATE takes the write lock up front, so a batch never fails half-way on a lock upgrade.
  applyBatch = (writes) => batch.immediate(writes);
}

const handlers = {
  apply: (request) => applyBatch(request.writes),
  integrity: () => db.pragma("integrity_check", { simple: false }).map((found) => found.integrity_check),
  close: () => {
    db.close();
  },
};

const wireError = (error) => {
  const fields = typeof error === "object" && error !== null ? error : {};
  return {
    message: error instanceof Error ? error.message : String(error),
    sqliteCode: typeof fields.code === "string" ? fields.code : "",
    typeError: error instanceof TypeError,
    storeCode: fields.storeCode === "store_migration_failed" ? fields.storeCode : "",
  };
};

const answer = (run) => {
  try {
    const result = run();
    parentPort.postMessage({ ok: true, result: result === undefined ? null : result });
  } catch (error) {
    parentPort.postMessage({ ok: false, error: wireError(error) });
  }
};

answer(open);
parentPort.on("message", (request) => answer(() => handlers[request.op](request)));
`;

let driverPath: string | undefined;

/** better-sqlite3's entry, resolved from this module so the worker loads the same copy the main thread would. */
function resolveDriver(): string {
  driverPath ??= createRequire(import.meta.url).resolve("better-sqlite3");
  return driverPath;
}

export class SqliteWorkerEngine implements StorageEngine {
  /** Requests sent (or, for the open, started) and not yet answered, oldest first. */
  private readonly pending: Pending[] = [];
  /** Why the worker is gone when it stopped on its own; every later call fails with it. */
  private stopped: string | undefined;
  private closing: Promise<void> | undefined;
  /** The calling thread's read-only connection, opened once the worker has created the file. */
  private readerDb: Database.Database | undefined;
  private reader: SqliteReader | undefined;

  private constructor(private readonly worker: Worker) {
    // Idle, the worker must not keep the process alive (an open main-thread Database does not either).
    worker.unref();
    worker.on("message", (reply: Reply) => this.settle(reply));
    let failure = "";
    worker.on("error", (error: Error) => {
      const code = (error as { code?: unknown }).code;
      failure = `${typeof code === "string" ? `${code} ` : ""}${error.message}`;
    });
    worker.on("messageerror", (error: Error) => {
      failure = `a reply could not be read: ${error.message}`;
      void worker.terminate();
    });
    worker.on("exit", (exitCode: number) => {
      if (this.closing !== undefined && this.pending.length === 0) return;
      this.stopped = `the SQLite worker stopped unexpectedly (exit code ${exitCode}${failure ? `: ${failure}` : ""})`;
      for (const request of this.pending.splice(0)) {
        request.reject(new StoreError(request.fallback, `${request.action}: ${this.stopped}; its outcome is unknown`));
      }
    });
  }

  /** Starts the worker and opens `path` in it; a failed open leaves no worker behind. */
  static async open(path: string, maxBytes: number | undefined): Promise<SqliteWorkerEngine> {
    const workerData = {
      driverPath: resolveDriver(),
      path,
      maxBytes,
      layoutVersion: LAYOUT_VERSION,
      sql: { createTable: CREATE_TABLE_SQL, put: PUT_SQL, delete: DELETE_SQL },
    };
    // No execArgv: the worker needs none of the parent's loaders (tsx, vitest) to run plain CommonJS.
    const engine = new SqliteWorkerEngine(new Worker(WORKER_SOURCE, { eval: true, workerData, execArgv: [] }));
    try {
      await engine.expectReply("store_write_failed", `could not open ${path}`);
      engine.readerDb = new Database(path, { readonly: true, fileMustExist: true });
      engine.reader = new SqliteReader(engine.readerDb);
    } catch (error) {
      await engine.worker.terminate();
      throw error instanceof StoreError ? error : toStoreErrorFromSqlite(error, "store_read_failed", `could not open ${path} for reading`);
    }
    return engine;
  }

  async apply(writes: readonly PreparedWrite[]): Promise<void> {
    const wire: WireWrites = [];
    for (const write of writes) {
      switch (write.op) {
        case "put":
          wire.push(0, write.collection, write.key, write.value.kind === "json" ? write.value.text : write.value.bytes);
          break;
        case "delete":
          wire.push(1, write.collection, write.key);
          break;
        case "deleteRange":
          wire.push(2, deleteRangeSql(write.bounds), write.collection, write.bounds.lower, write.bounds.upper);
          break;
      }
    }
    await this.request({ op: "apply", writes: wire }, "store_write_failed", "commit failed");
  }

  async get(collection: string, key: string): Promise<EncodedValue | undefined> {
    return this.readable().get(collection, key);
  }

  async getMany(keys: readonly EncodedKeyRef[]): Promise<(EncodedValue | undefined)[]> {
    return this.readable().getMany(keys);
  }

  async range(collection: string, bounds: KeyBounds, options: RangeOptions): Promise<EncodedEntry[]> {
    return this.readable().range(collection, bounds, options);
  }

  async count(collection: string, bounds: KeyBounds): Promise<number> {
    return this.readable().count(collection, bounds);
  }

  async isEmpty(): Promise<boolean> {
    return this.readable().isEmpty();
  }

  /** The reader, unless the store is closing or its worker has stopped (then reads fail as writes do). */
  private readable(): SqliteReader {
    if (this.closing !== undefined) throw new StoreError("store_closed", "the store is closed");
    if (this.stopped !== undefined) throw new StoreError("store_read_failed", `read failed: ${this.stopped}`);
    if (this.reader === undefined) throw new StoreError("store_read_failed", "read failed: the store is not open");
    return this.reader;
  }

  async integrityCheck(): Promise<boolean> {
    try {
      const results = (await this.request({ op: "integrity" }, "store_read_failed", "integrity check failed")) as string[];
      return results.length === 1 && results[0] === "ok";
    } catch (error) {
      if (error instanceof StoreError && error.code === "store_corrupt") return false;
      throw error;
    }
  }

  /** Lets the requests already sent finish, closes the Database in the worker, then ends the worker. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.stopped !== undefined) return;
      try {
        await this.send({ op: "close" }, "store_write_failed", "close failed").catch((error: unknown) => {
          // A worker that died has nothing left to close: its Database went with it.
          if (this.stopped === undefined) throw error;
        });
      } finally {
        this.readerDb?.close();
        await this.worker.terminate();
      }
    })();
    return this.closing;
  }

  private request(request: Request, fallback: StoreErrorCode, action: string): Promise<unknown> {
    if (this.closing !== undefined) return Promise.reject(new StoreError("store_closed", "the store is closed"));
    return this.send(request, fallback, action);
  }

  private send(request: Request, fallback: StoreErrorCode, action: string): Promise<unknown> {
    if (this.stopped !== undefined) return Promise.reject(new StoreError(fallback, `${action}: ${this.stopped}`));
    try {
      this.worker.postMessage(request);
    } catch (error) {
      // Nothing was sent, so no reply is queued for it: the queue stays aligned with the worker's answers.
      return Promise.reject(new StoreError(fallback, `${action}: could not send the request to the SQLite worker: ${error instanceof Error ? error.message : String(error)}`));
    }
    // Registered right after posting: the reply can only arrive on a later event-loop turn.
    return this.expectReply(fallback, action);
  }

  /** Queues the next reply's handler; replies come back in the order requests were sent. */
  private expectReply(fallback: StoreErrorCode, action: string): Promise<unknown> {
    return new Promise((resolve, reject) => {
      // Referenced while a reply is awaited, so the process does not exit with a commit in flight.
      if (this.pending.length === 0) this.worker.ref();
      this.pending.push({ resolve, reject, fallback, action });
    });
  }

  private settle(reply: Reply): void {
    const request = this.pending.shift();
    if (request === undefined) return;
    if (this.pending.length === 0) this.worker.unref();
    if (reply.ok) request.resolve(reply.result);
    else request.reject(fromWireError(reply.error, request.fallback, request.action));
  }
}

/** Rebuilds the worker's failure as the StoreError the main-thread engine would have thrown. */
function fromWireError(wire: WireError, fallback: StoreErrorCode, action: string): StoreError {
  if (wire.storeCode !== "") return new StoreError(wire.storeCode, wire.message);
  const error = wire.typeError ? new TypeError(wire.message) : new Error(wire.message);
  if (wire.sqliteCode !== "") Object.assign(error, { code: wire.sqliteCode });
  return toStoreErrorFromSqlite(error, fallback, action);
}
