/**
 * A new profile's first start: the store was created by its open (`RuntimeStore.isNew`), so the restore makes no
 * read of it, and the Runtime starts from exactly what reading the empty store gives: with the same ids and clock,
 * a start on a store that does not say it is new writes the very same rows.
 */
import { describe, expect, it } from "vitest";
import { createMemoryStore, RUNTIME_COLLECTIONS, RUNTIME_SCHEMA, type MemoryStoreData, type RuntimeStore } from "../src/index.js";
import { publisherKey } from "./helpers/apps-harness.js";
import { createMemoryStoreData, FakeAppServer, startDevice, storedValues, until } from "./helpers/runtime-harness.js";

/** `store`, counting the reads made through it before its first commit; with `hideNew`, it does not say whether it is new. */
function counting(store: RuntimeStore, hideNew: boolean): { readonly store: RuntimeStore; readonly readsBeforeCommit: () => number } {
  let reads = 0;
  let committed = false;
  const wrapped = new Proxy(store, {
    get(target, key) {
      if (key === "isNew" && hideNew) return undefined;
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== "function") return value;
      const bound = (value as (...args: unknown[]) => unknown).bind(target);
      if (key === "commit") return (...args: unknown[]) => ((committed = true), bound(...args));
      if (key === "get" || key === "getMany" || key === "range" || key === "count") return (...args: unknown[]) => ((committed ? 0 : reads++), bound(...args));
      return bound;
    },
  });
  return { store: wrapped, readsBeforeCommit: () => reads };
}

/** Every row of every collection on a memory "disk". */
async function everything(data: MemoryStoreData): Promise<Record<string, unknown[]>> {
  const rows: Record<string, unknown[]> = {};
  for (const collection of Object.values(RUNTIME_COLLECTIONS)) rows[collection] = await storedValues(data, collection);
  return rows;
}

describe("a new store's first start", () => {
  it("reads nothing to restore, and writes what a start that read the empty store writes", async () => {
    const starts: { data: MemoryStoreData; reads: number }[] = [];
    for (const hideNew of [false, true]) {
      const server = new FakeAppServer();
      const data = createMemoryStoreData();
      let wrapped: ReturnType<typeof counting> | undefined;
      const device = await startDevice(server, data, { wrapStore: (store) => (wrapped = counting(store, hideNew)).store });
      await until(() => device.runtime.lifecycle.snapshot().status === "online", 3_000, "online");
      await device.stop();
      expect(device.errors).toEqual([]);
      starts.push({ data, reads: wrapped!.readsBeforeCommit() });
    }
    const [asNew, asRead] = starts;
    expect(asNew!.reads).toBe(0);
    // The same start reads the store when it cannot tell it is new (the restore's reads, in one round).
    expect(asRead!.reads).toBeGreaterThan(10);
    expect(await everything(asNew!.data)).toEqual(await everything(asRead!.data));
    expect((await everything(asNew!.data))[RUNTIME_COLLECTIONS.meta]!.length).toBeGreaterThan(0);
  });

  it("a store that holds data is read in one round: every read of the start is asked before the first is answered", async () => {
    const data = createMemoryStoreData();
    // A host that ships a publisher key: the first start trusts it, the second has seen it.
    const extra = { trustedPublishers: [(await publisherKey()).trustedKey] };
    const first = await startDevice(new FakeAppServer(), data, { extra });
    await until(() => first.runtime.lifecycle.snapshot().status === "online", 3_000, "online");
    await first.stop();
    // Reads asked by start() after one of its reads was answered: a second round trip on a store whose reads are IPCs.
    let answered = false;
    let started = false;
    const late: string[] = [];
    const device = await startDevice(new FakeAppServer(), data, {
      run: "r1",
      extra,
      beforeStart: (runtime) => {
        const start = runtime.start.bind(runtime);
        runtime.start = () => start().finally(() => (started = true));
      },
      wrapStore: (store) =>
        new Proxy(store, {
          get(target, property) {
            const value = Reflect.get(target, property, target) as unknown;
            if (typeof value !== "function") return value;
            const bound = (value as (...args: unknown[]) => Promise<unknown>).bind(target);
            if (property !== "get" && property !== "getMany" && property !== "range" && property !== "count") return bound;
            return (...args: unknown[]) => {
              if (answered && !started) late.push(`${String(property)} ${JSON.stringify(args)}`);
              return bound(...args).finally(() => (answered = true));
            };
          },
        }),
    });
    expect(started).toBe(true);
    expect(late).toEqual([]);
    await device.stop();
    expect(device.errors).toEqual([]);
  });

  it("a store that holds data is restored from what it holds", async () => {
    const data = createMemoryStoreData();
    const first = await startDevice(new FakeAppServer(), data);
    await until(() => first.runtime.lifecycle.snapshot().status === "online", 3_000, "online");
    await first.stop();
    const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
    expect(store.isNew?.()).toBe(false);
    const runtimeRow = await store.get(RUNTIME_COLLECTIONS.meta, "runtime");
    await store.close();
    // A second start keeps the runtime id the first one stored: it read the store.
    const second = await startDevice(new FakeAppServer(), data, { run: "r1" });
    await until(() => second.runtime.lifecycle.snapshot().status === "online", 3_000, "online again");
    await second.stop();
    expect(await storedValues(data, RUNTIME_COLLECTIONS.meta)).toContainEqual(runtimeRow);
    expect((await storedValues(data, RUNTIME_COLLECTIONS.meta)).filter((row) => (row as { runtime_id?: string }).runtime_id !== undefined)).toHaveLength(1);
  });
});
