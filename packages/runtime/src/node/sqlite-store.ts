import Database from "better-sqlite3";
import type { EncodedEntry, EncodedKeyRef, PreparedWrite, RangeOptions, StorageEngine } from "../persistence/engine.js";
import type { KeyBounds } from "../persistence/key-range.js";
import { openStore } from "../persistence/open-store.js";
import type { StoreSchema } from "../persistence/schema.js";
import { StoreError } from "../persistence/store-error.js";
import type { RuntimeStore } from "../persistence/store.js";
import type { EncodedValue } from "../persistence/value-codec.js";
import { toStoreErrorFromSqlite } from "./sqlite-errors.js";
import { SqliteReader } from "./sqlite-reader.js";
import { CREATE_TABLE_SQL, DELETE_SQL, LAYOUT_VERSION, PUT_SQL, deleteRangeSql } from "./sqlite-layout.js";
import { SqliteWorkerEngine } from "./sqlite-worker-engine.js";

/** Where the store's better-sqlite3 connection runs; see `SqliteStoreOptions.thread`. */
export type SqliteThread = "main" | "worker";

export interface SqliteStoreOptions {
  /** The database file; its directory must exist. Two more files (`-wal`, `-shm`) live beside it. */
  path: string;
  schema: StoreSchema;
  /** A size cap for the database; writes past it reject with `store_quota_exceeded`. */
  maxBytes?: number;
  /**
   * Where better-sqlite3 runs. `"main"` (the default): synchronously on the calling thread, so each
   * commit's fsync blocks JavaScript. `"worker"`: on a dedicated worker thread, so the caller's thread
   * stays free while a commit is in flight (each call costs a message round trip).
   */
  thread?: SqliteThread;
}

export interface SqliteRuntimeStore extends RuntimeStore {
  /** Runs `PRAGMA integrity_check`: true when SQLite finds the file sound. */
  integrityCheck(): Promise<boolean>;
}

/**
 * Opens (creating if needed) a store in one SQLite file, in WAL mode with `synchronous=FULL`: a commit
 * resolves only once its transaction is fsynced to the WAL, so an acknowledged batch survives a crash or
 * power loss. The layout (one table for every collection) is in `sqlite-layout.ts`.
 */
export async function openSqliteStore(options: SqliteStoreOptions): Promise<SqliteRuntimeStore> {
  if (typeof options.path !== "string" || options.path === "") {
    throw new StoreError("store_invalid_value", "openSqliteStore needs a file path");
  }
  const thread: SqliteThread = options.thread ?? "main";
  if (thread !== "main" && thread !== "worker") {
    throw new StoreError("store_invalid_value", `openSqliteStore's thread is "main" or "worker", not ${JSON.stringify(thread)}`);
  }
  const { store, engine } = await openStore(options.schema, async () =>
    thread === "worker" ? SqliteWorkerEngine.open(options.path, options.maxBytes) : SqliteEngine.open(options.path, options.maxBytes),
  );
  return { ...store, integrityCheck: async () => engine.integrityCheck() };
}

/** The engine on the calling thread: every call runs synchronously, inside an already-resolved promise. */
class SqliteEngine implements StorageEngine {
  private readonly applyInTransaction: (writes: readonly PreparedWrite[]) => void;
  private readonly reader: SqliteReader;

  private constructor(private readonly db: Database.Database) {
    this.reader = new SqliteReader(db);
    // IMMEDIATE takes the write lock up front, so a batch never fails half-way on a lock upgrade.
    const transaction = db.transaction((writes: readonly PreparedWrite[]) => {
      for (const write of writes) this.applyOne(write);
    });
    this.applyInTransaction = (writes) => transaction.immediate(writes);
  }

  static open(path: string, maxBytes: number | undefined): SqliteEngine {
    let db: Database.Database | undefined;
    try {
      db = new Database(path);
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = FULL");
      if (maxBytes !== undefined) {
        const pageSize = db.pragma("page_size", { simple: true }) as number;
        db.pragma(`max_page_count = ${Math.max(1, Math.floor(maxBytes / pageSize))}`);
      }
      const layout = db.pragma("user_version", { simple: true }) as number;
      if (layout > LAYOUT_VERSION) {
        throw new StoreError("store_migration_failed", `${path} has storage layout ${layout}; this version reads up to ${LAYOUT_VERSION}`);
      }
      db.exec(CREATE_TABLE_SQL);
      return new SqliteEngine(db);
    } catch (error) {
      db?.close();
      throw toStoreErrorFromSqlite(error, "store_write_failed", `could not open ${path}`);
    }
  }

  async apply(writes: readonly PreparedWrite[]): Promise<void> {
    try {
      this.applyInTransaction(writes);
    } catch (error) {
      throw toStoreErrorFromSqlite(error, "store_write_failed", "commit failed");
    }
  }

  async get(collection: string, key: string): Promise<EncodedValue | undefined> {
    return this.reader.get(collection, key);
  }

  async getMany(keys: readonly EncodedKeyRef[]): Promise<(EncodedValue | undefined)[]> {
    return this.reader.getMany(keys);
  }

  async range(collection: string, bounds: KeyBounds, options: RangeOptions): Promise<EncodedEntry[]> {
    return this.reader.range(collection, bounds, options);
  }

  async count(collection: string, bounds: KeyBounds): Promise<number> {
    return this.reader.count(collection, bounds);
  }

  async isEmpty(): Promise<boolean> {
    return this.reader.isEmpty();
  }

  async close(): Promise<void> {
    this.db.close();
  }

  async integrityCheck(): Promise<boolean> {
    try {
      const rows = this.db.pragma("integrity_check") as Array<{ integrity_check: string }>;
      return rows.length === 1 && rows[0]?.integrity_check === "ok";
    } catch (error) {
      const failure = toStoreErrorFromSqlite(error, "store_read_failed", "integrity check failed");
      if (failure.code === "store_corrupt") return false;
      throw failure;
    }
  }

  private applyOne(write: PreparedWrite): void {
    switch (write.op) {
      case "put": {
        const value = write.value.kind === "json" ? write.value.text : write.value.bytes;
        this.statement(PUT_SQL).run(write.collection, write.key, write.value.kind, value);
        return;
      }
      case "delete":
        this.statement(DELETE_SQL).run(write.collection, write.key);
        return;
      case "deleteRange":
        this.statement(deleteRangeSql(write.bounds)).run(write.collection, write.bounds.lower, write.bounds.upper);
        return;
    }
  }

  private statement(sql: string): Database.Statement {
    return this.reader.statement(sql);
  }
}

