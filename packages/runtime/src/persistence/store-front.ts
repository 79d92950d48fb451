import type { StorageEngine } from "./engine.js";
import type { MigratedStore } from "./migrations.js";
import { parseRangeQuery, toKeyBounds } from "./key-range.js";
import { assertValidKey } from "./keys.js";
import { assertKnownCollection, prepareBatch } from "./prepared-batch.js";
import { StoreError, toStoreError } from "./store-error.js";
import type { KeyRange, RangeQuery, RuntimeStore, StoreEntry, StoreKey, StoreKeyRef, StoreValue } from "./store.js";
import { decodeValue } from "./value-codec.js";

export type StoreReader = Pick<RuntimeStore, "get" | "getMany" | "range" | "count">;

/** Validated, copying reads over an engine; shared by the store and by migration steps. */
export function createStoreReader(engine: StorageEngine, collections: ReadonlySet<string>, assertOpen: () => void = () => {}): StoreReader {
  return {
    async get(collection: string, key: StoreKey): Promise<StoreValue | undefined> {
      assertOpen();
      assertKnownCollection(collection, collections);
      assertValidKey(key);
      const encoded = await engine.get(collection, key).catch(readFailed);
      return encoded === undefined ? undefined : decodeValue(encoded);
    },
    async getMany(keys: readonly StoreKeyRef[]): Promise<(StoreValue | undefined)[]> {
      assertOpen();
      if (!Array.isArray(keys)) throw new StoreError("store_invalid_value", "getMany needs an array of { collection, key }");
      // Every ref is checked (and copied) before the engine is asked, as for a batch.
      const refs = (keys as readonly unknown[]).map((ref) => {
        if (typeof ref !== "object" || ref === null) throw new StoreError("store_invalid_value", "getMany takes { collection, key } refs");
        const { collection, key } = ref as { collection?: unknown; key?: unknown };
        assertKnownCollection(collection, collections);
        assertValidKey(key);
        return { collection, key };
      });
      if (refs.length === 0) return [];
      const encoded = await engine.getMany(refs).catch(readFailed);
      return encoded.map((value) => (value === undefined ? undefined : decodeValue(value)));
    },
    async range(collection: string, query?: RangeQuery): Promise<StoreEntry[]> {
      assertOpen();
      assertKnownCollection(collection, collections);
      const { bounds, limit, reverse } = parseRangeQuery(query);
      if (bounds === undefined || limit === 0) return [];
      const entries = await engine.range(collection, bounds, { limit, reverse }).catch(readFailed);
      return entries.map(({ key, value }) => ({ key, value: decodeValue(value) }));
    },
    async count(collection: string, range?: KeyRange): Promise<number> {
      assertOpen();
      assertKnownCollection(collection, collections);
      const bounds = toKeyBounds(range);
      return bounds === undefined ? 0 : engine.count(collection, bounds).catch(readFailed);
    },
  };
}

/**
 * The one implementation of `RuntimeStore` in front of every engine: validates every call, copies values
 * in and out, maps failures to StoreError and enforces `store_closed`. A new store's migration records
 * (`opened.records`) go with its first commit: every commit carries them until one that did has succeeded,
 * so no data reaches the engine without them (putting them twice writes the same rows).
 */
export function createStoreFront(engine: StorageEngine, collections: ReadonlySet<string>, opened: MigratedStore = { empty: false }): RuntimeStore {
  let closing: Promise<void> | undefined;
  // Holds no data until the first commit is called (what opening found: migrations.ts).
  let untouched = opened.empty;
  let unrecorded = opened.records !== undefined && opened.records.length > 0 ? opened.records : undefined;
  const assertOpen = (): void => {
    if (closing !== undefined) throw new StoreError("store_closed", "the store is closed");
  };
  return {
    ...createStoreReader(engine, collections, assertOpen),
    isNew: () => untouched,
    async commit(batch) {
      assertOpen();
      // Validation and copying happen before the first await: the batch is captured as it is now, and the
      // engine sees batches in the order commit was called.
      const writes = prepareBatch(batch, collections);
      if (writes.length === 0) return;
      untouched = false;
      const records = unrecorded;
      await engine.apply(records === undefined ? writes : [...records, ...writes]).catch((error: unknown) => {
        throw toStoreError(error, "store_write_failed", "commit failed");
      });
      if (unrecorded === records) unrecorded = undefined;
    },
    close() {
      closing ??= engine.close().catch((error: unknown) => {
        throw toStoreError(error, "store_write_failed", "close failed");
      });
      return closing;
    },
  };
}

function readFailed(error: unknown): never {
  throw toStoreError(error, "store_read_failed", "read failed");
}
