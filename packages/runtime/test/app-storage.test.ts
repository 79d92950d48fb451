import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { expect, it } from "vitest";
import type { AppManifest } from "@lineup/protocol";
import { createAppStorageService, createMemoryAppStorageHost } from "../src/index.js";
import { createIndexedDbAppStorageHost } from "../src/browser/index.js";
import { createSqliteAppStorageHost } from "../src/node/index.js";
import type { ActiveAppVersion } from "../src/app-storage/service.js";
import { runAppStorageContract } from "./app-storage-contract.js";

runAppStorageContract("memory", () => ({ host: createMemoryAppStorageHost(), cleanup: () => {} }));
runAppStorageContract("sqlite", () => {
  const dir = mkdtempSync(join(tmpdir(), "lineup-app-storage-"));
  return { host: createSqliteAppStorageHost(dir), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
});
runAppStorageContract("fake-indexeddb", () => ({ host: createIndexedDbAppStorageHost({ prefix: "lineup-test", indexedDB: new IDBFactory(), IDBKeyRange }), cleanup: () => {} }));

const manifest = (version: string, storage: AppManifest["storage"]): AppManifest =>
  ({ format: "lineup.app.v1", app_scope: "journal", version, runtime_sdk: { api_version: "1", required_features: ["app.storage.v1"] }, entrypoints: [{ id: "main", kind: "primary" }], storage }) as AppManifest;
const versionOf = (m: AppManifest): ActiveAppVersion => ({ manifest: m, version: m.version, bundle_digest: `digest-${m.version}`, enabled: true });

it("SQLite: one file per app store, removed with the app", async () => {
  const dir = mkdtempSync(join(tmpdir(), "lineup-app-files-"));
  try {
    const active = { current: versionOf(manifest("1.0.0", { collections: [{ name: "entries" }] })) };
    const service = createAppStorageService({ host: createSqliteAppStorageHost(dir), active: () => active.current, now: () => 0 });
    await service.forApp("journal").put("entries", "a", { title: "One" });
    active.current = versionOf(manifest("2.0.0", { schema_version: 2, collections: [{ name: "entries" }], migrations: [{ to_version: 2, steps: [{ op: "set_field", collection: "entries", field: "/mood", value: "calm" }] }] }));
    await service.sync("journal");
    expect(readdirSync(join(dir, "journal")).filter((f) => f.endsWith(".db")).sort()).toEqual(["backup-v1.db", "data.db", "state.db"]);
    await service.destroy("journal");
    expect(readdirSync(dir)).toEqual([]);
    await service.stop();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

