import type { EncodedEntry, EncodedKeyRef, PreparedWrite, RangeOptions, StorageEngine } from "./engine.js";
import type { KeyBounds } from "./key-range.js";
import { compareKeys } from "./keys.js";
import { openStore } from "./open-store.js";
import type { StoreSchema } from "./schema.js";
import { StoreError } from "./store-error.js";
import type { RuntimeStore } from "./store.js";
import type { EncodedValue } from "./value-codec.js";

/**
 * The contents of memory stores, kept apart from any one store so a test can close a store and open
 * another on the same data — a process restart without a disk. Opaque: only memory stores read it.
 */
export interface MemoryStoreData {
  readonly kind: "memory-store-data";
}

const contents = new WeakMap<MemoryStoreData, Map<string, SortedEntries>>();

export function createMemoryStoreData(): MemoryStoreData {
  const data: MemoryStoreData = Object.freeze({ kind: "memory-store-data" });
  contents.set(data, new Map());
  return data;
}

export interface MemoryStoreOptions {
  /** Data to open; a fresh, empty one when omitted. */
  data?: MemoryStoreData;
}

/**
 * A `RuntimeStore` in sorted in-memory maps, for fast unit tests: same validation, ordering, copying and
 * migrations as the persistent adapters, and "durable" for as long as its `MemoryStoreData` lives.
 */
export async function createMemoryStore(schema: StoreSchema, options: MemoryStoreOptions = {}): Promise<RuntimeStore> {
  const collections = contents.get(options.data ?? createMemoryStoreData());
  if (collections === undefined) throw new StoreError("store_invalid_value", "data was not made by createMemoryStoreData()");
  const { store } = await openStore(schema, async () => new MemoryEngine(collections));
  return store;
}

class MemoryEngine implements StorageEngine {
  constructor(private readonly collections: Map<string, SortedEntries>) {}

  async apply(writes: readonly PreparedWrite[]): Promise<void> {
    // Prepared writes cannot fail (they were validated and encoded by the front), so applying them in one
    // synchronous pass is already all-or-nothing: no other call can observe a half-applied batch.
    for (const write of writes) {
      const entries = this.entries(write.collection, write.op === "put");
      if (write.op === "put") entries!.put(write.key, write.value);
      else if (write.op === "delete") entries?.delete(write.key);
      else entries?.deleteRange(write.bounds);
    }
  }

  async get(collection: string, key: string): Promise<EncodedValue | undefined> {
    return this.entries(collection, false)?.get(key);
  }

  async getMany(keys: readonly EncodedKeyRef[]): Promise<(EncodedValue | undefined)[]> {
    return keys.map(({ collection, key }) => this.entries(collection, false)?.get(key));
  }

  async range(collection: string, bounds: KeyBounds, options: RangeOptions): Promise<EncodedEntry[]> {
    return this.entries(collection, false)?.range(bounds, options) ?? [];
  }

  async count(collection: string, bounds: KeyBounds): Promise<number> {
    return this.entries(collection, false)?.count(bounds) ?? 0;
  }

  async isEmpty(): Promise<boolean> {
    for (const entries of this.collections.values()) if (entries.size > 0) return false;
    return true;
  }

  async close(): Promise<void> {}

  private entries(collection: string, create: boolean): SortedEntries | undefined {
    let entries = this.collections.get(collection);
    if (entries === undefined && create) {
      entries = new SortedEntries();
      this.collections.set(collection, entries);
    }
    return entries;
  }
}

/**
 * One collection: a key → value map plus the keys in order, found by binary search. A put past the last
 * key appends; other new keys wait in a side list that the next ordered read or delete sorts and merges
 * in one pass — a burst of out-of-order puts costs one merge, not one array shift each.
 */
class SortedEntries {
  private readonly sorted: string[] = [];
  private pending: string[] = [];
  private readonly values = new Map<string, EncodedValue>();

  get size(): number {
    return this.values.size;
  }

  get(key: string): EncodedValue | undefined {
    return this.values.get(key);
  }

  put(key: string, value: EncodedValue): void {
    if (!this.values.has(key)) {
      const last = this.sorted.at(-1);
      if (this.pending.length === 0 && (last === undefined || compareKeys(last, key) < 0)) this.sorted.push(key);
      else this.pending.push(key);
    }
    this.values.set(key, value);
  }

  delete(key: string): void {
    if (!this.values.delete(key)) return;
    const keys = this.keys();
    keys.splice(this.firstIndexAbove(keys, key, false), 1);
  }

  deleteRange(bounds: KeyBounds): void {
    const keys = this.keys();
    const [start, end] = this.span(keys, bounds);
    for (const key of keys.splice(start, end - start)) this.values.delete(key);
  }

  range(bounds: KeyBounds, { limit, reverse }: RangeOptions): EncodedEntry[] {
    const all = this.keys();
    let [start, end] = this.span(all, bounds);
    if (limit !== undefined && end - start > limit) {
      if (reverse) start = end - limit;
      else end = start + limit;
    }
    const keys = all.slice(start, end);
    if (reverse) keys.reverse();
    return keys.map((key) => ({ key, value: this.values.get(key)! }));
  }

  count(bounds: KeyBounds): number {
    const [start, end] = this.span(this.keys(), bounds);
    return end - start;
  }

  /** Every key, in order: the waiting out-of-order keys are merged in first. */
  private keys(): string[] {
    if (this.pending.length === 0) return this.sorted;
    const added = this.pending.sort(compareKeys);
    this.pending = [];
    const old = this.sorted.splice(0, this.sorted.length);
    let i = 0;
    let j = 0;
    while (i < old.length && j < added.length) this.sorted.push(compareKeys(old[i]!, added[j]!) < 0 ? old[i++]! : added[j++]!);
    while (i < old.length) this.sorted.push(old[i++]!);
    while (j < added.length) this.sorted.push(added[j++]!);
    return this.sorted;
  }

  /** Index range [start, end) of `keys` within bounds. */
  private span(keys: readonly string[], bounds: KeyBounds): [number, number] {
    const start = this.firstIndexAbove(keys, bounds.lower, bounds.lowerOpen);
    const end = this.firstIndexAbove(keys, bounds.upper, !bounds.upperOpen);
    return [start, Math.max(start, end)];
  }

  /** First index whose key is > `key` (when `strictly`) or >= `key`. */
  private firstIndexAbove(keys: readonly string[], key: string, strictly: boolean): number {
    let low = 0;
    let high = keys.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const order = compareKeys(keys[middle]!, key);
      if (order < 0 || (strictly && order === 0)) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
