/**
 * Apps' own storage in the browser: one IndexedDB database per app store, named
 * `<prefix>/<app_scope>/<name>` (strict durability, as the Runtime's own store), apart from the Runtime's
 * database so an app's data is deleted, backed up and restored on its own.
 */
import type { AppStorageHost } from "../app-storage/host.js";
import { StoreError } from "../persistence/store-error.js";
import { openIndexedDbStore } from "./indexeddb-store.js";

export interface IndexedDbAppStorageOptions {
  /** Names this profile's app stores; the Runtime's database name is a good prefix (`lineup-runtime:<profile>`). */
  readonly prefix: string;
  readonly indexedDB?: IDBFactory;
  readonly IDBKeyRange?: Pick<typeof IDBKeyRange, "bound">;
}

export function createIndexedDbAppStorageHost(options: IndexedDbAppStorageOptions): AppStorageHost {
  const factory = (): IDBFactory => {
    const found = options.indexedDB ?? (globalThis as { indexedDB?: IDBFactory }).indexedDB;
    if (found === undefined) throw new StoreError("store_write_failed", "IndexedDB is not available here");
    return found;
  };
  const databaseName = (appScope: string, name: string): string => `${options.prefix}/${appScope}/${name}`;
  const remove = (name: string): Promise<void> =>
    new Promise((resolve, reject) => {
      const request = factory().deleteDatabase(name);
      request.onsuccess = () => resolve();
      request.onerror = () => reject(new StoreError("store_write_failed", `could not delete ${name}: ${request.error?.message ?? "unknown"}`));
      // Another tab holds it open: it closes on versionchange (indexeddb-store.ts), after which the delete goes on.
      request.onblocked = () => undefined;
    });
  return {
    open: (appScope, name, schema) =>
      openIndexedDbStore({ name: databaseName(appScope, name), schema, ...(options.indexedDB === undefined ? {} : { indexedDB: options.indexedDB }), ...(options.IDBKeyRange === undefined ? {} : { IDBKeyRange: options.IDBKeyRange }) }),
    async destroy(appScope, name) {
      if (name !== undefined) return remove(databaseName(appScope, name));
      const prefix = `${options.prefix}/${appScope}/`;
      const listed = typeof factory().databases === "function" ? await factory().databases() : [];
      const names = listed.map((d) => d.name).filter((n): n is string => n !== undefined && n.startsWith(prefix));
      // `databases()` may be missing (older engines): the names this host makes are known.
      for (const n of new Set([...names, databaseName(appScope, "data")])) await remove(n);
    },
  };
}
