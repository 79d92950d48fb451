import { StoreError, type StoreErrorCode } from "../persistence/store-error.js";

/**
 * Maps an IndexedDB failure (a DOMException, or an abort without one) to the store's table, by the
 * exception's standard `name`.
 */
export function toStoreErrorFromIndexedDb(error: unknown, fallback: StoreErrorCode, action: string): StoreError {
  if (error instanceof StoreError) return error;
  const name = typeof (error as { name?: unknown } | null)?.name === "string" ? (error as { name: string }).name : "";
  const code: StoreErrorCode =
    name === "QuotaExceededError" ? "store_quota_exceeded"
    : name === "InvalidStateError" ? "store_closed"
    : name === "VersionError" ? "store_migration_failed"
    : fallback;
  const message = error instanceof Error ? error.message : error === null || error === undefined ? "transaction aborted" : String(error);
  return new StoreError(code, `${action}: ${name ? `${name} ` : ""}${message}`, { cause: error });
}
