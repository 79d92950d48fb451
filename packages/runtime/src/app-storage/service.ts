/**
 * The app storage service (spec 003 "Storage service: app namespace, schema, migrations, cleanup"): each app's
 * own records in its own stores (`host.ts`), apart from the Runtime's database, in the collections its active
 * manifest declares.
 *
 * - **One writer per app store.** Every operation on an app's store runs in that app's serial queue, so reads of
 *   the usage row and the write that follows never interleave with another write. The Runtime's loop never
 *   touches these stores, and this service never touches the Runtime's.
 * - **Records carry provenance**: the app version and bundle digest that wrote them, and when.
 * - **Quota**: keys and values, as stored, count against `storage.quota_bytes`; a write past it is `quota_exceeded`
 *   and changes nothing. The usage row is written in the same commit as the records it counts.
 * - **The data follows the active version.** On first use after an install, update or rollback, the store is
 *   brought to the active manifest's `schema_version`: older data is first copied to `backup-v<N>`, then each
 *   migration runs and commits on its own (records and the new version in one transaction), and the result must
 *   pass the declared value schemas. A migration that fails — or a crash in the middle — is undone by restoring
 *   the backup; data newer than the active version (a rollback, or a crash after the data moved on but before
 *   the version did) is restored from the backup of the active version. A restore marks itself first, so a
 *   crash during it resumes it.
 * - **Cleanup**: a removed app's stores are destroyed.
 */
import {
  DEFAULT_APP_STORAGE_QUOTA_BYTES,
  LineUpError,
  storageCollectionsOf,
  type AppManifest,
  type JsonValue,
  type StorageMigrationStep,
} from "@lineup/protocol";
import { createToolSchemaValidator, loadToolSchemaEngine } from "../tools/schema-engine.js";
import type { DiagnosticsSink } from "../core/emitter.js";
import { toTimestamp } from "../core/ports.js";
import type { StoreSchema } from "../persistence/schema.js";
import { isStoreError } from "../persistence/store-error.js";
import type { RuntimeStore, StoreWrite } from "../persistence/store.js";
import type { AppStorageHost, AppStoreName } from "./host.js";

/** The collection of the service's own rows in an app's stores (`schema`, `usage`, `migrating`, `restoring`); apps cannot name it. */
export const APP_STORE_META = "lineup.meta";
export const MAX_APP_STORAGE_KEY_LENGTH = 256;
export const MAX_APP_STORAGE_VALUE_BYTES = 1024 * 1024;
export const MAX_APP_STORAGE_BATCH = 500;
export const MAX_APP_STORAGE_LIST = 1_000;
const COPY_CHUNK = 500;
const KEY_PATTERN = /^[\x20-\x7E]{1,256}$/;

/** Who wrote a record. */
export interface RecordProvenance {
  readonly app_version: string;
  readonly bundle_digest: string;
  readonly written_at: string;
}

export interface AppStorageRecord {
  readonly collection: string;
  readonly key: string;
  readonly value: JsonValue;
  readonly provenance: RecordProvenance;
}

export interface AppStorageUsage {
  readonly bytes: number;
  readonly records: number;
  readonly quota_bytes: number;
  readonly schema_version: number;
}

export type AppStorageWrite =
  | { readonly op: "put"; readonly collection: string; readonly key: string; readonly value: JsonValue }
  | { readonly op: "delete"; readonly collection: string; readonly key: string };

export interface AppStorageListQuery {
  readonly prefix?: string;
  readonly gt?: string;
  readonly gte?: string;
  readonly lt?: string;
  readonly lte?: string;
  readonly limit?: number;
  readonly reverse?: boolean;
}

/** One app's storage, as its SDK sees it. */
export interface AppStorageApi {
  get(collection: string, key: string): Promise<AppStorageRecord | undefined>;
  list(collection: string, query?: AppStorageListQuery): Promise<AppStorageRecord[]>;
  put(collection: string, key: string, value: JsonValue): Promise<AppStorageUsage>;
  delete(collection: string, key: string): Promise<AppStorageUsage>;
  /** Every write or none, in one transaction. */
  batch(writes: readonly AppStorageWrite[]): Promise<AppStorageUsage>;
  usage(): Promise<AppStorageUsage>;
}

/** What the service needs to know of an app: its active manifest and bundle, or nothing when it is not installed. */
export interface ActiveAppVersion {
  readonly manifest: AppManifest;
  readonly version: string;
  readonly bundle_digest: string;
  readonly enabled: boolean;
}

export interface AppStorageServiceOptions {
  readonly host: AppStorageHost;
  readonly active: (appScope: string) => ActiveAppVersion | undefined;
  readonly now: () => number;
  readonly diagnostics?: DiagnosticsSink;
}

interface StoredRow {
  readonly v: JsonValue;
  readonly p: RecordProvenance;
}

interface OpenApp {
  readonly store: RuntimeStore;
  readonly digest: string;
  readonly manifest: AppManifest;
  readonly collections: ReadonlySet<string>;
  readonly validators: ReadonlyMap<string, (value: unknown) => { ok: boolean; error?: { message: string; path?: string } }>;
  usage: { bytes: number; records: number };
}

export interface AppStorageService {
  /** The storage of one app: every call checks that the app is installed, enabled and declares storage. */
  forApp(appScope: string): AppStorageApi;
  /** Brings an app's store to its active version now (after an install, update or rollback); rejects with the migration's failure. */
  sync(appScope: string): Promise<void>;
  /** Closes an app's store (disabled); the next call opens it again. */
  close(appScope: string): Promise<void>;
  /** Destroys every store of a removed app. */
  destroy(appScope: string): Promise<void>;
  /** Closes every store. */
  stop(): Promise<void>;
}

const isObject = (value: unknown): value is Record<string, JsonValue> => typeof value === "object" && value !== null && !Array.isArray(value);

const STATE_SCHEMA: StoreSchema = { collections: [APP_STORE_META], migrations: [] };

const COLLECTION_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

/** Bytes a record costs against the quota: its key and its stored JSON. */
const sizeOf = (key: string, row: StoredRow): number => key.length + JSON.stringify(row).length;

export function createAppStorageService(options: AppStorageServiceOptions): AppStorageService {
  const queues = new Map<string, Promise<unknown>>();
  const open = new Map<string, OpenApp>();

  /** Runs `work` after every earlier operation on the app's store: its one writer. */
  const serial = <T>(appScope: string, work: () => Promise<T>): Promise<T> => {
    const previous = queues.get(appScope) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    queues.set(appScope, settled);
    void settled.then(() => {
      if (queues.get(appScope) === settled) queues.delete(appScope);
    });
    return next;
  };

  const requireActive = (appScope: string): ActiveAppVersion => {
    const active = options.active(appScope);
    if (active === undefined) throw new LineUpError("app_not_installed", `no app ${appScope}`);
    if (!active.enabled) throw new LineUpError("app_disabled", `app ${appScope} is disabled`);
    if ((active.manifest.storage?.collections ?? []).length === 0) throw new LineUpError("capability_not_declared", `${appScope} declares no app storage (storage.collections)`);
    return active;
  };

  const validatorsOf = (manifest: AppManifest): OpenApp["validators"] => {
    const out = new Map<string, (value: unknown) => { ok: boolean; error?: { message: string; path?: string } }>();
    for (const collection of manifest.storage?.collections ?? []) {
      if (collection.value_schema === undefined) continue;
      const made = createToolSchemaValidator(collection.value_schema, { code: "invalid_params" });
      if (made.ok) out.set(collection.name, made.value);
    }
    return out;
  };

  const targetVersion = (manifest: AppManifest): number => manifest.storage?.schema_version ?? 1;

  const readMeta = async (store: RuntimeStore): Promise<{ version?: number; migrating_from?: number; usage?: { bytes: number; records: number } }> => {
    const [schema, usage, migrating] = (await store.getMany([
      { collection: APP_STORE_META, key: "schema" },
      { collection: APP_STORE_META, key: "usage" },
      { collection: APP_STORE_META, key: "migrating" },
    ])) as unknown[];
    return {
      ...(isObject(migrating) && typeof migrating["from"] === "number" ? { migrating_from: migrating["from"] } : {}),
      ...(isObject(schema) && typeof schema["version"] === "number" ? { version: schema["version"] } : {}),
      ...(isObject(usage) && typeof usage["bytes"] === "number" && typeof usage["records"] === "number" ? { usage: { bytes: usage["bytes"], records: usage["records"] } } : {}),
    };
  };

  /** Copies every row of `collections` (and the service's own rows) from one store to another, in chunks. */
  const copyRows = async (from: RuntimeStore, to: RuntimeStore, collections: readonly string[], skipMeta: readonly string[] = []): Promise<void> => {
    for (const collection of collections) {
      let after: string | undefined;
      for (;;) {
        const rows = await from.range(collection, { ...(after === undefined ? {} : { gt: after }), limit: COPY_CHUNK });
        const writes: StoreWrite[] = rows
          .filter((row) => !(collection === APP_STORE_META && skipMeta.includes(row.key)))
          .map((row) => ({ op: "put", collection, key: row.key, value: row.value }));
        if (writes.length > 0) await to.commit(writes);
        if (rows.length < COPY_CHUNK) break;
        after = rows.at(-1)!.key;
      }
    }
  };

  /**
   * Replaces the data store by the backup `from`. The `state` store notes the restore before the data store is
   * deleted and forgets it once the copy is whole, so a crash anywhere in between restores again at the next open.
   */
  const restore = async (appScope: string, from: AppStoreName, collections: readonly string[]): Promise<{ store: RuntimeStore; schema: StoreSchema }> => {
    const { store: backup, schema } = await openKnown(appScope, from, collections);
    const state = await options.host.open(appScope, "state", STATE_SCHEMA);
    try {
      const backupMeta = await readMeta(backup);
      if (backupMeta.version === undefined) throw new LineUpError("store_migration_failed", `${appScope}'s backup ${from} is empty or incomplete`);
      await state.commit([{ op: "put", collection: APP_STORE_META, key: "restoring", value: { from } }]);
      await options.host.destroy(appScope, "data");
      const data = await options.host.open(appScope, "data", schema);
      await copyRows(backup, data, schema.collections);
      await state.commit([{ op: "delete", collection: APP_STORE_META, key: "restoring" }]);
      options.diagnostics?.(new Error(`restored ${appScope}'s storage from ${from}`), "app storage");
      return { store: data, schema };
    } finally {
      await backup.close().catch(() => undefined);
      await state.close().catch(() => undefined);
    }
  };

  /**
   * Opens one of an app's stores with every collection it may hold: those given, and those its `schema` row says
   * the data has (an older version's, which the active manifest may no longer name), so nothing is left behind.
   */
  const openKnown = async (appScope: string, name: AppStoreName, collections: readonly string[]): Promise<{ store: RuntimeStore; schema: StoreSchema }> => {
    const probe = await options.host.open(appScope, name, STATE_SCHEMA);
    let known: string[] = [];
    try {
      const row = (await probe.get(APP_STORE_META, "schema")) as unknown;
      const listed = isObject(row) ? row["collections"] : undefined;
      if (Array.isArray(listed)) known = listed.filter((c): c is string => typeof c === "string" && COLLECTION_NAME.test(c));
    } finally {
      await probe.close().catch(() => undefined);
    }
    const schema: StoreSchema = { collections: [APP_STORE_META, ...[...new Set([...collections, ...known])].sort()], migrations: [] };
    return { store: await options.host.open(appScope, name, schema), schema };
  };
  const appCollections = (schema: StoreSchema): string[] => schema.collections.filter((c) => c !== APP_STORE_META);

  /** A restore a crash interrupted, from the `state` store. */
  const pendingRestore = async (appScope: string): Promise<AppStoreName | undefined> => {
    const state = await options.host.open(appScope, "state", STATE_SCHEMA);
    try {
      const note = (await state.get(APP_STORE_META, "restoring")) as unknown;
      return isObject(note) && typeof note["from"] === "string" ? (note["from"] as AppStoreName) : undefined;
    } finally {
      await state.close().catch(() => undefined);
    }
  };

  /** Opens the data store at the active version, migrating or restoring as the header says. */
  const openApp = async (appScope: string, active: ActiveAppVersion): Promise<OpenApp> => {
    const previous = open.get(appScope);
    if (previous !== undefined && previous.digest === active.bundle_digest) return previous;
    if (previous !== undefined) {
      open.delete(appScope);
      await previous.store.close().catch(() => undefined);
    }
    const manifest = active.manifest;
    const current = storageCollectionsOf(manifest);
    const target = targetVersion(manifest);
    const interrupted = await pendingRestore(appScope);
    let { store, schema } = interrupted === undefined ? await openKnown(appScope, "data", current) : await restore(appScope, interrupted, current);
    try {
      let meta = await readMeta(store);
      if (meta.version === undefined) {
        // A new store (or one whose first write never landed): it starts at the active version.
        await store.commit([
          { op: "put", collection: APP_STORE_META, key: "schema", value: { version: target, app_version: active.version, collections: appCollections(schema) } },
          { op: "put", collection: APP_STORE_META, key: "usage", value: { bytes: 0, records: 0 } },
        ]);
        meta = { version: target, usage: { bytes: 0, records: 0 } };
      } else if (meta.version > target) {
        await store.close();
        ({ store, schema } = await restore(appScope, `backup-v${target}`, current).catch((error: unknown) => {
          throw new LineUpError("store_migration_failed", `${appScope}'s data is of schema version ${meta.version}, newer than its version ${active.version} reads (${target}), and no backup of version ${target} can be restored: ${describe(error)}`);
        }));
        meta = await readMeta(store);
      } else if (meta.version < target || meta.migrating_from !== undefined) {
        // Older data, or a migration a crash cut short (its last checks had not passed): migrate, or finish.
        ({ store, schema } = await migrate(appScope, store, schema, meta.version, meta.migrating_from, manifest, active));
        meta = await readMeta(store);
      }
      const usage = meta.usage ?? (await recount(store, schema));
      await loadToolSchemaEngine();
      const opened: OpenApp = { store, digest: active.bundle_digest, manifest, collections: new Set(storageCollectionsOf(manifest)), validators: validatorsOf(manifest), usage };
      open.set(appScope, opened);
      return opened;
    } catch (error) {
      await store.close().catch(() => undefined);
      throw error;
    }
  };

  const recount = async (store: RuntimeStore, schema: StoreSchema): Promise<{ bytes: number; records: number }> => {
    let bytes = 0;
    let records = 0;
    for (const collection of schema.collections) {
      if (collection === APP_STORE_META) continue;
      for (const row of await store.range(collection)) {
        bytes += sizeOf(row.key, row.value as unknown as StoredRow);
        records += 1;
      }
    }
    return { bytes, records };
  };

  /**
   * Backs the data up as version `from`, marks the data as migrating from it, then runs each migration up to the
   * manifest's version in its own commit. A migration a crash interrupted (`resumedFrom`) goes on from where the
   * data is, with the backup it made first; a failure restores that backup.
   */
  const migrate = async (appScope: string, store: RuntimeStore, schema: StoreSchema, at: number, resumedFrom: number | undefined, manifest: AppManifest, active: ActiveAppVersion): Promise<{ store: RuntimeStore; schema: StoreSchema }> => {
    const from = resumedFrom ?? at;
    const backupName: AppStoreName = `backup-v${from}`;
    if (resumedFrom === undefined) {
      await options.host.destroy(appScope, backupName);
      const backup = await options.host.open(appScope, backupName, schema);
      try {
        await copyRows(store, backup, schema.collections.filter((c) => c !== APP_STORE_META));
        await copyRows(store, backup, [APP_STORE_META]);
      } finally {
        await backup.close().catch(() => undefined);
      }
      await store.commit([{ op: "put", collection: APP_STORE_META, key: "migrating", value: { from } }]);
    }
    const target = targetVersion(manifest);
    try {
      for (const migration of manifest.storage?.migrations ?? []) {
        if (migration.to_version <= at || migration.to_version > target) continue;
        const writes: StoreWrite[] = [];
        const staged = new Map<string, Map<string, StoredRow | undefined>>();
        const rowsOf = async (collection: string): Promise<Map<string, StoredRow | undefined>> => {
          let rows = staged.get(collection);
          if (rows === undefined) {
            rows = new Map((await store.range(collection)).map((row) => [row.key, row.value as unknown as StoredRow]));
            staged.set(collection, rows);
          }
          return rows;
        };
        for (const step of migration.steps) await applyStep(step, rowsOf, active, options.now());
        for (const [collection, rows] of staged) {
          const before = new Set((await store.range(collection)).map((row) => row.key));
          for (const [key, row] of rows) {
            if (row === undefined) {
              if (before.has(key)) writes.push({ op: "delete", collection, key });
            } else writes.push({ op: "put", collection, key, value: row as unknown as JsonValue });
          }
        }
        writes.push({ op: "put", collection: APP_STORE_META, key: "schema", value: { version: migration.to_version, app_version: active.version, collections: appCollections(schema) } });
        await store.commit(writes);
      }
      // The data as the migrations left it must be data this version accepts.
      const validators = validatorsOf(manifest);
      for (const [collection, check] of validators) {
        for (const row of await store.range(collection)) {
          const verdict = check((row.value as unknown as StoredRow).v);
          if (!verdict.ok) throw new LineUpError("store_migration_failed", `after migrating, ${collection}/${row.key} fails the collection's value_schema: ${verdict.error?.message ?? "invalid"}`, { path: verdict.error?.path ?? "" });
        }
      }
      const usage = await recount(store, schema);
      const quota = manifest.storage?.quota_bytes ?? DEFAULT_APP_STORAGE_QUOTA_BYTES;
      if (usage.bytes > quota) throw new LineUpError("store_migration_failed", `after migrating, ${appScope}'s data takes ${usage.bytes} bytes, past its quota of ${quota}`);
      await store.commit([
        { op: "put", collection: APP_STORE_META, key: "usage", value: usage },
        { op: "delete", collection: APP_STORE_META, key: "migrating" },
      ]);
      return { store, schema };
    } catch (error) {
      await store.close().catch(() => undefined);
      await restore(appScope, backupName, appCollections(schema)).then(({ store: restored }) => restored.close());
      throw error instanceof LineUpError ? new LineUpError("store_migration_failed", `${appScope}'s storage could not be migrated from version ${from}; its data is as it was: ${error.message}`, { path: error.path ?? "" }) : new LineUpError("store_migration_failed", `${appScope}'s storage could not be migrated from version ${from}; its data is as it was: ${describe(error)}`);
    }
  };

  const ensure = (appScope: string): Promise<OpenApp> => {
    const active = requireActive(appScope);
    return openApp(appScope, active);
  };

  const checkCollection = (app: OpenApp, collection: unknown, path = "/collection"): string => {
    if (typeof collection !== "string" || !app.collections.has(collection) || !(app.manifest.storage?.collections ?? []).some((c) => c.name === collection)) {
      throw new LineUpError("invalid_params", `${JSON.stringify(collection)} is not one of the collections the manifest declares`, { path });
    }
    return collection;
  };
  const checkKey = (key: unknown, path = "/key"): string => {
    if (typeof key !== "string" || !KEY_PATTERN.test(key)) throw new LineUpError("invalid_params", `a key is 1–${MAX_APP_STORAGE_KEY_LENGTH} printable ASCII characters`, { path });
    return key;
  };
  const usageOf = (app: OpenApp): AppStorageUsage => ({ ...app.usage, quota_bytes: app.manifest.storage?.quota_bytes ?? DEFAULT_APP_STORAGE_QUOTA_BYTES, schema_version: targetVersion(app.manifest) });

  const toRecord = (collection: string, key: string, row: StoredRow): AppStorageRecord => ({ collection, key, value: row.v, provenance: row.p });

  const write = async (appScope: string, writes: readonly AppStorageWrite[]): Promise<AppStorageUsage> => {
    if (!Array.isArray(writes) || writes.length === 0 || writes.length > MAX_APP_STORAGE_BATCH) {
      throw new LineUpError("invalid_params", `a batch holds 1–${MAX_APP_STORAGE_BATCH} writes`, { path: "/writes" });
    }
    const active = requireActive(appScope);
    return serial(appScope, async () => {
      const app = await openApp(appScope, active);
      const checked = writes.map((w, i) => {
        const at = writes.length === 1 ? "" : `/writes/${i}`;
        if (w?.op !== "put" && w?.op !== "delete") throw new LineUpError("invalid_params", "a write is a put or a delete", { path: `${at}/op` });
        const collection = checkCollection(app, w.collection, `${at}/collection`);
        const key = checkKey(w.key, `${at}/key`);
        if (w.op === "delete") return { op: "delete" as const, collection, key };
        const text = JSON.stringify(w.value);
        if (text === undefined) throw new LineUpError("invalid_params", "the value is not JSON", { path: `${at}/value` });
        if (text.length > MAX_APP_STORAGE_VALUE_BYTES) throw new LineUpError("message_too_large", `a value is at most ${MAX_APP_STORAGE_VALUE_BYTES} bytes of JSON`, { path: `${at}/value` });
        const verdict = app.validators.get(collection)?.(w.value);
        if (verdict !== undefined && !verdict.ok) throw new LineUpError("invalid_params", `${collection}: ${verdict.error?.message ?? "the value fails the collection's value_schema"}`, { path: `${at}/value${verdict.error?.path ?? ""}` });
        const row: StoredRow = { v: JSON.parse(text) as JsonValue, p: { app_version: active.version, bundle_digest: active.bundle_digest, written_at: toTimestamp(options.now()) } };
        return { op: "put" as const, collection, key, row };
      });
      // What each key costs now, the last write to a key winning, as the commit applies them in order.
      const refs = [...new Map(checked.map((w) => [`${w.collection}\u0000${w.key}`, { collection: w.collection, key: w.key }])).values()];
      const existing = await app.store.getMany(refs);
      const sizes = new Map(refs.map((ref, i) => [`${ref.collection}\u0000${ref.key}`, existing[i] === undefined ? undefined : sizeOf(ref.key, existing[i] as unknown as StoredRow)]));
      let bytes = app.usage.bytes;
      let records = app.usage.records;
      for (const w of checked) {
        const id = `${w.collection}\u0000${w.key}`;
        const before = sizes.get(id);
        const after = w.op === "put" ? sizeOf(w.key, w.row) : undefined;
        bytes += (after ?? 0) - (before ?? 0);
        records += (after === undefined ? 0 : 1) - (before === undefined ? 0 : 1);
        sizes.set(id, after);
      }
      const quota = app.manifest.storage?.quota_bytes ?? DEFAULT_APP_STORAGE_QUOTA_BYTES;
      if (bytes > quota && bytes > app.usage.bytes) throw new LineUpError("quota_exceeded", `${appScope} may keep ${quota} bytes; this would make ${bytes}`, { data: { quota_bytes: quota, bytes } });
      const batch: StoreWrite[] = checked.map((w) => (w.op === "put" ? { op: "put", collection: w.collection, key: w.key, value: w.row as unknown as JsonValue } : { op: "delete", collection: w.collection, key: w.key }));
      batch.push({ op: "put", collection: APP_STORE_META, key: "usage", value: { bytes, records } });
      try {
        await app.store.commit(batch);
      } catch (error) {
        throw storeFailure(error);
      }
      app.usage = { bytes, records };
      return usageOf(app);
    });
  };

  return {
    forApp(appScope) {
      return {
        get(collection, key) {
          return serial(appScope, async () => {
            const app = await ensure(appScope);
            const c = checkCollection(app, collection);
            const k = checkKey(key);
            const row = (await app.store.get(c, k)) as unknown as StoredRow | undefined;
            return row === undefined ? undefined : toRecord(c, k, row);
          });
        },
        list(collection, query = {}) {
          return serial(appScope, async () => {
            const app = await ensure(appScope);
            const c = checkCollection(app, collection);
            const range: Record<string, string> = {};
            for (const bound of ["prefix", "gt", "gte", "lt", "lte"] as const) {
              const value = query[bound];
              if (value !== undefined) range[bound] = checkKey(value, `/query/${bound}`);
            }
            const limit = query.limit === undefined ? 100 : Math.floor(query.limit);
            if (!(limit >= 1 && limit <= MAX_APP_STORAGE_LIST)) throw new LineUpError("invalid_params", `limit is 1–${MAX_APP_STORAGE_LIST}`, { path: "/query/limit" });
            const rows = await app.store.range(c, { ...range, limit, reverse: query.reverse === true });
            return rows.map((row) => toRecord(c, row.key, row.value as unknown as StoredRow));
          });
        },
        put: (collection, key, value) => write(appScope, [{ op: "put", collection, key, value }]),
        delete: (collection, key) => write(appScope, [{ op: "delete", collection, key }]),
        batch: (writes) => write(appScope, writes),
        usage: () => serial(appScope, async () => usageOf(await ensure(appScope))),
      };
    },
    sync(appScope) {
      return serial(appScope, async () => {
        const active = options.active(appScope);
        if (active === undefined || (active.manifest.storage?.collections ?? []).length === 0) return;
        await openApp(appScope, active);
      });
    },
    close(appScope) {
      return serial(appScope, async () => {
        const app = open.get(appScope);
        open.delete(appScope);
        await app?.store.close();
      });
    },
    destroy(appScope) {
      return serial(appScope, async () => {
        const app = open.get(appScope);
        open.delete(appScope);
        await app?.store.close().catch(() => undefined);
        await options.host.destroy(appScope);
      });
    },
    async stop() {
      await Promise.all([...queues.values()]);
      for (const [scope, app] of open) {
        open.delete(scope);
        await app.store.close().catch(() => undefined);
      }
    },
  };
}

/** Applies one migration step to the staged rows. */
async function applyStep(step: StorageMigrationStep, rowsOf: (collection: string) => Promise<Map<string, StoredRow | undefined>>, active: ActiveAppVersion, now: number): Promise<void> {
  const rows = await rowsOf(step.collection);
  const stamp = (row: StoredRow, v: JsonValue): StoredRow => ({ v, p: { app_version: active.version, bundle_digest: active.bundle_digest, written_at: toTimestamp(now) } });
  switch (step.op) {
    case "create_collection":
      return;
    case "drop_collection":
      for (const key of rows.keys()) rows.set(key, undefined);
      return;
    case "rename_collection": {
      const target = await rowsOf(step.to!);
      for (const [key, row] of rows) {
        if (row === undefined) continue;
        target.set(key, row);
        rows.set(key, undefined);
      }
      return;
    }
    case "set_field":
    case "remove_field":
    case "rename_field":
      for (const [key, row] of rows) {
        if (row === undefined) continue;
        const next = editField(row.v, step, `${step.collection}/${key}`);
        if (next !== row.v) rows.set(key, stamp(row, next));
      }
      return;
  }
}

function parsePointer(pointer: string): string[] {
  return pointer.slice(1).split("/").map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** The value with one field set, removed or moved; the same value when nothing changes. */
function editField(value: JsonValue, step: StorageMigrationStep, where: string): JsonValue {
  const copy = JSON.parse(JSON.stringify(value)) as JsonValue;
  const locate = (pointer: string, create: boolean): { parent: Record<string, JsonValue>; name: string } | undefined => {
    const parts = parsePointer(pointer);
    let node: JsonValue = copy;
    for (const part of parts.slice(0, -1)) {
      if (!isObject(node)) return undefined;
      if (node[part] === undefined && create) node[part] = {};
      node = node[part] as JsonValue;
    }
    if (!isObject(node)) {
      if (create) throw new LineUpError("store_migration_failed", `${where}: ${pointer} cannot be set: its parent is not an object`);
      return undefined;
    }
    return { parent: node, name: parts.at(-1)! };
  };
  if (step.op === "set_field") {
    const place = locate(step.field!, true)!;
    if (place.parent[place.name] !== undefined) return value;
    place.parent[place.name] = JSON.parse(JSON.stringify(step.value ?? null)) as JsonValue;
    return copy;
  }
  const from = locate(step.field!, false);
  if (from === undefined || from.parent[from.name] === undefined) return value;
  const moved = from.parent[from.name]!;
  delete from.parent[from.name];
  if (step.op === "rename_field") {
    const to = locate(step.to_field!, true)!;
    to.parent[to.name] = moved;
  }
  return copy;
}

function storeFailure(error: unknown): unknown {
  if (isStoreError(error)) return new LineUpError(error.code === "store_quota_exceeded" ? "quota_exceeded" : error.code, error.message);
  return error;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
