import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { JsonValue, KeyRange, Migration, RangeQuery, RuntimeStore, StoreSchema, StoreValue, StoreWrite } from "../src/index.js";
import { expectStoreError } from "./store-test-helpers.js";
import { slack } from "../../../test/support/soak.js";

/** Storage that outlives any one store opened on it: a file, a database name, a MemoryStoreData. */
export interface StoreFixture {
  /** Opens a store on this fixture's storage; opening again after `close()` is a reopen. */
  open(schema: StoreSchema): Promise<RuntimeStore>;
  /** Removes the storage. Stores opened through the suite are closed before this runs. */
  cleanup(): Promise<void>;
}

const SCHEMA: StoreSchema = { collections: ["items", "other"], migrations: [] };

const put = (key: string, value: StoreValue, collection = "items"): StoreWrite => ({ op: "put", collection, key, value });
const del = (key: string, collection = "items"): StoreWrite => ({ op: "delete", collection, key });
const deleteRange = (range: KeyRange, collection = "items"): StoreWrite => ({ op: "deleteRange", collection, range });

/**
 * The behaviour every RuntimeStore adapter shares. Each adapter's test file calls this once with a way to
 * make fresh storage; every case runs on its own fixture.
 */
export function runStoreContract(name: string, createFixture: () => Promise<StoreFixture>): void {
  describe(`RuntimeStore contract: ${name}`, () => {
    let fixture: StoreFixture;
    let opened: RuntimeStore[];
    /** Opens through the fixture and remembers the store, so every case ends with its stores closed. */
    const open = async (schema: StoreSchema = SCHEMA): Promise<RuntimeStore> => {
      const store = await fixture.open(schema);
      opened.push(store);
      return store;
    };
    const keysOf = async (store: RuntimeStore, query?: RangeQuery, collection = "items"): Promise<string[]> =>
      (await store.range(collection, query)).map((entry) => entry.key);

    beforeEach(async () => {
      fixture = await createFixture();
      opened = [];
    });
    afterEach(async () => {
      await Promise.all(opened.map((store) => store.close()));
      await fixture.cleanup();
    });

    describe("put, get, delete", () => {
      it("reads back what was put, and undefined after a delete or for a missing key", async () => {
        const store = await open();
        await store.commit([put("a", { n: 1 }), put("b", "two", "other")]);
        expect(await store.get("items", "a")).toEqual({ n: 1 });
        expect(await store.get("other", "b")).toBe("two");
        expect(await store.get("items", "b")).toBeUndefined();

        await store.commit([put("a", [1, 2])]);
        expect(await store.get("items", "a")).toEqual([1, 2]);
        await store.commit([del("a"), del("never-there")]);
        expect(await store.get("items", "a")).toBeUndefined();
      });

      it("applies the writes of one batch in order", async () => {
        const store = await open();
        await store.commit([put("a", 1), del("a"), put("b", 1), put("b", 2), put("c", 1), deleteRange({}), put("d", "last")]);
        expect(await store.range("items")).toEqual([{ key: "d", value: "last" }]);
        await store.commit([del("d"), put("d", "again")]);
        expect(await store.get("items", "d")).toBe("again");
      });

      it("accepts an empty batch", async () => {
        const store = await open();
        await store.commit([]);
        expect(await store.count("items")).toBe(0);
      });

      it("applies concurrent commits in call order and resolves each", async () => {
        const store = await open();
        await Promise.all(Array.from({ length: 20 }, (_, i) => store.commit([put("k", i), put(`n${String(i).padStart(2, "0")}`, i)])));
        expect(await store.get("items", "k")).toBe(19);
        expect(await store.count("items", { prefix: "n" })).toBe(20);
      });

      it("accepts keys at the edges of the rules", async () => {
        const store = await open();
        const edgeKeys = [" ", "~", "x".repeat(512), "a b/c:d!\"#$%&'()*+,-.;<=>?@[\\]^_`{|}"];
        await store.commit(edgeKeys.map((key, i) => put(key, i)));
        for (const [i, key] of edgeKeys.entries()) expect(await store.get("items", key)).toBe(i);
      });
    });

    describe("getMany", () => {
      it("returns values in the order asked, undefined in place for missing keys, across collections", async () => {
        const store = await open();
        await store.commit([put("a", { n: 1 }), put("b", "two", "other"), put("c", new Uint8Array([3])), put("z", null)]);
        expect(
          await store.getMany([
            { collection: "items", key: "z" },
            { collection: "items", key: "missing" },
            { collection: "other", key: "b" },
            { collection: "items", key: "b" },
            { collection: "items", key: "a" },
            { collection: "items", key: "c" },
            { collection: "items", key: "a" },
          ]),
        ).toEqual([null, undefined, "two", undefined, { n: 1 }, new Uint8Array([3]), { n: 1 }]);
        expect(await store.getMany([])).toEqual([]);
      });

      it("agrees with get over many keys at once", async () => {
        const store = await open();
        const keys = Array.from({ length: 300 }, (_, i) => `k${String(i).padStart(3, "0")}`);
        await store.commit(keys.filter((_, i) => i % 3 !== 0).map((key, i) => put(key, { i })));
        const refs = [...keys].reverse().map((key) => ({ collection: "items", key }));
        const many = await store.getMany(refs);
        expect(many).toHaveLength(refs.length);
        expect(many).toEqual(await Promise.all(refs.map(({ collection, key }) => store.get(collection, key))));
        expect(many.filter((value) => value === undefined)).toHaveLength(100);
      });

      it("sees every committed batch: puts, overwrites, deletes and range deletes", async () => {
        const store = await open();
        const refs = ["a", "b", "c"].map((key) => ({ collection: "items", key }));
        await store.commit([put("a", 1), put("b", 1)]);
        expect(await store.getMany(refs)).toEqual([1, 1, undefined]);
        await store.commit([put("a", 2), del("b"), put("c", 3)]);
        expect(await store.getMany(refs)).toEqual([2, undefined, 3]);
        await store.commit([deleteRange({ lt: "c" })]);
        expect(await store.getMany(refs)).toEqual([undefined, undefined, 3]);
      });

      it("copies values out: mutating a result changes neither the store nor another result", async () => {
        const store = await open();
        await store.commit([put("obj", { list: [1, 2] }), put("bytes", new Uint8Array([1, 2, 3]))]);
        const refs = [
          { collection: "items", key: "obj" },
          { collection: "items", key: "obj" },
          { collection: "items", key: "bytes" },
        ];
        const [first, second, bytes] = (await store.getMany(refs)) as [{ list: number[] }, { list: number[] }, Uint8Array];
        expect(first).not.toBe(second);
        first.list.push(99);
        bytes[0] = 99;
        expect(second).toEqual({ list: [1, 2] });
        expect(await store.getMany(refs)).toEqual([{ list: [1, 2] }, { list: [1, 2] }, new Uint8Array([1, 2, 3])]);
      });

      it("refuses the whole call for one bad ref, like get", async () => {
        const store = await open();
        await store.commit([put("a", 1)]);
        const good = { collection: "items", key: "a" };
        await expectStoreError(store.getMany([good, { collection: "items", key: "é" }]), "store_invalid_key");
        await expectStoreError(store.getMany([good, { collection: "items", key: "" }]), "store_invalid_key");
        await expectStoreError(store.getMany([good, { collection: "nope", key: "a" }]), "store_unknown_collection");
        await expectStoreError(store.getMany([good, { collection: "$meta", key: "migration/000000" }]), "store_unknown_collection");
        await expectStoreError(store.getMany([good, null as unknown as { collection: string; key: string }]), "store_invalid_value");
        await expectStoreError(store.getMany("items" as unknown as []), "store_invalid_value");
        expect(await store.getMany([good])).toEqual([1]);
      });
    });

    describe("ordered range reads", () => {
      // Deliberately inserted out of order; ASCII order is: space < digits < upper case < lower case < ~.
      const KEYS = ["b", "a~", "~", "a", "B", "ab", "0", " x", "abc", "b0", "c"];
      const SORTED = [" x", "0", "B", "a", "ab", "abc", "a~", "b", "b0", "c", "~"];
      let store: RuntimeStore;
      beforeEach(async () => {
        store = await open();
        await store.commit(KEYS.map((key) => put(key, key)));
        await store.commit([put("zzz", "elsewhere", "other")]);
      });

      it("returns keys in plain string order, values attached", async () => {
        const entries = await store.range("items");
        expect(entries.map((e) => e.key)).toEqual(SORTED);
        for (const entry of entries) expect(entry.value).toBe(entry.key);
      });

      it("honours gt, gte, lt and lte, alone and together", async () => {
        expect(await keysOf(store, { gte: "ab" })).toEqual(["ab", "abc", "a~", "b", "b0", "c", "~"]);
        expect(await keysOf(store, { gt: "ab" })).toEqual(["abc", "a~", "b", "b0", "c", "~"]);
        expect(await keysOf(store, { lt: "a" })).toEqual([" x", "0", "B"]);
        expect(await keysOf(store, { lte: "a" })).toEqual([" x", "0", "B", "a"]);
        expect(await keysOf(store, { gt: "a", lt: "b" })).toEqual(["ab", "abc", "a~"]);
        expect(await keysOf(store, { gte: "a", lte: "b" })).toEqual(["a", "ab", "abc", "a~", "b"]);
        expect(await keysOf(store, { gte: "a", gt: "a", lte: "b0", lt: "b0" })).toEqual(["ab", "abc", "a~", "b"]);
        expect(await keysOf(store, { gte: "aa", lte: "aaz" })).toEqual([]);
      });

      it("returns nothing for an empty or inverted range", async () => {
        expect(await keysOf(store, { gt: "b", lt: "a" })).toEqual([]);
        expect(await keysOf(store, { gt: "b", lte: "b" })).toEqual([]);
        expect(await keysOf(store, { gte: "b", lte: "b" })).toEqual(["b"]);
        expect(await store.count("items", { gt: "c", lt: "b" })).toBe(0);
      });

      it("selects by prefix, combined with bounds", async () => {
        expect(await keysOf(store, { prefix: "a" })).toEqual(["a", "ab", "abc", "a~"]);
        expect(await keysOf(store, { prefix: "ab" })).toEqual(["ab", "abc"]);
        expect(await keysOf(store, { prefix: "a", gt: "ab" })).toEqual(["abc", "a~"]);
        expect(await keysOf(store, { prefix: "a", lt: "abc" })).toEqual(["a", "ab"]);
        expect(await keysOf(store, { prefix: "~" })).toEqual(["~"]);
        expect(await keysOf(store, { prefix: "q" })).toEqual([]);
        expect(await keysOf(store, { prefix: "a", gt: "b" })).toEqual([]);
      });

      it("limits and reverses", async () => {
        expect(await keysOf(store, { limit: 3 })).toEqual([" x", "0", "B"]);
        expect(await keysOf(store, { reverse: true, limit: 2 })).toEqual(["~", "c"]);
        expect(await keysOf(store, { reverse: true })).toEqual([...SORTED].reverse());
        expect(await keysOf(store, { prefix: "a", reverse: true, limit: 2 })).toEqual(["a~", "abc"]);
        expect(await keysOf(store, { gte: "b", reverse: true })).toEqual(["~", "c", "b0", "b"]);
        expect(await keysOf(store, { limit: 0 })).toEqual([]);
        expect(await keysOf(store, { limit: 1000 })).toHaveLength(KEYS.length);
      });

      it("counts, whole collections and ranges", async () => {
        expect(await store.count("items")).toBe(KEYS.length);
        expect(await store.count("other")).toBe(1);
        expect(await store.count("items", { prefix: "a" })).toBe(4);
        expect(await store.count("items", { gt: "a", lte: "b" })).toBe(4);
      });

      it("deleteRange removes exactly the keys in range, in that collection only", async () => {
        await store.commit([deleteRange({ prefix: "a" })]);
        expect(await keysOf(store)).toEqual([" x", "0", "B", "b", "b0", "c", "~"]);
        await store.commit([deleteRange({ gt: "0", lte: "b" })]);
        expect(await keysOf(store)).toEqual([" x", "0", "b0", "c", "~"]);
        await store.commit([deleteRange({ gt: "z", lt: "a" })]); // empty: removes nothing
        expect(await store.count("items")).toBe(5);
        await store.commit([deleteRange({})]);
        expect(await store.count("items")).toBe(0);
        expect(await store.get("other", "zzz")).toBe("elsewhere");
      });
    });

    describe("values", () => {
      it("round-trips JSON edge values", async () => {
        const store = await open();
        const values: StoreValue[] = [
          null,
          true,
          false,
          0,
          -1.5,
          Number.MAX_SAFE_INTEGER,
          -Number.MAX_SAFE_INTEGER,
          Number.MAX_VALUE,
          Number.MIN_VALUE,
          1e21,
          "",
          "héllo wörld — 你好, мир, 🧑‍🤝‍🧑 e\u0301",
          "\u0000\u001f\"\\\n\t\u2028\u2029",
          "\ud800 lone surrogates \udfff",
          [],
          {},
          [1, "two", [3, [4, { five: [6] }]], null, { "": "empty key", "with space": true }],
          { deeply: { nested: { object: { with: { arrays: [[[[]]]], and: "unicode ✓" } } } } },
          JSON.parse('{"__proto__": {"polluted": true}, "constructor": 1}') as StoreValue,
        ];
        await store.commit(values.map((value, i) => put(`v${String(i).padStart(2, "0")}`, value)));
        const read = await store.range("items");
        expect(read.map((e) => e.value)).toEqual(values);
        const proto = read.at(-1)!.value as Record<string, unknown>;
        expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
        expect(Object.keys(proto)).toEqual(["__proto__", "constructor"]);
        expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
      });

      it("refuses values nested past 256 levels, without overflowing the stack", async () => {
        const store = await open();
        const nested = (depth: number): StoreValue => {
          let value: StoreValue = "leaf";
          for (let i = 0; i < depth; i++) value = [value];
          return value;
        };
        await store.commit([put("at-limit", nested(255)), put("limit", nested(256))]);
        expect(await store.get("items", "limit")).toEqual(nested(256));
        await expectStoreError(store.commit([put("over", nested(257))]), "store_invalid_value");
        await expectStoreError(store.commit([put("bomb", nested(100_000))]), "store_invalid_value");
        expect(await store.count("items")).toBe(2);
      });

      it("reads -0 back as 0, like JSON", async () => {
        const store = await open();
        await store.commit([put("z", -0), put("zs", [-0])]);
        expect(Object.is(await store.get("items", "z"), 0)).toBe(true);
        expect(Object.is(((await store.get("items", "zs")) as number[])[0], 0)).toBe(true);
      });

      it("round-trips bytes as plain Uint8Arrays of exactly the viewed bytes", async () => {
        const store = await open();
        const all = Uint8Array.from({ length: 256 }, (_, i) => i);
        const view = new Uint8Array(all.buffer, 10, 5);
        await store.commit([put("all", all), put("empty", new Uint8Array(0)), put("view", view), put("text", "AAEC")]);

        const read = await store.get("items", "all");
        expect(read).toBeInstanceOf(Uint8Array);
        expect(Object.getPrototypeOf(read)).toBe(Uint8Array.prototype);
        expect(Array.from(read as Uint8Array)).toEqual(Array.from(all));
        expect(await store.get("items", "empty")).toEqual(new Uint8Array(0));
        const readView = (await store.get("items", "view")) as Uint8Array;
        expect(Array.from(readView)).toEqual([10, 11, 12, 13, 14]);
        expect(readView.buffer.byteLength).toBe(5);
        expect(await store.get("items", "text")).toBe("AAEC");
      });

      it("copies values in and out: no aliasing with the caller", async () => {
        const store = await open();
        const value = { list: [1, 2], inner: { name: "original" } };
        const bytes = new Uint8Array([1, 2, 3]);
        const committing = store.commit([put("obj", value), put("bytes", bytes)]);
        value.list.push(99); // mutated while the commit is in flight
        bytes[0] = 99;
        await committing;
        value.inner.name = "mutated after commit";
        expect(await store.get("items", "obj")).toEqual({ list: [1, 2], inner: { name: "original" } });
        expect(Array.from((await store.get("items", "bytes")) as Uint8Array)).toEqual([1, 2, 3]);

        const first = (await store.get("items", "obj")) as { list: number[] };
        first.list.push(7);
        const firstBytes = (await store.get("items", "bytes")) as Uint8Array;
        firstBytes[1] = 77;
        const [ranged] = await store.range("items", { prefix: "obj" });
        (ranged!.value as { list: number[] }).list.length = 0;
        expect(await store.get("items", "obj")).toEqual({ list: [1, 2], inner: { name: "original" } });
        expect(Array.from((await store.get("items", "bytes")) as Uint8Array)).toEqual([1, 2, 3]);
        expect(await store.get("items", "obj")).not.toBe(await store.get("items", "obj"));
      });
    });

    describe("bad input is refused whole", () => {
      const badKeys: unknown[] = ["", "x".repeat(513), "é", "a\nb", "tab\t", "\x7F", "emoji 🙂", 42, undefined, null];

      it.each(badKeys.map((key) => [JSON.stringify(key) ?? String(key), key]))("refuses key %s with store_invalid_key", async (_, key) => {
        const store = await open();
        await store.commit([put("kept", 0)]);
        await expectStoreError(store.commit([put("good", 1), put(key as string, 2), put("also-good", 3)]), "store_invalid_key");
        await expectStoreError(store.commit([put("good", 1), del(key as string)]), "store_invalid_key");
        await expectStoreError(store.get("items", key as string), "store_invalid_key");
        await expectStoreError(store.getMany([{ collection: "items", key: "kept" }, { collection: "items", key: key as string }]), "store_invalid_key");
        expect(await keysOf(store)).toEqual(["kept"]);
      });

      it("refuses malformed range bounds with store_invalid_key", async () => {
        const store = await open();
        await store.commit([put("kept", 0)]);
        await expectStoreError(store.range("items", { gt: "é" }), "store_invalid_key");
        await expectStoreError(store.count("items", { prefix: "" }), "store_invalid_key");
        await expectStoreError(store.commit([put("good", 1), deleteRange({ lt: "\n" })]), "store_invalid_key");
        expect(await keysOf(store)).toEqual(["kept"]);
      });

      it("refuses unknown collections with store_unknown_collection, including the internal one", async () => {
        const store = await open();
        await expectStoreError(store.commit([put("good", 1), put("x", 1, "nope")]), "store_unknown_collection");
        await expectStoreError(store.commit([put("good", 1), put("x", 1, "$meta")]), "store_unknown_collection");
        await expectStoreError(store.commit([put("good", 1), deleteRange({}, "$meta")]), "store_unknown_collection");
        await expectStoreError(store.get("nope", "x"), "store_unknown_collection");
        await expectStoreError(store.range("$meta"), "store_unknown_collection");
        await expectStoreError(store.count("nope"), "store_unknown_collection");
        expect(await store.count("items")).toBe(0);
      });

      const cyclic: Record<string, unknown> = { a: 1 };
      cyclic["self"] = cyclic;
      const badValues: Array<[string, unknown]> = [
        ["a function", () => 1],
        ["NaN", Number.NaN],
        ["Infinity", Number.POSITIVE_INFINITY],
        ["undefined", undefined],
        ["a nested undefined", { a: undefined }],
        ["a bigint", 10n],
        ["a symbol", Symbol("s")],
        ["a Date", new Date(0)],
        ["a Map", new Map()],
        ["a class instance", new (class Point { x = 1 })()],
        // eslint-disable-next-line no-sparse-arrays -- the hole is what is being refused
        ["a sparse array", [1, , 3]],
        ["a cycle", cyclic],
        ["bytes nested in JSON", { data: new Uint8Array([1]) }],
        ["a symbol-keyed object", { [Symbol("k")]: 1 }],
        ["a NaN deep inside", { a: [{ b: [Number.NaN] }] }],
      ];

      it.each(badValues)("refuses %s with store_invalid_value", async (_, value) => {
        const store = await open();
        await expectStoreError(store.commit([put("good", 1), put("bad", value as StoreValue)]), "store_invalid_value");
        expect(await store.count("items")).toBe(0);
      });

      it("refuses malformed queries and writes with store_invalid_value", async () => {
        const store = await open();
        await expectStoreError(store.range("items", { limit: -1 }), "store_invalid_value");
        await expectStoreError(store.range("items", { limit: 1.5 }), "store_invalid_value");
        await expectStoreError(store.commit([put("good", 1), { op: "upsert", collection: "items", key: "k" } as unknown as StoreWrite]), "store_invalid_value");
        expect(await store.count("items")).toBe(0);
      });
    });

    describe("lifecycle", () => {
      it("keeps committed data across close and reopen", async () => {
        const store = await open();
        await store.commit([put("a", { kept: true }), put("b", new Uint8Array([7, 8])), put("c", 3, "other")]);
        await store.commit([del("c", "other")]);
        await store.close();

        const reopened = await open();
        expect(await reopened.range("items")).toEqual([
          { key: "a", value: { kept: true } },
          { key: "b", value: new Uint8Array([7, 8]) },
        ]);
        expect(await reopened.count("other")).toBe(0);
      });

      it("rejects every call after close with store_closed; close is idempotent", async () => {
        const store = await open();
        await store.commit([put("a", 1)]);
        await store.close();
        await store.close();
        await expectStoreError(store.commit([put("b", 1)]), "store_closed");
        await expectStoreError(store.get("items", "a"), "store_closed");
        await expectStoreError(store.getMany([{ collection: "items", key: "a" }]), "store_closed");
        await expectStoreError(store.getMany([]), "store_closed");
        await expectStoreError(store.range("items"), "store_closed");
        await expectStoreError(store.count("items"), "store_closed");
      });

      it("lets a commit issued before close finish", async () => {
        const store = await open();
        const committing = store.commit([put("a", 1)]);
        await store.close();
        await committing;
        const reopened = await open();
        expect(await reopened.get("items", "a")).toBe(1);
      });

      it("refuses a malformed schema with store_invalid_value", async () => {
        await expectStoreError(fixture.open({ collections: ["a", "a"], migrations: [] }), "store_invalid_value");
        await expectStoreError(fixture.open({ collections: ["$meta"], migrations: [] }), "store_invalid_value");
        await expectStoreError(fixture.open({ collections: [""], migrations: [] }), "store_invalid_value");
        const step: Migration = { name: "x", run: () => ({ ok: true }) };
        await expectStoreError(fixture.open({ collections: ["a"], migrations: [step, step] }), "store_invalid_value");
      });
    });

    describe("a new store", () => {
      it("says it is new until something is committed, and reads find nothing meanwhile; opened again over data, it is not", async () => {
        const store = await open();
        expect(store.isNew?.()).toBe(true);
        expect(await store.get("items", "a")).toBeUndefined();
        expect(await store.range("items")).toEqual([]);
        await store.commit([]);
        expect(store.isNew?.()).toBe(true);
        await store.commit([put("a", 1)]);
        expect(store.isNew?.()).toBe(false);
        expect(await store.get("items", "a")).toBe(1);
        await store.close();

        const again = await open();
        expect(again.isNew?.()).toBe(false);
        expect(await again.get("items", "a")).toBe(1);
        await again.commit([del("a")]);
        await again.close();
        // Emptied by deletes, it holds nothing again.
        expect((await open()).isNew?.()).toBe(true);
      });

      it("a step reads nothing on a new store until a step before it wrote", async () => {
        const seen: JsonValue[] = [];
        const look = (name: string): Migration => ({
          name,
          async run(ctx) {
            seen.push(((await ctx.get("items", "a")) as JsonValue | undefined) ?? null, await ctx.count("items"), (await ctx.range("items")).length);
            return { ok: true };
          },
        });
        const writing: Migration = { name: "write", run: (ctx) => (ctx.write([put("a", 1)]), { ok: true }) };
        const store = await open({ collections: ["items"], migrations: [look("first"), writing, look("after")] });
        expect(seen).toEqual([null, 0, 0, 1, 1, 1]);
        // Its steps wrote data: it is not new.
        expect(store.isNew?.()).toBe(false);
      });

      it("its steps' records go with its first commit: closed before one, it opens as new and its steps run again on nothing", async () => {
        const log: string[] = [];
        const quiet = (name: string): Migration => ({ name, run: () => (log.push(name), { ok: true }) });
        const schema: StoreSchema = { collections: ["items"], migrations: [quiet("one"), quiet("two")] };
        await (await open(schema)).close();
        const again = await open(schema);
        expect(log).toEqual(["one", "two", "one", "two"]);
        expect(again.isNew?.()).toBe(true);
        // Two commits in flight at once: the records are on disk with the first.
        await Promise.all([again.commit([put("a", 1)]), again.commit([put("b", 2)])]);
        await again.close();
        const recorded = await open(schema);
        expect(log).toEqual(["one", "two", "one", "two"]);
        expect(await keysOf(recorded)).toEqual(["a", "b"]);
        await recorded.close();
        // Recorded as these steps: a schema naming others is refused.
        await expectStoreError(fixture.open({ collections: ["items"], migrations: [quiet("one"), quiet("other")] }), "store_migration_failed");
      });
    });

    describe("migrations", () => {
      /** A step that logs its name and stages `writes`. */
      const step = (log: string[], name: string, writes: StoreWrite[] = [], outcome: "ok" | "fail" | "throw" = "ok"): Migration => ({
        name,
        run(ctx) {
          log.push(name);
          ctx.write(writes);
          if (outcome === "throw") throw new Error(`${name} exploded`);
          return outcome === "ok" ? { ok: true } : { ok: false, reason: `${name} refused` };
        },
      });

      it("runs missing steps once, in order, and records them; later schemas add collections and steps", async () => {
        const log: string[] = [];
        const one = step(log, "one", [put("a", 1)]);
        const two: Migration = {
          name: "two",
          async run(ctx) {
            log.push("two");
            const a = (await ctx.get("items", "a")) as number;
            expect(await ctx.getMany([{ collection: "items", key: "a" }, { collection: "items", key: "b" }])).toEqual([1, undefined]);
            // Rewrites every value of the collection: the kind of step a schema change needs.
            for (const entry of await ctx.range("items")) ctx.write([put(entry.key, { wrapped: entry.value as JsonValue })]);
            ctx.write([put("b", a + 1)]);
            // Reads see the store before this step: the staged "b" is not visible yet.
            expect(await ctx.get("items", "b")).toBeUndefined();
            expect(await ctx.count("items")).toBe(1);
            return { ok: true };
          },
        };
        const v1: StoreSchema = { collections: ["items"], migrations: [one, two] };
        const store = await open(v1);
        expect(log).toEqual(["one", "two"]);
        expect(await store.range("items")).toEqual([
          { key: "a", value: { wrapped: 1 } },
          { key: "b", value: 2 },
        ]);
        await store.close();

        await (await open(v1)).close();
        expect(log).toEqual(["one", "two"]);

        const v2: StoreSchema = { collections: ["items", "added"], migrations: [one, two, step(log, "three", [put("x", "new", "added")])] };
        const upgraded = await open(v2);
        expect(log).toEqual(["one", "two", "three"]);
        expect(await upgraded.get("added", "x")).toBe("new");
        expect(await upgraded.get("items", "b")).toBe(2);
        await expectStoreError(
          (async () => {
            const old = await open(v1);
            await old.close();
          })(),
          "store_migration_failed",
        );
      });

      it.each(["fail", "throw"] as const)("a step that %ss rolls back alone and open fails with store_migration_failed", async (outcome) => {
        const log: string[] = [];
        const one = step(log, "one", [put("a", 1)]);
        const broken = step(log, "two", [put("b", 2), deleteRange({})], outcome);
        const error = await expectStoreError(fixture.open({ collections: ["items"], migrations: [one, broken] }), "store_migration_failed");
        expect(error.message).toContain("two");
        if (outcome === "throw") expect((error.cause as Error).message).toBe("two exploded");
        else expect(error.message).toContain("two refused");

        // The store stopped at "one": its write is there, nothing of "two" is, and "one" is not re-run.
        const atOne = await open({ collections: ["items"], migrations: [one] });
        expect(log).toEqual(["one", "two"]);
        expect(await atOne.range("items")).toEqual([{ key: "a", value: 1 }]);
        await atOne.close();

        const fixed = await open({ collections: ["items"], migrations: [one, step(log, "two", [put("b", 2)])] });
        expect(log).toEqual(["one", "two", "two"]);
        expect(await keysOf(fixed)).toEqual(["a", "b"]);
      });

      it("a step failing after steps that wrote nothing leaves those recorded: they do not run again", async () => {
        const log: string[] = [];
        const quiet = [step(log, "one"), step(log, "two")];
        await expectStoreError(fixture.open({ collections: ["items"], migrations: [...quiet, step(log, "three", [put("c", 3)], "fail")] }), "store_migration_failed");
        expect(log).toEqual(["one", "two", "three"]);
        const atTwo = await open({ collections: ["items"], migrations: quiet });
        expect(log).toEqual(["one", "two", "three"]);
        expect(await atTwo.count("items")).toBe(0);
        await atTwo.close();
        const fixed = await open({ collections: ["items"], migrations: [...quiet, step(log, "three", [put("c", 3)]), step(log, "four")] });
        expect(log).toEqual(["one", "two", "three", "three", "four"]);
        expect(await fixed.get("items", "c")).toBe(3);
        await fixed.close();
        await (await open({ collections: ["items"], migrations: [...quiet, step(log, "three"), step(log, "four")] })).close();
        expect(log).toEqual(["one", "two", "three", "three", "four"]);
      });

      it("data a schema with no steps wrote is read by the step a later schema adds", async () => {
        const before = await open({ collections: ["items"], migrations: [] });
        await before.commit([put("a", 1), put("b", 2)]);
        await before.close();
        const seen: JsonValue[] = [];
        const reading: Migration = {
          name: "read-all",
          async run(ctx) {
            for (const entry of await ctx.range("items")) seen.push(entry.value as JsonValue);
            seen.push(await ctx.count("items"));
            return { ok: true };
          },
        };
        const after = await open({ collections: ["items"], migrations: [reading] });
        expect(seen).toEqual([1, 2, 2]);
        expect(after.isNew?.()).toBe(false);
      });

      it("a step staging bad input fails with store_migration_failed, caused by the input error", async () => {
        const bad: Migration = {
          name: "bad",
          run(ctx) {
            ctx.write([put("ok", 1), put("", 2)]);
            return { ok: true };
          },
        };
        const error = await expectStoreError(fixture.open({ collections: ["items"], migrations: [bad] }), "store_migration_failed");
        expect((error.cause as { code?: string }).code).toBe("store_invalid_key");
        const store = await open({ collections: ["items"], migrations: [] });
        expect(await store.count("items")).toBe(0);
      });

      it("refuses a store whose recorded steps the schema does not list in the same order", async () => {
        const log: string[] = [];
        const first = await open({ collections: ["items"], migrations: [step(log, "one"), step(log, "two")] });
        // A new store's records go with its first commit.
        await first.commit([put("a", 1)]);
        await first.close();
        await expectStoreError(fixture.open({ collections: ["items"], migrations: [step(log, "one"), step(log, "other")] }), "store_migration_failed");
        await expectStoreError(fixture.open({ collections: ["items"], migrations: [step(log, "two"), step(log, "one")] }), "store_migration_failed");
        expect(log).toEqual(["one", "two"]);
      });
    });

    it("matches a model map over random batch sequences (property)", async () => {
      const KEY_POOL = ["a", "ab", "abc", "a~", "b", "b0", "ba", "c", " ", "~", "A", "0"];
      const key = fc.constantFrom(...KEY_POOL);
      const collection = fc.constantFrom("items", "other");
      const value: fc.Arbitrary<StoreValue> = fc.oneof(
        fc.integer(),
        fc.string({ maxLength: 6 }),
        fc.constant(null),
        fc.uint8Array({ maxLength: 4 }),
        fc.record({ n: fc.integer(), s: fc.array(fc.boolean(), { maxLength: 3 }) }),
      );
      const range: fc.Arbitrary<KeyRange> = fc.record(
        { gte: key, gt: key, lte: key, lt: key, prefix: fc.constantFrom("a", "b", "ab", "~", "z") },
        { requiredKeys: [] },
      );
      const write: fc.Arbitrary<StoreWrite> = fc.oneof(
        { weight: 5, arbitrary: fc.record({ op: fc.constant("put" as const), collection, key, value }) },
        { weight: 2, arbitrary: fc.record({ op: fc.constant("delete" as const), collection, key }) },
        { weight: 1, arbitrary: fc.record({ op: fc.constant("deleteRange" as const), collection, range }) },
      );
      // A poisoned batch carries one invalid write somewhere: the whole batch must be refused.
      const poison = fc.constantFrom<StoreWrite>(put("", 1), put("x", 1, "nope"), put("x", Number.NaN));
      const batch = fc.record({ writes: fc.array(write, { maxLength: 8 }), poison: fc.option(fc.tuple(poison, fc.nat()), { freq: 5 }) });
      const query = fc.record({ collection, range, limit: fc.option(fc.nat({ max: 5 }), { nil: undefined }), reverse: fc.boolean() });

      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(batch, fc.array(query, { maxLength: 3 })), { minLength: 1, maxLength: 6 }), async (steps) => {
          const storage = await createFixture();
          const store = await storage.open(SCHEMA);
          try {
            const model = new Map<string, Map<string, StoreValue>>([
              ["items", new Map()],
              ["other", new Map()],
            ]);
            for (const [{ writes, poison: poisoned }, queries] of steps) {
              if (poisoned === null) {
                await store.commit(writes);
                applyToModel(model, writes);
              } else {
                const [bad, at] = poisoned;
                const withPoison = [...writes];
                withPoison.splice(at % (writes.length + 1), 0, bad);
                await expect(store.commit(withPoison)).rejects.toMatchObject({ name: "StoreError" });
              }
              for (const name of ["items", "other"]) {
                expect(await store.range(name)).toEqual(modelRange(model.get(name)!, {}));
              }
              const refs = ["items", "other"].flatMap((name) => KEY_POOL.map((k) => ({ collection: name, key: k })));
              expect(await store.getMany(refs)).toEqual(refs.map(({ collection: name, key: k }) => model.get(name)!.get(k)));
              for (const { collection: name, range: r, limit, reverse } of queries) {
                const q: RangeQuery = { ...r, reverse, ...(limit === undefined ? {} : { limit }) };
                expect(await store.range(name, q)).toEqual(modelRange(model.get(name)!, q));
                expect(await store.count(name, r)).toBe(modelRange(model.get(name)!, r).length);
              }
            }
          } finally {
            await store.close();
            await storage.cleanup();
          }
        }),
        { numRuns: 100, seed: 20240601 },
      );
    }, slack(60_000));
  });
}

/** The obvious implementation of a key range, written independently of the adapters' bound arithmetic. */
function inRange(key: string, range: KeyRange): boolean {
  return (
    (range.gte === undefined || key >= range.gte) &&
    (range.gt === undefined || key > range.gt) &&
    (range.lte === undefined || key <= range.lte) &&
    (range.lt === undefined || key < range.lt) &&
    (range.prefix === undefined || key.startsWith(range.prefix))
  );
}

function modelRange(entries: Map<string, StoreValue>, query: RangeQuery): Array<{ key: string; value: StoreValue }> {
  const keys = [...entries.keys()].filter((key) => inRange(key, query)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (query.reverse) keys.reverse();
  return keys.slice(0, query.limit).map((key) => ({ key, value: entries.get(key)! }));
}

function applyToModel(model: Map<string, Map<string, StoreValue>>, writes: readonly StoreWrite[]): void {
  for (const write of writes) {
    const entries = model.get(write.collection)!;
    if (write.op === "put") entries.set(write.key, structuredClone(write.value));
    else if (write.op === "delete") entries.delete(write.key);
    else for (const key of [...entries.keys()]) if (inRange(key, write.range)) entries.delete(key);
  }
}
