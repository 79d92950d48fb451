/**
 * The inventory an agent reads (spec 7.2) over real parts: the reference AppServer (WebSocket, SQLite), a Node
 * Runtime on SQLite with signed apps installed from their bundles, and a remote agent through the agent SDK.
 * Besides the tools, the agent sees the standard components, the enabled apps with their entrypoints and
 * localized names, the surfaces and the host's capabilities; an install, a disable and a change of the host's
 * capabilities each give it a new revision — also when no tool changed — and an agent that connects later reads the same.
 * A device upgraded from a Runtime that published the same inventory in another form publishes it again at start, once.
 */
import { join } from "node:path";
import { expect, it } from "vitest";
import { connectAgent, type AgentClient } from "@lineup/agent-sdk";
import { nodeWebSocketTransport } from "@lineup/agent-sdk/node";
import { silentLogger, startAppServer } from "@lineup/app-server";
import type { AppManifest, CapabilityName } from "@lineup/protocol";
import { generatePublisherKey, NO_HOST_CAPABILITIES, packBundle, RUNTIME_COLLECTIONS, RUNTIME_SCHEMA, signBundle, type PublisherKey } from "@lineup/runtime";
import { createNodeRuntime, openSqliteStore, type NodeRuntime } from "@lineup/runtime/node";
import { RawAgent } from "../../runtime/test/helpers/raw-agent.js";
import { tempDirs, until } from "../../../test/support/temp-dirs.js";

const temp = tempDirs();

const manifest = (app_scope: string, extra: Partial<AppManifest>): AppManifest =>
  ({
    format: "lineup.app.v1",
    app_scope,
    version: "1.0.0",
    runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1"] },
    entrypoints: [{ id: "main", kind: "primary" }],
    ...extra,
  }) as AppManifest;

const notes = manifest("notes", {
  name: "Notes",
  description: "Short notes.",
  localized: { "zh-CN": { name: "笔记", description: "简短的笔记。" } },
  entrypoints: [
    { id: "list", kind: "primary", title: "All notes", display_modes: ["foreground", "pip"] },
    { id: "card", kind: "contextual", display_modes: ["inline_card"] },
  ],
  tools: [
    {
      method: "notes.count",
      contract_version: "1",
      title: "Count notes",
      input_schema: { type: "object", additionalProperties: false },
      output_schema: { type: "object", properties: { count: { type: "integer" } }, required: ["count"], additionalProperties: false },
      call_model: "query",
      activation_requirement: "activation_not_required",
    },
  ],
});
// An app with no tools at all: the agent still learns it is there and what it can open.
const gallery = manifest("gallery", { name: "Gallery", localized: { "zh-CN": { name: "相册" } } });

async function signed(m: AppManifest, key: PublisherKey): Promise<Uint8Array> {
  const packed = await packBundle({ manifest: m, files: new Map([["index.html", new TextEncoder().encode("<!doctype html><title>app</title>")]]) });
  if (!packed.ok) throw new Error(packed.error.message);
  const bundle = await signBundle(packed.value, key.privateKey);
  if (!bundle.ok) throw new Error(bundle.error.message);
  return bundle.value;
}

it("an agent sees the apps, entrypoints, components, surfaces and capabilities, and a new revision when any of them change", async () => {
  const server = await startAppServer({ dataDir: temp("lineup-inv-server-"), port: 0, logger: silentLogger });
  const credentials = server.devCredentials!;
  const key = await generatePublisherKey();
  const supported = new Set<CapabilityName>(["notification.show"]);
  const runtime = await createNodeRuntime({
    serverUrl: server.url,
    token: credentials.device_token,
    dataDir: temp("lineup-inv-device-"),
    trustedPublishers: [key.trustedKey],
    // A host that shows apps in front and in a floating window, but has no inline cards.
    host: { ...NO_HOST_CAPABILITIES, supports: (c) => supported.has(c), displayModes: ["foreground", "pip"] },
    backoff: { baseMs: 20, capMs: 200 },
    relistIntervalMs: 100,
  });
  let agent: AgentClient | undefined;
  let late: AgentClient | undefined;
  try {
    await runtime.start();
    agent = await connectAgent({ url: server.url, token: credentials.agent_token, transport: nodeWebSocketTransport(), sessionPollMs: 50 });
    await runtime.whenOnline();
    expect((await runtime.appManager.install(await signed(notes, key), { approved: true })).status).toBe("succeeded");
    const { conversation_id: sessionId } = await runtime.conversations.start({ agent_id: agent.agentId, workspace_id: "ws-1", title: "inventory" });
    const seen = () => agent!.inventory(sessionId);
    const installed = () => (seen()?.apps ?? []).filter((a) => a.kind === "installed").map((a) => a.app_scope);
    await until(() => seen()?.revision === 1, 10_000, "the first inventory");

    const first = seen()!;
    expect(first.tools.map((t) => t.method)).toEqual(["notes.count"]);
    expect(first.components).toEqual(["text", "markdown", "status", "task_progress", "choice", "confirm", "input", "artifact"]);
    expect(first.surfaces).toEqual(["foreground", "pip"]);
    expect(first.capabilities).toEqual(["notification.show"]);
    expect(installed()).toEqual(["notes"]);
    expect(first.apps!.find((a) => a.app_scope === "notes")).toEqual({
      app_scope: "notes",
      version: "1.0.0",
      kind: "installed",
      name: "Notes",
      description: "Short notes.",
      localized: { "zh-CN": { name: "笔记", description: "简短的笔记。" } },
      entrypoints: [
        { id: "list", kind: "primary", title: "All notes", display_modes: ["foreground", "pip"] },
        // Declared for an inline card, which this host does not show.
        { id: "card", kind: "contextual", display_modes: [] },
      ],
    });
    // The core apps are there too (the chat, at least), as the host's own.
    expect(first.apps!.some((a) => a.kind === "core")).toBe(true);

    // An install of an app without tools: a new revision, the same tools.
    expect((await runtime.appManager.install(await signed(gallery, key), { approved: true })).status).toBe("succeeded");
    await until(() => seen()!.revision === 2, 10_000, "the revision after the install");
    expect(installed()).toEqual(["gallery", "notes"]);
    expect(seen()!.apps!.find((a) => a.app_scope === "gallery")).toMatchObject({ name: "Gallery", localized: { "zh-CN": { name: "相册" } }, entrypoints: [{ id: "main", kind: "primary", display_modes: ["foreground"] }] });
    expect(seen()!.tools.map((t) => t.method)).toEqual(["notes.count"]);

    // The host gains the microphone: a new revision that says so, though no tool needs it.
    supported.add("microphone.record");
    await runtime.hostCapabilitiesChanged();
    await until(() => seen()!.revision === 3, 10_000, "the revision after the capability change");
    expect(seen()!.capabilities).toEqual(["microphone.record", "notification.show"]);

    // Disabling the gallery: it leaves the apps.
    expect((await runtime.appManager.disable("gallery")).status).toBe("succeeded");
    await until(() => seen()!.revision === 4, 10_000, "the revision after the disable");
    expect(installed()).toEqual(["notes"]);

    // An agent that connects later reads the same from the session's log.
    late = await connectAgent({ url: server.url, token: credentials.agent_token, transport: nodeWebSocketTransport(), sessionPollMs: 50 });
    await until(() => late!.inventory(sessionId)?.revision === 4, 10_000, "the late agent's inventory");
    expect(late.inventory(sessionId)).toEqual(seen());
  } finally {
    await late?.close();
    await agent?.close();
    await runtime.stop();
    await server.close();
  }
}, 40_000);

it("a device upgraded from a Runtime that published the inventory in another form publishes it again at start, once", async () => {
  const server = await startAppServer({ dataDir: temp("lineup-inv-server-"), port: 0, logger: silentLogger });
  const credentials = server.devCredentials!;
  const key = await generatePublisherKey();
  const dataDir = temp("lineup-inv-device-");
  const options = { serverUrl: server.url, token: credentials.device_token, dataDir, trustedPublishers: [key.trustedKey], backoff: { baseMs: 20, capMs: 200 }, relistIntervalMs: 100 };
  let runtime: NodeRuntime = await createNodeRuntime(options);
  const restart = async (): Promise<void> => {
    await runtime.stop();
    runtime = await createNodeRuntime(options);
    await runtime.start();
    await runtime.whenOnline();
  };
  let agent: AgentClient | undefined;
  try {
    await runtime.start();
    agent = await connectAgent({ url: server.url, token: credentials.agent_token, transport: nodeWebSocketTransport(), sessionPollMs: 50 });
    await runtime.whenOnline();
    expect((await runtime.appManager.install(await signed(notes, key), { approved: true })).status).toBe("succeeded");
    const { conversation_id: sessionId } = await runtime.conversations.start({ agent_id: agent.agentId, workspace_id: "ws-1", title: "upgrade" });
    const seen = () => agent!.inventory(sessionId);
    await until(() => seen()?.revision === 1, 10_000, "the first inventory");
    const full = seen()!;
    await runtime.stop();

    // The device as a Runtime from before spec 7.2's inventory left it: the server holds the tools alone under the
    // latest revision, and the device's record of that revision has the same content but says nothing of what was sent.
    const device = await RawAgent.connect(server.url, credentials.device_token);
    await device.call("inventory/publish", { session_id: sessionId, idempotency_key: "an-earlier-runtime", revision: 2, tools: full.tools });
    device.close();
    await until(() => seen()?.revision === 2, 10_000, "the earlier form");
    expect(seen()!.apps).toBeUndefined();
    const store = await openSqliteStore({ path: join(dataDir, "runtime.db"), schema: RUNTIME_SCHEMA });
    const { publication: _sent, ...earlier } = (await store.get(RUNTIME_COLLECTIONS.inventory, sessionId)) as Record<string, unknown>;
    await store.commit([{ op: "put", collection: RUNTIME_COLLECTIONS.inventory, key: sessionId, value: { ...earlier, revision: 2 } as never }]);
    await store.close();

    // Nothing changed on the device, and yet the agent gets the inventory in its whole form.
    runtime = await createNodeRuntime(options);
    await runtime.start();
    await runtime.whenOnline();
    await until(() => seen()?.revision === 3, 10_000, "the inventory published again at start");
    const { revision: _r3, ...republished } = seen()!;
    const { revision: _r1, ...first } = full;
    expect(republished).toEqual(first);

    // Once: the next start has nothing to publish. A message sent after it reaches the log after anything the start queued.
    await restart();
    await runtime.appPort("chat").dispatch({ type: "conversation.send_text", conversation_id: sessionId, text: "after the restart" });
    const reader = await RawAgent.connect(server.url, credentials.device_token);
    const kinds = async () => ((await reader.call<{ events: Array<{ kind: string }> }>("agentSession/events/read", { session_id: sessionId, after_seq: 0 })).events).map((e) => e.kind);
    await expect.poll(kinds, { timeout: 10_000, interval: 50 }).toContain("turn.started");
    expect((await kinds()).filter((k) => k === "inventory.published")).toHaveLength(3);
    reader.close();
  } finally {
    await agent?.close();
    await runtime.stop();
    await server.close();
  }
}, 60_000);
