/**
 * The page of the backends suite's IndexedDB row (served to a persistent Chromium profile, so IndexedDB is on
 * disk). `ours`: `sdk.storage.put` as the web host runs it — the app storage service (checks, value schema, quota,
 * provenance, the usage row in the same transaction) over `createIndexedDbAppStorageHost` (every commit a
 * `durability: "strict"` transaction). `raw`: the same rows put straight into an IndexedDB object store keyed
 * `[collection, key]` as the Runtime's store keys them, one record a strict transaction. Each writes for `ms` and
 * returns writes per second; keys keep rising across rounds, as an app's would.
 */
import type { AppManifest } from "@lineup/protocol";
import { createAppStorageService } from "@lineup/runtime";
import { createIndexedDbAppStorageHost } from "@lineup/runtime/browser";
import { benchEntry, benchJournalManifest } from "./app-storage-shared.js";

export interface AppStorageBench {
  ours(ms: number): Promise<number>;
  raw(ms: number): Promise<number>;
}

const service = createAppStorageService({
  host: createIndexedDbAppStorageHost({ prefix: "bench" }),
  active: () => ({ manifest: benchJournalManifest as unknown as AppManifest, version: "1.0.0", bundle_digest: "bench", enabled: true }),
  now: () => Date.now(),
});
const api = service.forApp("bench-journal");

const openRaw = (): Promise<IDBDatabase> =>
  new Promise((resolve, reject) => {
    const request = indexedDB.open("bench-raw", 1);
    request.onupgradeneeded = () => request.result.createObjectStore("records");
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error("could not open bench-raw"));
  });
const rawDb = openRaw();

const putRaw = (db: IDBDatabase, key: string, value: unknown): Promise<void> =>
  new Promise((resolve, reject) => {
    const transaction = db.transaction("records", "readwrite", { durability: "strict" });
    transaction.objectStore("records").put(value, ["entries", key]);
    transaction.oncomplete = () => resolve();
    transaction.onerror = () => reject(transaction.error ?? new Error("the raw put failed"));
  });

/** Writes with `write(n)` for `ms` (n rising from where the last round left it); writes per second. */
function timed(write: (n: number) => Promise<unknown>): (ms: number) => Promise<number> {
  let n = 0;
  return async (ms) => {
    let count = 0;
    const start = performance.now();
    while (performance.now() - start < ms) {
      n += 1;
      await write(n);
      count += 1;
    }
    return (count * 1000) / (performance.now() - start);
  };
}

const bench: AppStorageBench = {
  ours: timed((n) => api.put("entries", `e${String(n).padStart(9, "0")}`, benchEntry(n))),
  raw: timed(async (n) => putRaw(await rawDb, `e${String(n).padStart(9, "0")}`, benchEntry(n))),
};
(window as unknown as { __appStorageBench: AppStorageBench }).__appStorageBench = bench;
