/**
 * App events (spec 8.2, `AppPort.emitEvent`): an event the manifest declares, raised by a live instance,
 * reaches the agent of that instance's conversation as one `lineup.app.event` envelope (sender: the app;
 * scope: its conversation and instance), in order with everything else the device sends, also when it
 * was raised offline and the device restarted before reconnecting. Anything else is refused with a
 * stable code and an audit record, and nothing is sent.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AppManifest, JsonObject } from "@lineup/protocol";
import { createMemoryStore, RUNTIME_COLLECTIONS, RUNTIME_SCHEMA, type MemoryStoreData } from "../src/index.js";
import { whiteboardManifest } from "./apps-fixtures.js";
import { device, onlineDevice, signedBundle } from "./helpers/apps-harness.js";
import { auditOf, createMemoryStoreData, until, type Device } from "./helpers/runtime-harness.js";

let devices: Device[] = [];
afterEach(async () => {
  for (const d of devices) await d.stop();
  devices = [];
});

/** The whiteboard, declaring one event with a schema and one without. */
const boardWithEvents = (): AppManifest =>
  whiteboardManifest("1.0.0", {
    events: [
      {
        name: "stroke.added",
        data_schema: { type: "object", properties: { points: { type: "integer", minimum: 1 } }, required: ["points"], additionalProperties: false },
      },
      { name: "board.cleared" },
    ],
  } as Partial<AppManifest>);

/** The `lineup.app.event` envelopes the device sent, in the order the server stored them. */
function appEvents(server: { applied: readonly { method: string; params: JsonObject }[] }): { sender: unknown; scope: unknown; target: unknown; payload: unknown }[] {
  return server.applied
    .filter((w) => w.method === "agentSession/envelope/send")
    .map((w) => w.params["envelope"] as { type: string; sender: unknown; scope: unknown; target: unknown; payload: unknown })
    .filter((e) => e.type === "lineup.app.event")
    .map(({ sender, scope, target, payload }) => ({ sender, scope, target, payload }));
}

/** How far the device has read session s-1, as stored. */
async function storedCursor(data: MemoryStoreData): Promise<number> {
  const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
  const cursor = (await store.get(RUNTIME_COLLECTIONS.cursors, "s-1")) as { seq?: number } | undefined;
  await store.close();
  return cursor?.seq ?? 0;
}

/** A device online with the event-declaring whiteboard, its instance ready in conversation `conversationId`. */
async function boardOpenIn(conversationId: string) {
  const data = createMemoryStoreData();
  const { server, d } = await onlineDevice({ data, install: boardWithEvents() });
  devices.push(d);
  const board = d.runtime.appPort("whiteboard");
  const { instance_id } = await board.launchApp({ app_scope: "whiteboard", conversation_id: conversationId });
  await d.runtime.instances.ready(instance_id);
  return { data, server, d, board, instance_id };
}

describe("app events (spec 8.2)", () => {
  it("a declared event from a live instance reaches the conversation's agent once, as the app's lineup.app.event", async () => {
    const { data, server, board, instance_id } = await boardOpenIn("s-1");

    await board.emitEvent({ instance_id, name: "stroke.added", data: { points: 12 } });
    await board.emitEvent({ instance_id, name: "board.cleared", data: null });
    await until(() => appEvents(server).length === 2, 3_000, "both events on the server");
    expect(appEvents(server)).toEqual([
      { sender: { kind: "app", id: "whiteboard" }, target: { kind: "runtime", app_scope: "runtime" }, scope: { app_scope: "whiteboard", conversation_id: "s-1", instance_id }, payload: { name: "stroke.added", data: { points: 12 } } },
      { sender: { kind: "app", id: "whiteboard" }, target: { kind: "runtime", app_scope: "runtime" }, scope: { app_scope: "whiteboard", conversation_id: "s-1", instance_id }, payload: { name: "board.cleared", data: null } },
    ]);

    // The device reads its own events back from the session log: consumed quietly, not refused as
    // a message nobody subscribes to.
    const last = server.sessions.get("s-1")!.events.length;
    for (let i = 0; i < 100 && (await storedCursor(data)) < last; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await storedCursor(data)).toBe(last);
    const refused = (await auditOf(data)).filter((r) => r.type.startsWith("ingress.") && r.code !== undefined);
    expect(refused).toEqual([]);
  });

  it("refuses what the manifest does not declare, data its schema refuses, and instances that cannot speak: a typed error, an audit record, nothing sent", async () => {
    const { data, server, d, board, instance_id } = await boardOpenIn("s-1");
    const refusal = (promise: Promise<void>) => promise.then(() => "sent", (error: { code?: string; path?: string }) => `${error.code} ${error.path ?? ""}`.trim());

    expect(await refusal(board.emitEvent({ instance_id, name: "stroke.removed", data: {} }))).toBe("invalid_params /name");
    expect(await refusal(board.emitEvent({ instance_id, name: "stroke.added", data: { points: 0 } }))).toBe("invalid_params /data/points");
    expect(await refusal(board.emitEvent({ instance_id, name: "stroke.added", data: { points: 3, colour: "red" } }))).toMatch(/^invalid_params \/data/);
    expect(await refusal(board.emitEvent({ instance_id: "inst-nope", name: "board.cleared", data: null }))).toBe("not_found /instance_id");

    // Another app may not speak for the whiteboard's instance.
    expect((await d.runtime.appManager.install(await signedBundle({ ...boardWithEvents(), app_scope: "board-two" } as AppManifest), { approved: true })).status).toBe("succeeded");
    expect(await refusal(d.runtime.appPort("board-two").emitEvent({ instance_id, name: "board.cleared", data: null }))).toBe("not_found /instance_id");

    // An instance opened outside any conversation has no agent to tell.
    const loose = await board.launchApp({ app_scope: "whiteboard" });
    await d.runtime.instances.ready(loose.instance_id);
    expect(await refusal(board.emitEvent({ instance_id: loose.instance_id, name: "board.cleared", data: null }))).toBe("invalid_state");

    // A closed instance is gone.
    await board.closeInstance(instance_id);
    await d.runtime.instances.closed(instance_id);
    expect(await refusal(board.emitEvent({ instance_id, name: "board.cleared", data: null }))).toBe("not_found /instance_id");

    // A disabled app is refused before anything else.
    await d.runtime.appManager.disable("whiteboard");
    expect(await refusal(board.emitEvent({ instance_id: loose.instance_id, name: "board.cleared", data: null }))).toBe("app_disabled");

    expect(appEvents(server)).toEqual([]);
    const audited = (await auditOf(data)).filter((r) => r.type === "app.event.refused").map((r) => r.code);
    expect(audited).toEqual(["invalid_params", "invalid_params", "invalid_params", "not_found", "not_found", "invalid_state", "not_found"]);
  });

  it("events raised offline are kept through a restart and reach the agent after reconnect, once each and in order", async () => {
    const data = createMemoryStoreData();
    const { server, d } = await onlineDevice({ data, install: boardWithEvents() });
    const board = d.runtime.appPort("whiteboard");
    const { instance_id } = await board.launchApp({ app_scope: "whiteboard", conversation_id: "s-1" });
    await d.runtime.instances.ready(instance_id);

    server.transport.setReachable(false);
    server.disconnectAll();
    for (let points = 1; points <= 5; points++) await board.emitEvent({ instance_id, name: "stroke.added", data: { points } });
    expect(appEvents(server)).toEqual([]);
    await d.stop();

    server.transport.setReachable(true);
    const again = await device(server, data, "r1");
    devices.push(again);
    await until(() => appEvents(server).length === 5, 5_000, "the five events after reconnect");
    expect(appEvents(server).map((e) => (e.payload as { data: { points: number } }).data.points)).toEqual([1, 2, 3, 4, 5]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(appEvents(server)).toHaveLength(5);
  });

  it("an instance's view of the inbox: a state patch for one instance reaches only it, one for the app reaches both; acknowledged, it is not delivered again", async () => {
    const data = createMemoryStoreData();
    const subscriptions = [
      { type: "lineup.app.state.patch", scope: "instance" },
      { type: "lineup.app.state.patch", scope: "app" },
    ];
    const { server, d } = await onlineDevice({ data, install: whiteboardManifest("1.0.0", { agent_subscriptions: subscriptions } as Partial<AppManifest>) });
    devices.push(d);
    const board = d.runtime.appPort("whiteboard");
    const a = await d.runtime.appManager.launch({ app_scope: "whiteboard", conversation_id: "s-1" });
    const b = await d.runtime.appManager.launch({ app_scope: "whiteboard", conversation_id: "s-1", new_instance: true });
    const seen: Record<string, string[]> = { [a.instance_id]: [], [b.instance_id]: [] };
    for (const id of [a.instance_id, b.instance_id]) {
      board.subscribeMessages({ conversation_id: "s-1", instance_id: id, include_pending: true }, (m) => void seen[id]!.push(`${m.message_id} ${JSON.stringify((m.payload as { patch: unknown }).patch)}`));
    }
    const patch = (id: string, body: JsonObject, instanceId?: string) =>
      server.agentEnvelope("s-1", {
        v: 1,
        id,
        type: "lineup.app.state.patch",
        timestamp: "2026-11-30T06:00:00.000Z",
        sender: { kind: "agent", id: "agent-1" },
        target: instanceId === undefined ? { kind: "app", app_scope: "whiteboard" } : { kind: "app", app_scope: "whiteboard", instance_id: instanceId },
        scope: { app_scope: "whiteboard", conversation_id: "s-1" },
        payload: { patch: body },
      });
    const forA = patch("p-a", { zoom: 2 }, a.instance_id).seq;
    const forBoth = patch("p-all", { title: "Plan" }).seq;
    await until(() => seen[a.instance_id]!.length === 2 && seen[b.instance_id]!.length === 1, 3_000, "the patches delivered");
    expect(seen[a.instance_id]).toEqual([`s-1:${forA} {"zoom":2}`, `s-1:${forBoth} {"title":"Plan"}`]);
    expect(seen[b.instance_id]).toEqual([`s-1:${forBoth} {"title":"Plan"}`]);

    // A acknowledges its patch; a fresh view of A's inbox (the surface reloaded) gets only what is still waiting.
    await board.acknowledge(`s-1:${forA}`);
    await board.acknowledge(`s-1:${forBoth}`);
    const again: string[] = [];
    board.subscribeMessages({ conversation_id: "s-1", instance_id: a.instance_id, include_pending: true }, (m) => void again.push(m.message_id));
    const later = patch("p-later", { zoom: 1 }, a.instance_id).seq;
    await until(() => again.length === 1, 3_000, "the new patch");
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(again).toEqual([`s-1:${later}`]);
  });
});
