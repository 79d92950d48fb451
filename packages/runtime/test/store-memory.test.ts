import { describe, expect, it } from "vitest";
import { createMemoryStore, createMemoryStoreData } from "../src/index.js";
import { runStoreContract } from "./store-contract.js";
import { seededRandom } from "./store-test-helpers.js";

runStoreContract("memory", async () => {
  // One MemoryStoreData per fixture plays the part of the disk: reopening reads the same data.
  const data = createMemoryStoreData();
  return {
    open: (schema) => createMemoryStore(schema, { data }),
    cleanup: async () => {},
  };
});

describe("memory store key order under many out-of-order writes", () => {
  it("keeps range, count and deleteRange right through out-of-order puts, against a sorted model", async () => {
    const store = await createMemoryStore({ collections: ["items"], migrations: [] });
    const random = seededRandom(7);
    const model = new Set<string>();
    let sorted: string[] | undefined;
    const sortedModel = (): string[] => (sorted ??= [...model].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).slice();
    const key = (): string => `k${Math.floor(random() * 20_000)}`;
    for (let step = 0; step < 5_000; step++) {
      const roll = random();
      if (roll < 0.8) {
        const batch = Array.from({ length: 1 + Math.floor(random() * 8) }, key);
        await store.commit(batch.map((k) => ({ op: "put", collection: "items", key: k, value: { k } })));
        for (const k of batch) model.add(k);
        sorted = undefined;
      } else if (roll < 0.9) {
        const k = key();
        await store.commit([{ op: "delete", collection: "items", key: k }]);
        model.delete(k);
        sorted = undefined;
      } else if (roll < 0.905) {
        const prefix = key();
        await store.commit([{ op: "deleteRange", collection: "items", range: { prefix } }]);
        for (const k of [...model]) if (k.startsWith(prefix)) model.delete(k);
        sorted = undefined;
      } else {
        const [a, b] = [key(), key()].sort();
        const want = sortedModel().filter((k) => k >= a! && k <= b!);
        const got = await store.range("items", { gte: a!, lte: b!, limit: 50, reverse: random() < 0.5 });
        const reverse = got.length > 1 && got[0]!.key > got[1]!.key;
        expect(got.map((e) => e.key)).toEqual(reverse ? want.reverse().slice(0, 50) : want.slice(0, 50));
        expect(await store.count("items", { gte: a!, lte: b! })).toBe(want.length);
      }
    }
    expect(model.size).toBeGreaterThan(5_000);
    expect((await store.range("items")).map((e) => e.key)).toEqual(sortedModel());
    await store.close();
  });
});
