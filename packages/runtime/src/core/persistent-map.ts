/**
 * An immutable map that a change copies only in part, for state a pure step changes a few entries of while it
 * holds hundreds or thousands: the Runtime's conversations, outbox, workflow runs and tasks. Copying a whole `Map`
 * on every change made each step cost the size of the state (a tool call took twice the CPU with a thousand
 * conversations followed as with one).
 *
 * `with` and `without` return a new map and leave this one as it was. The new map shares every entry with the
 * old one; what it copies is one bucket and the bucket table (an eighth as long as the map), and one chunk of the
 * order and the chunk table (a thirty-second as long). So a change costs a copy of pointers proportional to the
 * size over eight, far below a `Map`'s rehash of every entry, and a version kept by a turn computed ahead (loop.ts)
 * stays whole.
 *
 * It iterates in insertion order, as a `Map` does: a key set again keeps its place, a key deleted and set again
 * goes last. Keys are strings or numbers, compared as a `Map` compares them (`1` and `"1"` differ, `-0` is `0`).
 */
interface Entry<K, V> {
  readonly key: K;
  readonly value: V;
  /** Its place in the order: the chunk `slot >> CHUNK_BITS`, the index `slot & CHUNK_MASK` in it. */
  readonly slot: number;
}

type Bucket<K, V> = readonly Entry<K, V>[];
/** The order, in chunks of CHUNK_SIZE slots; a deleted entry leaves its slot empty until the map is rebuilt. */
type Chunk<K, V> = readonly (Entry<K, V> | undefined)[];

/** Entries per bucket, on average, before the table doubles. */
const LOAD = 8;
const MIN_BUCKETS = 16;
const CHUNK_BITS = 5;
const CHUNK_SIZE = 1 << CHUNK_BITS;
const CHUNK_MASK = CHUNK_SIZE - 1;

export type PersistentMapKey = string | number;

/** What `mapInOrder` gave for one version of a map: its results in order, and what the next version's are made on. */
export interface OrderedMapping<R> {
  readonly items: readonly R[];
  /** The version's chunks of entries (opaque), and each chunk's results by slot (undefined where it holds no entry). */
  readonly chunks: readonly unknown[];
  readonly parts: readonly (readonly (R | undefined)[])[];
}

export class PersistentMap<K extends PersistentMapKey, V> implements ReadonlyMap<K, V> {
  private constructor(
    private readonly buckets: readonly (Bucket<K, V> | undefined)[],
    private readonly chunks: readonly Chunk<K, V>[],
    /** Slots used so far, the empty ones included: the next entry's slot. */
    private readonly used: number,
    readonly size: number,
  ) {}

  static empty<K extends PersistentMapKey, V>(): PersistentMap<K, V> {
    return new PersistentMap<K, V>(new Array<undefined>(MIN_BUCKETS).fill(undefined), [], 0, 0);
  }

  /** A map holding `entries` in their order; a key given twice keeps its first place and its last value, as `Map` does. */
  static of<K extends PersistentMapKey, V>(entries: Iterable<readonly [K, V]>): PersistentMap<K, V> {
    const all = new Map<K, V>();
    for (const [key, value] of entries) all.set(key, value);
    const count = tableSize(all.size);
    const table: Entry<K, V>[][] = [];
    for (let index = 0; index < count; index++) table.push([]);
    const chunks: (Entry<K, V> | undefined)[][] = [];
    let slot = 0;
    for (const [key, value] of all) {
      const entry: Entry<K, V> = { key, value, slot };
      table[hashOf(key) & (count - 1)]!.push(entry);
      if ((slot & CHUNK_MASK) === 0) chunks.push([]);
      chunks[chunks.length - 1]!.push(entry);
      slot += 1;
    }
    return new PersistentMap<K, V>(
      table.map((bucket) => (bucket.length === 0 ? undefined : bucket)),
      chunks,
      slot,
      all.size,
    );
  }

  get(key: K): V | undefined {
    return this.entry(key)?.value;
  }

  has(key: K): boolean {
    return this.entry(key) !== undefined;
  }

  /** The map with `key` set to `value` (in its place if it is there, else last); this one is unchanged. */
  with(given: K, value: V): PersistentMap<K, V> {
    // A `Map` keeps -0 as 0.
    const key = (given === 0 ? 0 : given) as K;
    const index = hashOf(key) & (this.buckets.length - 1);
    const bucket = this.buckets[index];
    const at = bucket === undefined ? -1 : bucket.findIndex((entry) => sameKey(entry.key, key));
    if (at >= 0) {
      const old = bucket![at]!;
      if (old.value === value) return this;
      const entry = { key, value, slot: old.slot };
      const buckets = this.buckets.slice();
      buckets[index] = bucket!.map((each, i) => (i === at ? entry : each));
      return new PersistentMap(buckets, this.placed(old.slot, entry), this.used, this.size);
    }
    if (this.size + 1 > this.buckets.length * LOAD) return PersistentMap.of([...this.entries(), [key, value]]);
    const entry = { key, value, slot: this.used };
    const buckets = this.buckets.slice();
    buckets[index] = bucket === undefined ? [entry] : [...bucket, entry];
    return new PersistentMap(buckets, this.placed(entry.slot, entry), this.used + 1, this.size + 1);
  }

  /** The map without `key`; this one is unchanged. */
  without(key: K): PersistentMap<K, V> {
    const index = hashOf(key) & (this.buckets.length - 1);
    const bucket = this.buckets[index];
    const old = bucket?.find((entry) => sameKey(entry.key, key));
    if (old === undefined) return this;
    const size = this.size - 1;
    // Mostly empty slots (many deleted): the order is laid out again, so iterating stays proportional to the size.
    if (this.used - size > CHUNK_SIZE && (this.used - size) * 2 > this.used) return PersistentMap.of([...this.entries()].filter(([k]) => !sameKey(k, key)));
    const rest = bucket!.filter((entry) => entry !== old);
    const buckets = this.buckets.slice();
    buckets[index] = rest.length === 0 ? undefined : rest;
    return new PersistentMap(buckets, this.placed(old.slot, undefined), this.used, size);
  }

  entries(): MapIterator<[K, V]> {
    return new OrderIterator<K, V, [K, V]>(this.chunks, ENTRIES) as unknown as MapIterator<[K, V]>;
  }

  keys(): MapIterator<K> {
    return new OrderIterator<K, V, K>(this.chunks, KEYS) as unknown as MapIterator<K>;
  }

  values(): MapIterator<V> {
    return new OrderIterator<K, V, V>(this.chunks, VALUES) as unknown as MapIterator<V>;
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  /**
   * `fn` of every value, in order, made on what an earlier version of this map gave (`previous`, made with the same
   * `fn`): an entry both versions hold unchanged keeps its result without a call, so a map of a thousand entries with
   * one changed calls `fn` once and copies the other results. `fn` is given the result of the slot's entry before (the
   * same key), to give it back when nothing it reads has changed. With `recompute` (what `fn` reads besides the value
   * changed), `fn` runs for every entry, still given each slot's result before.
   */
  mapInOrder<R>(fn: (value: V, before: R | undefined) => R, previous?: OrderedMapping<R>, recompute = false): OrderedMapping<R> {
    if (previous !== undefined && !recompute && previous.chunks === this.chunks) return previous;
    const oldChunks = previous?.chunks as readonly Chunk<K, V>[] | undefined;
    const parts: (readonly (R | undefined)[])[] = [];
    // Whether every slot holds what it held in `previous`: then its list of results is given again, not copied.
    let same = previous !== undefined && oldChunks!.length === this.chunks.length;
    for (let c = 0; c < this.chunks.length; c++) {
      const chunk = this.chunks[c]!;
      const oldChunk = oldChunks?.[c];
      const oldPart = previous?.parts[c];
      if (!recompute && oldChunk === chunk && oldPart !== undefined) {
        parts.push(oldPart);
        continue;
      }
      const part: (R | undefined)[] = [];
      same &&= oldPart !== undefined && oldPart.length === chunk.length;
      for (let i = 0; i < chunk.length; i++) {
        const entry = chunk[i];
        const oldEntry = oldChunk?.[i];
        const before = entry !== undefined && oldEntry !== undefined && sameKey(oldEntry.key, entry.key) ? oldPart?.[i] : undefined;
        const result = entry === undefined ? undefined : !recompute && oldEntry === entry && before !== undefined ? before : fn(entry.value, before);
        same &&= result === oldPart?.[i];
        part.push(result);
      }
      parts.push(part);
    }
    if (same) return { items: previous!.items, chunks: this.chunks, parts };
    const items: R[] = [];
    for (const part of parts) for (const item of part) if (item !== undefined) items.push(item);
    return { items, chunks: this.chunks, parts };
  }

  forEach(callback: (value: V, key: K, map: ReadonlyMap<K, V>) => void, thisArg?: unknown): void {
    for (const chunk of this.chunks) for (const entry of chunk) if (entry !== undefined) callback.call(thisArg, entry.value, entry.key, this);
  }

  private entry(key: K): Entry<K, V> | undefined {
    const bucket = this.buckets[hashOf(key) & (this.buckets.length - 1)];
    if (bucket !== undefined) for (const entry of bucket) if (sameKey(entry.key, key)) return entry;
    return undefined;
  }

  /** The chunks with `slot` holding `put` (undefined: empty): one chunk and the chunk table copied. */
  private placed(slot: number, put: Entry<K, V> | undefined): readonly Chunk<K, V>[] {
    const chunks = this.chunks.slice();
    const at = slot >> CHUNK_BITS;
    const chunk = at < chunks.length ? chunks[at]!.slice() : [];
    chunk[slot & CHUNK_MASK] = put;
    chunks[at] = chunk;
    return chunks;
  }
}

/** A `Map`'s key equality (SameValueZero): `===`, and NaN is NaN. */
const sameKey = (a: PersistentMapKey, b: PersistentMapKey): boolean => a === b || (a !== a && b !== b);

/** The bucket count for `size` entries: a power of two, at least MIN_BUCKETS. */
function tableSize(size: number): number {
  let count = MIN_BUCKETS;
  while (size > count * LOAD) count *= 2;
  return count;
}

/** A small integer mixed (the outbox's orders are consecutive); any other key by its text. */
function hashOf(key: PersistentMapKey): number {
  if (typeof key === "number") return Number.isInteger(key) && Math.abs(key) <= 0x7fffffff ? Math.imul(key ^ (key >>> 16), 0x45d9f3b) >>> 0 : hash(String(key));
  return hash(key);
}

/** FNV-1a over the UTF-16 code units. */
function hash(key: string): number {
  let h = 0x811c9dc5;
  for (let index = 0; index < key.length; index++) h = Math.imul(h ^ key.charCodeAt(index), 0x01000193);
  return h >>> 0;
}

const ENTRIES = 0;
const KEYS = 1;
const VALUES = 2;
type IteratorKind = typeof ENTRIES | typeof KEYS | typeof VALUES;

/**
 * The map's entries, keys or values in order. Written out rather than a generator: a view of the Runtime's state
 * walks every conversation on each commit, and a generator's resumption cost five times this loop's per entry.
 * It inherits from the engine's iterator prototype, as a `Map`'s iterators do (its `Symbol.iterator`, and the iterator
 * helpers where the engine has them), hence the casts to `MapIterator` above.
 */
class OrderIterator<K, V, T> {
  private chunk = 0;
  private index = 0;

  constructor(
    private readonly chunks: readonly Chunk<K, V>[],
    private readonly kind: IteratorKind,
  ) {}

  next(): IteratorResult<T, undefined> {
    const chunks = this.chunks;
    while (this.chunk < chunks.length) {
      const chunk = chunks[this.chunk]!;
      while (this.index < chunk.length) {
        const entry = chunk[this.index++];
        if (entry === undefined) continue;
        const value = this.kind === VALUES ? entry.value : this.kind === KEYS ? entry.key : [entry.key, entry.value];
        return { done: false, value: value as T };
      }
      this.chunk++;
      this.index = 0;
    }
    return { done: true, value: undefined };
  }
}
Object.setPrototypeOf(OrderIterator.prototype, Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]())) as object);
