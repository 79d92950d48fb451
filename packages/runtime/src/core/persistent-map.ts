/**
 * An immutable map from strings that a change copies only in part. `with` and `without` return a new map
 * that shares every bucket with the old one except the bucket the key falls in; the bucket table itself
 * (an eighth as long as the map) is copied. For state a pure step changes a few entries of while it holds
 * hundreds — the Runtime's tasks — where copying a whole `Map` on every change made each step cost the
 * size of the state.
 *
 * It iterates in bucket order, not in insertion order: callers that need an order sort.
 */
interface Entry<V> {
  readonly key: string;
  readonly value: V;
}

type Bucket<V> = readonly Entry<V>[];

/** Entries per bucket, on average, before the table doubles. */
const LOAD = 8;
const MIN_BUCKETS = 16;

export class PersistentMap<V> {
  private constructor(
    private readonly buckets: readonly (Bucket<V> | undefined)[],
    readonly size: number,
  ) {}

  static empty<V>(): PersistentMap<V> {
    return new PersistentMap<V>(new Array<undefined>(MIN_BUCKETS).fill(undefined), 0);
  }

  /** A map holding `entries` (a later entry of a key wins). */
  static of<V>(entries: Iterable<readonly [string, V]>): PersistentMap<V> {
    const table: Entry<V>[][] = [];
    const all = new Map<string, V>();
    for (const [key, value] of entries) all.set(key, value);
    const count = tableSize(all.size);
    for (let index = 0; index < count; index++) table.push([]);
    for (const [key, value] of all) table[hash(key) & (count - 1)]!.push({ key, value });
    return new PersistentMap<V>(table.map((bucket) => (bucket.length === 0 ? undefined : bucket)), all.size);
  }

  get(key: string): V | undefined {
    const bucket = this.buckets[hash(key) & (this.buckets.length - 1)];
    if (bucket !== undefined) for (const entry of bucket) if (entry.key === key) return entry.value;
    return undefined;
  }

  has(key: string): boolean {
    const bucket = this.buckets[hash(key) & (this.buckets.length - 1)];
    return bucket !== undefined && bucket.some((entry) => entry.key === key);
  }

  /** The map with `key` set to `value`; this one is unchanged. */
  with(key: string, value: V): PersistentMap<V> {
    const index = hash(key) & (this.buckets.length - 1);
    const bucket = this.buckets[index] ?? [];
    const at = bucket.findIndex((entry) => entry.key === key);
    if (at >= 0 && bucket[at]!.value === value) return this;
    const next = at >= 0 ? bucket.map((entry, i) => (i === at ? { key, value } : entry)) : [...bucket, { key, value }];
    const size = at >= 0 ? this.size : this.size + 1;
    if (size > this.buckets.length * LOAD) return PersistentMap.of([...this.entries(), [key, value]]);
    const buckets = this.buckets.slice();
    buckets[index] = next;
    return new PersistentMap(buckets, size);
  }

  /** The map without `key`; this one is unchanged. */
  without(key: string): PersistentMap<V> {
    const index = hash(key) & (this.buckets.length - 1);
    const bucket = this.buckets[index];
    if (bucket === undefined || !bucket.some((entry) => entry.key === key)) return this;
    const rest = bucket.filter((entry) => entry.key !== key);
    const buckets = this.buckets.slice();
    buckets[index] = rest.length === 0 ? undefined : rest;
    return new PersistentMap(buckets, this.size - 1);
  }

  *entries(): IterableIterator<[string, V]> {
    for (const bucket of this.buckets) if (bucket !== undefined) for (const entry of bucket) yield [entry.key, entry.value];
  }

  *keys(): IterableIterator<string> {
    for (const bucket of this.buckets) if (bucket !== undefined) for (const entry of bucket) yield entry.key;
  }

  *values(): IterableIterator<V> {
    for (const bucket of this.buckets) if (bucket !== undefined) for (const entry of bucket) yield entry.value;
  }

  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.entries();
  }
}

/** The bucket count for `size` entries: a power of two, at least MIN_BUCKETS. */
function tableSize(size: number): number {
  let count = MIN_BUCKETS;
  while (size > count * LOAD) count *= 2;
  return count;
}

/** FNV-1a over the UTF-16 code units. */
function hash(key: string): number {
  let h = 0x811c9dc5;
  for (let index = 0; index < key.length; index++) h = Math.imul(h ^ key.charCodeAt(index), 0x01000193);
  return h >>> 0;
}
