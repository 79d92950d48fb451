/**
 * Opens the server's store: a SQLite file in the data directory (the embedded default), or a
 * PostgreSQL database (`postgres://…`) that several server processes share.
 *
 * SQLite: WAL journal with `synchronous=FULL`, so a commit returns only once its transaction is
 * fsynced to the WAL — an acknowledged write survives a crash or power loss. Throughput comes from
 * group commit (many requests per transaction), not from a weaker sync. Writes go through one
 * connection; reads through a second, which sees only committed transactions.
 *
 * PostgreSQL: a pool of connections; the write queue holds one of them per transaction, reads take
 * any other. Commits are durable as the server is configured (`synchronous_commit` on by default).
 */
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import type pg from "pg";
import { runMigrations, type MigrationOutcome } from "./migrations.js";
import { PostgresDb, SqliteDb, type Db, type Dialect } from "./sql.js";
import { loadPg } from "./pg.js";

export type { Db } from "./sql.js";

export const DATABASE_FILE = "app-server.sqlite";

export interface Store {
  readonly dialect: Dialect;
  /** The write queue's connection: every write, in one transaction per batch. */
  readonly writer: Db;
  /** Reads of committed state. */
  readonly reader: Db;
  /** Where the store is, for logs (a file path, or the database URL without its password). */
  readonly location: string;
  readonly migrations: MigrationOutcome;
  /** PostgreSQL: the pool's settings, for the connections a server holds beside it (LISTEN). */
  readonly postgres?: pg.PoolConfig;
  /** Whether the store answers a query now. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** A PostgreSQL URL (`postgres://` or `postgresql://`) names a PostgreSQL store. */
export function isPostgresUrl(db: string | undefined): db is string {
  return db !== undefined && /^postgres(ql)?:\/\//.test(db);
}

/** `--db`: a PostgreSQL URL, or undefined for the SQLite file in `dataDir`. Anything else is refused. */
export async function openStore(options: { readonly dataDir: string; readonly db?: string | undefined }): Promise<Store> {
  if (options.db === undefined) return openSqliteStore(options.dataDir);
  if (!isPostgresUrl(options.db)) throw new Error("--db takes a PostgreSQL URL (postgres://USER@HOST:PORT/DATABASE); without it the store is the SQLite file in the data directory");
  return openPostgresStore(options.db);
}

function openSqlite(file: string): Database.Database {
  const db = new Database(file);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL");
    db.pragma("foreign_keys = ON");
    // A second process on the same file (a CLI, a test probe) waits instead of failing at once.
    db.pragma("busy_timeout = 5000");
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

export async function openSqliteStore(dataDir: string): Promise<Store> {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, DATABASE_FILE);
  const raw = openSqlite(file);
  let readRaw: Database.Database | undefined;
  try {
    const writer = new SqliteDb(raw);
    const migrations = await runMigrations(writer);
    if (!migrations.ok) throw new Error(`cannot open ${dataDir}: ${migrations.reason}`);
    readRaw = openSqlite(file);
    readRaw.pragma("query_only = ON");
    const reader = new SqliteDb(readRaw);
    const both = readRaw;
    return {
      dialect: "sqlite",
      writer,
      reader,
      location: file,
      migrations,
      ping: async () => {
        if (!raw.open) return false;
        reader.get("SELECT 1");
        return true;
      },
      close: async () => {
        raw.close();
        both.close();
      },
    };
  } catch (error) {
    raw.close();
    readRaw?.close();
    throw error;
  }
}

/** The URL without its password, for logs. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return "postgres://…";
  }
}

export async function openPostgresStore(url: string, poolSize = 8): Promise<Store> {
  const pg = await loadPg();
  // 64-bit integers (identity columns) as numbers: every one the store keeps is far below 2^53.
  const types = {
    getTypeParser: ((oid: number, format?: string) => (oid === pg.types.builtins.INT8 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as "text"))) as pg.CustomTypesConfig["getTypeParser"],
  };
  const config: pg.PoolConfig = { connectionString: url, max: poolSize, types, application_name: "lineup-app-server" };
  const pool = new pg.Pool(config);
  // An idle pooled connection that breaks (the database restarts) is dropped; the next query opens another.
  pool.on("error", () => undefined);
  try {
    const origin = randomUUID();
    const migrator = new PostgresDb(pool, origin);
    const migrations = await runMigrations(migrator).catch((error: unknown) => {
      throw new Error(`cannot open ${redactedUrl(url)}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    });
    if (!migrations.ok) throw new Error(`cannot open ${redactedUrl(url)}: ${migrations.reason}`);
    let open = true;
    return {
      dialect: "postgres",
      writer: migrator,
      reader: new PostgresDb(pool, origin),
      location: redactedUrl(url),
      migrations,
      postgres: config,
      ping: async () => {
        if (!open) return false;
        await pool.query("SELECT 1");
        return true;
      },
      close: async () => {
        open = false;
        await pool.end();
      },
    };
  } catch (error) {
    await pool.end();
    throw error;
  }
}
