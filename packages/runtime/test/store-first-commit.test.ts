/**
 * A new store's migration records ride its first commit (`migrations.ts`, `store-front.ts`): opening makes no
 * write, the first commit writes the records with its own rows in one transaction, and a first commit that fails
 * leaves them to the next one, so no row ever reaches the engine without them. Watched at the engine port, with an
 * engine whose commits can be made to fail (the adapters' own behaviour is the store contract's).
 */
import { describe, expect, it } from "vitest";
import type { EncodedEntry, PreparedWrite, StorageEngine } from "../src/persistence/engine.js";
import { isWithin } from "../src/persistence/key-range.js";
import { openStore } from "../src/persistence/open-store.js";
import { META_COLLECTION, type Migration, type StoreSchema } from "../src/persistence/schema.js";
import { StoreError } from "../src/persistence/store-error.js";
import { encodeValue, type EncodedValue } from "../src/persistence/value-codec.js";
import { expectStoreError } from "./store-test-helpers.js";

/** Rows in a map, every applied batch remembered; `failNext` makes the next apply fail and apply nothing. */
class WatchedEngine implements StorageEngine {
  readonly batches: (readonly PreparedWrite[])[] = [];
  failNext = false;
  constructor(readonly rows = new Map<string, EncodedValue>()) {}
  async apply(writes: readonly PreparedWrite[]): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      throw new StoreError("store_write_failed", "the disk said no");
    }
    this.batches.push(writes);
    for (const write of writes) {
      if (write.op === "put") this.rows.set(`${write.collection}\u0000${write.key}`, write.value);
      else if (write.op === "delete") this.rows.delete(`${write.collection}\u0000${write.key}`);
      else throw new Error("not used here");
    }
  }
  async get(collection: string, key: string) {
    return this.rows.get(`${collection}\u0000${key}`);
  }
  async getMany(keys: readonly { collection: string; key: string }[]) {
    return keys.map(({ collection, key }) => this.rows.get(`${collection}\u0000${key}`));
  }
  async range(collection: string, bounds: Parameters<typeof isWithin>[0]): Promise<EncodedEntry[]> {
    return [...this.rows]
      .map(([id, value]) => ({ collection: id.split("\u0000")[0]!, key: id.split("\u0000")[1]!, value }))
      .filter((row) => row.collection === collection && isWithin(bounds, row.key))
      .sort((a, b) => (a.key < b.key ? -1 : 1))
      .map(({ key, value }) => ({ key, value }));
  }
  async count(collection: string, bounds: Parameters<typeof isWithin>[0]) {
    return (await this.range(collection, bounds)).length;
  }
  async isEmpty() {
    return this.rows.size === 0;
  }
  async close() {}
}

const quiet = (name: string): Migration => ({ name, run: () => ({ ok: true }) });
const SCHEMA: StoreSchema = { collections: ["items"], migrations: [quiet("one"), quiet("two")] };
const keysOf = (batch: readonly PreparedWrite[]) => batch.map((w) => `${w.collection}/${"key" in w ? w.key : "?"}`);

describe("a new store's first commit", () => {
  it("carries the migration records: opening writes nothing, the first commit is one transaction with them", async () => {
    const engine = new WatchedEngine();
    const { store } = await openStore(SCHEMA, async () => engine);
    expect(engine.batches).toEqual([]);
    await store.commit([{ op: "put", collection: "items", key: "a", value: 1 }]);
    await store.commit([{ op: "put", collection: "items", key: "b", value: 2 }]);
    expect(engine.batches.map(keysOf)).toEqual([[`${META_COLLECTION}/migration/000000`, `${META_COLLECTION}/migration/000001`, "items/a"], ["items/b"]]);
    // Opened again, the store is recorded: nothing runs or is written.
    const again = await openStore(SCHEMA, async () => new WatchedEngine(engine.rows));
    expect(again.store.isNew?.()).toBe(false);
  });

  it("a failed first commit writes nothing, and the next commit carries the records", async () => {
    const engine = new WatchedEngine();
    const { store } = await openStore(SCHEMA, async () => engine);
    engine.failNext = true;
    await expectStoreError(store.commit([{ op: "put", collection: "items", key: "a", value: 1 }]), "store_write_failed");
    expect(engine.rows.size).toBe(0);
    await store.commit([{ op: "put", collection: "items", key: "b", value: 2 }]);
    expect(engine.batches.map(keysOf)).toEqual([[`${META_COLLECTION}/migration/000000`, `${META_COLLECTION}/migration/000001`, "items/b"]]);
  });

  it("commits issued while the first is in flight carry the records too, until one that did has succeeded", async () => {
    const engine = new WatchedEngine();
    const { store } = await openStore(SCHEMA, async () => engine);
    engine.failNext = true;
    const first = store.commit([{ op: "put", collection: "items", key: "a", value: 1 }]);
    const second = store.commit([{ op: "put", collection: "items", key: "b", value: 2 }]);
    await expectStoreError(first, "store_write_failed");
    await second;
    await store.commit([{ op: "put", collection: "items", key: "c", value: 3 }]);
    expect(engine.batches.map(keysOf)).toEqual([[`${META_COLLECTION}/migration/000000`, `${META_COLLECTION}/migration/000001`, "items/b"], ["items/c"]]);
  });

  it("a store with data commits the records of its new steps when it opens, as before", async () => {
    const engine = new WatchedEngine(new Map([[`items\u0000a`, encodeValue(1)]]));
    await openStore(SCHEMA, async () => engine);
    expect(engine.batches.map(keysOf)).toEqual([[`${META_COLLECTION}/migration/000000`, `${META_COLLECTION}/migration/000001`]]);
  });
});
