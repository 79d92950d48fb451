/**
 * How the IndexedDB store reads, on fake-indexeddb (store-indexeddb.test.ts) and on Chromium's own IndexedDB
 * (host-web's store-contract entry): the reads asked in one turn share one readonly transaction, a read asked after
 * a commit sees it, and a forward range reads its records in key order whatever their number. Uses no `vi`: the
 * browser's shim has none.
 */
import { describe, expect, it } from "vitest";
import type { RuntimeStore, StoreSchema } from "../src/index.js";

const schema: StoreSchema = { collections: ["items", "other"], migrations: [] };

/** Counts the readonly transactions `database` prototypes create while `run` runs. */
async function readonlyTransactions<T>(prototype: IDBDatabase, run: () => Promise<T>): Promise<{ count: number; result: T }> {
  const original = prototype.transaction;
  let count = 0;
  prototype.transaction = function (this: IDBDatabase, ...args: Parameters<IDBDatabase["transaction"]>) {
    if ((args[1] ?? "readonly") === "readonly") count++;
    return original.apply(this, args);
  } as IDBDatabase["transaction"];
  try {
    const result = await run();
    return { count, result };
  } finally {
    prototype.transaction = original;
  }
}

export function runIndexedDbReadCases(label: string, open: (schema: StoreSchema) => Promise<RuntimeStore>, databasePrototype: IDBDatabase): void {
  describe(`IndexedDB store reads (${label})`, () => {
    it("answers the reads asked in one turn from one readonly transaction, each with its own answer", async () => {
      const store = await open(schema);
      await store.commit([
        { op: "put", collection: "items", key: "a", value: 1 },
        { op: "put", collection: "items", key: "b", value: { two: 2 } },
        { op: "put", collection: "other", key: "c", value: "three" },
      ]);
      const { count, result } = await readonlyTransactions(databasePrototype, () =>
        Promise.all([
          store.get("items", "a"),
          store.getMany([
            { collection: "other", key: "c" },
            { collection: "items", key: "missing" },
          ]),
          store.range("items"),
          store.range("items", { reverse: true, limit: 1 }),
          store.count("items"),
          store.range("other", { prefix: "z" }),
        ]),
      );
      expect(count).toBe(1);
      expect(result).toEqual([
        1,
        ["three", undefined],
        [
          { key: "a", value: 1 },
          { key: "b", value: { two: 2 } },
        ],
        [{ key: "b", value: { two: 2 } }],
        2,
        [],
      ]);
      // Reads of a later turn have a transaction of their own.
      const later = await readonlyTransactions(databasePrototype, async () => {
        await store.get("items", "a");
        return store.get("items", "b");
      });
      expect(later.count).toBe(2);
      await store.close();
    });

    it("answers a read asked after a commit in the same turn with that commit's writes, and one asked before it without", async () => {
      const store = await open(schema);
      await store.commit([{ op: "put", collection: "items", key: "a", value: "old" }]);
      const before = store.get("items", "a");
      const rangeBefore = store.range("items");
      const committed = store.commit([
        { op: "put", collection: "items", key: "a", value: "new" },
        { op: "put", collection: "items", key: "b", value: "added" },
      ]);
      const after = store.get("items", "a");
      const rangeAfter = store.range("items");
      await committed;
      expect(await before).toBe("old");
      expect(await rangeBefore).toEqual([{ key: "a", value: "old" }]);
      expect(await after).toBe("new");
      expect(await rangeAfter).toEqual([
        { key: "a", value: "new" },
        { key: "b", value: "added" },
      ]);
      await store.close();
    });

    it("reads a forward range of many records in key order, within its bounds and limit", async () => {
      const store = await open(schema);
      const keys = Array.from({ length: 300 }, (_, i) => `k${String(i).padStart(3, "0")}`);
      await store.commit([
        // Another collection on both sides of the range's keys: none of it is read.
        { op: "put", collection: "other", key: "k000", value: "not this" },
        ...keys.map((key, i) => ({ op: "put" as const, collection: "items", key, value: { i } })),
      ]);
      const all = await store.range("items");
      expect(all.map((entry) => entry.key)).toEqual(keys);
      expect(all.every((entry, i) => (entry.value as { i: number }).i === i)).toBe(true);
      expect((await store.range("items", { limit: 7 })).map((entry) => entry.key)).toEqual(keys.slice(0, 7));
      expect((await store.range("items", { gt: "k100", lte: "k104" })).map((entry) => entry.key)).toEqual(keys.slice(101, 105));
      expect((await store.range("items", { prefix: "k29" })).map((entry) => entry.key)).toEqual(keys.slice(290, 300));
      expect((await store.range("items", { reverse: true, limit: 3 })).map((entry) => entry.key)).toEqual(keys.slice(-3).reverse());
      await store.close();
    });
  });
}
