/**
 * Stopping the agent's turn (`AppPort.cancelTurn` → `agentSession/turn/cancel` through the outbox): the
 * server records `turn.cancelled`; the calls the agent made in that turn and that are still open end
 * `cancelled_by_user` and their app is told, while a call of an earlier turn that outlived it runs on;
 * nothing running is a typed refusal with nothing queued; offline it is queued and sent once on reconnect;
 * a crash before the send (or before its answer) sends it once after the restart; and a cancel the server
 * refuses because the turn ended first is dropped without wedging what follows.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryStore, RUNTIME_COLLECTIONS, RUNTIME_SCHEMA, type DeliveredToolCall } from "../src/index.js";
import { endTurnCalls, type CallRecord, type ToolCallsState } from "../src/tools/index.js";
import { agentInvokes, device, onlineDevice, toolOutputs } from "./helpers/apps-harness.js";
import { whiteboardManifest } from "./apps-fixtures.js";
import { createFakeClock, createMemoryStoreData, FakeAppServer, settle, startDevice, until, type Device } from "./helpers/runtime-harness.js";

const devices: Device[] = [];
afterEach(async () => {
  for (const d of devices.splice(0)) await d.stop();
});

/** The turn id the device gave the turn whose input is `text`. */
function turnIdOf(server: FakeAppServer, text: string, sessionId = "s-1"): string | undefined {
  const started = server.sessions.get(sessionId)?.events.find((e) => e.kind === "turn.started" && (e.data as { turn: { input: { text?: string } } }).turn.input.text === text);
  return (started?.data as { turn: { turn_id: string } } | undefined)?.turn.turn_id;
}

const cancels = (server: FakeAppServer) => server.applied.filter((w) => w.method === "agentSession/turn/cancel");
const terminalOf = (outputs: [string, Record<string, unknown>][]) => outputs.filter(([type]) => type === "lineup.tool.result" || type === "lineup.tool.error");

/** The person says `text`; resolves with the turn's id once the device has applied its `turn.started`. */
async function say(d: Device, server: FakeAppServer, text: string): Promise<string> {
  await d.chat.dispatch({ type: "conversation.send_text", conversation_id: "s-1", text });
  await until(() => turnIdOf(server, text) !== undefined, 3_000, `the turn of "${text}"`);
  const turnId = turnIdOf(server, text)!;
  await until(() => d.received.some((m) => m.turn_id === turnId), 3_000, "the device applied the turn's start");
  return turnId;
}

/** A whiteboard instance for `s-1`, ready, whose handler holds every call (answers none). */
async function heldBoard(d: Device): Promise<{ calls: DeliveredToolCall[]; cancelled: string[] }> {
  const instance = await d.runtime.appManager.launch({ app_scope: "whiteboard", conversation_id: "s-1" });
  const calls: DeliveredToolCall[] = [];
  const cancelled: string[] = [];
  d.runtime.appPort("whiteboard").registerToolHandler({ call: (call) => void calls.push(call), cancel: (callId) => void cancelled.push(callId) }, instance.instance_id);
  await d.runtime.instances.ready(instance.instance_id);
  return { calls, cancelled };
}

describe("stopping the agent's turn", () => {
  it("while the agent works: the server records turn.cancelled once; the turn's open call ends cancelled_by_user and its app is told; a call of an earlier turn runs on", async () => {
    const { server, d } = await onlineDevice({ install: whiteboardManifest() });
    devices.push(d);
    const board = await heldBoard(d);

    // An earlier turn left a call running beyond it (the agent completed the turn, as for a voice note).
    const earlier = await say(d, server, "make a board");
    agentInvokes(server, "early", "whiteboard", "board.create", { title: "Earlier" }, 1);
    await until(() => board.calls.length === 1, 3_000, "the earlier call reaches the app");
    server.agentCompletesTurn("s-1", earlier, "started it");

    const turnId = await say(d, server, "and another one");
    server.agentUpdatesTurn("s-1", turnId, { status: "working", label: "Creating a board" });
    agentInvokes(server, "held", "whiteboard", "board.create", { title: "Held" }, 1);
    await until(() => board.calls.length === 2, 3_000, "the turn's call reaches the app");

    const receipt = await d.chat.cancelTurn("s-1");
    expect(receipt).toMatchObject({ action_type: "turn.cancel", conversation_id: "s-1", status: "queued" });
    await until(() => server.turnState("s-1", turnId) === "cancelled", 3_000, "the server cancels the turn");
    expect(cancels(server)).toHaveLength(1);
    expect(cancels(server)[0]!.params).toMatchObject({ session_id: "s-1", turn_id: turnId });
    expect(server.sessions.get("s-1")!.events.filter((e) => e.kind === "turn.cancelled")).toHaveLength(1);

    // The agent sees the call end, once, cancelled_by_user; the app is told to stop it.
    await until(() => terminalOf(toolOutputs(server, "held")).length === 1, 3_000, "the held call's terminal");
    expect(terminalOf(toolOutputs(server, "held"))).toEqual([["lineup.tool.error", { code: "cancelled_by_user", message: "the person stopped the agent's turn" }]]);
    expect(board.cancelled).toEqual(["held"]);
    await expect(d.runtime.appPort("whiteboard").reportTool("held", { kind: "result", result: { board_id: "b-2" } }, board.calls[1]!.instance_id)).rejects.toMatchObject({ code: "call_not_active" });

    // The earlier turn's call is not this turn's: it is still the app's to finish.
    expect(terminalOf(toolOutputs(server, "early"))).toEqual([]);
    await d.runtime.appPort("whiteboard").reportTool("early", { kind: "result", result: { board_id: "b-1" } }, board.calls[0]!.instance_id);
    await until(() => terminalOf(toolOutputs(server, "early")).length === 1, 3_000, "the earlier call's result");

    // The chat hears the turn cancelled; with nothing left running, Stop is refused.
    await until(() => d.received.some((m) => m.type === "lineup.turn.cancelled" && m.turn_id === turnId), 3_000, "chat hears the cancel");
    await expect(d.chat.cancelTurn("s-1")).rejects.toMatchObject({ code: "invalid_state" });
    expect(cancels(server)).toHaveLength(1);
    expect(d.chat.view().failed_actions).toEqual([]);
    expect(await d.runtime.verifyAudit()).toMatchObject({ ok: true });
  });

  it("a second Stop while the first waits to be sent is the same Stop", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const d = await startDevice(server, createMemoryStoreData());
    devices.push(d);
    await d.runtime.whenOnline();
    const turnId = await say(d, server, "hello");
    server.transport.setReachable(false);
    d.runtime.dropConnection();
    await until(() => d.runtime.lifecycle.snapshot().status !== "online", 3_000, "offline");
    const first = await d.chat.cancelTurn("s-1");
    const second = await d.chat.cancelTurn("s-1");
    expect(second).toEqual(first);
    expect(d.chat.view().queued_actions).toBe(1);
    server.transport.setReachable(true);
    d.runtime.reconnectNow();
    await until(() => server.turnState("s-1", turnId) === "cancelled", 5_000, "sent on reconnect");
    await until(() => d.chat.view().queued_actions === 0, 3_000, "settled");
    expect(cancels(server)).toHaveLength(1);
  });

  it("with nothing running it is a typed refusal, and nothing is queued", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const d = await startDevice(server, createMemoryStoreData());
    devices.push(d);
    await d.runtime.whenOnline();
    await expect(d.chat.cancelTurn("s-1")).rejects.toMatchObject({ code: "invalid_state" });
    await expect(d.chat.cancelTurn("s-nope")).rejects.toMatchObject({ code: "conversation_unknown" });
    // A turn that ended is nothing to stop either.
    const turnId = await say(d, server, "hi");
    server.agentCompletesTurn("s-1", turnId, "hello");
    await until(() => d.received.some((m) => m.type === "lineup.turn.completed"), 3_000, "the turn's end");
    await expect(d.chat.cancelTurn("s-1")).rejects.toMatchObject({ code: "invalid_state" });
    expect(d.chat.view().queued_actions).toBe(0);
    await settle();
    expect(cancels(server)).toEqual([]);
  });

  it("a queued turn is stopped once the running one has ended, and the running one first", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const d = await startDevice(server, createMemoryStoreData());
    devices.push(d);
    await d.runtime.whenOnline();
    const first = await say(d, server, "one");
    const second = await say(d, server, "two");
    expect(server.turnState("s-1", second)).toBe("queued");
    await d.chat.cancelTurn("s-1");
    await until(() => server.turnState("s-1", first) === "cancelled", 3_000, "the running turn is stopped");
    await until(() => d.received.some((m) => m.type === "lineup.turn.cancelled"), 3_000, "the device applied it");
    expect(server.turnState("s-1", second)).toBe("running");
    await d.chat.cancelTurn("s-1");
    await until(() => server.turnState("s-1", second) === "cancelled", 3_000, "then the next");
  });

  it("offline: queued behind the turn it stops, sent once on reconnect", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const clock = createFakeClock();
    const d = await startDevice(server, createMemoryStoreData(), { clock });
    devices.push(d);
    await d.runtime.whenOnline();
    server.transport.setReachable(false);
    d.runtime.dropConnection();
    await until(() => d.runtime.lifecycle.snapshot().status === "reconnecting", 3_000, "offline");
    // The turn itself was started offline too: it is still in the outbox, and the Stop goes behind it.
    await d.chat.dispatch({ type: "conversation.send_text", conversation_id: "s-1", text: "never mind" });
    await d.chat.cancelTurn("s-1");
    expect(d.chat.view().queued_actions).toBe(2);
    expect(cancels(server)).toEqual([]);

    server.transport.setReachable(true);
    clock.advance(60_000);
    await d.runtime.whenOnline();
    await until(() => d.chat.view().queued_actions === 0, 5_000, "the outbox drains");
    const turnId = turnIdOf(server, "never mind")!;
    expect(server.turnState("s-1", turnId)).toBe("cancelled");
    expect(server.applied.filter((w) => w.method.startsWith("agentSession/turn/")).map((w) => w.method)).toEqual(["agentSession/turn/start", "agentSession/turn/cancel"]);
    await settle();
    expect(cancels(server)).toHaveLength(1);
  });

  it("a crash after the Stop was stored and before it was sent: sent once after the restart (the running turn known from the store)", async () => {
    const data = createMemoryStoreData();
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const first = await startDevice(server, data);
    await first.runtime.whenOnline();
    const turnId = await say(first, server, "long job");
    // A restart knows the turn is running: it is stored with the cursor.
    await first.stop();
    const second = await startDevice(server, data, { run: "r1" });
    await second.runtime.whenOnline();
    server.transport.setReachable(false);
    second.runtime.dropConnection();
    await until(() => second.runtime.lifecycle.snapshot().status !== "online", 3_000, "offline");
    await second.chat.cancelTurn("s-1");
    await second.stop();

    server.transport.setReachable(true);
    const third = await startDevice(server, data, { run: "r2" });
    devices.push(third);
    await third.runtime.whenOnline();
    await until(() => server.turnState("s-1", turnId) === "cancelled", 5_000, "sent after the restart");
    await until(() => third.chat.view().queued_actions === 0, 3_000, "settled");
    expect(cancels(server)).toHaveLength(1);
  });

  it("a crash after the server applied it but before the answer came: sent again after the restart with the same key, applied once", async () => {
    const data = createMemoryStoreData();
    const server = new FakeAppServer({ recordRequests: true });
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const first = await startDevice(server, data);
    await first.runtime.whenOnline();
    const turnId = await say(first, server, "long job");
    await until(() => first.chat.view().queued_actions === 0, 3_000, "the turn's start settled");
    server.dropNextResponses(1);
    await first.chat.cancelTurn("s-1");
    await until(() => server.turnState("s-1", turnId) === "cancelled", 3_000, "applied, its answer lost");
    await first.stop();

    const second = await device(server, data, "r1");
    devices.push(second);
    await second.runtime.whenOnline();
    await until(() => second.chat.view().queued_actions === 0, 5_000, "settled after the restart");
    expect(cancels(server)).toHaveLength(1);
    // Sent twice under one key: the second time the server answered from its record.
    const sent = server.requests.filter((r) => r.method === "agentSession/turn/cancel");
    expect(sent).toHaveLength(2);
    expect(new Set(sent.map((r) => r.params["idempotency_key"])).size).toBe(1);
    expect(sent.map((r) => r.error)).toEqual([undefined, undefined]);
    expect(second.chat.view().failed_actions).toEqual([]);
    expect(server.sessions.get("s-1")!.events.filter((e) => e.kind === "turn.cancelled")).toHaveLength(1);
  });

  it("the server's invalid_state (the turn ended before the Stop arrived) drops it: nothing failed, what follows still goes", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const clock = createFakeClock();
    const data = createMemoryStoreData();
    const d = await startDevice(server, data, { clock });
    devices.push(d);
    await d.runtime.whenOnline();
    const turnId = await say(d, server, "quick one");
    server.transport.setReachable(false);
    d.runtime.dropConnection();
    await until(() => d.runtime.lifecycle.snapshot().status === "reconnecting", 3_000, "offline");
    // Meanwhile the agent finished; this device, offline, still sees the turn running.
    server.agentCompletesTurn("s-1", turnId, "done");
    await d.chat.cancelTurn("s-1");
    await d.chat.dispatch({ type: "conversation.send_text", conversation_id: "s-1", text: "next" });

    server.transport.setReachable(true);
    clock.advance(60_000);
    await d.runtime.whenOnline();
    await until(() => turnIdOf(server, "next") !== undefined, 5_000, "the next turn goes");
    await until(() => d.chat.view().queued_actions === 0, 3_000, "the outbox drains");
    expect(d.chat.view().failed_actions).toEqual([]);
    expect(server.turnState("s-1", turnId)).toBe("completed");
    expect(cancels(server)).toEqual([]);
    const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
    const audit = (await store.range(RUNTIME_COLLECTIONS.audit, {})).map((row) => row.value as { type: string; code?: string });
    await store.close();
    expect(audit.filter((r) => r.type === "turn.cancel.moot").map((r) => r.code)).toEqual(["invalid_state"]);
  });
});

describe("a cancelled turn's calls (endTurnCalls)", () => {
  const call = (call_id: string, patch: Partial<CallRecord>): CallRecord => ({
    call_id,
    body: "{}",
    agent_id: "agent-1",
    conversation_id: "c1",
    app_scope: "pomodoro",
    method: "focus.start",
    arguments: {},
    handling: "direct",
    activation_requirement: "app_ready",
    call_model: "command",
    received_at: 0,
    deadline_at: 1_000_000,
    phase: "running",
    outputs: [],
    turn_id: "t-1",
    ...patch,
  });

  it("ends the turn's open calls cancelled_by_user; a running timer, other turns' calls and calls outside a turn are left alone", () => {
    const state: ToolCallsState = {
      calls: {
        running: call("running", { instance_id: "i-1" }),
        waiting: call("waiting", { phase: "waiting_activation", instance_id: "i-2" }),
        starting: call("starting", { phase: "starting", instance_id: "i-2" }),
        export: call("export", { phase: "operation_running", handling: "operation", instance_id: "i-1", operation: { operation_id: "op-1", started_at: 0, ends_at: 10, app_run: true } }),
        timer: call("timer", { phase: "operation_running", handling: "operation", instance_id: "i-1", operation: { operation_id: "op-2", started_at: 0, ends_at: 10 } }),
        other: call("other", { turn_id: "t-0" }),
        outside: call("outside", { turn_id: undefined } as unknown as Partial<CallRecord>),
        elsewhere: call("elsewhere", { conversation_id: "c2" }),
      },
      activations: { "i-2": { instance_id: "i-2", app_scope: "pomodoro", conversation_id: "c1", trigger_call_id: "starting", waiting: ["waiting"] } },
    };
    const decision = endTurnCalls(state, { conversation_id: "c1", turn_id: "t-1", message: "stopped" })!;
    const ended = decision.outputs.map((o) => [o.call_id, o.type, (o.payload as { code?: string }).code]);
    expect(ended).toEqual([
      ["running", "lineup.tool.error", "cancelled_by_user"],
      ["waiting", "lineup.tool.error", "cancelled_by_user"],
      ["starting", "lineup.tool.error", "cancelled_by_user"],
      ["export", "lineup.tool.error", "cancelled_by_user"],
    ]);
    expect(decision.actions).toEqual([
      { kind: "cancel_in_app", call_id: "running", instance_id: "i-1" },
      { kind: "cancel_in_app", call_id: "export", instance_id: "i-1" },
    ]);
    expect(decision.state.activations["i-2"]!.waiting).toEqual([]);
    for (const id of ["timer", "other", "outside", "elsewhere"]) expect(decision.state.calls[id]!.phase).not.toBe("terminal");
    expect(endTurnCalls(decision.state, { conversation_id: "c1", turn_id: "t-1", message: "again" })).toBeUndefined();
  });
});
