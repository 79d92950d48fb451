import { IDBFactory, IDBKeyRange, IDBObjectStore, IDBDatabase } from "fake-indexeddb";
import { restoreState } from "../src/coordination/restore.js";
import { createSystemIds } from "../src/core/system.js";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { openIndexedDbDatabase, openIndexedDbStore } from "../src/browser/index.js";
import { RUNTIME_SCHEMA, type StoreSchema } from "../src/index.js";
import { runStoreContract } from "./store-contract.js";
import { runIndexedDbReadCases } from "./store-indexeddb-reads.js";
import { expectStoreError } from "./store-test-helpers.js";

runStoreContract("indexeddb", async () => {
  // A fresh factory is a fresh, empty "browser profile"; the same factory and name is a reopen.
  const indexedDB = new IDBFactory();
  return {
    open: (schema) => openIndexedDbStore({ name: "lineup-test", schema, indexedDB, IDBKeyRange }),
    cleanup: async () => {},
  };
});

runIndexedDbReadCases("fake-indexeddb", (schema) => openIndexedDbStore({ name: "reads", schema, indexedDB: new IDBFactory(), IDBKeyRange }), IDBDatabase.prototype);

/** An object store without `getAllRecords`, as in engines older than IndexedDB 3.0, while `run` runs. */
function withoutGetAllRecords(run: () => void): void {
  const getAllRecords = Object.getOwnPropertyDescriptor(IDBObjectStore.prototype, "getAllRecords")!;
  beforeAll(() => void delete (IDBObjectStore.prototype as { getAllRecords?: unknown }).getAllRecords);
  afterAll(() => Object.defineProperty(IDBObjectStore.prototype, "getAllRecords", getAllRecords));
  run();
}

describe("an engine without getAllRecords: ranges read with getAll and getAllKeys, backwards with a cursor", () => {
  withoutGetAllRecords(() => {
    it("has no getAllRecords here", () => expect("getAllRecords" in IDBObjectStore.prototype).toBe(false));
    runStoreContract("indexeddb without getAllRecords", async () => {
      const indexedDB = new IDBFactory();
      return { open: (schema) => openIndexedDbStore({ name: "lineup-test", schema, indexedDB, IDBKeyRange }), cleanup: async () => {} };
    });
    runIndexedDbReadCases("fake-indexeddb without getAllRecords", (schema) => openIndexedDbStore({ name: "reads", schema, indexedDB: new IDBFactory(), IDBKeyRange }), IDBDatabase.prototype);
  });
});

describe("IndexedDB store specifics", () => {
  const schema: StoreSchema = { collections: ["items"], migrations: [] };
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("commits in readwrite transactions with strict durability", async () => {
    const transaction = vi.spyOn(IDBDatabase.prototype, "transaction");
    const store = await openIndexedDbStore({ name: "durability", schema, indexedDB: new IDBFactory(), IDBKeyRange });
    transaction.mockClear();
    await store.commit([{ op: "put", collection: "items", key: "a", value: 1 }]);
    expect(transaction).toHaveBeenCalledTimes(1);
    expect(transaction.mock.calls[0]?.slice(1)).toEqual(["readwrite", { durability: "strict" }]);
    await store.close();
  });

  it("creates a new store of the Runtime's schema with no commit of its own: its steps' records go with its first commit", async () => {
    const transaction = vi.spyOn(IDBDatabase.prototype, "transaction");
    const readwrite = () => transaction.mock.calls.filter((call) => call[1] === "readwrite").length;
    const indexedDB = new IDBFactory();
    const store = await openIndexedDbStore({ name: "new-profile", schema: RUNTIME_SCHEMA, indexedDB, IDBKeyRange });
    // Each readwrite transaction is a flush to disk on a real browser.
    expect(readwrite()).toBe(0);
    await store.commit([{ op: "put", collection: RUNTIME_SCHEMA.collections[0]!, key: "a", value: 1 }]);
    expect(readwrite()).toBe(1);
    await store.close();
    transaction.mockClear();
    const again = await openIndexedDbStore({ name: "new-profile", schema: RUNTIME_SCHEMA, indexedDB, IDBKeyRange });
    // Its steps are recorded: none runs again, nothing is written.
    expect(readwrite()).toBe(0);
    expect(again.isNew?.()).toBe(false);
    await again.close();
  });

  /** From now on, every request made of the object store, by method and the collection it reads (getAllRecords where the engine has it). */
  const requestsOf = (): string[] => {
    const methods = ["get", "getAll", "getAllKeys", "openCursor", "count", ...("getAllRecords" in IDBObjectStore.prototype ? ["getAllRecords"] : [])];
    const asked: string[] = [];
    const collectionOf = (query: unknown): string => {
      const bound = query instanceof IDBKeyRange ? query.lower : query;
      return Array.isArray(bound) ? String(bound[0]) : String(bound);
    };
    for (const method of methods) {
      const original = (IDBObjectStore.prototype as unknown as Record<string, (...args: unknown[]) => unknown>)[method]!;
      vi.spyOn(IDBObjectStore.prototype as unknown as Record<string, (...args: unknown[]) => unknown>, method).mockImplementation(function (this: IDBObjectStore, ...args: unknown[]) {
        // getAllRecords takes its range as `query` in an options object.
        const query = method === "getAllRecords" ? (args[0] as { query?: unknown } | undefined)?.query : args[0];
        asked.push(`${method}:${collectionOf(query)}`);
        return original.apply(this, args);
      } as never);
    }
    return asked;
  };

  const readsAheadCase = async (requests: { readonly opening: (collection: string) => string[]; readonly last: string; readonly range: string[] }) => {
    const indexedDB = new IDBFactory();
    const first = await openIndexedDbStore({ name: "ahead", schema: RUNTIME_SCHEMA, indexedDB, IDBKeyRange });
    await first.commit([
      { op: "put", collection: "sessions", key: "conv-1", value: { session_id: "conv-1", agent_id: "agent-1", title: "one" } },
      { op: "put", collection: "cursors", key: "conv-1", value: { seq: 3 } },
      { op: "put", collection: "meta", key: "runtime", value: { runtime_id: "rt-1" } },
      { op: "put", collection: "settings", key: "language", value: "zh-CN" },
      { op: "put", collection: "audit", key: "000000000001", value: { index: 1, hash: "first" } },
      { op: "put", collection: "audit", key: "000000000002", value: { index: 2, hash: "second" } },
    ]);
    await first.close();

    const asked = requestsOf();
    const transaction = vi.spyOn(IDBDatabase.prototype, "transaction");
    const store = await openIndexedDbStore({ name: "ahead", schema: RUNTIME_SCHEMA, indexedDB, IDBKeyRange });
    // Opening: the migration records and every collection read ahead, in one transaction.
    expect(transaction).toHaveBeenCalledTimes(1);
    expect(new Set(asked)).toEqual(new Set([...requests.opening("$meta"), ...RUNTIME_SCHEMA.readAhead!.flatMap(requests.opening), requests.last]));
    asked.length = 0;
    const restored = await restoreState(store, createSystemIds(), { coreManifests: [], now: 0 });
    // None of the restore's reads goes to the database.
    expect(asked).toEqual([]);
    expect(restored.state.runtime_id).toBe("rt-1");
    expect(restored.auditHead).toEqual({ next: 3, hash: "second" });
    expect(restored.state.language).toBe("zh-CN");
    expect([...restored.state.conversations.keys()]).toEqual(["conv-1"]);
    // A commit ends the read ahead: what is read after it is read anew, and sees it.
    asked.length = 0;
    await store.commit([{ op: "put", collection: "sessions", key: "conv-2", value: { session_id: "conv-2", agent_id: "agent-1" } }]);
    expect((await store.range("sessions")).map((entry) => entry.key)).toEqual(["conv-1", "conv-2"]);
    expect(asked).toEqual(requests.range);
    await store.close();
  };

  it("answers the restore's reads from the collections it read ahead with the migration records, until its first commit: one getAllRecords each", async () => {
    await readsAheadCase({ opening: (c) => [`getAllRecords:${c}`], last: "getAllRecords:audit", range: ["getAllRecords:sessions"] });
  });

  describe("without getAllRecords", () => {
    withoutGetAllRecords(() => {
      it("answers the restore's reads from the collections it read ahead: getAll and getAllKeys each, the last audit record by a cursor", async () => {
        await readsAheadCase({ opening: (c) => [`getAll:${c}`, `getAllKeys:${c}`], last: "openCursor:audit", range: ["getAll:sessions", "getAllKeys:sessions"] });
      });
    });
  });

  it("takes a database whose opening began before the store (openIndexedDbDatabase), and its failure as its own", async () => {
    const indexedDB = new IDBFactory();
    const database = openIndexedDbDatabase("early", indexedDB);
    const store = await openIndexedDbStore({ name: "early", schema, indexedDB, IDBKeyRange, database });
    await store.commit([{ op: "put", collection: "items", key: "a", value: 1 }]);
    await store.close();
    const reopened = await openIndexedDbStore({ name: "early", schema, indexedDB, IDBKeyRange, database: openIndexedDbDatabase("early", indexedDB) });
    expect(await reopened.get("items", "a")).toBe(1);
    await reopened.close();

    const refused = Promise.reject(new DOMException("the profile is gone", "UnknownError"));
    const error = await expectStoreError(openIndexedDbStore({ name: "early", schema, indexedDB, IDBKeyRange, database: refused }), "store_write_failed");
    expect(error.message).toContain("early");
  });

  it("closes a database opened for it when the store refuses its schema", async () => {
    const indexedDB = new IDBFactory();
    const database = openIndexedDbDatabase("refused", indexedDB);
    const close = vi.spyOn(IDBDatabase.prototype, "close");
    await expectStoreError(openIndexedDbStore({ name: "refused", schema: { collections: ["$meta"], migrations: [] }, indexedDB, IDBKeyRange, database }), "store_invalid_value");
    await vi.waitFor(() => expect(close).toHaveBeenCalledTimes(1));
    // Nothing holds the database open: deleting it is not blocked.
    await new Promise<void>((resolve, reject) => {
      const request = indexedDB.deleteDatabase("refused");
      request.onsuccess = () => resolve();
      request.onblocked = () => reject(new Error("blocked by an open connection"));
      request.onerror = () => reject(request.error);
    });
  });

  it("maps QuotaExceededError to store_quota_exceeded and rolls back the writes already queued", async () => {
    const store = await openIndexedDbStore({ name: "quota", schema, indexedDB: new IDBFactory(), IDBKeyRange });
    await store.commit([{ op: "put", collection: "items", key: "kept", value: 0 }]);

    const realPut = IDBObjectStore.prototype.put;
    vi.spyOn(IDBObjectStore.prototype, "put").mockImplementation(function (this: IDBObjectStore, value: unknown, key?: IDBValidKey) {
      if (Array.isArray(key) && key[1] === "huge") throw new DOMException("the disk is full", "QuotaExceededError");
      return realPut.call(this, value, key);
    });
    await expectStoreError(
      store.commit([
        { op: "put", collection: "items", key: "first", value: 1 },
        { op: "put", collection: "items", key: "huge", value: 2 },
      ]),
      "store_quota_exceeded",
    );
    vi.restoreAllMocks();

    expect((await store.range("items")).map((entry) => entry.key)).toEqual(["kept"]);
    await store.commit([{ op: "put", collection: "items", key: "after", value: 3 }]);
    expect(await store.count("items")).toBe(2);
    await store.close();
  });

  it("steps aside when another connection upgrades the database, then rejects with store_closed", async () => {
    const indexedDB = new IDBFactory();
    const store = await openIndexedDbStore({ name: "upgrade", schema, indexedDB, IDBKeyRange });
    await new Promise<void>((resolve, reject) => {
      const request = indexedDB.open("upgrade", 2);
      request.onsuccess = () => {
        request.result.close();
        resolve();
      };
      request.onerror = () => reject(request.error);
    });
    await expectStoreError(store.get("items", "a"), "store_closed");
    await expectStoreError(store.commit([{ op: "put", collection: "items", key: "a", value: 1 }]), "store_closed");
    await store.close();
  });

  it("refuses a database already upgraded past its version with store_migration_failed", async () => {
    const indexedDB = new IDBFactory();
    await new Promise<void>((resolve, reject) => {
      const request = indexedDB.open("newer", 5);
      request.onsuccess = () => {
        request.result.close();
        resolve();
      };
      request.onerror = () => reject(request.error);
    });
    await expectStoreError(openIndexedDbStore({ name: "newer", schema, indexedDB, IDBKeyRange }), "store_migration_failed");
  });
});
