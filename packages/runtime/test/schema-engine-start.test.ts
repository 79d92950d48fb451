/**
 * When the Runtime loads its app-schema engine (`tools/schema-engine.ts`): a new store holds no app but the core
 * ones, which declare no schema, so its first start goes online without the engine, and the first install loads
 * it before the app's manifest reaches the loop. A store that holds data, or core apps that declare schemas, load
 * it at start. Each case runs on a fresh copy of the Runtime's modules, so the engine starts unloaded in each.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { AppManifest, AppScope, LineUpError } from "@lineup/protocol";

/** The Runtime's modules and the test helpers, loaded anew: the schema engine of this copy is not loaded yet. */
async function freshModules() {
  vi.resetModules();
  const engine = await import("../src/tools/schema-engine.js");
  const apps = await import("./helpers/apps-harness.js");
  const harness = await import("./helpers/runtime-harness.js");
  const runtime = await import("../src/index.js");
  /** Whether the engine of this copy is loaded: a validator is made, or refused with `invalid_state`. */
  const engineLoaded = (): boolean => {
    try {
      engine.createToolSchemaValidator({ type: "object" }, { code: "invalid_arguments" });
      return true;
    } catch (error) {
      if (error instanceof Error && (error as LineUpError).code === "invalid_state") return false;
      throw error;
    }
  };
  return { engine, apps, harness, runtime, engineLoaded };
}

const COUNTER = {
  format: "lineup.app.v1",
  app_scope: "counter" as AppScope,
  version: "1.0.0",
  runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1"] },
  entrypoints: [{ id: "main", kind: "primary" }],
  tools: [
    {
      method: "counter.add",
      contract_version: "1",
      input_schema: { type: "object", required: ["by"], properties: { by: { type: "integer", minimum: 1 } }, additionalProperties: false },
      output_schema: { type: "object", required: ["total"], properties: { total: { type: "integer" } } },
      call_model: "command",
      activation_requirement: "activation_not_required",
      idempotent: false,
    },
  ],
} as AppManifest;

describe("the app-schema engine at start", () => {
  it("a new store goes online without it; the first install loads it, and its tool's schemas are checked", { timeout: 30_000 }, async () => {
    const { apps, harness, engineLoaded } = await freshModules();
    const { server, d } = await apps.onlineDevice();
    expect(d.runtime.lifecycle.snapshot().status).toBe("online");
    expect(engineLoaded()).toBe(false);

    const operation = await d.runtime.appManager.install(await apps.signedBundle(COUNTER), { approved: true });
    expect(operation.status).toBe("succeeded");
    expect(engineLoaded()).toBe(true);
    let total = 0;
    apps.serve(d.runtime, "counter", (call) => ({ total: (total += (call.arguments as { by: number }).by) }));
    await harness.until(() => apps.publishedInventories(server).some((i) => i.methods.includes("counter/counter.add")), 3_000, "inventory published");
    const revision = apps.publishedInventories(server).at(-1)!.revision;

    apps.agentInvokes(server, "bad", "counter", "counter.add", { by: 0 }, revision);
    apps.agentInvokes(server, "good", "counter", "counter.add", { by: 2 }, revision);
    await harness.until(() => apps.toolOutputs(server, "good").some(([type]) => type === "lineup.tool.result"), 3_000, "the good call's result");
    await harness.until(() => apps.toolOutputs(server, "bad").length > 0, 3_000, "the bad call's answer");
    expect(apps.toolOutputs(server, "bad")).toEqual([["lineup.tool.error", expect.objectContaining({ code: "invalid_arguments" })]]);
    expect(apps.toolOutputs(server, "good").at(-1)).toEqual(["lineup.tool.result", expect.objectContaining({ result: { total: 2 } })]);
    await d.stop();
    expect(d.errors).toEqual([]);
  });

  it("a store that holds data loads it while it is restored: its apps' tools are checked from the first call", { timeout: 30_000 }, async () => {
    // The data lives in a SQLite file, so that a second copy of the Runtime's modules reads what the first wrote.
    const dir = mkdtempSync(join(tmpdir(), "lineup-schema-engine-"));
    try {
      const sqlite = async (copy: Awaited<ReturnType<typeof freshModules>>) => {
        const { openSqliteStore } = await import("../src/node/sqlite-store.js");
        const store = await openSqliteStore({ path: join(dir, "runtime.db"), schema: copy.runtime.RUNTIME_SCHEMA });
        return { wrapStore: () => store };
      };
      const before = await freshModules();
      const firstServer = new before.harness.FakeAppServer();
      const first = await before.harness.startDevice(firstServer, before.harness.createMemoryStoreData(), { ...(await sqlite(before)), extra: { trustedPublishers: [(await before.apps.publisherKey()).trustedKey] } });
      await first.runtime.whenOnline();
      expect((await first.runtime.appManager.install(await before.apps.signedBundle(COUNTER), { approved: true })).status).toBe("succeeded");
      await first.stop();

      const after = await freshModules();
      const { apps, harness, engineLoaded } = after;
      expect(engineLoaded()).toBe(false);
      const server = new harness.FakeAppServer();
      server.createSession({ session_id: "s-1", agent_id: "agent-1" });
      const d = await harness.startDevice(server, harness.createMemoryStoreData(), { ...(await sqlite(after)), run: "r1", extra: { trustedPublishers: [(await apps.publisherKey()).trustedKey] } });
      // Loaded by start() itself, before anything was installed on this run.
      expect(engineLoaded()).toBe(true);
      await d.runtime.whenOnline();
      apps.serve(d.runtime, "counter", () => ({ total: 1 }));
      await harness.until(() => apps.publishedInventories(server).some((i) => i.methods.includes("counter/counter.add")), 3_000, "inventory published");
      apps.agentInvokes(server, "bad", "counter", "counter.add", { by: "two" }, apps.publishedInventories(server).at(-1)!.revision);
      await harness.until(() => apps.toolOutputs(server, "bad").length > 0, 3_000, "the bad call's answer");
      expect(apps.toolOutputs(server, "bad")).toEqual([["lineup.tool.error", expect.objectContaining({ code: "invalid_arguments" })]]);
      await d.stop();
      expect(d.errors).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("core apps that declare schemas load it at a new store's start; the core apps as shipped declare none", { timeout: 30_000 }, async () => {
    const { engine, harness, runtime, engineLoaded } = await freshModules();
    expect(runtime.CORE_MANIFESTS.every(engine.declaresNoAppSchema)).toBe(true);
    expect(engine.declaresNoAppSchema(COUNTER)).toBe(false);
    // A member the engine does not know of counts as one that may carry a schema.
    expect(engine.declaresNoAppSchema({ ...runtime.CORE_MANIFESTS[0]!, later_member: [] } as unknown as AppManifest)).toBe(false);

    const d = await harness.startDevice(new harness.FakeAppServer(), harness.createMemoryStoreData(), { extra: { coreManifests: [...runtime.CORE_MANIFESTS, { ...COUNTER, app_scope: "core-counter" as AppScope }] } });
    expect(engineLoaded()).toBe(true);
    await d.stop();
  });
});
