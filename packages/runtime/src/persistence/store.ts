import type { JsonValue } from "./json.js";

export { StoreError, isStoreError, type StoreErrorCode } from "./store-error.js";
export type { JsonValue, JsonObject } from "./json.js";

/**
 * Keys: non-empty strings of printable ASCII (0x20–0x7E), at most 512 chars; ordered by plain string
 * comparison (identical in all adapters: UTF-16 code units, SQLite BINARY and IndexedDB agree on ASCII).
 */
export type StoreKey = string;

/**
 * What a key holds. JSON values are stored as JSON text, so what comes back is what `JSON.parse` gives
 * (`-0` reads back as `0`); bytes come back as a plain `Uint8Array` of exactly the view's bytes.
 */
export type StoreValue = JsonValue | Uint8Array;

export type StoreWrite =
  | { op: "put"; collection: string; key: StoreKey; value: StoreValue }
  | { op: "delete"; collection: string; key: StoreKey }
  /** Removes every key in range; an empty range removes nothing. */
  | { op: "deleteRange"; collection: string; range: KeyRange };

/**
 * A set of keys: every bound given must hold (they intersect), and `prefix` keeps keys that start with it.
 * `{}` is the whole collection. Bounds are keys and follow the key rules.
 */
export type KeyRange = { gte?: StoreKey; gt?: StoreKey; lte?: StoreKey; lt?: StoreKey; prefix?: StoreKey };

/** `limit` is a non-negative integer; the first `limit` keys in the requested direction are returned. */
export interface RangeQuery extends KeyRange {
  limit?: number;
  reverse?: boolean;
}

/** One key of one collection, as `getMany` takes it. */
export interface StoreKeyRef {
  collection: string;
  key: StoreKey;
}

export interface StoreEntry {
  key: StoreKey;
  value: StoreValue;
}

/**
 * Atomic write batches over named collections, with ordered range reads. Every failure rejects with a
 * `StoreError`. Values are copied in and out: mutating a value after `commit` is called, or mutating
 * what a read returned, never changes what is stored.
 */
export interface RuntimeStore {
  /**
   * Applies every write atomically and durably: when the promise resolves the batch survives a crash or
   * power loss; when it rejects (StoreError) nothing of the batch was applied. Writes in one batch apply in
   * order; batches apply in the order `commit` was called. The batch is validated and its values captured
   * when `commit` is called.
   */
  commit(batch: readonly StoreWrite[]): Promise<void>;
  get(collection: string, key: StoreKey): Promise<StoreValue | undefined>;
  /**
   * Reads many keys, across collections, in one read of the engine (one transaction, one trip): the
   * values in the order of `keys`, `undefined` in place for a missing key; repeated keys are allowed.
   * Every ref is validated like `get` before anything is read, so one bad ref rejects the whole call.
   */
  getMany(keys: readonly StoreKeyRef[]): Promise<(StoreValue | undefined)[]>;
  /** Ordered by key ascending (descending with reverse). Reads see every committed batch. */
  range(collection: string, query?: RangeQuery): Promise<StoreEntry[]>;
  count(collection: string, range?: KeyRange): Promise<number>;
  /** Waits for in-flight commits, then releases the engine. Idempotent; every later call rejects `store_closed`. */
  close(): Promise<void>;
  /**
   * True while the store holds no data: opening it found it empty (a store this open created) and nothing has been
   * committed since. A reader may then take every read's answer as "nothing" without asking. A store that cannot
   * tell leaves it out.
   */
  isNew?(): boolean;
}
