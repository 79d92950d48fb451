/**
 * The inventory an agent reads (spec 7.2) over real parts: the reference AppServer (WebSocket, SQLite), a Node
 * Runtime on SQLite with signed apps installed from their bundles, and a remote agent through the agent SDK.
 * Besides the tools, the agent sees the standard components, the enabled apps with their entrypoints and
 * localized names, the surfaces and the host's capabilities; an install, a disable and a change of the host's
 * capabilities each give it a new revision — also when no tool changed — and an agent that connects later reads the same.
 */
import { expect, it } from "vitest";
import { connectAgent, type AgentClient } from "@lineup/agent-sdk";
import { nodeWebSocketTransport } from "@lineup/agent-sdk/node";
import { silentLogger, startAppServer } from "@lineup/app-server";
import { generatePublisherKey, NO_HOST_CAPABILITIES, packBundle, signBundle, type AppManifest, type CapabilityName, type PublisherKey } from "@lineup/runtime";
import { createNodeRuntime } from "@lineup/runtime/node";
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
