import type { KeyBounds } from "./key-range.js";
import type { EncodedValue } from "./value-codec.js";

/**
 * The internal port each adapter implements: already-validated writes and reads over encoded values.
 * Validation, copying, closing and migrations live once, in front of it (`store-front.ts`,
 * `migrations.ts`), which is how the three adapters share one behaviour. Engines reject only with
 * StoreError.
 */
export interface StorageEngine {
  /** Applies every write, in order, in one durable transaction, or nothing. */
  apply(writes: readonly PreparedWrite[]): Promise<void>;
  get(collection: string, key: string): Promise<EncodedValue | undefined>;
  /** Every ref in one read transaction; results in the order of `keys`. Never called with an empty list. */
  getMany(keys: readonly EncodedKeyRef[]): Promise<(EncodedValue | undefined)[]>;
  range(collection: string, bounds: KeyBounds, options: RangeOptions): Promise<EncodedEntry[]>;
  count(collection: string, bounds: KeyBounds): Promise<number>;
  /**
   * Whether the engine holds nothing at all (no entry of any collection, no migration record), in one read. An
   * engine that cannot tell in one read leaves it out; opening then reads the store as it always does.
   */
  isEmpty?(): Promise<boolean>;
  /**
   * Starts reading `collections` whole, with the read that follows in the same turn (opening the store: the migration
   * records), in one trip to storage, and answers their reads from what it read until the first `apply` (StoreSchema
   * `readAhead`); of the `lastOf` collections it reads the last record, and answers a read of that alone (`readAheadLast`).
   * An engine whose reads cost no trip leaves it out.
   */
  readAhead?(collections: readonly string[], lastOf: readonly string[]): void;
  /** Called once; lets transactions already started finish. */
  close(): Promise<void>;
}

export interface RangeOptions {
  readonly limit: number | undefined;
  readonly reverse: boolean;
}

/** A validated key of a collection. */
export interface EncodedKeyRef {
  readonly collection: string;
  readonly key: string;
}

export interface EncodedEntry {
  readonly key: string;
  readonly value: EncodedValue;
}

/** A write whose key, collection and value have been checked and copied; deleteRange bounds are never empty. */
export type PreparedWrite =
  | { readonly op: "put"; readonly collection: string; readonly key: string; readonly value: EncodedValue }
  | { readonly op: "delete"; readonly collection: string; readonly key: string }
  | { readonly op: "deleteRange"; readonly collection: string; readonly bounds: KeyBounds };
