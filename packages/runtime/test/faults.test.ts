import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  createMemoryStore,
  withFaults,
  type InjectedFaultCode,
  type RuntimeStore,
  type StoreSchema,
  type StoreWrite,
} from "../src/index.js";
import { openSqliteStore } from "../src/node/index.js";
import { expectStoreError } from "./store-test-helpers.js";

// RELIABILITY R4: a failing or full disk makes a commit fail with a typed error, applies nothing of the
// batch, and the store is writable again once the fault clears.

const SCHEMA: StoreSchema = { collections: ["items"], migrations: [] };
const put = (key: string, value: number): StoreWrite => ({ op: "put", collection: "items", key, value });
const del = (key: string): StoreWrite => ({ op: "delete", collection: "items", key });

const adapters: Array<[string, () => Promise<{ store: RuntimeStore; cleanup: () => void }>]> = [
  ["memory", async () => ({ store: await createMemoryStore(SCHEMA), cleanup: () => {} })],
  [
    "sqlite",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "lineup-faults-"));
      return { store: await openSqliteStore({ path: join(dir, "store.db"), schema: SCHEMA }), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
    },
  ],
];
const codes: InjectedFaultCode[] = ["store_write_failed", "store_quota_exceeded"];

describe.each(adapters)("injected commit faults on %s", (_, openAdapter) => {
  let opened: { store: RuntimeStore; cleanup: () => void } | undefined;
  const open = async (): Promise<RuntimeStore> => {
    opened = await openAdapter();
    return opened.store;
  };
  afterEach(async () => {
    await opened?.store.close();
    opened?.cleanup();
    opened = undefined;
  });

  it.each(codes)("the k-th commit fails once with %s, applies nothing, and the next commit works", async (code) => {
    const store = await open();
    const faulty = withFaults(store, { failAt: 2, code });
    await faulty.commit([put("a", 1), put("b", 1)]);
    const error = await expectStoreError(faulty.commit([put("a", 2), del("b"), put("c", 2)]), code);
    expect(error.message).toContain("#2");
    expect(await faulty.range("items")).toEqual([
      { key: "a", value: 1 },
      { key: "b", value: 1 },
    ]);
    await faulty.commit([put("c", 3)]);
    expect(await faulty.count("items")).toBe(3);
    expect(faulty.commitCount).toBe(3);
  });

  it.each(codes)("a persistent %s fails every commit until cleared, then the store is writable", async (code) => {
    const store = await open();
    const faulty = withFaults(store, { failAt: 2, code, mode: "persistent" });
    await faulty.commit([put("a", 1)]);
    for (let attempt = 0; attempt < 3; attempt++) {
      await expectStoreError(faulty.commit([put("a", 100 + attempt), put(`x${attempt}`, attempt)]), code);
    }
    expect(await faulty.range("items")).toEqual([{ key: "a", value: 1 }]);
    faulty.clearFaults();
    await faulty.commit([put("a", 2), put("d", 2)]);
    expect(await faulty.range("items")).toEqual([
      { key: "a", value: 2 },
      { key: "d", value: 2 },
    ]);
  });

  it("counts a newly injected plan from the moment it is installed", async () => {
    const store = await open();
    const faulty = withFaults(store);
    await faulty.commit([put("a", 1)]);
    await faulty.commit([put("b", 1)]);
    faulty.injectFaults({ failAt: 1 });
    await expectStoreError(faulty.commit([put("c", 1)]), "store_write_failed");
    await faulty.commit([put("c", 1)]);
    expect(await faulty.count("items")).toBe(3);
  });
});
