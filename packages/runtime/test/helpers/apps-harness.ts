/**
 * Signed bundles, devices that trust them, app-side tool handlers and an agent's tool calls for the
 * tests of the Runtime's apps layer.
 */
import type { AppManifest, JsonObject } from "@lineup/protocol";
import { generatePublisherKey, packBundle, signBundle, type DeliveredToolCall, type LineUpRuntime, type MemoryStoreData, type PublisherKey, type RuntimeOptions } from "../../src/index.js";
import type { FakeServerOptions } from "../../src/testing/index.js";
import { createMemoryStoreData, FakeAppServer, startDevice, type Device } from "./runtime-harness.js";

let sharedKey: Promise<PublisherKey> | undefined;

/** One publisher key per test file run (key generation is the slow part). */
export function publisherKey(): Promise<PublisherKey> {
  sharedKey ??= generatePublisherKey();
  return sharedKey;
}

/** A signed bundle of `manifest` with a one-file entry page, and `extra` files (a back-end's entry) by path. */
export async function signedBundle(manifest: AppManifest, key?: PublisherKey, html = "<!doctype html><title>app</title><p>hello</p>", extra: Readonly<Record<string, string>> = {}): Promise<Uint8Array> {
  const signer = key ?? (await publisherKey());
  const files = new Map<string, Uint8Array>([["index.html", new TextEncoder().encode(html)], ...Object.entries(extra).map(([path, text]) => [path, new TextEncoder().encode(text)] as [string, Uint8Array])]);
  const packed = await packBundle({ manifest, files });
  if (!packed.ok) throw new Error(`pack failed: ${packed.error.code} ${packed.error.message}`);
  const signed = await signBundle(packed.value, signer.privateKey);
  if (!signed.ok) throw new Error(`sign failed: ${signed.error.code} ${signed.error.message}`);
  return signed.value;
}

let envelopeCounter = 0;

/** The agent calls `app_scope/method` in session `s-1` at `revision`. */
export function agentInvokes(server: FakeAppServer, callId: string, appScope: string, method: string, args: JsonObject, revision: number | string, sessionId = "s-1"): void {
  server.agentEnvelope(sessionId, {
    v: 1,
    id: `inv-${++envelopeCounter}`,
    type: "lineup.tool.invoke",
    timestamp: "2026-11-30T06:00:00.000Z",
    sender: { kind: "agent", id: "agent-1" },
    target: { kind: "app", app_scope: appScope },
    scope: { app_scope: appScope, conversation_id: sessionId },
    correlation: { call_id: callId, inventory_revision: String(revision) },
    payload: { method, arguments: args },
  });
}

/** Every `lineup.tool.*` envelope the device sent for `callId`, in order: `[type, payload]`. */
export function toolOutputs(server: FakeAppServer, callId: string): [string, Record<string, unknown>][] {
  return server.applied
    .filter((w) => w.method === "agentSession/envelope/send")
    .map((w) => w.params["envelope"] as { type: string; correlation?: { call_id?: string }; payload: Record<string, unknown> })
    .filter((e) => e.correlation?.call_id === callId)
    .map((e) => [e.type, e.payload]);
}

/** The inventories the device published for a session, in order. */
export function publishedInventories(server: FakeAppServer, sessionId = "s-1"): { revision: number; methods: string[] }[] {
  return server.applied
    .filter((w) => w.method === "inventory/publish" && w.session_id === sessionId)
    .map((w) => ({ revision: Number(w.params["revision"]), methods: (w.params["tools"] as { app_scope: string; method: string }[]).map((t) => `${t.app_scope}/${t.method}`) }));
}

/** A device on `server` (run id `run`) that trusts the shared publisher key. */
export async function device(server: FakeAppServer, data: MemoryStoreData = createMemoryStoreData(), run = "r0", extra: Partial<RuntimeOptions> = {}): Promise<Device> {
  const key = await publisherKey();
  return startDevice(server, data, { run, extra: { trustedPublishers: [key.trustedKey], ...extra } });
}

/**
 * A FakeAppServer with session `s-1` of `agent-1` and a trusting device online to it; with `install`,
 * that app is installed (approved) before this returns.
 */
export async function onlineDevice(options: { data?: MemoryStoreData; install?: AppManifest; extra?: Partial<RuntimeOptions>; server?: FakeServerOptions } = {}): Promise<{ server: FakeAppServer; d: Device }> {
  const server = new FakeAppServer(options.server);
  server.createSession({ session_id: "s-1", agent_id: "agent-1" });
  const d = await device(server, options.data, "r0", options.extra);
  await d.runtime.whenOnline();
  if (options.install !== undefined) await d.runtime.appManager.install(await signedBundle(options.install), { approved: true });
  return { server, d };
}

/** An app-side handler that answers every call with `answer(call)` (through the app's port); returns the calls it saw. */
export function serve(runtime: LineUpRuntime, appScope: string, answer: (call: DeliveredToolCall) => unknown, instanceId?: string): DeliveredToolCall[] {
  const seen: DeliveredToolCall[] = [];
  const port = runtime.appPort(appScope);
  port.registerToolHandler(
    {
      call(call) {
        seen.push(call);
        void port.reportTool(call.call_id, { kind: "result", result: answer(call) }, call.instance_id).catch(() => undefined);
      },
      cancel() {},
    },
    instanceId,
  );
  return seen;
}
