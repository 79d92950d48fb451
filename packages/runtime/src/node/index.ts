// Node adapters. Importing this entry loads the native better-sqlite3 module and ws.
export { openSqliteStore, type SqliteStoreOptions, type SqliteRuntimeStore, type SqliteThread } from "./sqlite-store.js";
export { createWsTransport, type WsTransportOptions } from "./ws-transport.js";
export { createNodeRuntime, type NodeRuntime, type NodeRuntimeOptions } from "./create-node-runtime.js";
export { readDirectoryFiles, writeBundleFile, keygenToFiles, packDirectory, PACK_PROGRESS_MIN_BYTES, signFile, verifyFile, readTrustedKeys, parsePrivateKey, PRIVATE_KEY_FILE, PUBLIC_KEY_FILE, type KeygenFiles, type PackedFile } from "./bundle-files.js";
export { createSqliteAppStorageHost } from "./app-storage-sqlite.js";
export { createNodeWasmRunner } from "./wasm-backend.js";
export { createStdioRunner, fileSystemViewAvailable, networkNamespaceAvailable } from "./stdio-backend.js";
