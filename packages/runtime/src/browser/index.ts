// Browser adapters: IndexedDB. Nothing here needs Node.
export { openIndexedDbStore, type IndexedDbStoreOptions } from "./indexeddb-store.js";
