import { StoreError } from "./store-error.js";
import type { KeyRange, RangeQuery, StoreEntry, StoreKey, StoreKeyRef, StoreValue, StoreWrite } from "./store.js";

/**
 * What a store holds and how it got there. A later schema version may add collections and append
 * migrations; it never reorders or renames migrations that a device may already have run.
 */
export interface StoreSchema {
  /** Names a store accepts: 1–128 printable ASCII characters, not starting with `$` (reserved). */
  readonly collections: readonly string[];
  /** Named, ordered steps; each runs once per store, in order, at open. */
  readonly migrations: readonly Migration[];
  /**
   * Collections the store's owner reads whole as soon as it has opened it (the Runtime's restore). An engine whose
   * reads are round trips (IndexedDB) reads them ahead, in the one transaction that checks the migrations, and answers
   * their reads from that until the store's first commit (`StorageEngine.readAhead`); other engines ignore it.
   */
  readonly readAhead?: readonly string[];
  /** Collections of which the store's owner reads the last record as it starts (the audit chain's head): read ahead as `readAhead`. */
  readonly readAheadLast?: readonly string[];
}

export interface Migration {
  /** Recorded in the store once the step has run; names are unique within a schema. */
  readonly name: string;
  /** Returns `{ ok: false, reason }` (or throws) to roll the step back and make `open` fail. */
  run(ctx: MigrationContext): Promise<MigrationResult> | MigrationResult;
}

export type MigrationResult = { ok: true } | { ok: false; reason: string };

/**
 * What a step may do. Writes are staged and then committed in one transaction together with the step's
 * record, so a step applies entirely or not at all; its reads therefore see the store as it was before
 * the step (not the step's own staged writes).
 */
export interface MigrationContext {
  get(collection: string, key: StoreKey): Promise<StoreValue | undefined>;
  getMany(keys: readonly StoreKeyRef[]): Promise<(StoreValue | undefined)[]>;
  range(collection: string, query?: RangeQuery): Promise<StoreEntry[]>;
  count(collection: string, range?: KeyRange): Promise<number>;
  /** Validates `batch` now (throws StoreError) and stages it; values are captured on the call. */
  write(batch: readonly StoreWrite[]): void;
}

/** The internal collection where adapters record which migrations ran; invisible through the port. */
export const META_COLLECTION = "$meta";

const COLLECTION_NAME = /^[\x20-\x7E]{1,128}$/;

export function isValidCollectionName(name: unknown): name is string {
  return typeof name === "string" && COLLECTION_NAME.test(name) && !name.startsWith("$");
}

/** Throws `store_invalid_value` for a schema no store could be opened with. */
export function assertValidSchema(schema: StoreSchema): void {
  const fail = (problem: string): never => {
    throw new StoreError("store_invalid_value", `invalid store schema: ${problem}`);
  };
  if (!Array.isArray(schema?.collections) || !Array.isArray(schema.migrations)) {
    fail("collections and migrations must be arrays");
  }
  const collections = new Set<string>();
  for (const name of schema.collections) {
    if (!isValidCollectionName(name)) fail(`bad collection name ${JSON.stringify(name)}`);
    if (collections.has(name)) fail(`collection ${JSON.stringify(name)} is declared twice`);
    collections.add(name);
  }
  const migrations = new Set<string>();
  for (const migration of schema.migrations) {
    if (typeof migration?.name !== "string" || migration.name === "") fail("every migration needs a name");
    if (typeof migration.run !== "function") fail(`migration ${JSON.stringify(migration.name)} has no run()`);
    if (migrations.has(migration.name)) fail(`migration ${JSON.stringify(migration.name)} is declared twice`);
    migrations.add(migration.name);
  }
  for (const member of ["readAhead", "readAheadLast"] as const) {
    const names = schema[member];
    if (names === undefined) continue;
    if (!Array.isArray(names)) fail(`${member} must be an array`);
    for (const name of names) if (!collections.has(name)) fail(`${member} names ${JSON.stringify(name)}, which is no collection of it`);
  }
}
