/**
 * The page of the app launch bench (served to a persistent Chromium profile, so IndexedDB is on disk).
 *
 * `ours`: the real Runtime over `openIndexedDbStore`, online at an in-page `FakeAppServer`, with the bench app
 * installed (signed, verified, stored). The agent's `lineup.tool.invoke` of `bench.open` (which needs the app
 * ready) arrives at the server → the Runtime accepts the call and starts an instance → this page mounts it the
 * way the web host does (`connectInstance`: the entry read back from the store, `mountSurface`, the sandboxed
 * frame page, the port + nonce handover with the host snapshot) → the app's page parses, connects with the
 * surface SDK and calls `ready()` → the host has the instance's first frame ready. The round's time ends there;
 * the call's result is awaited (untimed) and the instance closed before the next round.
 *
 * `floor`: a sandboxed frame of the same kind (the same frame page) loading a page of the same bytes whose
 * script answers a hello on the port it is handed (the app's own script is in the page, parsed, never run).
 */
import { LineUpError, type JsonObject } from "@lineup/protocol";
import { createRuntime, generatePublisherKey, packBundle, RUNTIME_SCHEMA, signBundle, type AppInstance, type LineUpRuntime } from "@lineup/runtime";
import { openIndexedDbStore } from "@lineup/runtime/browser";
import { FakeAppServer } from "@lineup/runtime/testing";
import { connectInstance, type InstanceBridge } from "../../packages/host-web/src/apps-host/instance-bridge.js";
import { mountRawFrame } from "./raw-frame.js";

export interface LaunchBench {
  /** Installs the app whose page is `appHtml` into a fresh Runtime; `floorHtml` is the floor's page. */
  setUp(appHtml: string, floorHtml: string): Promise<void>;
  /** ms from the invoke reaching the server to the app's first frame ready. */
  ours(): Promise<number>;
  /** ms from creating the frame to the page's answer to the hello. */
  floor(): Promise<number>;
  tearDown(): Promise<void>;
}

const APP = "launchbench";
const METHOD = "bench.open";
const SESSION = "s-launch";
const FRAME_URL = "./surface-frame.html";

interface World {
  readonly runtime: LineUpRuntime;
  readonly store: { close(): Promise<void> };
  readonly server: FakeAppServer;
  readonly floorHtml: string;
  readonly errors: unknown[];
  inventoryRevision: number;
  readonly results: Map<string, () => void>;
  calls: number;
}

let world: World | undefined;

function stage(): HTMLElement {
  const element = document.createElement("div");
  element.style.width = "480px";
  element.style.height = "320px";
  document.body.append(element);
  return element;
}

async function signedApp(html: string, key: Awaited<ReturnType<typeof generatePublisherKey>>): Promise<Uint8Array> {
  const packed = await packBundle({
    manifest: {
      format: "lineup.app.v1",
      app_scope: APP,
      version: "1.0.0",
      name: "Launch bench",
      runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1"] },
      entrypoints: [{ id: "main", kind: "primary", default_eligible: true }],
      tools: [{ method: METHOD, contract_version: "1", input_schema: { type: "object", additionalProperties: false }, output_schema: { type: "object" }, call_model: "command", activation_requirement: "app_ready" }],
    },
    files: new Map([["index.html", new TextEncoder().encode(html)]]),
  });
  if (!packed.ok) throw new Error(`pack: ${packed.error.message}`);
  const signed = await signBundle(packed.value, key.privateKey);
  if (!signed.ok) throw new Error(`sign: ${signed.error.message}`);
  return signed.value;
}

function deleteDatabase(name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.deleteDatabase(name);
    request.onsuccess = () => resolve();
    request.onerror = () => reject(request.error ?? new Error(`could not delete ${name}`));
  });
}

const DB = "bench-launch";

async function setUp(appHtml: string, floorHtml: string): Promise<void> {
  await deleteDatabase(DB);
  const key = await generatePublisherKey();
  const server = new FakeAppServer();
  server.createSession({ session_id: SESSION, agent_id: "agent-1" });
  const store = await openIndexedDbStore({ name: DB, schema: RUNTIME_SCHEMA });
  const errors: unknown[] = [];
  const runtime = createRuntime({ store, transport: server.transport, serverUrl: "mem://bench", token: server.deviceToken, trustedPublishers: [key.trustedKey], relistIntervalMs: 0, diagnostics: (error) => errors.push(error) });
  const w: World = { runtime, store, server, floorHtml, errors, inventoryRevision: 0, results: new Map(), calls: 0 };
  // The server's applied writes tell the inventory revision and each call's terminal envelope.
  const push = server.applied.push.bind(server.applied);
  server.applied.push = (...writes) => {
    for (const write of writes) {
      if (write.method === "inventory/publish") w.inventoryRevision = Number(write.params["revision"]);
      if (write.method !== "agentSession/envelope/send") continue;
      const envelope = write.params["envelope"] as { type: string; correlation?: { call_id?: string }; payload: JsonObject };
      const callId = envelope.correlation?.call_id;
      if (callId === undefined) continue;
      if (envelope.type === "lineup.tool.error") errors.push(new Error(`call ${callId} failed: ${JSON.stringify(envelope.payload)}`));
      if (envelope.type === "lineup.tool.result" || envelope.type === "lineup.tool.error") w.results.get(callId)?.();
    }
    server.applied.length = 0;
    return push(...writes);
  };
  await runtime.start();
  await runtime.whenOnline();
  const operation = await runtime.appManager.install(await signedApp(appHtml, key), { approved: true });
  if (operation.status !== "succeeded") throw new Error(`install: ${JSON.stringify(operation.error)}`);
  const deadline = performance.now() + 10_000;
  while (w.inventoryRevision === 0) {
    if (performance.now() > deadline) throw new Error("the inventory was never published");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  world = w;
}

/** The next instance of the bench app the Runtime starts, as the shell sees it. */
function nextLaunch(runtime: LineUpRuntime): Promise<AppInstance> {
  return new Promise((resolve) => {
    const find = (): AppInstance | undefined => runtime.instances.snapshot().instances.find((i) => i.app_scope === APP && i.status === "launching");
    const now = find();
    if (now !== undefined) return resolve(now);
    const off = runtime.instances.subscribe(() => {
      const launched = find();
      if (launched === undefined) return;
      off();
      resolve(launched);
    });
  });
}

async function ours(): Promise<number> {
  const w = world;
  if (w === undefined) throw new Error("setUp first");
  if (w.errors.length > 0) throw new Error(`runtime diagnostics during the bench: ${String(w.errors[0])}`);
  const callId = `launch-${++w.calls}`;
  const answered = new Promise<void>((resolve) => w.results.set(callId, resolve));
  const launched = nextLaunch(w.runtime);
  const container = stage();
  const start = performance.now();
  w.server.agentEnvelope(SESSION, {
    v: 1,
    id: `inv-${callId}`,
    type: "lineup.tool.invoke",
    timestamp: new Date().toISOString(),
    sender: { kind: "agent", id: "agent-1" },
    target: { kind: "app", app_scope: APP },
    scope: { app_scope: APP, conversation_id: SESSION },
    correlation: { call_id: callId, inventory_revision: String(w.inventoryRevision) },
    payload: { method: METHOD, arguments: {} },
  });
  const instance = await launched;
  let failure: string | undefined;
  const bridge: InstanceBridge = connectInstance(container, w.runtime, instance, { displayMode: "foreground", frameUrl: FRAME_URL, onFailed: (f) => (failure = f.message) });
  const surface = await bridge.surface;
  await surface.ready;
  const ms = performance.now() - start;
  await answered;
  w.results.delete(callId);
  // As the shell closes an instance: the Runtime marks it closing, the surface flushes and goes, the Runtime hears closed.
  await w.runtime.appManager.closeInstance(instance.instance_id, { by: "user" });
  await bridge.close();
  container.remove();
  if (failure !== undefined) throw new LineUpError("internal_error", `the instance failed: ${failure}`);
  if (w.errors.length > 0) throw new Error(`runtime diagnostics during the bench: ${String(w.errors[0])}`);
  return ms;
}

async function floor(): Promise<number> {
  const w = world;
  if (w === undefined) throw new Error("setUp first");
  const container = stage();
  const start = performance.now();
  const port = await mountRawFrame(container, w.floorHtml, FRAME_URL, "Launch floor");
  await new Promise<void>((resolve) => {
    port.onmessage = () => resolve();
    port.postMessage({ hello: true });
  });
  const ms = performance.now() - start;
  port.close();
  container.remove();
  return ms;
}

async function tearDown(): Promise<void> {
  const w = world;
  world = undefined;
  if (w === undefined) return;
  await w.runtime.stop();
  await w.store.close();
  await deleteDatabase(DB);
}

const bench: LaunchBench = { setUp, ours, floor, tearDown };
(window as unknown as { __launchBench: LaunchBench }).__launchBench = bench;
