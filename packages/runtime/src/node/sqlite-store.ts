import Database from "better-sqlite3";
import type { EncodedEntry, EncodedKeyRef, PreparedWrite, RangeOptions, StorageEngine } from "../persistence/engine.js";
import type { KeyBounds } from "../persistence/key-range.js";
import { openStore } from "../persistence/open-store.js";
import type { StoreSchema } from "../persistence/schema.js";
import { StoreError } from "../persistence/store-error.js";
import type { RuntimeStore } from "../persistence/store.js";
import type { EncodedValue } from "../persistence/value-codec.js";
import { toStoreErrorFromSqlite } from "./sqlite-errors.js";

export interface SqliteStoreOptions {
  /** The database file; its directory must exist. Two more files (`-wal`, `-shm`) live beside it. */
  path: string;
  schema: StoreSchema;
  /** A size cap for the database; writes past it reject with `store_quota_exceeded`. */
  maxBytes?: number;
}

export interface SqliteRuntimeStore extends RuntimeStore {
  /** Runs `PRAGMA integrity_check`: true when SQLite finds the file sound. */
  integrityCheck(): Promise<boolean>;
}

/** Bumped only when the table layout changes; a file from a newer layout is refused rather than misread. */
const LAYOUT_VERSION = 1;

/**
 * Opens (creating if needed) a store in one SQLite file, in WAL mode with `synchronous=FULL`: a commit
 * resolves only once its transaction is fsynced to the WAL, so an acknowledged batch survives a crash or
 * power loss. All collections share one table keyed by (collection, key), so a batch across collections
 * is one transaction and new collections need no DDL.
 */
export async function openSqliteStore(options: SqliteStoreOptions): Promise<SqliteRuntimeStore> {
  if (typeof options.path !== "string" || options.path === "") {
    throw new StoreError("store_invalid_value", "openSqliteStore needs a file path");
  }
  const { store, engine } = await openStore(options.schema, async () => SqliteEngine.open(options.path, options.maxBytes));
  return { ...store, integrityCheck: async () => engine.integrityCheck() };
}

const GET_SQL = "SELECT kind, value FROM entries WHERE collection = ? AND key = ?";

type BoundOps = `${">" | ">="}${"<" | "<="}`;

class SqliteEngine implements StorageEngine {
  private readonly statements = new Map<string, Database.Statement>();
  private readonly applyInTransaction: (writes: readonly PreparedWrite[]) => void;
  private readonly readManyInTransaction: (keys: readonly EncodedKeyRef[]) => (StoredRow | undefined)[];

  private constructor(private readonly db: Database.Database) {
    // IMMEDIATE takes the write lock up front, so a batch never fails half-way on a lock upgrade.
    const transaction = db.transaction((writes: readonly PreparedWrite[]) => {
      for (const write of writes) this.applyOne(write);
    });
    this.applyInTransaction = (writes) => transaction.immediate(writes);
    // A deferred (read) transaction: every key is read from one snapshot, with no await between keys.
    this.readManyInTransaction = db.transaction((keys: readonly EncodedKeyRef[]) => {
      const statement = this.statement("get", GET_SQL);
      return keys.map(({ collection, key }) => statement.get(collection, key) as StoredRow | undefined);
    });
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
      db.exec(`
        CREATE TABLE IF NOT EXISTS entries (
          collection TEXT NOT NULL,
          key TEXT NOT NULL,
          kind TEXT NOT NULL CHECK (kind IN ('json', 'bytes')),
          value ANY NOT NULL,
          PRIMARY KEY (collection, key)
        ) STRICT, WITHOUT ROWID;
        PRAGMA user_version = ${LAYOUT_VERSION};
      `);
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
    const row = this.read(() =>
      this.statement("get", GET_SQL).get(collection, key),
    ) as StoredRow | undefined;
    return row === undefined ? undefined : decodeRow(row);
  }

  async getMany(keys: readonly EncodedKeyRef[]): Promise<(EncodedValue | undefined)[]> {
    const rows = this.read(() => this.readManyInTransaction(keys));
    return rows.map((row) => (row === undefined ? undefined : decodeRow(row)));
  }

  async range(collection: string, bounds: KeyBounds, { limit, reverse }: RangeOptions): Promise<EncodedEntry[]> {
    const ops = boundOps(bounds);
    const order = reverse ? "DESC" : "ASC";
    const statement = this.statement(
      `range${ops}${order}`,
      `SELECT key, kind, value FROM entries WHERE collection = ? AND ${whereKey(ops)} ORDER BY key ${order} LIMIT ?`,
    );
    // A negative LIMIT means no limit in SQLite, which keeps one statement per shape.
    const rows = this.read(() => statement.all(collection, bounds.lower, bounds.upper, limit ?? -1)) as Array<StoredRow & { key: string }>;
    return rows.map((row) => ({ key: row.key, value: decodeRow(row) }));
  }

  async count(collection: string, bounds: KeyBounds): Promise<number> {
    const ops = boundOps(bounds);
    const statement = this.statement(`count${ops}`, `SELECT count(*) FROM entries WHERE collection = ? AND ${whereKey(ops)}`);
    return this.read(() => statement.pluck().get(collection, bounds.lower, bounds.upper)) as number;
  }

  async close(): Promise<void> {
    this.db.close();
  }

  integrityCheck(): boolean {
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
        const { kind } = write.value;
        const value = write.value.kind === "json" ? write.value.text : write.value.bytes;
        this.statement(
          "put",
          `INSERT INTO entries (collection, key, kind, value) VALUES (?, ?, ?, ?)
           ON CONFLICT (collection, key) DO UPDATE SET kind = excluded.kind, value = excluded.value`,
        ).run(write.collection, write.key, kind, value);
        return;
      }
      case "delete":
        this.statement("delete", "DELETE FROM entries WHERE collection = ? AND key = ?").run(write.collection, write.key);
        return;
      case "deleteRange": {
        const ops = boundOps(write.bounds);
        this.statement(`deleteRange${ops}`, `DELETE FROM entries WHERE collection = ? AND ${whereKey(ops)}`).run(
          write.collection,
          write.bounds.lower,
          write.bounds.upper,
        );
        return;
      }
    }
  }

  /** Statements are prepared once per shape; bounds are always bound as parameters. */
  private statement(name: string, sql: string): Database.Statement {
    let statement = this.statements.get(name);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.statements.set(name, statement);
    }
    return statement;
  }

  private read<T>(run: () => T): T {
    try {
      return run();
    } catch (error) {
      throw toStoreErrorFromSqlite(error, "store_read_failed", "read failed");
    }
  }
}

interface StoredRow {
  kind: string;
  value: unknown;
}

function decodeRow(row: StoredRow): EncodedValue {
  if (row.kind === "json" && typeof row.value === "string") return { kind: "json", text: row.value };
  if (row.kind === "bytes" && row.value instanceof Uint8Array) return { kind: "bytes", bytes: row.value };
  throw new StoreError("store_corrupt", `a stored row has kind ${JSON.stringify(row.kind)} and a ${typeof row.value} value`);
}

function boundOps(bounds: KeyBounds): BoundOps {
  return `${bounds.lowerOpen ? ">" : ">="}${bounds.upperOpen ? "<" : "<="}`;
}

function whereKey(ops: BoundOps): string {
  const [lower, upper] = ops.startsWith(">=") ? [">=", ops.slice(2)] : [">", ops.slice(1)];
  return `key ${lower} ? AND key ${upper} ?`;
}
