/**
 * One connection to the server's store, whichever database holds it: SQLite (embedded, the default)
 * or PostgreSQL (`--db postgres://…`, several server processes on one database). The store's
 * statements are written once for both: `?` placeholders (numbered for PostgreSQL here), standard
 * SQL that both dialects read the same way, and the few differences behind `dialect`.
 *
 * Calls may return their value directly (SQLite answers synchronously) or a promise (PostgreSQL);
 * callers always `await` them, so the SQLite path pays no promise of its own per statement.
 */
import type Database from "better-sqlite3";
import type pg from "pg";

export type Dialect = "sqlite" | "postgres";
export type Awaitable<T> = T | Promise<T>;
/** Arrays only for PostgreSQL (`unnest(?::text[])`). */
export type SqlValue = string | number | bigint | Buffer | null | readonly (string | null)[] | readonly number[];

export interface RunResult {
  readonly changes: number;
}

export interface Db {
  readonly dialect: Dialect;
  /** Between `begin` and `commit`/`rollback` (SQLite may also end it on its own: disk full, I/O error). */
  readonly inTransaction: boolean;
  get<T>(sql: string, params?: readonly SqlValue[]): Awaitable<T | undefined>;
  all<T>(sql: string, params?: readonly SqlValue[]): Awaitable<T[]>;
  run(sql: string, params?: readonly SqlValue[]): Awaitable<RunResult>;
  /** Several statements without parameters (migrations). */
  exec(sql: string): Awaitable<void>;
  /** Opens the write transaction (SQLite: `BEGIN IMMEDIATE`, the write lock at once). */
  begin(): Awaitable<void>;
  commit(): Awaitable<void>;
  /** Ends the transaction without keeping anything; a no-op when the store ended it already. */
  rollback(): Awaitable<void>;
  /** Whether a failed transaction may simply run again (PostgreSQL: a deadlock or serialization failure). */
  transient(error: unknown): boolean;
}

/** SQLite through better-sqlite3: every statement prepared once and reused. */
export class SqliteDb implements Db {
  readonly dialect = "sqlite";
  private readonly statements = new Map<string, Database.Statement>();

  constructor(readonly raw: Database.Database) {}

  get inTransaction(): boolean {
    return this.raw.inTransaction;
  }

  private prepared(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) this.statements.set(sql, (statement = this.raw.prepare(sql)));
    return statement;
  }

  get<T>(sql: string, params: readonly SqlValue[] = []): T | undefined {
    return this.prepared(sql).get(...params) as T | undefined;
  }

  all<T>(sql: string, params: readonly SqlValue[] = []): T[] {
    return this.prepared(sql).all(...params) as T[];
  }

  run(sql: string, params: readonly SqlValue[] = []): RunResult {
    return this.prepared(sql).run(...params);
  }

  exec(sql: string): void {
    this.raw.exec(sql);
  }

  begin(): void {
    this.prepared("BEGIN IMMEDIATE").run();
  }

  commit(): void {
    this.prepared("COMMIT").run();
  }

  rollback(): void {
    if (this.raw.inTransaction) this.prepared("ROLLBACK").run();
  }

  transient(): boolean {
    return false;
  }
}

/** SQLSTATEs after which the whole transaction may run again: serialization failure, deadlock. */
const TRANSIENT_STATES = new Set(["40001", "40P01"]);

interface Positional {
  readonly name: string;
  readonly text: string;
}
const positional = new Map<string, Positional>();

/** `?` → `$1, $2, …`, and a name so each connection prepares the statement once. */
function toPositional(sql: string): Positional {
  let found = positional.get(sql);
  if (found === undefined) {
    let n = 0;
    found = { name: `lineup_${positional.size + 1}`, text: sql.replace(/\?/g, () => `$${++n}`) };
    positional.set(sql, found);
  }
  return found;
}

/**
 * PostgreSQL through a `pg` pool. Outside a transaction each statement takes any pooled connection;
 * `begin` holds one connection until `commit` or `rollback` (a broken one is discarded, the next
 * transaction gets a fresh one).
 */
export class PostgresDb implements Db {
  readonly dialect = "postgres";
  private client: pg.PoolClient | undefined;

  /** `origin`: this server process, as its log notifications name it. */
  constructor(
    readonly pool: pg.Pool,
    readonly origin: string,
  ) {}

  get inTransaction(): boolean {
    return this.client !== undefined;
  }

  private async query<T>(sql: string, params: readonly SqlValue[]): Promise<pg.QueryResult<T & pg.QueryResultRow>> {
    const { name, text } = toPositional(sql);
    const config = { name, text, values: params as unknown[] };
    return this.client === undefined ? this.pool.query<T & pg.QueryResultRow>(config) : this.client.query<T & pg.QueryResultRow>(config);
  }

  async get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return (await this.query<T>(sql, params)).rows[0];
  }

  async all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return (await this.query<T>(sql, params)).rows;
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<RunResult> {
    return { changes: (await this.query(sql, params)).rowCount ?? 0 };
  }

  async exec(sql: string): Promise<void> {
    await (this.client ?? this.pool).query(sql);
  }

  async begin(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
    } catch (error) {
      client.release(error as Error);
      throw error;
    }
    this.client = client;
  }

  async commit(): Promise<void> {
    const client = this.client!;
    this.client = undefined;
    try {
      await client.query("COMMIT");
    } catch (error) {
      client.release(error as Error);
      throw error;
    }
    client.release();
  }

  async rollback(): Promise<void> {
    const client = this.client;
    if (client === undefined) return;
    this.client = undefined;
    try {
      await client.query("ROLLBACK");
      client.release();
    } catch (error) {
      // The connection is broken: discarding it is the rollback.
      client.release(error as Error);
    }
  }

  transient(error: unknown): boolean {
    return typeof error === "object" && error !== null && TRANSIENT_STATES.has(String((error as { code?: unknown }).code));
  }
}
