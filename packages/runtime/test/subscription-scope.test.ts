/**
 * The manifest's subscription `scope` (docs/manifest.md §4, spec 5.4): `instance` delivers only what names
 * one of the app's instances, `conversation` only where the app has an instance — and there also the
 * conversation's own projections, such as the agent's status — and `app` everything for the app, with or
 * without an instance. The Runtime policy's `blocked_apps` keeps an app from agent messages, and a subscription
 * tied to a capability delivers only while the person has granted the app that capability. Whatever is
 * refused is refused with a stable code in the audit, never silently dropped, and nothing reaches the app.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AppManifest, JsonObject } from "@lineup/protocol";
import type { AgentAppMessage } from "../src/index.js";
import { whiteboardManifest } from "./apps-fixtures.js";
import { onlineDevice } from "./helpers/apps-harness.js";
import { auditOf, createMemoryStoreData, until, type Device } from "./helpers/runtime-harness.js";

let devices: Device[] = [];
afterEach(async () => {
  for (const d of devices) await d.stop();
  devices = [];
});

type Subscriptions = NonNullable<AppManifest["agent_subscriptions"]>;

async function boardWith(subscriptions: Subscriptions, extra: Parameters<typeof onlineDevice>[0] = {}, manifest: Partial<AppManifest> = {}) {
  const data = createMemoryStoreData();
  const { server, d } = await onlineDevice({ data, install: whiteboardManifest("1.0.0", { agent_subscriptions: subscriptions, ...manifest } as Partial<AppManifest>), ...extra });
  devices.push(d);
  const seen: AgentAppMessage[] = [];
  d.runtime.appPort("whiteboard").subscribeMessages({ include_pending: true }, (m) => void seen.push(m));
  let n = 0;
  const patch = (instanceId?: string) =>
    server.agentEnvelope("s-1", {
      v: 1,
      id: `patch-${++n}`,
      type: "lineup.app.state.patch",
      timestamp: "2026-11-30T06:00:00.000Z",
      sender: { kind: "agent", id: "agent-1" },
      target: { kind: "app", app_scope: "whiteboard" },
      scope: instanceId === undefined ? { app_scope: "whiteboard", conversation_id: "s-1" } : { app_scope: "whiteboard", conversation_id: "s-1", instance_id: instanceId },
      payload: { patch: { n } } as JsonObject,
    }).seq;
  const status = (state: string) =>
    server.agentEnvelope("s-1", {
      v: 1,
      id: `status-${++n}`,
      type: "lineup.status",
      timestamp: "2026-11-30T06:00:00.000Z",
      sender: { kind: "agent", id: "agent-1" },
      target: { kind: "app", app_scope: "chat" },
      scope: { app_scope: "chat", conversation_id: "s-1" },
      payload: { state },
    }).seq;
  const launch = async () => (await d.runtime.appManager.launch({ app_scope: "whiteboard", conversation_id: "s-1", foreground: false })).instance_id;
  /** The codes the Runtime refused agent envelopes with, in order. */
  const refusals = async () => (await auditOf(data)).filter((a) => a.type === "ingress.agent.refused").map((a) => a.code);
  /** Chat's statuses in s-1: once chat has one, every envelope before it was decided. */
  const chatStatuses = async () => (await d.runtime.appPort("chat").listMessages({ conversation_id: "s-1" })).messages.filter((m) => m.type === "lineup.status").map((m) => (m.payload as { state: string }).state);
  const untilChatHas = async (count: number) => {
    const deadline = Date.now() + 5_000;
    while ((await chatStatuses()).length < count) {
      if (Date.now() > deadline) throw new Error(`chat never had ${count} statuses`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  return { server, d, data, seen, patch, status, launch, refusals, chatStatuses, untilChatHas };
}

const patches = (seen: readonly AgentAppMessage[]) => seen.filter((m) => m.type === "lineup.app.state.patch").map((m) => (m.payload as { patch: { n: number } }).patch.n);

describe("subscription scope", () => {
  it("instance: a patch naming no instance is refused not_subscribed; one naming the app's instance is delivered", async () => {
    const board = await boardWith([{ type: "lineup.app.state.patch", scope: "instance" }]);
    const instanceId = await board.launch();
    board.patch();
    board.patch(instanceId);
    await until(() => patches(board.seen).length === 1, 5_000, "the instance's patch");
    expect(patches(board.seen)).toEqual([2]);
    expect(await board.refusals()).toEqual(["not_subscribed"]);
    expect((await board.d.runtime.appPort("whiteboard").listMessages({ conversation_id: "s-1" })).messages.map((m) => (m.payload as { patch: { n: number } }).patch.n)).toEqual([2]);
  });

  it("conversation: refused while the app has no instance in the conversation, delivered once it has one, with the agent's status too", async () => {
    const board = await boardWith([
      { type: "lineup.app.state.patch", scope: "conversation" },
      { type: "lineup.status", scope: "conversation" },
    ]);
    board.patch();
    board.status("thinking");
    await board.untilChatHas(1);
    expect(board.seen).toEqual([]);
    expect(await board.refusals()).toEqual(["not_subscribed"]);

    await board.launch();
    board.patch();
    board.status("working");
    await until(() => board.seen.length === 2, 5_000, "the patch and the status");
    expect(board.seen.map((m) => m.type)).toEqual(["lineup.app.state.patch", "lineup.status"]);
    expect(patches(board.seen)).toEqual([3]);
    expect(board.seen[1]!.payload).toEqual({ state: "working" });
    // Chat, the conversation's app, got both statuses as before.
    await board.untilChatHas(2);
    expect(await board.chatStatuses()).toEqual(["thinking", "working"]);
  });

  it("app: delivered and kept in the inbox with no instance running; the agent's status is not, without an instance in the conversation", async () => {
    const board = await boardWith([
      { type: "lineup.app.state.patch", scope: "app" },
      { type: "lineup.status", scope: "app" },
    ]);
    board.patch();
    board.status("thinking");
    await board.untilChatHas(1);
    await until(() => patches(board.seen).length === 1, 5_000, "the patch");
    expect(board.seen.map((m) => m.type)).toEqual(["lineup.app.state.patch"]);
    expect(await board.refusals()).toEqual([]);
    expect((await board.d.runtime.appPort("whiteboard").listMessages({ conversation_id: "s-1" })).messages).toHaveLength(1);
  });

  it("the Runtime policy keeps a blocked app from agent messages: refused policy_denied, nothing in its inbox", async () => {
    const board = await boardWith([{ type: "lineup.app.state.patch", scope: "app" }], { extra: { inventoryPolicy: { blocked_apps: ["whiteboard"] } } });
    board.patch();
    board.status("thinking");
    await board.untilChatHas(1);
    expect(board.seen).toEqual([]);
    expect(await board.refusals()).toEqual(["policy_denied"]);
    expect((await board.d.runtime.appPort("whiteboard").listMessages({ conversation_id: "s-1" })).messages).toEqual([]);
  });

  it("a subscription tied to a capability: refused permission_denied until the person grants it, delivered while granted, refused again once revoked", async () => {
    const board = await boardWith([{ type: "lineup.app.state.patch", scope: "app", capability: "clipboard.write" }], {}, {
      runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1", "capability.request.v1"] },
      capabilities: [{ name: "clipboard.write", purpose: "Copy what the agent drew." }],
    });
    const settings = board.d.runtime.settings;
    // No decision yet: the app does not hold the permission.
    board.patch();
    board.status("thinking");
    await board.untilChatHas(1);
    expect(patches(board.seen)).toEqual([]);
    expect(await board.refusals()).toEqual(["permission_denied"]);
    const refusal = (await auditOf(board.data)).find((a) => a.type === "ingress.agent.refused");
    expect(refusal?.detail).toContain("clipboard.write");

    await settings.setGrant("whiteboard", "clipboard.write", "granted");
    board.patch();
    await until(() => patches(board.seen).length === 1, 5_000, "the patch once granted");
    expect(patches(board.seen)).toEqual([3]);

    await settings.setGrant("whiteboard", "clipboard.write", "denied");
    board.patch();
    board.status("idle");
    await board.untilChatHas(2);
    expect(patches(board.seen)).toEqual([3]);
    expect(await board.refusals()).toEqual(["permission_denied", "permission_denied"]);
    expect((await board.d.runtime.appPort("whiteboard").listMessages({ conversation_id: "s-1" })).messages.map((m) => (m.payload as { patch: { n: number } }).patch.n)).toEqual([3]);

    // Granted again: delivered again.
    await settings.setGrant("whiteboard", "clipboard.write", "granted");
    board.patch();
    await until(() => patches(board.seen).length === 2, 5_000, "the patch once granted again");
    expect(patches(board.seen)).toEqual([3, 6]);
  });
});
