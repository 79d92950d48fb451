/**
 * An installed app's own Stop (`AppPort.cancelTurn(conversation, instance)`, the Surface Bridge's
 * `agent.cancel_turn`): one of its instances stops the agent's turn in the conversation it is bound to, only
 * while it is in front; the audit record of the Stop names the app and the instance. What it may not do is
 * refused with a code and audited (`turn.cancel.refused`), and nothing is queued: an instance in the
 * background, another conversation's, another app's or a closed instance, and one without a conversation.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { MemoryStoreData } from "../src/index.js";
import { onlineDevice } from "./helpers/apps-harness.js";
import { whiteboardManifest } from "./apps-fixtures.js";
import { auditOf, createMemoryStoreData, type Device, type FakeAppServer, until } from "./helpers/runtime-harness.js";

const devices: Device[] = [];
afterEach(async () => {
  for (const d of devices.splice(0)) await d.stop();
});

const cancels = (server: FakeAppServer) => server.applied.filter((w) => w.method === "agentSession/turn/cancel");

/** The person says `text` in `s-1`; resolves with the turn's id once the device knows it runs. */
async function say(d: Device, server: FakeAppServer, text: string): Promise<string> {
  await d.chat.dispatch({ type: "conversation.send_text", conversation_id: "s-1", text });
  const turnId = (): string | undefined => {
    const started = server.sessions.get("s-1")?.events.find((e) => e.kind === "turn.started" && (e.data as { turn: { input: { text?: string } } }).turn.input.text === text);
    return (started?.data as { turn: { turn_id: string } } | undefined)?.turn.turn_id;
  };
  await until(() => turnId() !== undefined, 3_000, `the turn of "${text}"`);
  await until(() => d.received.some((m) => m.turn_id === turnId()), 3_000, "the device applied the turn's start");
  return turnId()!;
}

/** A whiteboard instance, ready and in front (in `s-1` unless `conversation_id` is null). */
async function boardInFront(d: Device, conversation_id: string | null = "s-1"): Promise<string> {
  const instance = await d.runtime.appManager.launch({ app_scope: "whiteboard", ...(conversation_id === null ? {} : { conversation_id }), foreground: true, new_instance: true });
  await d.runtime.instances.ready(instance.instance_id);
  expect(d.runtime.instances.snapshot().foreground).toBe(instance.instance_id);
  return instance.instance_id;
}

async function world(): Promise<{ server: FakeAppServer; d: Device; data: MemoryStoreData }> {
  const data = createMemoryStoreData();
  const { server, d } = await onlineDevice({ data, install: whiteboardManifest() });
  devices.push(d);
  return { server, d, data };
}

describe("an installed app stops the agent's turn in its conversation", () => {
  it("an instance in front stops the running turn of its conversation; the audit says which app and instance did; with nothing running it is invalid_state", async () => {
    const { server, d, data } = await world();
    const board = await boardInFront(d);
    const turnId = await say(d, server, "draw me something");

    const receipt = await d.runtime.appPort("whiteboard").cancelTurn("s-1", board);
    expect(receipt).toMatchObject({ action_type: "turn.cancel", conversation_id: "s-1", status: "queued" });
    await until(() => server.turnState("s-1", turnId) === "cancelled", 3_000, "the server cancels the turn");
    expect(cancels(server).map((w) => w.params)).toMatchObject([{ session_id: "s-1", turn_id: turnId }]);
    await until(() => d.received.some((m) => m.type === "lineup.turn.cancelled" && m.turn_id === turnId), 3_000, "the chat hears the cancel");

    const accepted = (await auditOf(data)).filter((r) => r.type === "ingress.user.action" && r.subject === receipt.receipt_id);
    expect(accepted).toEqual([expect.objectContaining({ conversation_id: "s-1", detail: `whiteboard instance ${board}: turn.cancel ${turnId} → agentSession/turn/cancel` })]);

    await expect(d.runtime.appPort("whiteboard").cancelTurn("s-1", board)).rejects.toMatchObject({ code: "invalid_state" });
    expect(cancels(server)).toHaveLength(1);
    expect(await d.runtime.verifyAudit()).toMatchObject({ ok: true });
  });

  it("refuses, audits, and queues nothing for an instance in the background, of another conversation, of another app, closed, or without a conversation", async () => {
    const { server, d, data } = await world();
    const port = d.runtime.appPort("whiteboard");
    const board = await boardInFront(d);
    const turnId = await say(d, server, "keep working");

    // The person went back to the chat: the app's Stop is nobody's press now.
    await d.runtime.instances.background(board);
    await expect(port.cancelTurn("s-1", board)).rejects.toMatchObject({ code: "foreground_required" });
    // In front again, it may stop only its own conversation's turn.
    await d.runtime.instances.focus(board);
    await expect(port.cancelTurn("s-other", board)).rejects.toMatchObject({ code: "not_owner", path: "/conversation_id" });
    // Another app cannot speak for the whiteboard's instance, and a made-up one is nobody's.
    await expect(d.chat.cancelTurn("s-1", board)).rejects.toMatchObject({ code: "not_found", path: "/instance_id" });
    await expect(port.cancelTurn("s-1", "inst-made-up")).rejects.toMatchObject({ code: "not_found" });
    // An instance that serves no conversation has no agent turn to stop.
    const loose = await boardInFront(d, null);
    await expect(port.cancelTurn("s-1", loose)).rejects.toMatchObject({ code: "invalid_state" });
    // A closed instance is gone.
    await d.runtime.appManager.closeInstance(loose, { by: "user" });
    await d.runtime.instances.closed(loose);
    await expect(port.cancelTurn("s-1", loose)).rejects.toMatchObject({ code: "not_found" });

    expect(d.chat.view().queued_actions).toBe(0);
    expect(cancels(server)).toEqual([]);
    expect(server.turnState("s-1", turnId)).toBe("running");
    const refused = (await auditOf(data)).filter((r) => r.type === "turn.cancel.refused");
    expect(refused.map((r) => [r.code, r.subject])).toEqual([
      ["foreground_required", `whiteboard/${board}`],
      ["not_owner", `whiteboard/${board}`],
      ["not_found", `chat/${board}`],
      ["not_found", "whiteboard/inst-made-up"],
      ["invalid_state", `whiteboard/${loose}`],
      ["not_found", `whiteboard/${loose}`],
    ]);

    // Back in front, in its own conversation: the Stop goes.
    await d.runtime.instances.focus(board);
    await port.cancelTurn("s-1", board);
    await until(() => server.turnState("s-1", turnId) === "cancelled", 3_000, "the server cancels the turn");
    expect(await d.runtime.verifyAudit()).toMatchObject({ ok: true });
  });
});
