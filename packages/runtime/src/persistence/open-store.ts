import type { StorageEngine } from "./engine.js";
import { runMigrations, type MigratedStore } from "./migrations.js";
import { assertValidSchema, type StoreSchema } from "./schema.js";
import { toStoreError } from "./store-error.js";
import { createStoreFront } from "./store-front.js";
import type { RuntimeStore } from "./store.js";

/**
 * The open sequence every adapter shares: check the schema before touching the engine, open it, migrate,
 * and close the engine again if migrating fails so that a failed open holds no file or connection.
 */
export async function openStore<Engine extends StorageEngine>(
  schema: StoreSchema,
  openEngine: () => Promise<Engine>,
): Promise<{ store: RuntimeStore; engine: Engine }> {
  assertValidSchema(schema);
  const engine = await openEngine().catch((error: unknown) => {
    throw toStoreError(error, "store_write_failed", "could not open the store");
  });
  const collections = new Set(schema.collections);
  let migrated: MigratedStore;
  try {
    // In the turn that reads the migration records, so that an engine can read both at once.
    if (schema.readAhead !== undefined || schema.readAheadLast !== undefined) engine.readAhead?.(schema.readAhead ?? [], schema.readAheadLast ?? []);
    migrated = await runMigrations(engine, schema, collections);
  } catch (error) {
    await engine.close().catch(() => undefined);
    throw toStoreError(error, "store_migration_failed", "could not migrate the store");
  }
  return { store: createStoreFront(engine, collections, migrated), engine };
}
