import { describe, expect, it } from "vitest";
import { createMemoryStore, RUNTIME_COLLECTIONS, RUNTIME_SCHEMA, type Lifecycle } from "../src/index.js";
import { createFakeClock, createMemoryStoreData, FakeAppServer, settle, startDevice, until } from "./helpers/runtime-harness.js";

const texts = (messages: readonly { type: string; payload: unknown }[]): string[] =>
  messages.filter((m) => m.type === "lineup.message").map((m) => (m.payload as { text: string }).text);

describe("LineUpRuntime against an in-memory App Server", () => {
  it("restores, authenticates, synchronizes and goes online; delivers agent messages after the seam", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    server.agentSays("s-1", "stored before start");
    const data = createMemoryStoreData();
    const statuses: Lifecycle["status"][] = [];
    const device = await startDevice(server, data, { subscribe: false, beforeStart: (runtime) => runtime.lifecycle.subscribe((l) => void statuses.push(l.status)) });
    const seen: string[] = [];
    device.chat.subscribeMessages({ include_pending: true }, (m) => void seen.push(`${m.type}:${device.runtime.lifecycle.snapshot().status}`));
    await device.runtime.whenOnline();
    await until(() => seen.length === 1);
    // The stored message arrived during catch-up but was delivered only once online.
    expect(seen).toEqual(["lineup.message:online"]);
    expect(statuses).toEqual(["restoring", "authenticating", "synchronizing", "online"]);

    server.agentSays("s-1", "live one");
    await until(() => seen.length === 2);
    expect(device.runtime.conversations.list()).toMatchObject([{ conversation_id: "s-1", status: "live", unread: 0 }]);
    expect(await device.runtime.verifyAudit()).toMatchObject({ ok: true });
    await device.stop();
    expect(device.runtime.lifecycle.snapshot().status).toBe("stopped");
  });

  it("sends text both ways: the app's action is stored, acknowledged with a receipt, applied once, and echoed back", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const device = await startDevice(server, createMemoryStoreData());
    await device.runtime.whenOnline();
    const receipt = await device.chat.dispatch({ type: "conversation.send_text", conversation_id: "s-1", text: "hello agent" });
    expect(receipt).toMatchObject({ action_type: "conversation.send_text", conversation_id: "s-1", status: "queued" });
    await until(() => server.turnTexts("s-1").length === 1);
    server.agentSays("s-1", "hello human");
    await until(() => texts(device.received).length === 2);
    expect(texts(device.received)).toEqual(["hello agent", "hello human"]);
    expect(device.received.find((m) => m.payload && (m.payload as { text?: string }).text === "hello agent")?.sender.kind).toBe("user");
    await until(() => device.runtime.appPort("chat").view().queued_actions === 0);
    await device.stop();
  });

  it("keeps explicit-ack cards until acknowledged and redelivers them after a restart; display messages are auto-acknowledged", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const data = createMemoryStoreData();
    const first = await startDevice(server, data);
    await first.runtime.whenOnline();
    server.agentSays("s-1", "just text");
    server.agentRequestsAction("s-1", { action_id: "a-1", kind: "approval", prompt: "Delete the file?" });
    await until(() => first.received.length === 2);
    expect(first.received.map((m) => [m.type, m.delivery])).toEqual([
      ["lineup.message", "display"],
      ["lineup.action.required", "explicit_ack"],
    ]);
    await settle();
    await first.stop();

    // Restart on the same data: only the card comes back.
    const second = await startDevice(server, data, { run: "r1" });
    await second.runtime.whenOnline();
    await until(() => second.received.length === 1);
    expect(second.received[0]).toMatchObject({ type: "lineup.action.required", message_id: "s-1:3" });
    // Acknowledged: not redelivered after the next restart either.
    await second.chat.acknowledge("s-1:3");
    await second.chat.acknowledge("s-1:3"); // idempotent
    await expect(second.chat.acknowledge("s-1:99")).rejects.toMatchObject({ code: "not_found" });
    await second.stop();
    const third = await startDevice(server, data, { run: "r2" });
    await third.runtime.whenOnline();
    await settle();
    expect(third.received).toEqual([]);
    // History is still there, paged.
    const page = await third.chat.listMessages({ conversation_id: "s-1", limit: 1 });
    expect(page.messages.map((m) => m.type)).toEqual(["lineup.message"]);
    const next = await third.chat.listMessages({ conversation_id: "s-1", after: page.next_cursor!, limit: 5 });
    expect(next.messages.map((m) => m.type)).toEqual(["lineup.action.required"]);
    expect(next.next_cursor).toBeUndefined();
    // And backward, through the same port: the latest page, then the one before it.
    const latest = await third.chat.listMessages({ conversation_id: "s-1", latest: true, limit: 1 });
    expect(latest.messages.map((m) => m.type)).toEqual(["lineup.action.required"]);
    const older = await third.chat.listMessages({ conversation_id: "s-1", before: latest.prev_cursor!, limit: 5 });
    expect(older.messages.map((m) => m.type)).toEqual(["lineup.message"]);
    expect(older.prev_cursor).toBeUndefined();
    await expect(third.chat.listMessages({ conversation_id: "s-1", before: latest.prev_cursor!, after: page.next_cursor! })).rejects.toMatchObject({ code: "invalid_params" });
    await third.stop();
  });

  it("never delivers the same message_id twice to a subscriber within a run", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const clock = createFakeClock();
    const device = await startDevice(server, createMemoryStoreData(), { clock });
    await device.runtime.whenOnline();
    server.agentRequestsAction("s-1", { action_id: "a-1", kind: "approval", prompt: "ok?" });
    await until(() => device.received.length === 1);
    // Reconnect: catch-up and the seam flush the pending card again; this subscriber already has it.
    device.runtime.dropConnection();
    await until(() => device.runtime.lifecycle.snapshot().status === "reconnecting");
    clock.advance(60_000);
    await device.runtime.whenOnline().then(() => settle());
    expect(device.received.map((m) => m.message_id)).toEqual(["s-1:2"]);
    await device.stop();
  });

  it("answers an action card through the outbox and acknowledges it in the same commit", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const device = await startDevice(server, createMemoryStoreData());
    await device.runtime.whenOnline();
    server.agentRequestsAction("s-1", { action_id: "a-1", kind: "choice", prompt: "Pick", options: [{ id: "x", label: "X" }] });
    await until(() => device.received.length === 1);
    const card = device.received[0]!;
    await expect(device.chat.dispatch({ type: "interaction.answer", conversation_id: "s-1", message_id: card.message_id, response: { outcome: "approved" } })).rejects.toMatchObject({ code: "invalid_params" });
    await device.chat.dispatch({ type: "interaction.answer", conversation_id: "s-1", message_id: card.message_id, response: { outcome: "answered", choice_ids: ["x"] } });
    await expect(device.chat.dispatch({ type: "interaction.answer", conversation_id: "s-1", message_id: card.message_id, response: { outcome: "cancelled" } })).rejects.toMatchObject({ code: "invalid_state" });
    await until(() => server.applied.some((w) => w.method === "agentSession/action/respond"));
    await until(() => device.received.some((m) => m.type === "lineup.action.responded"));
    await device.stop();
  });

  it("answers an interaction.request envelope with an interaction.response envelope", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const device = await startDevice(server, createMemoryStoreData());
    await device.runtime.whenOnline();
    server.agentEnvelope("s-1", {
      v: 1, id: "req-1", type: "lineup.interaction.request", timestamp: "2026-11-30T06:00:00.000Z",
      sender: { kind: "agent", id: "agent-1" }, target: { kind: "app", app_scope: "chat" }, scope: { app_scope: "chat", conversation_id: "s-1" },
      payload: { interaction_id: "i-1", kind: "confirm", prompt: "Proceed?" },
    });
    await until(() => device.received.length === 1);
    await device.chat.dispatch({ type: "interaction.answer", conversation_id: "s-1", message_id: device.received[0]!.message_id, response: { outcome: "approved" } });
    await until(() => server.applied.some((w) => w.method === "agentSession/envelope/send"));
    const sent = server.applied.find((w) => w.method === "agentSession/envelope/send")!.params["envelope"] as { type: string; payload: unknown; correlation: unknown };
    expect(sent).toMatchObject({ type: "lineup.interaction.response", payload: { interaction_id: "i-1", outcome: "answered", confirmed: true }, correlation: { reply_to: "req-1" } });
    await device.stop();
  });

  it("records a card's answer in the commit that accepts it, and lists it after a restart", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const data = createMemoryStoreData();
    const device = await startDevice(server, data);
    await device.runtime.whenOnline();
    server.agentRequestsAction("s-1", { action_id: "a-1", kind: "choice", prompt: "Pick", options: [{ id: "x", label: "X" }] });
    server.agentEnvelope("s-1", {
      v: 1, id: "req-1", type: "lineup.interaction.request", timestamp: "2026-11-30T06:00:00.000Z",
      sender: { kind: "agent", id: "agent-1" }, target: { kind: "app", app_scope: "chat" }, scope: { app_scope: "chat", conversation_id: "s-1" },
      payload: { interaction_id: "i-1", kind: "confirm", prompt: "Proceed?" },
    });
    await until(() => device.received.length === 2);
    const [choice, confirm] = device.received;
    expect(choice!.answer).toBeUndefined();
    // Stopped before the outbox can flush: the answer is stored with the acceptance, not with the echo.
    server.transport.setReachable(false);
    device.runtime.dropConnection();
    await device.chat.dispatch({ type: "interaction.answer", conversation_id: "s-1", message_id: choice!.message_id, response: { outcome: "answered", choice_ids: ["x"] } });
    await device.chat.dispatch({ type: "interaction.answer", conversation_id: "s-1", message_id: confirm!.message_id, response: { outcome: "approved" } });
    await device.stop();

    const again = await startDevice(server, data, { subscribe: false });
    const page = await again.chat.listMessages({ conversation_id: "s-1" });
    expect(page.messages.find((m) => m.message_id === choice!.message_id)?.answer).toEqual({ outcome: "answered", choice_ids: ["x"] });
    expect(page.messages.find((m) => m.message_id === confirm!.message_id)?.answer).toEqual({ outcome: "answered", confirmed: true });
    await again.stop();
  });

  it("records an answer given on another device of the same user (action.responded)", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const data = createMemoryStoreData();
    const device = await startDevice(server, data);
    await device.runtime.whenOnline();
    server.agentRequestsAction("s-1", { action_id: "a-1", kind: "approval", prompt: "ok?" });
    await until(() => device.received.length === 1);
    server.append("s-1", "action.responded", { role: "device", id: "dev-other" }, { action_id: "a-1", response: { outcome: "rejected" } });
    await until(() => device.received.some((m) => m.type === "lineup.action.responded"));
    const listed = await device.chat.listMessages({ conversation_id: "s-1", latest: true });
    expect(listed.messages.find((m) => m.type === "lineup.action.required")?.answer).toEqual({ outcome: "rejected" });
    // An interaction response sent by another device of the user answers its card too; one claimed by the agent does not.
    const request = (id: string, interaction: string) => ({
      v: 1, id, type: "lineup.interaction.request", timestamp: "2026-11-30T06:00:00.000Z",
      sender: { kind: "agent", id: "agent-1" }, target: { kind: "app", app_scope: "chat" }, scope: { app_scope: "chat", conversation_id: "s-1" },
      payload: { interaction_id: interaction, kind: "confirm", prompt: "Proceed?" },
    });
    const response = (id: string, interaction: string, sender: { kind: string; id: string }) => ({
      v: 1, id, type: "lineup.interaction.response", timestamp: "2026-11-30T06:00:01.000Z",
      sender, target: { kind: "runtime", app_scope: "runtime" }, scope: { app_scope: "chat", conversation_id: "s-1" },
      payload: { interaction_id: interaction, outcome: "answered", confirmed: true },
    });
    server.agentEnvelope("s-1", request("req-1", "i-1"));
    server.agentEnvelope("s-1", request("req-2", "i-2"));
    server.append("s-1", "envelope", { role: "device", id: "dev-other" }, { envelope: response("resp-1", "i-1", { kind: "user", id: "user-1" }) });
    server.agentEnvelope("s-1", response("resp-2", "i-2", { kind: "agent", id: "agent-1" }));
    await until(() => device.received.filter((m) => m.type === "lineup.interaction.request").length === 2);
    await settle();
    const cards = (await device.chat.listMessages({ conversation_id: "s-1", latest: true })).messages.filter((m) => m.type === "lineup.interaction.request");
    expect(cards.map((m) => m.answer)).toEqual([{ outcome: "answered", confirmed: true }, undefined]);
    await device.stop();
    const again = await startDevice(server, data, { subscribe: false });
    const page = await again.chat.listMessages({ conversation_id: "s-1" });
    expect(page.messages.find((m) => m.type === "lineup.action.required")?.answer).toEqual({ outcome: "rejected" });
    await again.stop();
  });

  it("accepts actions while the server is unreachable and sends them in order, once, after reconnect", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const clock = createFakeClock();
    const data = createMemoryStoreData();
    server.transport.setReachable(false);
    const device = await startDevice(server, data, { clock });
    await until(() => device.runtime.lifecycle.snapshot().status === "reconnecting");
    // Offline, with a restored conversation only after a first sync: seed it by a first online run.
    server.transport.setReachable(true);
    clock.advance(60_000);
    await device.runtime.whenOnline();
    server.transport.setReachable(false);
    device.runtime.dropConnection();
    await until(() => device.runtime.lifecycle.snapshot().status === "reconnecting");
    for (const text of ["one", "two", "three"]) await device.chat.dispatch({ type: "conversation.send_text", conversation_id: "s-1", text });
    expect(device.chat.view().queued_actions).toBe(3);
    for (let i = 0; i < 8; i++) {
      clock.advance(60_000); // repeated failures…
      await settle();
    }
    await until(() => device.runtime.lifecycle.snapshot().status === "offline_degraded");
    // …and a restart while offline: the outbox is durable.
    await device.stop();
    server.transport.setReachable(true);
    const again = await startDevice(server, data, { clock, run: "r1" });
    await again.runtime.whenOnline();
    await until(() => server.turnTexts("s-1").length === 3);
    expect(server.turnTexts("s-1")).toEqual(["one", "two", "three"]);
    await until(() => again.chat.view().queued_actions === 0);
    expect(server.applied.filter((w) => w.method === "agentSession/turn/start")).toHaveLength(3);
    await again.stop();
  });

  it("reconnectNow (the host's 'network is back'): a reconnect waiting out its backoff is tried at once; a connected Runtime is left alone", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    // The fake clock never moves here: only reconnectNow can start another attempt.
    const device = await startDevice(server, createMemoryStoreData(), { clock: createFakeClock() });
    await device.runtime.whenOnline();
    device.runtime.reconnectNow();
    await settle();
    expect(server.transport.openConnections).toBe(1);
    expect(device.runtime.lifecycle.snapshot().status).toBe("online");

    server.transport.setReachable(false);
    device.runtime.dropConnection();
    await until(() => device.runtime.lifecycle.snapshot().status === "reconnecting");
    // Still unreachable: the try fails and backs off again.
    device.runtime.reconnectNow();
    await until(() => (device.runtime.lifecycle.snapshot() as { attempt?: number }).attempt === 1, 3_000, "a second failed attempt");
    server.transport.setReachable(true);
    await settle();
    expect(device.runtime.lifecycle.snapshot().status).toBe("reconnecting");
    device.runtime.reconnectNow();
    await device.runtime.whenOnline();
    await device.chat.dispatch({ type: "conversation.send_text", conversation_id: "s-1", text: "back" });
    await until(() => server.turnTexts("s-1").includes("back"));
    await device.stop();
  });

  it("stop-and-wait: sends a conversation's next outbox entry once the server applied the one before, without waiting for that outcome's commit", async () => {
    // A server without ordered writes: one entry per conversation in flight (outbox-pipeline.test.ts has the pipelined case).
    const server = new FakeAppServer({ orderedWrites: false });
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const data = createMemoryStoreData();
    const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
    // While `holding`, a commit that settles an outbox entry (deletes it) waits until released: a slow disk.
    let holding = false;
    const held: (() => void)[] = [];
    const commit = store.commit.bind(store);
    store.commit = async (batch) => {
      if (holding && batch.some((write) => write.collection === RUNTIME_COLLECTIONS.outbox && write.op === "delete")) await new Promise<void>((resolve) => held.push(resolve));
      return commit(batch);
    };
    const device = await startDevice(server, data, { extra: { store } });
    await device.runtime.whenOnline();
    holding = true;
    await Promise.all(["one", "two", "three"].map((text) => device.chat.dispatch({ type: "conversation.send_text", conversation_id: "s-1", text })));
    // All three reach the server, in order, while the first outcome is still being committed.
    await until(() => server.turnTexts("s-1").length === 3, 3_000, "the three texts applied");
    expect(server.turnTexts("s-1")).toEqual(["one", "two", "three"]);
    expect(held.length).toBeGreaterThan(0);
    expect(device.chat.view().queued_actions).toBe(3);
    holding = false;
    for (const release of held.splice(0)) release();
    await until(() => device.chat.view().queued_actions === 0, 3_000, "the outcomes committed");
    await settle();
    // Sent once each: an entry waiting for its commit is not sent again.
    expect(server.applied.filter((w) => w.method === "agentSession/turn/start")).toHaveLength(3);
    await device.stop();
  });

  it("retries with the same idempotency key when a response is lost: the server applies the action once", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const clock = createFakeClock();
    const device = await startDevice(server, createMemoryStoreData(), { clock, extra: { requestTimeoutMs: 1_000 } });
    await device.runtime.whenOnline();
    server.dropNextResponses(1);
    await device.chat.dispatch({ type: "conversation.send_text", conversation_id: "s-1", text: "only once" });
    await until(() => server.applied.length === 1);
    clock.advance(1_000); // the request times out …
    await settle();
    clock.advance(700); // … and is retried (after at most base·2 + 100 ms), within the next request's timeout
    await until(() => device.chat.view().queued_actions === 0);
    expect(server.turnTexts("s-1")).toEqual(["only once"]);
    await device.stop();
  });

  it("starts a conversation through the outbox, follows it, and re-lists sessions started elsewhere", async () => {
    const server = new FakeAppServer();
    const device = await startDevice(server, createMemoryStoreData());
    await device.runtime.whenOnline();
    const { conversation_id: id } = await device.runtime.conversations.start({ agent_id: "agent-1", workspace_id: "w-1", title: "New" });
    expect(device.runtime.conversations.list()).toMatchObject([{ conversation_id: id, status: "starting" }]);
    await device.chat.dispatch({ type: "conversation.send_text", conversation_id: id, text: "first words" });
    await until(() => server.turnTexts(id).length === 1);
    await until(() => device.runtime.conversations.list().some((c) => c.conversation_id === id && c.status === "live"));
    server.createSession({ session_id: "s-elsewhere", agent_id: "agent-1" });
    await device.runtime.conversations.start({ agent_id: "agent-1", workspace_id: "w-1" });
    await until(() => device.runtime.conversations.list().some((c) => c.conversation_id === "s-elsewhere"));
    // An unknown agent: the start fails for good and the app is told.
    await device.runtime.conversations.start({ agent_id: "nobody", workspace_id: "w-1" });
    await until(() => device.chat.view().failed_actions.length === 1);
    expect(device.chat.view().failed_actions[0]).toMatchObject({ code: "not_found", action_type: "conversation.start" });
    await device.stop();
  });

  it("refuses a tool call for an app that is not installed with a lineup.tool.error back to the agent", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const device = await startDevice(server, createMemoryStoreData());
    await device.runtime.whenOnline();
    server.agentEnvelope("s-1", {
      v: 1, id: "call-env-1", type: "lineup.tool.invoke", timestamp: "2026-11-30T06:00:00.000Z",
      sender: { kind: "agent", id: "agent-1" }, target: { kind: "app", app_scope: "whiteboard" }, scope: { app_scope: "whiteboard", conversation_id: "s-1" },
      correlation: { call_id: "call-1", inventory_revision: "1" }, payload: { method: "board.create", arguments: {} },
    });
    await until(() => server.applied.some((w) => w.method === "agentSession/envelope/send"));
    const reply = server.applied.find((w) => w.method === "agentSession/envelope/send")!.params["envelope"] as Record<string, unknown>;
    expect(reply).toMatchObject({ type: "lineup.tool.error", correlation: { call_id: "call-1", reply_to: "call-env-1" }, payload: { code: "app_not_installed" } });
    // Chat shows the refusal as a card (tool traffic of the conversation), the invoke itself reaches no app.
    await until(() => device.received.some((m) => m.type === "lineup.tool.error"));
    expect(device.received.some((m) => m.type === "lineup.tool.invoke")).toBe(false);
    await device.stop();
  });

  it("a failed commit fails the turn with a typed error and leaves nothing half-applied", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const data = createMemoryStoreData();
    const { withFaults } = await import("../src/index.js");
    const store = withFaults(await createMemoryStore(RUNTIME_SCHEMA, { data }));
    const device = await startDevice(server, data, { extra: { store } });
    await device.runtime.whenOnline();
    store.injectFaults({ failAt: 1, mode: "persistent" });
    await expect(device.chat.dispatch({ type: "conversation.send_text", conversation_id: "s-1", text: "lost" })).rejects.toMatchObject({ code: "store_write_failed" });
    expect(device.chat.view().queued_actions).toBe(0);
    store.clearFaults();
    await device.chat.dispatch({ type: "conversation.send_text", conversation_id: "s-1", text: "kept" });
    await until(() => server.turnTexts("s-1").length === 1);
    expect(server.turnTexts("s-1")).toEqual(["kept"]);
    await device.stop();
  });
});
