import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { LineUpError, type AppManifest, type BackendDeclaration } from "@lineup/protocol";
import { createMemoryAppStorageHost, createRemoteHttpRunner, remoteHttpRunners, systemClock, type BackendRunners } from "../src/index.js";
import { publisherKey, signedBundle } from "./helpers/apps-harness.js";
import { createFakeClock, createMemoryStoreData, FakeAppServer, startDevice, until, type Device } from "./helpers/runtime-harness.js";
import { slack } from "../../../test/support/soak.js";

// Issue 20 through the Runtime: an installed app's own storage follows its active version (install, update with a
// migration, a migration that fails and puts the version before back, removal), and its declared back-ends are
// called through the Runtime's checks — here the remote-http one, against a server on 127.0.0.1.

function journal(version: string, storage: AppManifest["storage"], endpoint = "http://127.0.0.1:9/rpc", extra: Partial<AppManifest> = {}): AppManifest {
  return {
    format: "lineup.app.v1",
    app_scope: "journal",
    version,
    name: "Journal",
    runtime_sdk: { api_version: "1", required_features: ["app.storage.v1", "app.backend.v1"] },
    entrypoints: [{ id: "main", kind: "primary" }],
    execution: { mode: "server-assisted", endpoints: [{ id: "sync", url: endpoint, purpose: "Keeps a copy for your other devices." }], data_boundary: "Entry text goes to the sync server." },
    storage,
    backends: [
      {
        id: "sync",
        plane: "cloud-remote",
        protocol: "remote-http",
        endpoint: "sync",
        methods: [{ name: "push", params_schema: { type: "object", required: ["text"], properties: { text: { type: "string" } } }, result_schema: { type: "object", required: ["stored"] } }, { name: "slow" }],
        limits: { call_timeout_ms: slack(300) },
      },
      { id: "search", plane: "client-local", protocol: "wasm", entry: "search.wasm", methods: [{ name: "search" }], optional: true },
    ],
    ...extra,
  } as AppManifest;
}

const STORAGE_V1: AppManifest["storage"] = { schema_version: 1, collections: [{ name: "entries", value_schema: { type: "object", required: ["title"] } }] };
const STORAGE_V2: AppManifest["storage"] = {
  schema_version: 2,
  collections: [{ name: "entries", value_schema: { type: "object", required: ["heading"] } }],
  migrations: [{ to_version: 2, steps: [{ op: "rename_field", collection: "entries", field: "/title", to_field: "/heading" }] }],
};
/** Its migration leaves records its own value schema refuses. */
const STORAGE_V3_BROKEN: AppManifest["storage"] = {
  schema_version: 3,
  collections: [{ name: "entries", value_schema: { type: "object", required: ["heading", "mood"] } }],
  migrations: [...STORAGE_V2!.migrations!, { to_version: 3, steps: [{ op: "create_collection", collection: "entries" }] }],
};

describe("an installed app's own storage and back-ends in the Runtime", () => {
  let device: Device | undefined;
  let http: Server | undefined;
  const requests: { headers: Record<string, unknown>; body: unknown }[] = [];
  afterEach(async () => {
    await device?.stop();
    device = undefined;
    await new Promise<void>((resolve) => (http === undefined ? resolve() : http.close(() => resolve())));
    http = undefined;
    requests.length = 0;
  });

  const start = async (runners: BackendRunners = remoteHttpRunners) => {
    const server = new FakeAppServer();
    const key = await publisherKey();
    const host = createMemoryAppStorageHost();
    device = await startDevice(server, createMemoryStoreData(), { clock: createFakeClock(), extra: { trustedPublishers: [key.trustedKey], appStorage: host, backends: runners } });
    return { device, host };
  };
  const listen = async (): Promise<string> => {
    http = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        const message = JSON.parse(body) as { id: number; method: string; params: { text?: string } };
        requests.push({ headers: req.headers, body: message });
        if (message.method === "slow") return; // never answers: the call's time limit ends it
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { stored: message.params.text?.length ?? 0 } }));
      });
    });
    await new Promise<void>((resolve) => http!.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(http.address() as AddressInfo).port}/rpc`;
  };

  it("keeps the app's records, migrates them with an update, and puts the version before back when a migration fails", async () => {
    const { device: d, host } = await start();
    expect((await d.runtime.appManager.install(await signedBundle(journal("1.0.0", STORAGE_V1)), { approved: true })).status).toBe("succeeded");
    const storage = d.runtime.appPort("journal").storage();
    await storage.put("entries", "2026-12-01", { title: "Monday" });
    await expect(storage.put("entries", "2026-12-02", { heading: "wrong shape" })).rejects.toMatchObject({ code: "invalid_params" });

    expect((await d.runtime.appManager.update("journal", undefined, { bundle: await signedBundle(journal("2.0.0", STORAGE_V2)) })).status).toBe("succeeded");
    await until(() => host.names().includes("journal/backup-v1"), 3_000, "the backup before the migration");
    const migrated = await storage.get("entries", "2026-12-01");
    expect(migrated?.value).toEqual({ heading: "Monday" });
    expect(migrated?.provenance.app_version).toBe("2.0.0");

    expect((await d.runtime.appManager.update("journal", undefined, { bundle: await signedBundle(journal("3.0.0", STORAGE_V3_BROKEN)) })).status).toBe("succeeded");
    // The migration to 3 fails its own value schema: the Runtime rolls the app back to 2.0.0, whose data is as it was.
    await until(() => d.runtime.appManager.getApp("journal")?.record.installed_version === "2.0.0", 5_000, "the rollback to 2.0.0");
    expect((await storage.get("entries", "2026-12-01"))?.value).toEqual({ heading: "Monday" });
    expect((await storage.usage()).schema_version).toBe(2);
    expect(d.errors.some((e) => (e as { context: string }).context === "app storage migration")).toBe(true);

    // Removing the app deletes its data.
    expect((await d.runtime.appManager.remove("journal", { confirmed: true })).status).toBe("succeeded");
    await until(() => host.names().length === 0, 3_000, "the removed app's stores");
  });

  it("an install whose storage cannot be set up ends install_state failed: kept, not openable, out of the inventory, until removed", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const key = await publisherKey();
    const memory = createMemoryAppStorageHost();
    const broken = { ...memory, open: () => Promise.reject(new Error("the disk is full")) };
    device = await startDevice(server, createMemoryStoreData(), { clock: createFakeClock(), extra: { trustedPublishers: [key.trustedKey], appStorage: broken, backends: remoteHttpRunners } });
    const d = device;
    await d.runtime.whenOnline();
    expect((await d.runtime.appManager.install(await signedBundle(journal("1.0.0", STORAGE_V1)), { approved: true })).status).toBe("succeeded");
    await until(() => d.runtime.appManager.getApp("journal")?.record.install_state === "failed", 5_000, "the install marked failed");
    expect(d.runtime.apps.get("journal")?.enabled).toBe(false);
    expect(d.runtime.instances.whyCannotOpen("journal")).toBe("its installation failed");
    expect(d.runtime.appManager.operations()[0]).toMatchObject({ kind: "install", app_scope: "journal", status: "failed", error: { code: "store_migration_failed" } });
    await expect(d.runtime.appManager.launch({ app_scope: "journal", conversation_id: "s-1" })).rejects.toBeInstanceOf(LineUpError);
    expect((await d.runtime.appManager.remove("journal", { confirmed: true })).status).toBe("succeeded");
  });

  it("calls a declared remote-http back-end for the app, with the Runtime's checks and the call's time limit", async () => {
    const url = await listen();
    const { device: d } = await start();
    expect((await d.runtime.appManager.install(await signedBundle(journal("1.0.0", STORAGE_V1, url)), { approved: true })).status).toBe("succeeded");
    const port = d.runtime.appPort("journal");
    expect(await port.callBackend("sync", "push", { text: "hello" })).toEqual({ stored: 5 });
    expect(requests[0]!.headers["x-lineup-app"]).toBe("journal");
    expect(requests[0]!.headers["cookie"]).toBeUndefined();
    // Checked before anything is sent: params, methods and back-ends the manifest does not declare.
    await expect(port.callBackend("sync", "push", { text: 5 })).rejects.toMatchObject({ code: "invalid_params" });
    await expect(port.callBackend("sync", "drop", {})).rejects.toMatchObject({ code: "method_not_found" });
    await expect(port.callBackend("mail", "push", {})).rejects.toMatchObject({ code: "not_found" });
    expect(requests).toHaveLength(1);
    // The optional wasm back-end: this host runs no wasm.
    await expect(port.callBackend("search", "search", {})).rejects.toMatchObject({ code: "unsupported_on_host" });
    const slow = await port.callBackend("sync", "slow", {}).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(slow).toBeInstanceOf(LineUpError);
    expect((slow as LineUpError).code).toBe("operation_expired");
    // A disabled app's back-ends are not called.
    await d.runtime.appManager.disable("journal");
    await expect(port.callBackend("sync", "push", { text: "x" })).rejects.toMatchObject({ code: "app_disabled" });
  });

  it("sends a call's idempotency key to a remote-http back-end as the Idempotency-Key header and in the request", async () => {
    const url = await listen();
    const declaration = journal("1.0.0", STORAGE_V1, url).backends![0] as BackendDeclaration;
    const runner = createRemoteHttpRunner({ app_scope: "journal", declaration, entry: new Uint8Array(), hostCalls: async () => null }, { url, clock: systemClock });
    expect(await runner.call("push", { text: "abc" }, { idempotency_key: "workflow:run-1:push~1" })).toEqual({ stored: 3 });
    expect(await runner.call("push", { text: "abc" })).toEqual({ stored: 3 });
    expect(requests.map((r) => [r.headers["idempotency-key"], (r.body as { idempotency_key?: string }).idempotency_key])).toEqual([
      ["workflow:run-1:push~1", "workflow:run-1:push~1"],
      [undefined, undefined],
    ]);
    await runner.stop();
  });

  it("refuses at install what this host cannot run or policy does not allow", async () => {
    const server = new FakeAppServer();
    const key = await publisherKey();
    device = await startDevice(server, createMemoryStoreData(), { clock: createFakeClock(), extra: { trustedPublishers: [key.trustedKey], appStorage: createMemoryAppStorageHost(), backends: {}, appPolicy: { blocked_execution_modes: ["server-assisted"] } } });
    // No back-end runner at all: the feature app.backend.v1 is not offered.
    const noBackends = await device.runtime.appManager.install(await signedBundle(journal("1.0.0", STORAGE_V1)), { approved: true });
    // The bundle verifier refuses it first: it needs a feature this host does not offer.
    expect(noBackends).toMatchObject({ status: "failed", error: { code: "bundle_incompatible" } });
    await device.stop();
    device = await startDevice(server, createMemoryStoreData(), { clock: createFakeClock(), extra: { trustedPublishers: [key.trustedKey], appStorage: createMemoryAppStorageHost(), backends: remoteHttpRunners, appPolicy: { blocked_execution_modes: ["server-assisted"] } } });
    const blocked = await device.runtime.appManager.install(await signedBundle(journal("1.0.0", STORAGE_V1)), { approved: true });
    expect(blocked).toMatchObject({ status: "failed", error: { code: "policy_denied" } });
    // A required (not optional) wasm back-end on a host without wasm.
    const wasm = journal("1.0.0", STORAGE_V1, undefined, { execution: { mode: "local" }, backends: [{ id: "search", plane: "client-local", protocol: "wasm", entry: "search.wasm", methods: [{ name: "search" }] }] } as Partial<AppManifest>);
    expect(await device.runtime.appManager.install(await signedBundle(wasm), { approved: true })).toMatchObject({ status: "failed", error: { code: "app_host_incompatible" } });
  });
});
