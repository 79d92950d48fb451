/**
 * The identity a connect reports (`initialize`'s user and device) holds from the `synchronizing` turn on, and a new
 * one is written in a commit of its own once the session list has been taken (`identity.save`): a new device's
 * first start goes online without waiting on that commit. A reconnect as the same user and device writes nothing;
 * an identity whose write was lost is written at the next start's connect.
 */
import { describe, expect, it } from "vitest";
import { createMemoryStore, RUNTIME_COLLECTIONS as C, RUNTIME_SCHEMA, StoreError, type MemoryStoreData, type RuntimeStore, type StoreWrite } from "../src/index.js";
import { createMemoryStoreData, FakeAppServer, startDevice, until, type Device } from "./helpers/runtime-harness.js";

const writesIdentity = (batch: readonly StoreWrite[]): boolean => batch.some((write) => write.collection === C.meta && write.op === "put" && write.key === "identity");

/** `store` whose commits that write the identity wait until `release()` (or fail with `fail()`); every batch is recorded. */
function holdingIdentity(store: RuntimeStore) {
  const batches: (readonly StoreWrite[])[] = [];
  const held: { release(): void; fail(error: Error): void }[] = [];
  const commit = (batch: readonly StoreWrite[]): Promise<void> => {
    batches.push(batch);
    if (!writesIdentity(batch)) return store.commit(batch);
    return new Promise<void>((resolve, reject) => {
      held.push({ release: () => void store.commit(batch).then(resolve, reject), fail: reject });
    });
  };
  const wrapped = new Proxy(store, {
    get(target, key) {
      if (key === "commit") return commit;
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: wrapped, batches, held };
}

async function storedIdentity(data: MemoryStoreData): Promise<unknown> {
  const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
  try {
    return await store.get(C.meta, "identity");
  } finally {
    await store.close();
  }
}

const online = (device: Device): boolean => device.runtime.lifecycle.snapshot().status === "online";

describe("the identity a connect reports", () => {
  it("a new one is written after the Runtime is online, in a commit of its own that going online does not wait on", async () => {
    const server = new FakeAppServer({ userId: "user-9", deviceId: "device-7" });
    const data = createMemoryStoreData();
    let holding: ReturnType<typeof holdingIdentity> | undefined;
    const device = await startDevice(server, data, { wrapStore: (store) => (holding = holdingIdentity(store)).store });
    // Online while the identity's commit is still held: nothing the Runtime publishes waited on it.
    await until(() => online(device), 3_000, "online");
    await until(() => holding!.held.length === 1, 3_000, "the identity's commit");
    expect(online(device)).toBe(true);
    const [identityBatch] = holding!.batches.filter(writesIdentity);
    expect(identityBatch).toEqual([{ op: "put", collection: C.meta, key: "identity", value: { user_id: "user-9", device_id: "device-7" } }]);
    expect(await storedIdentity(data)).toBeUndefined();

    holding!.held[0]!.release();
    await expect.poll(() => storedIdentity(data)).toEqual({ user_id: "user-9", device_id: "device-7" });
    await device.stop();
    expect(device.errors).toEqual([]);

    // The same user and device again: nothing is written for it.
    let again: ReturnType<typeof holdingIdentity> | undefined;
    const restarted = await startDevice(server, data, { run: "r1", wrapStore: (store) => (again = holdingIdentity(store)).store });
    await until(() => online(restarted), 3_000, "online again");
    expect(again!.batches.filter(writesIdentity)).toEqual([]);
    await restarted.stop();
    expect(restarted.errors).toEqual([]);
  });

  it("one whose write failed holds for this run and is written at the next start's connect", async () => {
    const server = new FakeAppServer({ userId: "user-3", deviceId: "device-3" });
    const data = createMemoryStoreData();
    let holding: ReturnType<typeof holdingIdentity> | undefined;
    const device = await startDevice(server, data, { wrapStore: (store) => (holding = holdingIdentity(store)).store });
    await until(() => holding!.held.length === 1, 3_000, "the identity's commit");
    holding!.held[0]!.fail(new StoreError("store_write_failed", "the disk is full"));
    await until(() => device.errors.length === 1, 3_000, "the failure's diagnostic");
    expect(device.errors).toMatchObject([{ context: "saving the identity", error: { code: "store_write_failed" } }]);
    // The Runtime goes on with the identity it was told; the store has none.
    expect(online(device)).toBe(true);
    expect(await storedIdentity(data)).toBeUndefined();
    await device.stop();

    const restarted = await startDevice(server, data, { run: "r1" });
    await until(() => online(restarted), 3_000, "online again");
    await expect.poll(() => storedIdentity(data)).toEqual({ user_id: "user-3", device_id: "device-3" });
    await restarted.stop();
    expect(restarted.errors).toEqual([]);
  });
});
