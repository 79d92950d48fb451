/**
 * The app storage contract (issue 20 "App storage"): each app's records in its own store, with provenance, quota,
 * value schemas and migrations that either finish or leave the data as it was, killed at every commit. One suite,
 * run on every host kind: memory, the Node host's SQLite files and fake-indexeddb in Node
 * (`app-storage.test.ts`), Chromium's own IndexedDB in a page (host-web `app-storage.browser.test.ts`).
 */
import { afterEach, describe, expect, it } from "vitest";
import { LineUpError, type AppManifest, type JsonValue } from "@lineup/protocol";
import { createAppStorageService, type AppStorageHost, type AppStorageService } from "../src/index.js";
import type { ActiveAppVersion } from "../src/app-storage/service.js";

const base = (storage: AppManifest["storage"], version = "1.0.0"): AppManifest =>
  ({
    format: "lineup.app.v1",
    app_scope: "journal",
    version,
    runtime_sdk: { api_version: "1", required_features: ["app.storage.v1"] },
    entrypoints: [{ id: "main", kind: "primary" }],
    storage,
  }) as AppManifest;

const V1 = base({
  schema_version: 1,
  quota_bytes: 4_096,
  collections: [{ name: "entries", value_schema: { type: "object", required: ["title"], properties: { title: { type: "string" } } } }, { name: "tags" }],
});
const V2 = base(
  {
    schema_version: 2,
    quota_bytes: 4_096,
    collections: [{ name: "entries", value_schema: { type: "object", required: ["heading", "mood"], properties: { heading: { type: "string" }, mood: { type: "string" } } } }, { name: "labels" }],
    migrations: [
      {
        to_version: 2,
        steps: [
          { op: "rename_field", collection: "entries", field: "/title", to_field: "/heading" },
          { op: "set_field", collection: "entries", field: "/mood", value: "calm" },
          { op: "rename_collection", collection: "tags", to: "labels" },
        ],
      },
    ],
  },
  "2.0.0",
);
/** A migration whose result its own value schema refuses: it must leave the data as it was. */
const V2_BROKEN = base(
  {
    schema_version: 2,
    quota_bytes: 4_096,
    collections: [{ name: "entries", value_schema: { type: "object", required: ["heading"], properties: { heading: { type: "number" } } } }],
    migrations: [{ to_version: 2, steps: [{ op: "rename_field", collection: "entries", field: "/title", to_field: "/heading" }] }],
  },
  "2.0.0",
);

interface World {
  host: AppStorageHost;
  active: { current: ActiveAppVersion | undefined };
  service: AppStorageService;
  cleanup: () => void | Promise<void>;
}

const versionOf = (manifest: AppManifest, enabled = true): ActiveAppVersion => ({ manifest, version: manifest.version, bundle_digest: `digest-${manifest.version}`, enabled });

async function expectCode(promise: Promise<unknown>, code: string): Promise<LineUpError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `expected ${code}`).toBeInstanceOf(LineUpError);
  expect((error as LineUpError).code).toBe(code);
  return error as LineUpError;
}

export type MakeAppStorageHost = () => { host: AppStorageHost; cleanup: () => void | Promise<void> };

/** The app storage service's contract over one kind of host: run on memory, SQLite and IndexedDB (fake and Chromium's). */
export function runAppStorageContract(name: string, makeHost: MakeAppStorageHost): void {
describe(`app storage on ${name}`, () => {
  let world: World | undefined;
  const open = (manifest: AppManifest = V1): World => {
    const made = makeHost();
    const active = { current: versionOf(manifest) as ActiveAppVersion | undefined };
    const service = createAppStorageService({ host: made.host, active: () => active.current, now: () => Date.UTC(2026, 11, 2) });
    world = { host: made.host, active, service, cleanup: made.cleanup };
    return world;
  };
  const reopen = (w: World): AppStorageService => (w.service = createAppStorageService({ host: w.host, active: () => w.active.current, now: () => Date.UTC(2026, 11, 3) }));
  afterEach(async () => {
    await world?.service.stop();
    await world?.cleanup();
    world = undefined;
  });

  it("keeps records with their provenance, in key order, across a restart", async () => {
    const w = open();
    const api = w.service.forApp("journal");
    await api.put("entries", "2026-12-01", { title: "Monday" });
    await api.put("entries", "2026-12-02", { title: "Tuesday" });
    const usage = await api.batch([
      { op: "put", collection: "tags", key: "work", value: 3 },
      { op: "put", collection: "entries", key: "2026-11-30", value: { title: "Sunday" } },
    ]);
    expect(usage.records).toBe(4);
    await w.service.stop();
    const again = reopen(w).forApp("journal");
    const listed = await again.list("entries");
    expect(listed.map((r) => [r.key, r.value])).toEqual([
      ["2026-11-30", { title: "Sunday" }],
      ["2026-12-01", { title: "Monday" }],
      ["2026-12-02", { title: "Tuesday" }],
    ]);
    expect(listed[0]!.provenance).toEqual({ app_version: "1.0.0", bundle_digest: "digest-1.0.0", written_at: "2026-12-02T00:00:00.000Z" });
    expect((await again.list("entries", { prefix: "2026-12", reverse: true, limit: 1 })).map((r) => r.key)).toEqual(["2026-12-02"]);
    expect(await again.get("entries", "nope")).toBeUndefined();
    expect((await again.usage()).records).toBe(4);
    await again.delete("entries", "2026-12-01");
    expect((await again.usage()).records).toBe(3);
  });

  it("refuses, with nothing written, what the manifest does not allow", async () => {
    const w = open();
    const api = w.service.forApp("journal");
    await expectCode(api.put("secrets", "a", 1), "invalid_params");
    await expectCode(api.put("entries", "a", { heading: "no title" }), "invalid_params");
    await expectCode(api.put("entries", "", { title: "x" }), "invalid_params");
    await expectCode(api.put("entries", "é", { title: "x" }), "invalid_params");
    // A batch with one bad write writes none of them.
    await expectCode(api.batch([{ op: "put", collection: "tags", key: "ok", value: 1 }, { op: "put", collection: "entries", key: "bad", value: 7 }]), "invalid_params");
    expect(await api.get("tags", "ok")).toBeUndefined();
    // The quota counts keys and stored JSON; a write past it changes nothing.
    await api.put("tags", "big", "x".repeat(3_000));
    const before = await api.usage();
    const refused = await expectCode(api.put("tags", "bigger", "y".repeat(2_000)), "quota_exceeded");
    expect(refused.data).toMatchObject({ quota_bytes: 4_096 });
    expect(await api.usage()).toEqual(before);
    // Shrinking is always allowed; the freed bytes count again.
    await api.put("tags", "big", "small");
    await api.put("tags", "bigger", "y".repeat(2_000));
    // A disabled app, an app without storage, an app that is gone: refused.
    w.active.current = versionOf(V1, false);
    await expectCode(api.get("tags", "big"), "app_disabled");
    w.active.current = versionOf(base(undefined));
    await expectCode(api.get("tags", "big"), "capability_not_declared");
    w.active.current = undefined;
    await expectCode(api.usage(), "app_not_installed");
  });

  it("migrates to a new version once, after backing the old data up, and restores that backup on rollback", async () => {
    const w = open();
    const api = w.service.forApp("journal");
    await api.put("entries", "a", { title: "One" });
    await api.put("entries", "b", { title: "Two" });
    await api.put("tags", "x", 1);
    w.active.current = versionOf(V2);
    await w.service.sync("journal");
    expect((await api.list("entries")).map((r) => r.value)).toEqual([
      { heading: "One", mood: "calm" },
      { heading: "Two", mood: "calm" },
    ]);
    expect((await api.list("labels")).map((r) => [r.key, r.value])).toEqual([["x", 1]]);
    expect((await api.get("entries", "a"))!.provenance.app_version).toBe("2.0.0");
    expect((await api.usage()).schema_version).toBe(2);
    await api.put("entries", "c", { heading: "Three", mood: "glad" });
    // Rolled back to 1.0.0: its data as it left it (what 2.0.0 wrote is not 1.0.0's to read).
    w.active.current = versionOf(V1);
    expect((await api.list("entries")).map((r) => r.value)).toEqual([{ title: "One" }, { title: "Two" }]);
    expect((await api.usage()).schema_version).toBe(1);
    await api.put("entries", "d", { title: "Four" });
  });

  it("leaves the data and its version as they were when a migration fails", async () => {
    const w = open();
    const api = w.service.forApp("journal");
    await api.put("entries", "a", { title: "One" });
    w.active.current = versionOf(V2_BROKEN);
    const error = await expectCode(w.service.sync("journal"), "store_migration_failed");
    expect(/value_schema/.test(error.message)).toBe(true);
    w.active.current = versionOf(V1);
    expect((await api.list("entries")).map((r) => [r.key, r.value])).toEqual([["a", { title: "One" }]]);
    expect((await api.usage()).schema_version).toBe(1);
  });

  it("keeps one app's records out of another's reach", async () => {
    const w = open();
    const other = { ...V1, app_scope: "diary" } as AppManifest;
    const service = createAppStorageService({ host: w.host, active: (scope) => (scope === "diary" ? versionOf(other) : w.active.current), now: () => 0 });
    await w.service.forApp("journal").put("entries", "a", { title: "journal's" });
    await service.forApp("diary").put("entries", "a", { title: "diary's" });
    expect((await w.service.forApp("journal").get("entries", "a"))!.value).toEqual({ title: "journal's" });
    expect((await service.forApp("diary").get("entries", "a"))!.value).toEqual({ title: "diary's" });
    await service.destroy("diary");
    await service.stop();
    expect((await w.service.forApp("journal").get("entries", "a"))!.value).toEqual({ title: "journal's" });
  });

  it("destroys every store of a removed app", async () => {
    const made = makeHost();
    const active = { current: versionOf(V1) as ActiveAppVersion | undefined };
    const service = createAppStorageService({ host: made.host, active: () => active.current, now: () => 0 });
    world = { host: made.host, active, service, cleanup: made.cleanup };
    await service.forApp("journal").put("entries", "a", { title: "One" });
    active.current = versionOf(V2);
    await service.sync("journal");
    await service.destroy("journal");
    active.current = versionOf(V1);
    expect(await service.forApp("journal").list("entries")).toEqual([]);
  });
});

/**
 * A host whose stores all die at the `crashAt`-th commit (counted over every store, as one process's): that
 * commit and every later call fail, as if the process had been killed there. Commits are atomic, so this is a
 * kill at each commit boundary.
 */
function crashingHost(inner: AppStorageHost, crashAt: number): AppStorageHost {
  let commits = 0;
  let dead = false;
  const die = (): never => {
    dead = true;
    throw new Error("killed");
  };
  return {
    async open(appScope, name, schema) {
      if (dead) die();
      const store = await inner.open(appScope, name, schema);
      return {
        ...store,
        async commit(batch) {
          if (dead || ++commits >= crashAt) die();
          return store.commit(batch);
        },
      };
    },
    async destroy(appScope, name) {
      if (dead) die();
      return inner.destroy(appScope, name);
    },
  };
}

describe(`a migration killed at every commit boundary on ${name} (RELIABILITY M1)`, () => {
  const seed = async (host: AppStorageHost): Promise<void> => {
    const service = createAppStorageService({ host, active: () => versionOf(V1), now: () => 0 });
    const api = service.forApp("journal");
    for (let i = 0; i < 12; i++) await api.put("entries", `e${String(i).padStart(2, "0")}`, { title: `Entry ${i}` });
    await api.put("tags", "t", 1);
    await service.stop();
  };
  const v1Entries = Array.from({ length: 12 }, (_, i) => ({ title: `Entry ${i}` }));
  const v2Entries = Array.from({ length: 12 }, (_, i) => ({ heading: `Entry ${i}`, mood: "calm" }));

  for (const [what, target, succeeds] of [
    ["a migration that succeeds", V2, true],
    ["a migration that fails", V2_BROKEN, false],
  ] as const) it(`${what}: after the restart the data is wholly one version or the other, never between`, async () => {
    for (let crashAt = 1; ; crashAt++) {
      const made = makeHost();
      const inner = made.host;
      await seed(inner);
      const dying = createAppStorageService({ host: crashingHost(inner, crashAt), active: () => versionOf(target), now: () => 0 });
      const outcome = await dying.sync("journal").then(
        () => "done" as const,
        (e: unknown) => (e instanceof Error && e.message === "killed") || (e instanceof LineUpError && /killed/.test(e.message)) ? ("killed" as const) : e,
      );
      await dying.stop().catch(() => undefined);
      if (outcome !== "killed" && outcome !== "done") expect((outcome as LineUpError).code).toBe("store_migration_failed");
      // The restart: the active version is still the new one (the update committed); the data follows it or is restored.
      const restarted = createAppStorageService({ host: inner, active: () => versionOf(target), now: () => 0 });
      const synced = await restarted.sync("journal").then(
        () => true,
        () => false,
      );
      expect({ crashAt, outcome: String(outcome), synced }).toEqual({ crashAt, outcome: String(outcome), synced: succeeds });
      await restarted.stop();
      // Whichever version is active after it, its data is whole.
      const settled = createAppStorageService({ host: inner, active: () => versionOf(succeeds ? target : V1), now: () => 0 });
      const values = (await settled.forApp("journal").list("entries")).map((r) => r.value as JsonValue);
      expect(values).toEqual(succeeds ? v2Entries : v1Entries);
      // The tag moved to `labels` with the migration, or is where it was.
      expect((await settled.forApp("journal").get(succeeds ? "labels" : "tags", "t"))?.value).toBe(1);
      expect((await settled.forApp("journal").usage()).records).toBe(13);
      await settled.stop();
      await made.cleanup();
      if (outcome !== "killed") break;
      expect(crashAt < 40).toBe(true);
    }
  });
});
}
