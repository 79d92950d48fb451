// Browser adapters: IndexedDB and the global WebSocket. Nothing here needs Node.
export { openIndexedDbStore, type IndexedDbStoreOptions } from "./indexeddb-store.js";
export { openIndexedDbDatabase } from "./indexeddb-open.js";
export { createWebSocketTransport, type WebSocketTransportOptions } from "./websocket-transport.js";
export { createIndexedDbAppStorageHost, type IndexedDbAppStorageOptions } from "./app-storage-indexeddb.js";
export { createBrowserWasmRunner } from "./wasm-backend.js";
export { createLocalBackendsClient, type LocalBackendsClient, type LocalBackendsOptions, type LocalBackendSocket } from "./local-backends.js";
