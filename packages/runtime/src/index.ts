// The platform-neutral entry: no DOM, no `node:*`. Adapters for a platform live at
// `@lineup/runtime/node` and `@lineup/runtime/browser`.
export {
  StoreError,
  isStoreError,
  type StoreErrorCode,
  type JsonValue,
  type JsonObject,
  type StoreKey,
  type StoreValue,
  type StoreWrite,
  type KeyRange,
  type RangeQuery,
  type StoreEntry,
  type RuntimeStore,
} from "./persistence/store.js";
export { MAX_KEY_LENGTH, isValidKey } from "./persistence/keys.js";
export type { StoreSchema, Migration, MigrationContext, MigrationResult } from "./persistence/schema.js";
export {
  createMemoryStore,
  createMemoryStoreData,
  type MemoryStoreData,
  type MemoryStoreOptions,
} from "./persistence/memory-store.js";
export { createGroupCommitter, type GroupCommitter, type GroupCommitOptions } from "./persistence/group-commit.js";
export { withFaults, type FaultPlan, type FaultyStore, type InjectedFaultCode } from "./persistence/faulty-store.js";
