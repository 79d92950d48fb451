/**
 * Opens the server's SQLite file: WAL journal with `synchronous=FULL`, so a commit returns only once
 * its transaction is fsynced to the WAL — an acknowledged write survives a crash or power loss.
 * Throughput comes from group commit (many requests per transaction), not from a weaker sync.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { runMigrations, type MigrationOutcome } from "./migrations.js";

export type Db = Database.Database;

export const DATABASE_FILE = "app-server.sqlite";

export interface OpenedDatabase {
  readonly db: Db;
  /** True when this call created the file (an empty data directory): the caller provisions dev credentials. */
  readonly created: boolean;
  readonly migrations: MigrationOutcome;
}

export function openDatabase(dataDir: string): OpenedDatabase {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(join(dataDir, DATABASE_FILE));
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL");
    db.pragma("foreign_keys = ON");
    // A second process on the same file (a CLI, a test probe) waits instead of failing at once.
    db.pragma("busy_timeout = 5000");
    const created = (db.prepare("SELECT count(*) AS n FROM sqlite_master").get() as { n: number }).n === 0;
    const migrations = runMigrations(db);
    if (!migrations.ok) throw new Error(`cannot open ${dataDir}: ${migrations.reason}`);
    return { db, created, migrations };
  } catch (error) {
    db.close();
    throw error;
  }
}
