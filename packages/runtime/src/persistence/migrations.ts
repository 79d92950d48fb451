import type { PreparedWrite, StorageEngine } from "./engine.js";
import { ALL_KEYS } from "./key-range.js";
import { prepareBatch } from "./prepared-batch.js";
import { META_COLLECTION, type MigrationContext, type MigrationResult, type StoreSchema } from "./schema.js";
import { StoreError } from "./store-error.js";
import { createStoreReader } from "./store-front.js";
import { decodeValue, encodeValue } from "./value-codec.js";

/** Zero-padded so that the records' key order is their step order. */
export function migrationRecordKey(index: number): string {
  return `migration/${String(index).padStart(6, "0")}`;
}

/**
 * Brings the store up to `schema`: checks that the steps already recorded are a prefix of the schema's
 * steps, then runs each missing step and commits its staged writes together with its record in one
 * transaction. A step that stages nothing changes no data, so its record waits and goes with the next
 * commit: a new store records all its steps in one transaction, not one each (each is a durable commit,
 * a disk flush on IndexedDB and SQLite). The steps still see the store as it was after the step before
 * them, since records are invisible to them. The first failing step throws `store_migration_failed`
 * and leaves the store at the step before it (the waiting records are committed first); a store
 * recorded by an unknown (newer or diverging) schema is refused the same way. Resolves with whether the
 * store still holds no data (it was empty, and no step wrote any). Such a store's records are not committed
 * here but handed back (`records`): the store front writes them with its first commit (`createStoreFront`),
 * so a new store's first start makes one durable commit fewer. Until then the store holds nothing at all,
 * and opening it again runs the steps again, on nothing, as they ran now.
 */
export async function runMigrations(engine: StorageEngine, schema: StoreSchema, collections: ReadonlySet<string>): Promise<MigratedStore> {
  const applied = await readAppliedMigrations(engine);
  // A store with no step recorded may hold nothing at all (a store this open created; one opened with no steps may
  // hold data): when the engine says so in one read, the steps find nothing until one of them writes, and their
  // reads are answered without asking it. A store with steps recorded is not asked.
  let empty = applied.length === 0 && (await engine.isEmpty?.()) === true;
  const steps = schema.migrations;
  applied.forEach((name, index) => {
    if (steps[index]?.name !== name) {
      throw new StoreError(
        "store_migration_failed",
        `the store has migration #${index} "${name}" recorded, but the schema ${steps[index] ? `names it "${steps[index].name}"` : `has only ${steps.length} migrations`}`,
      );
    }
  });

  const reader = createStoreReader(empty ? readsWhileEmpty(engine, () => empty) : engine, collections);
  // Records of the steps that staged nothing, committed with the next step's writes (or at the end).
  let waiting: PreparedWrite[] = [];
  const commitWaiting = async (): Promise<void> => {
    if (waiting.length === 0) return;
    const records = waiting;
    waiting = [];
    await engine.apply(records);
  };
  for (let index = applied.length; index < steps.length; index++) {
    const step = steps[index]!;
    const staged: PreparedWrite[] = [];
    let running = true;
    const ctx: MigrationContext = {
      ...reader,
      write(batch) {
        if (!running) throw new StoreError("store_migration_failed", `migration "${step.name}" wrote after it finished`);
        staged.push(...prepareBatch(batch, collections));
      },
    };

    let result: MigrationResult;
    try {
      result = await step.run(ctx);
    } catch (error) {
      await commitWaiting().catch(() => undefined);
      throw new StoreError("store_migration_failed", `migration "${step.name}" threw: ${describe(error)}`, { cause: error });
    } finally {
      running = false;
    }
    if (result?.ok !== true) {
      await commitWaiting().catch(() => undefined);
      const reason = result?.ok === false ? result.reason : "it returned no { ok } result";
      throw new StoreError("store_migration_failed", `migration "${step.name}" failed: ${reason}`);
    }

    const record: PreparedWrite = { op: "put", collection: META_COLLECTION, key: migrationRecordKey(index), value: encodeValue({ name: step.name }) };
    if (staged.length === 0) {
      waiting.push(record);
      continue;
    }
    const batch = [...waiting, ...staged, record];
    waiting = [];
    empty = false;
    try {
      await engine.apply(batch);
    } catch (error) {
      throw new StoreError("store_migration_failed", `migration "${step.name}" could not be committed: ${describe(error)}`, { cause: error });
    }
  }
  if (empty) return { empty, records: waiting };
  try {
    await commitWaiting();
  } catch (error) {
    throw new StoreError("store_migration_failed", `the migration records could not be committed: ${describe(error)}`, { cause: error });
  }
  return { empty };
}

/** What opening found: `empty`, the store holds no data; `records`, the steps' records its first commit must carry. */
export interface MigratedStore {
  readonly empty: boolean;
  readonly records?: readonly PreparedWrite[];
}

/** `engine`, whose reads answer "nothing" while `empty()` holds (no data was written to it). */
function readsWhileEmpty(engine: StorageEngine, empty: () => boolean): StorageEngine {
  return {
    apply: (writes) => engine.apply(writes),
    get: (collection, key) => (empty() ? Promise.resolve(undefined) : engine.get(collection, key)),
    getMany: (keys) => (empty() ? Promise.resolve(keys.map(() => undefined)) : engine.getMany(keys)),
    range: (collection, bounds, options) => (empty() ? Promise.resolve([]) : engine.range(collection, bounds, options)),
    count: (collection, bounds) => (empty() ? Promise.resolve(0) : engine.count(collection, bounds)),
    close: () => engine.close(),
  };
}

/** The names of the recorded steps, in order. */
async function readAppliedMigrations(engine: StorageEngine): Promise<string[]> {
  const records = await engine.range(META_COLLECTION, ALL_KEYS, { limit: undefined, reverse: false });
  return records.map(({ key, value }, index) => {
    let name: unknown;
    try {
      name = (decodeValue(value) as { name?: unknown } | null)?.name;
    } catch (error) {
      throw new StoreError("store_corrupt", `migration record ${key} is not JSON`, { cause: error });
    }
    if (key !== migrationRecordKey(index) || typeof name !== "string") {
      throw new StoreError("store_corrupt", `migration record ${key} is malformed or out of sequence`);
    }
    return name;
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
