/**
 * Reads of the SQLite store over one better-sqlite3 connection, shared by both engines. The main-thread
 * engine reads through its only connection. The worker engine reads through a read-only connection of
 * its own on the calling thread: in WAL mode a reader sees the last committed transaction and never
 * waits for a commit in flight, so the loop's next turn is read while the worker commits the last one
 * (the loop answers keys of turns not yet committed from their staged writes).
 */
import type Database from "better-sqlite3";
import type { EncodedEntry, EncodedKeyRef, RangeOptions } from "../persistence/engine.js";
import type { KeyBounds } from "../persistence/key-range.js";
import type { EncodedValue } from "../persistence/value-codec.js";
import { toStoreErrorFromSqlite } from "./sqlite-errors.js";
import { ANY_ROW_SQL, GET_SQL, countSql, decodeRow, rangeSql } from "./sqlite-layout.js";

interface StoredRow {
  kind: string;
  value: unknown;
}

export class SqliteReader {
  private readonly statements = new Map<string, Database.Statement>();
  private readonly readMany: (keys: readonly EncodedKeyRef[]) => (StoredRow | undefined)[];

  constructor(private readonly db: Database.Database) {
    // A deferred (read) transaction: every key is read from one snapshot.
    this.readMany = db.transaction((keys: readonly EncodedKeyRef[]) => {
      const statement = this.statement(GET_SQL);
      return keys.map(({ collection, key }) => statement.get(collection, key) as StoredRow | undefined);
    });
  }

  get(collection: string, key: string): EncodedValue | undefined {
    const row = this.read(() => this.statement(GET_SQL).get(collection, key)) as StoredRow | undefined;
    return row === undefined ? undefined : decodeRow(row.kind, row.value);
  }

  getMany(keys: readonly EncodedKeyRef[]): (EncodedValue | undefined)[] {
    const rows = this.read(() => this.readMany(keys));
    return rows.map((row) => (row === undefined ? undefined : decodeRow(row.kind, row.value)));
  }

  range(collection: string, bounds: KeyBounds, { limit, reverse }: RangeOptions): EncodedEntry[] {
    const statement = this.statement(rangeSql(bounds, reverse));
    const rows = this.read(() => statement.all(collection, bounds.lower, bounds.upper, limit ?? -1)) as Array<StoredRow & { key: string }>;
    return rows.map((row) => ({ key: row.key, value: decodeRow(row.kind, row.value) }));
  }

  count(collection: string, bounds: KeyBounds): number {
    const statement = this.statement(countSql(bounds));
    return this.read(() => statement.pluck().get(collection, bounds.lower, bounds.upper)) as number;
  }

  /** Whether the store holds no row at all (migration records included). */
  isEmpty(): boolean {
    return this.read(() => this.statement(ANY_ROW_SQL).get()) === undefined;
  }

  /** Statements are prepared once per shape (the SQL text is the cache key). */
  statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
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
