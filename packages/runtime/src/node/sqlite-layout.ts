// The SQLite store's file layout and statement shapes, shared by its two engines: better-sqlite3 on the
// main thread (`sqlite-store.ts`) and on a worker thread (`sqlite-worker-engine.ts`). One table keyed by
// (collection, key) holds every collection, so a batch across collections is one transaction and new
// collections need no DDL.
import type { KeyBounds } from "../persistence/key-range.js";
import { StoreError } from "../persistence/store-error.js";
import type { EncodedValue } from "../persistence/value-codec.js";

/** Bumped only when the table layout changes; a file from a newer layout is refused rather than misread. */
export const LAYOUT_VERSION = 1;

export const CREATE_TABLE_SQL = `
  CREATE TABLE IF NOT EXISTS entries (
    collection TEXT NOT NULL,
    key TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('json', 'bytes')),
    value ANY NOT NULL,
    PRIMARY KEY (collection, key)
  ) STRICT, WITHOUT ROWID;
  PRAGMA user_version = ${LAYOUT_VERSION};
`;

export const GET_SQL = "SELECT kind, value FROM entries WHERE collection = ? AND key = ?";

/** Any row at all, of any collection (migration records included): the store is empty when there is none. */
export const ANY_ROW_SQL = "SELECT 1 FROM entries LIMIT 1";

export const PUT_SQL = `INSERT INTO entries (collection, key, kind, value) VALUES (?, ?, ?, ?)
  ON CONFLICT (collection, key) DO UPDATE SET kind = excluded.kind, value = excluded.value`;

export const DELETE_SQL = "DELETE FROM entries WHERE collection = ? AND key = ?";

/** `SELECT key, kind, value` over (collection, lower, upper, limit); a negative limit means none in SQLite. */
export function rangeSql(bounds: KeyBounds, reverse: boolean): string {
  const order = reverse ? "DESC" : "ASC";
  return `SELECT key, kind, value FROM entries WHERE collection = ? AND ${whereKey(bounds)} ORDER BY key ${order} LIMIT ?`;
}

/** `SELECT count(*)` over (collection, lower, upper). */
export function countSql(bounds: KeyBounds): string {
  return `SELECT count(*) FROM entries WHERE collection = ? AND ${whereKey(bounds)}`;
}

/** `DELETE` over (collection, lower, upper). */
export function deleteRangeSql(bounds: KeyBounds): string {
  return `DELETE FROM entries WHERE collection = ? AND ${whereKey(bounds)}`;
}

/** Bounds are always bound as parameters; only their openness shapes the statement (four shapes). */
function whereKey(bounds: KeyBounds): string {
  return `key ${bounds.lowerOpen ? ">" : ">="} ? AND key ${bounds.upperOpen ? "<" : "<="} ?`;
}

/** A row's `kind` and `value` columns back as an EncodedValue; anything else is a corrupt row. */
export function decodeRow(kind: unknown, value: unknown): EncodedValue {
  if (kind === "json" && typeof value === "string") return { kind: "json", text: value };
  if (kind === "bytes" && value instanceof Uint8Array) return { kind: "bytes", bytes: value };
  throw new StoreError("store_corrupt", `a stored row has kind ${JSON.stringify(kind)} and a ${typeof value} value`);
}
