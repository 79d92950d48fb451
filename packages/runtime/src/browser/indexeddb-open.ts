/**
 * Opening a store's IndexedDB database, apart from the store: a host can start it before the Runtime's
 * code has loaded (the open is disk and IPC work the page need not wait for), and `openIndexedDbStore`
 * takes the database it opened. This module imports nothing, so it costs a page's first script little.
 *
 * Design: ONE object store, keyed by the compound key [collection, key], rather than one object store per
 * collection. Object stores can only be created in a `versionchange` upgrade, which waits for every other
 * open tab to close; a single store means a later schema adds collections with no upgrade at all, a batch
 * across collections is always one transaction over one store, and the migration records live beside the
 * data. Array keys compare element-wise, so [collection, key] orders by collection, then by key in plain
 * string order — the order every adapter uses.
 */
export const OBJECT_STORE = "entries";
const DATABASE_VERSION = 1;

/**
 * Opens (creating if needed) the database named `name`. A newer version of the app that wants to upgrade
 * it is not blocked: the connection closes (and the store's calls then fail with `store_closed`). Rejects
 * with what IndexedDB gave; the store maps it to a `StoreError`.
 */
export function openIndexedDbDatabase(name: string, factory: IDBFactory | undefined = (globalThis as { indexedDB?: IDBFactory }).indexedDB): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    if (factory === undefined) throw new Error("IndexedDB is not available here");
    const request = factory.open(name, DATABASE_VERSION);
    request.onupgradeneeded = () => {
      const db = request.result;
      if (!db.objectStoreNames.contains(OBJECT_STORE)) db.createObjectStore(OBJECT_STORE);
    };
    request.onsuccess = () => {
      const db = request.result;
      db.onversionchange = () => db.close();
      resolve(db);
    };
    request.onerror = () => reject(request.error ?? new Error(`could not open ${name}`));
  });
}
