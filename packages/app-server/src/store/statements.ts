/** Prepared statements, compiled once per database and reused. */
import type Database from "better-sqlite3";
import type { Db } from "./database.js";

const caches = new WeakMap<Db, Map<string, Database.Statement>>();

export function stmt(db: Db, sql: string): Database.Statement {
  let cache = caches.get(db);
  if (cache === undefined) caches.set(db, (cache = new Map()));
  let statement = cache.get(sql);
  if (statement === undefined) cache.set(sql, (statement = db.prepare(sql)));
  return statement;
}
