/**
 * Where apps' own storage lives (spec 003 "数据生命周期"): every app has its own stores, apart from the
 * Runtime's database — one SQLite file each on the Node host (`node/app-storage-sqlite.ts`), one IndexedDB
 * database each in the browser (`browser/app-storage-indexeddb.ts`), plain memory in tests. A host only opens
 * and destroys stores by name; what is in them, and who may touch it, is the app storage service's
 * (`service.ts`).
 */
import { createMemoryStore, createMemoryStoreData, type MemoryStoreData } from "../persistence/memory-store.js";
import type { StoreSchema } from "../persistence/schema.js";
import type { RuntimeStore } from "../persistence/store.js";

/**
 * The stores of one app: `data` (what it keeps), `backup-v<N>` (its data as schema version N left it, before a
 * migration) and `state` (the service's own note of a restore in progress, which must outlive the data store).
 */
export type AppStoreName = "data" | "state" | `backup-v${number}`;

export interface AppStorageHost {
  /** Opens, creating it if needed, one store of an app. */
  open(appScope: string, name: AppStoreName, schema: StoreSchema): Promise<RuntimeStore>;
  /** Deletes one store of an app (closed first by the caller), or with no name every store it has. Deleting what does not exist is not an error. */
  destroy(appScope: string, name?: AppStoreName): Promise<void>;
}

/** Apps' stores in memory, for tests: kept across `open`s (as files are), gone with the object. */
export function createMemoryAppStorageHost(): AppStorageHost & { readonly names: () => string[] } {
  const stores = new Map<string, MemoryStoreData>();
  return {
    async open(appScope, name, schema) {
      const key = `${appScope}/${name}`;
      let data = stores.get(key);
      if (data === undefined) stores.set(key, (data = createMemoryStoreData()));
      return createMemoryStore(schema, { data });
    },
    async destroy(appScope, name) {
      for (const key of [...stores.keys()]) if (name === undefined ? key.startsWith(`${appScope}/`) : key === `${appScope}/${name}`) stores.delete(key);
    },
    names: () => [...stores.keys()].sort(),
  };
}
