// Node adapters. Importing this entry loads the native better-sqlite3 module.
export { openSqliteStore, type SqliteStoreOptions, type SqliteRuntimeStore } from "./sqlite-store.js";
