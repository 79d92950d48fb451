/**
 * The PostgreSQL client (`pg`), loaded when the server opens a PostgreSQL store: a server on SQLite never loads it.
 */
import type pg from "pg";

let loaded: typeof pg | undefined;

export async function loadPg(): Promise<typeof pg> {
  loaded ??= (await import("pg")).default;
  return loaded;
}

/** A PostgreSQL server's refusal of a statement; none can exist before the client is loaded. */
export function isPostgresError(error: unknown): boolean {
  return loaded !== undefined && error instanceof loaded.DatabaseError;
}
