import { StoreError, type StoreErrorCode } from "../persistence/store-error.js";

/**
 * Maps a better-sqlite3 failure to the store's table. SQLite's extended codes (`SQLITE_IOERR_WRITE`,
 * `SQLITE_CORRUPT_INDEX`…) share the primary code's prefix, so prefixes are matched.
 */
export function toStoreErrorFromSqlite(error: unknown, fallback: StoreErrorCode, action: string): StoreError {
  if (error instanceof StoreError) return error;
  const sqliteCode = typeof (error as { code?: unknown } | null)?.code === "string" ? (error as { code: string }).code : "";
  const code: StoreErrorCode =
    sqliteCode.startsWith("SQLITE_FULL") ? "store_quota_exceeded"
    : sqliteCode.startsWith("SQLITE_CORRUPT") || sqliteCode.startsWith("SQLITE_NOTADB") ? "store_corrupt"
    : error instanceof TypeError && /connection is not open/.test(error.message) ? "store_closed"
    : fallback;
  const message = error instanceof Error ? error.message : String(error);
  return new StoreError(code, `${action}: ${sqliteCode ? `${sqliteCode} ` : ""}${message}`, { cause: error });
}
