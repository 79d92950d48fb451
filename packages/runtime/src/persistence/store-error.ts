import type { ErrorCode } from "@lineup/protocol";

/**
 * Storage error codes: the `store_*` rows of the protocol's one error table. Callers branch on these strings, never on messages.
 *
 * - `store_invalid_key` — a key or range bound is not 1–512 printable ASCII characters.
 * - `store_invalid_value` — a value is neither JSON nor a Uint8Array (function, NaN, undefined, cycle,
 *   class instance…), or a query option or schema is malformed.
 * - `store_unknown_collection` — the collection is not declared by the schema the store was opened with.
 * - `store_write_failed` — the engine could not apply a batch (I/O error, lock, aborted transaction).
 * - `store_read_failed` — the engine could not answer a read.
 * - `store_quota_exceeded` — the device or the configured size limit refused the write.
 * - `store_closed` — the store was closed (by `close()` or by its platform).
 * - `store_corrupt` — the underlying file or database is not a valid store.
 * - `store_migration_failed` — a schema migration failed or the store was written by an unknown schema.
 */
export type StoreErrorCode = Extract<ErrorCode, `store_${string}`>;

/** Every failure of a `RuntimeStore` is one of these; `cause` keeps the engine's own error when there is one. */
export class StoreError extends Error {
  override readonly name = "StoreError";
  readonly code: StoreErrorCode;

  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** True when `error` is a StoreError, and has `code` when one is given. */
export function isStoreError(error: unknown, code?: StoreErrorCode): error is StoreError {
  return error instanceof StoreError && (code === undefined || error.code === code);
}

/** Keeps a StoreError as it is and wraps anything else under `fallback`, so the port only ever rejects with StoreError. */
export function toStoreError(error: unknown, fallback: StoreErrorCode, message: string): StoreError {
  if (error instanceof StoreError) return error;
  const detail = error instanceof Error ? `: ${error.message}` : "";
  return new StoreError(fallback, `${message}${detail}`, { cause: error });
}
