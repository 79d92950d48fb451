import type { EncodedEntry, EncodedKeyRef, PreparedWrite, RangeOptions, StorageEngine } from "../persistence/engine.js";
import { ALL_KEYS, isWithin, type KeyBounds } from "../persistence/key-range.js";
import { openStore } from "../persistence/open-store.js";
import type { StoreSchema } from "../persistence/schema.js";
import { StoreError } from "../persistence/store-error.js";
import type { RuntimeStore } from "../persistence/store.js";
import type { EncodedValue } from "../persistence/value-codec.js";
import { toStoreErrorFromIndexedDb } from "./indexeddb-errors.js";
import { OBJECT_STORE, openIndexedDbDatabase } from "./indexeddb-open.js";

export interface IndexedDbStoreOptions {
  /** The IndexedDB database name. */
  name: string;
  schema: StoreSchema;
  /** Defaults to `globalThis.indexedDB`; pass one in tests (e.g. fake-indexeddb's `new IDBFactory()`). */
  indexedDB?: IDBFactory;
  /**
   * Defaults to `globalThis.IDBKeyRange`. Must come from the same implementation as `indexedDB`, since a
   * factory accepts only its own key ranges — the same pair of options Dexie takes.
   */
  IDBKeyRange?: Pick<typeof IDBKeyRange, "bound">;
  /**
   * The database `name`, already being opened by `openIndexedDbDatabase` (a host starts that before the
   * Runtime's code has loaded; only that opener, which steps aside for an upgrade); without it the store
   * opens it. Its failure is the store's.
   */
  database?: Promise<IDBDatabase> | undefined;
}

/**
 * Opens (creating if needed) a store in an IndexedDB database. Every commit is one `readwrite` transaction
 * with `durability: "strict"`, resolved on its `complete` event, i.e. once the browser has flushed it.
 */
export async function openIndexedDbStore(options: IndexedDbStoreOptions): Promise<RuntimeStore> {
  const factory = options.indexedDB ?? (globalThis as { indexedDB?: IDBFactory }).indexedDB;
  const keyRange = options.IDBKeyRange ?? (globalThis as { IDBKeyRange?: typeof IDBKeyRange }).IDBKeyRange;
  if (factory === undefined || keyRange === undefined) {
    throw new StoreError("store_write_failed", "IndexedDB is not available here; pass indexedDB and IDBKeyRange");
  }
  if (typeof options.name !== "string" || options.name === "") {
    throw new StoreError("store_invalid_value", "openIndexedDbStore needs a database name");
  }
  try {
    const { store } = await openStore(options.schema, () => IndexedDbEngine.open(options.database ?? openIndexedDbDatabase(options.name, factory), options.name, keyRange));
    return store;
  } catch (error) {
    // A database opened for this store (a schema refused before the engine took it) is not left open.
    options.database?.then((db) => db.close(), () => undefined);
    throw error;
  }
}

class IndexedDbEngine implements StorageEngine {
  private readonly inFlight = new Set<Promise<unknown>>();
  /**
   * The readonly transaction the reads of this synchronous turn share (a restore's fifteen reads are one transaction,
   * not fifteen, each of which costs the page a round trip to the browser's storage). It is forgotten at the turn's
   * first microtask, while still active, and when a commit is called: a read asked for after a commit gets a
   * transaction created after that commit's, so it sees its writes, as a read of its own always did.
   */
  private sharedRead: IDBTransaction | undefined;
  /** The collections read ahead (`readAhead`), whole and in key order, until the first commit. */
  private ahead: Map<string, Promise<EncodedEntry[]>> | undefined;
  /** The last record of each `lastOf` collection read ahead, until the first commit. */
  private aheadLast: Map<string, Promise<EncodedEntry[]>> | undefined;

  /** `db` comes from `openIndexedDbDatabase`, which already steps aside for an upgrade (calls after it reject with `store_closed`). */
  private constructor(
    private readonly db: IDBDatabase,
    private readonly keyRange: Pick<typeof IDBKeyRange, "bound">,
  ) {}

  static async open(database: Promise<IDBDatabase>, name: string, keyRange: Pick<typeof IDBKeyRange, "bound">): Promise<IndexedDbEngine> {
    try {
      return new IndexedDbEngine(await database, keyRange);
    } catch (error) {
      throw toStoreErrorFromIndexedDb(error, "store_write_failed", `could not open ${name}`);
    }
  }

  apply(writes: readonly PreparedWrite[]): Promise<void> {
    this.sharedRead = undefined;
    this.ahead = undefined;
    this.aheadLast = undefined;
    // The transaction is created synchronously, in the caller's turn: IndexedDB orders overlapping
    // readwrite transactions by creation, which keeps batches in commit-call order.
    return this.track(
      new Promise<void>((resolve, reject) => {
        const transaction = this.db.transaction(OBJECT_STORE, "readwrite", { durability: "strict" });
        let thrown: unknown;
        transaction.oncomplete = () => resolve();
        transaction.onabort = () => reject(toStoreErrorFromIndexedDb(thrown ?? transaction.error, "store_write_failed", "commit failed"));
        const store = transaction.objectStore(OBJECT_STORE);
        try {
          for (const write of writes) {
            if (write.op === "put") store.put(write.value, [write.collection, write.key]);
            else if (write.op === "delete") store.delete([write.collection, write.key]);
            else store.delete(this.keyRangeFor(write.collection, write.bounds));
          }
          // Older engines lack commit(); they auto-commit once the queued requests are done.
          if (typeof transaction.commit === "function") transaction.commit();
        } catch (error) {
          // A request refused synchronously: abort, so the writes already queued are rolled back too.
          thrown = error;
          transaction.abort();
        }
      }),
      "store_write_failed",
    );
  }

  readAhead(collections: readonly string[], lastOf: readonly string[]): void {
    const read = (names: readonly string[], options: RangeOptions): Map<string, Promise<EncodedEntry[]>> =>
      new Map(
        names.map((collection) => {
          const entries = this.readRange(collection, ALL_KEYS, options);
          // A failure is the failure of the reads it answers; until one asks, it is nobody's.
          entries.catch(() => undefined);
          return [collection, entries];
        }),
      );
    this.ahead = read(collections, { limit: undefined, reverse: false });
    this.aheadLast = read(lastOf, { limit: 1, reverse: true });
  }

  async get(collection: string, key: string): Promise<EncodedValue | undefined> {
    const ahead = this.ahead?.get(collection);
    if (ahead !== undefined) return valueIn(await ahead, key);
    const record = await this.read<unknown>((store, finish) => {
      const request = store.get([collection, key]);
      request.onsuccess = () => finish(request.result);
    });
    return record === undefined ? undefined : asEncodedValue(record);
  }

  /** One readonly transaction for every key: its requests are queued together, so one trip to storage. */
  async getMany(keys: readonly EncodedKeyRef[]): Promise<(EncodedValue | undefined)[]> {
    const ahead = this.ahead;
    if (ahead !== undefined && keys.every(({ collection }) => ahead.has(collection))) {
      return Promise.all(keys.map(async ({ collection, key }) => valueIn(await ahead.get(collection)!, key)));
    }
    const records = await this.read<unknown[]>((store, finish) => {
      const found = new Array<unknown>(keys.length);
      let pending = keys.length;
      if (pending === 0) return finish(found);
      keys.forEach(({ collection, key }, index) => {
        const request = store.get([collection, key]);
        request.onsuccess = () => {
          found[index] = request.result;
          if (--pending === 0) finish(found);
        };
      });
    });
    return records.map((record) => (record === undefined ? undefined : asEncodedValue(record)));
  }

  async range(collection: string, bounds: KeyBounds, options: RangeOptions): Promise<EncodedEntry[]> {
    const last = this.aheadLast?.get(collection);
    if (last !== undefined && options.reverse && options.limit === 1 && isWholeCollection(bounds)) return last;
    const ahead = this.ahead?.get(collection);
    if (ahead === undefined) return this.readRange(collection, bounds, options);
    const within = entriesWithin(await ahead, bounds);
    if (options.reverse) within.reverse();
    return options.limit === undefined ? within : within.slice(0, options.limit);
  }

  private async readRange(collection: string, bounds: KeyBounds, { limit, reverse }: RangeOptions): Promise<EncodedEntry[]> {
    const records = await this.read<Array<{ key: string; record: unknown }>>((store, finish) => {
      const range = this.keyRangeFor(collection, bounds);
      const withRecords = store as RecordsStore;
      if (typeof withRecords.getAllRecords === "function") {
        // Keys and values in one request, in either direction (Chromium 141+): one trip to storage, and one read
        // of the records rather than two.
        const request = withRecords.getAllRecords({ query: range, direction: reverse ? "prev" : "next", ...(limit === undefined ? {} : { count: limit }) });
        request.onsuccess = () => finish(request.result.map((found) => ({ key: (found.primaryKey as [string, string])[1], record: found.value })));
        return;
      }
      if (!reverse) {
        // Two requests, whatever the number of records: a cursor costs a trip to storage per record (fewer once the
        // browser prefetches). Both read the transaction's one snapshot in key order, so they pair up index by index,
        // and the keys' request, asked second, succeeds second.
        const values = store.getAll(range, limit);
        const keys = store.getAllKeys(range, limit);
        keys.onsuccess = () => finish(keys.result.map((key, index) => ({ key: (key as [string, string])[1], record: values.result[index] })));
        return;
      }
      const found: Array<{ key: string; record: unknown }> = [];
      const request = store.openCursor(range, "prev");
      request.onsuccess = () => {
        const cursor = request.result;
        if (cursor === null || found.length === limit) return finish(found);
        found.push({ key: (cursor.primaryKey as [string, string])[1], record: cursor.value });
        cursor.continue();
      };
    });
    return records.map(({ key, record }) => ({ key, value: asEncodedValue(record) }));
  }

  async count(collection: string, bounds: KeyBounds): Promise<number> {
    const ahead = this.ahead?.get(collection);
    if (ahead !== undefined) return entriesWithin(await ahead, bounds).length;
    return this.read<number>((store, finish) => {
      const request = store.count(this.keyRangeFor(collection, bounds));
      request.onsuccess = () => finish(request.result);
    });
  }

  async close(): Promise<void> {
    // db.close() lets running transactions finish, but the port promises they have finished when close
    // resolves.
    this.ahead = undefined;
    this.aheadLast = undefined;
    await Promise.allSettled(this.inFlight);
    this.db.close();
  }

  private keyRangeFor(collection: string, bounds: KeyBounds): IDBKeyRange {
    return this.keyRange.bound([collection, bounds.lower], [collection, bounds.upper], bounds.lowerOpen, bounds.upperOpen);
  }

  /** One readonly transaction: is there a first record at all (of any collection, migration records included)? */
  isEmpty(): Promise<boolean> {
    return this.read<boolean>((store, finish) => {
      const request = store.openKeyCursor();
      request.onsuccess = () => finish(request.result === null);
    });
  }

  /**
   * A read in the turn's readonly transaction (`sharedRead`). `run` issues requests and calls `finish` from their
   * success handlers (which only collect, so that nothing throws inside an IndexedDB callback); the promise settles
   * when the transaction completes or aborts.
   */
  private read<T>(run: (store: IDBObjectStore, finish: (value: T) => void) => void): Promise<T> {
    return this.track(
      new Promise<T>((resolve, reject) => {
        const transaction = this.readTransaction();
        let result: { value: T } | undefined;
        transaction.addEventListener("complete", () =>
          result ? resolve(result.value) : reject(new StoreError("store_read_failed", "the read finished without a result")),
        );
        transaction.addEventListener("abort", () => reject(toStoreErrorFromIndexedDb(transaction.error, "store_read_failed", "read failed")));
        run(transaction.objectStore(OBJECT_STORE), (value) => {
          result = { value };
        });
      }),
      "store_read_failed",
    );
  }

  private readTransaction(): IDBTransaction {
    if (this.sharedRead !== undefined) return this.sharedRead;
    const transaction = this.db.transaction(OBJECT_STORE, "readonly");
    this.sharedRead = transaction;
    queueMicrotask(() => {
      if (this.sharedRead === transaction) this.sharedRead = undefined;
    });
    return transaction;
  }

  /** Maps failures and remembers the operation until it settles, so close() can wait for it. */
  private track<T>(operation: Promise<T>, fallback: "store_read_failed" | "store_write_failed"): Promise<T> {
    const promise = operation.catch((error: unknown) => {
      throw toStoreErrorFromIndexedDb(error, fallback, fallback === "store_read_failed" ? "read failed" : "commit failed");
    });
    this.inFlight.add(promise);
    const forget = (): void => void this.inFlight.delete(promise);
    promise.then(forget, forget);
    return promise;
  }
}

/** An object store with `getAllRecords` (IndexedDB 3.0; not in every engine, nor yet in TypeScript's DOM types). */
interface RecordsStore extends IDBObjectStore {
  getAllRecords?(options: { query?: IDBKeyRange; count?: number; direction?: "next" | "prev" }): IDBRequest<{ primaryKey: IDBValidKey; value: unknown }[]>;
}

/** Of a collection read ahead (in key order), the entries within `bounds`, and the value under `key`. */
const entriesWithin = (entries: readonly EncodedEntry[], bounds: KeyBounds): EncodedEntry[] => entries.filter((entry) => isWithin(bounds, entry.key));
const valueIn = (entries: readonly EncodedEntry[], key: string): EncodedValue | undefined => entries.find((entry) => entry.key === key)?.value;

const isWholeCollection = (bounds: KeyBounds): boolean =>
  bounds.lower === ALL_KEYS.lower && bounds.lowerOpen === ALL_KEYS.lowerOpen && bounds.upper === ALL_KEYS.upper && bounds.upperOpen === ALL_KEYS.upperOpen;

/** Records are the encoded values themselves; anything else was not written by this adapter. */
function asEncodedValue(record: unknown): EncodedValue {
  const candidate = record as Partial<{ kind: unknown; text: unknown; bytes: unknown }> | null;
  if (candidate?.kind === "json" && typeof candidate.text === "string") return { kind: "json", text: candidate.text };
  if (candidate?.kind === "bytes" && candidate.bytes instanceof Uint8Array) return { kind: "bytes", bytes: candidate.bytes };
  throw new StoreError("store_corrupt", "an IndexedDB record is not a stored value");
}
