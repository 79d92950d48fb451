/** `storeWhenOpen`: a store in front of one still opening (RuntimeOptions `store` given as a promise). */
import { describe, expect, it } from "vitest";
import { storeWhenOpen } from "../src/persistence/opening-store.js";
import { createMemoryStore, StoreError, type RuntimeStore, type StoreSchema } from "../src/index.js";

const schema: StoreSchema = { collections: ["items"], migrations: [] };

describe("storeWhenOpen", () => {
  it("is the store itself when it has opened already", async () => {
    const store = await createMemoryStore(schema);
    const given = storeWhenOpen(store);
    expect(given.store).toBe(store);
    await expect(given.opened).resolves.toBeUndefined();
  });

  it("holds the calls made before the store has opened and makes them, in the order they were made, once it has", async () => {
    let resolve!: (store: RuntimeStore) => void;
    const { store, opened } = storeWhenOpen(new Promise<RuntimeStore>((r) => (resolve = r)));
    expect(store.isNew?.()).toBe(false);
    const first = store.commit([{ op: "put", collection: "items", key: "a", value: 1 }]);
    const read = store.get("items", "a");
    const second = store.commit([{ op: "put", collection: "items", key: "a", value: 2 }]);
    const after = store.range("items");
    const counted = store.count("items");
    let settled = false;
    void Promise.all([first, read, second]).then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 10));
    expect(settled).toBe(false);
    resolve(await createMemoryStore(schema));
    await opened;
    await Promise.all([first, second]);
    expect(await read).toBe(1);
    expect(await after).toEqual([{ key: "a", value: 2 }]);
    expect(await counted).toBe(1);
    // Opened: calls go straight to it, and it tells whether it is new.
    expect(await store.getMany([{ collection: "items", key: "a" }])).toEqual([2]);
    expect(store.isNew?.()).toBe(false);
    await store.close();
    await expect(store.get("items", "a")).rejects.toMatchObject({ code: "store_closed" });
  });

  it("rejects every call, and settles opened, with the failure to open", async () => {
    let reject!: (error: Error) => void;
    const { store, opened } = storeWhenOpen(new Promise<RuntimeStore>((_, r) => (reject = r)));
    const read = store.range("items");
    reject(new StoreError("store_migration_failed", "a newer layout"));
    await expect(opened).rejects.toMatchObject({ code: "store_migration_failed" });
    await expect(read).rejects.toMatchObject({ code: "store_migration_failed" });
    await expect(store.commit([{ op: "put", collection: "items", key: "a", value: 1 }])).rejects.toMatchObject({ code: "store_migration_failed" });
  });
});
