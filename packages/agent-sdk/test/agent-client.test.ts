import { LineUpError, type JsonObject, type SessionEvent } from "@lineup/protocol";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentClient, Diagnostic, IncomingTurn, ToolCallUpdate } from "../src/index.js";
import { FakeAppServer, tool } from "./fake-app-server.js";
import { connectToFake, waitFor } from "./helpers.js";

const clients: AgentClient[] = [];
async function connect(server: FakeAppServer, options: Parameters<typeof connectToFake>[1] = {}): Promise<AgentClient> {
  const client = await connectToFake(server, options);
  clients.push(client);
  return client;
}
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

describe("sessions and turns", () => {
  it("hands over only turns that are running after the catch-up seam, once each", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.startTurn("s-1", "old question", "t-old");
    // The device cancelled it before any agent saw it: nothing to answer.
    server.cancelTurn("s-1", "t-old");
    const client = await connect(server);
    const turns: IncomingTurn[] = [];
    client.onTurn((t) => turns.push(t));
    await waitFor(() => client.cursor("s-1") === 3, "caught up");
    server.startTurn("s-1", "hello there", "t-live");
    await waitFor(() => turns.length >= 1, "the live turn");
    server.dropConnections();
    await waitFor(() => client.state === "online" && server.connections.size === 1 && client.cursor("s-1") === 4, "resumed");
    await new Promise((r) => setTimeout(r, 20));
    expect(turns.map((t) => t.turnId)).toEqual(["t-live"]);
    expect(turns[0]!.text).toBe("hello there");
    expect(client.agentId).toBe("demo-agent");
  });

  it("does not answer a turn that completed while it was away, but does pick up one still running", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.startTurn("s-1", "first", "t-1");
    // A previous agent process answered t-1.
    const s = server.sessions.get("s-1")!;
    s.turns.set("t-1", { ...s.turns.get("t-1")!, state: "running" });
    const other = await connect(server);
    await waitFor(() => other.session("s-1") !== undefined && other.cursor("s-1") === 2, "first agent caught up");
    await other.completeTurn("s-1", "t-1", { text: "done" });
    server.startTurn("s-1", "second", "t-2");
    await other.close();

    const client = await connect(server);
    const turns: string[] = [];
    client.onTurn((t) => turns.push(t.turnId));
    await waitFor(() => turns.length === 1, "the open turn");
    await new Promise((r) => setTimeout(r, 30));
    expect(turns).toEqual(["t-2"]);
  });

  it("keeps turns that arrive before anyone listens for the first listener", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.startTurn("s-1", "waiting", "t-1");
    const client = await connect(server);
    await waitFor(() => client.cursor("s-1") === 2, "caught up before any listener");
    const turns: string[] = [];
    client.onTurn((t) => turns.push(t.turnId));
    client.onTurn((t) => turns.push(`second:${t.turnId}`));
    expect(turns).toEqual(["t-1"]);
  });

  it("discovers sessions bound later by polling a server without sessions.bound, and follows each from seq 1", async () => {
    const server = new FakeAppServer({ sessionsBound: false });
    const client = await connect(server);
    // Listed at connect, then polled (sessionPollMs 20): no sessions.bound feature to rely on.
    await waitFor(() => server.requestCount("agentSession/list") >= 2, "the poll");
    expect(client.serverFeatures()).toContain("sessions");
    expect(client.serverFeatures()).not.toContain("sessions.bound");
    const seen: string[] = [];
    client.onSession((s) => seen.push(s.session_id));
    server.startSession("s-late");
    server.startSession("s-other", "another-agent");
    await waitFor(() => seen.includes("s-late"), "the new session");
    await waitFor(() => client.cursor("s-late") === 1, "its first event");
    expect(seen).toEqual(["s-late"]);
    expect(client.session("s-other")).toBeUndefined();
    expect(client.stats().sessionsBound).toBe(0);
  });

  it("queued turns are handed over when activated", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    const client = await connect(server);
    const turns: string[] = [];
    client.onTurn((t) => turns.push(t.turnId));
    await waitFor(() => client.cursor("s-1") === 1, "caught up");
    server.startTurn("s-1", "one", "t-1");
    server.startTurn("s-1", "two", "t-2");
    await waitFor(() => turns.length === 1, "first turn");
    expect(server.turn("s-1", "t-2")!.state).toBe("queued");
    await client.completeTurn("s-1", "t-1", { text: "ok" });
    await waitFor(() => turns.length === 2, "second turn after activation");
    expect(turns).toEqual(["t-1", "t-2"]);
  });

  it("aborts a turn's signal when the device cancels it", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    const client = await connect(server);
    let turn: IncomingTurn | undefined;
    client.onTurn((t) => (turn = t));
    await waitFor(() => client.cursor("s-1") === 1, "caught up");
    server.startTurn("s-1", "long job", "t-1");
    await waitFor(() => turn !== undefined, "turn");
    expect(turn!.signal.aborted).toBe(false);
    server.cancelTurn("s-1", "t-1");
    await waitFor(() => turn!.signal.aborted, "abort");
    expect((turn!.signal.reason as LineUpError).code).toBe("cancelled_by_user");
  });
});

describe("agentSession/bound", () => {
  /** Connected, features known, initial list answered and the listed sessions caught up. */
  async function settled(server: FakeAppServer, options: Parameters<typeof connectToFake>[1] = {}): Promise<AgentClient> {
    const client = await connect(server, options);
    await waitFor(() => client.serverFeatures().includes("sessions.bound") && server.requestCount("agentSession/list") === 1, "features and the first list");
    await waitFor(() => client.sessions().every((s) => client.cursor(s.session_id) >= 1), "listed sessions caught up");
    return client;
  }

  it("follows a session bound after connecting at once, with no poll (sessionPollMs is ignored)", async () => {
    const server = new FakeAppServer();
    // sessionPollMs 20 would poll ~10 times below if it applied: the announced feature switches it to the 60 s safety net.
    const client = await settled(server, { sessionPollMs: 20 });
    const seen: string[] = [];
    client.onSession((s) => seen.push(s.session_id));
    const turns: string[] = [];
    client.onTurn((t) => turns.push(t.turnId));
    const started = Date.now();
    server.startSession("s-new");
    server.startTurn("s-new", "hi", "t-1");
    await waitFor(() => turns.length === 1, "the new session's turn", 1_500);
    // Generous for a loaded CI machine; what proves there is no poll is the single list request.
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(seen).toEqual(["s-new"]);
    expect(client.cursor("s-new")).toBe(2);
    expect(client.stats().sessionsBound).toBe(1);
    const subscribe = server.requests.filter((r) => r.method === "agentSession/subscribe");
    expect(subscribe.map((r) => r.params)).toEqual([{ session_id: "s-new", after_seq: 0 }]);
    await new Promise((r) => setTimeout(r, 200));
    expect(server.requestCount("agentSession/list")).toBe(1);
  });

  it("a session bound to another agent is not announced to this one", async () => {
    const server = new FakeAppServer();
    const client = await settled(server);
    server.startSession("s-other", "another-agent");
    server.startSession("s-mine");
    await waitFor(() => client.cursor("s-mine") === 1, "its own session");
    expect(client.sessions().map((s) => s.session_id)).toEqual(["s-mine"]);
  });

  it("a bound notification for a session it already follows changes nothing", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    const client = await settled(server);
    const seen: string[] = [];
    client.onSession((s) => seen.push(s.session_id));
    server.startTurn("s-1", "hi", "t-1");
    await waitFor(() => client.cursor("s-1") === 2, "the turn");
    const before = { requests: server.requests.length, session: client.session("s-1"), stats: client.stats() };
    server.sendBound("s-1");
    server.sendBound("s-1");
    await new Promise((r) => setTimeout(r, 30));
    expect(seen).toEqual([]);
    expect(server.requests.length).toBe(before.requests);
    expect(client.session("s-1")).toBe(before.session);
    expect(client.cursor("s-1")).toBe(2);
    expect(client.stats()).toEqual(before.stats);
  });

  it("a malformed bound notification goes to diagnostics and is ignored", async () => {
    const server = new FakeAppServer();
    const diagnostics: Diagnostic[] = [];
    const client = await settled(server, { diagnostics: (d) => diagnostics.push(d) });
    server.notify("agentSession/bound", { session: { session_id: "s-bad" } });
    server.notify("agentSession/bound", { session_id: "s-bad" });
    // Well-formed, but bound to another agent: not ours to follow.
    server.startSession("s-foreign", "another-agent");
    server.notify("agentSession/bound", { session: server.sessions.get("s-foreign")!.session as unknown as JsonObject });
    await waitFor(() => client.stats().invalidNotifications === 3, "all three refused");
    expect(client.sessions()).toEqual([]);
    const refused = diagnostics.filter((d) => d.kind === "frame_invalid").map((d) => d.message);
    expect(refused).toHaveLength(3);
    for (const message of refused.slice(0, 2)) expect(message).toMatch(/^agentSession\/bound ignored: invalid_params/);
    expect(refused[2]).toMatch(/s-foreign is bound to another-agent, not demo-agent/);
    expect(server.requestCount("agentSession/subscribe")).toBe(0);
    // Still working: the next valid one is followed.
    server.startSession("s-good");
    await waitFor(() => client.cursor("s-good") === 1, "the valid session");
  });

  it("finds a session bound while it was away by listing at reconnect (the hint is never replayed)", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    const client = await settled(server);
    server.refuseConnections = true;
    server.dropConnections();
    await waitFor(() => client.state === "reconnecting", "offline");
    server.startSession("s-offline"); // nobody is connected: the notification goes nowhere
    server.refuseConnections = false;
    await waitFor(() => client.cursor("s-offline") === 1, "the session bound while offline");
    expect(client.stats().sessionsBound).toBe(0);
    expect(client.stats().connects).toBe(2);
    expect(server.requestCount("agentSession/list")).toBe(2); // one per connection, no poll
    expect(server.requestCount("capability/list")).toBe(2); // features are read again on every connection
    // And the new connection hears the hint again.
    server.startSession("s-after");
    await waitFor(() => client.cursor("s-after") === 1, "a session bound after the reconnect");
    expect(client.stats().sessionsBound).toBe(1);
  });

  it("polls every boundSessionPollMs as a safety net", async () => {
    const server = new FakeAppServer();
    const client = await settled(server, { boundSessionPollMs: 25, sessionPollMs: 60_000 });
    await waitFor(() => server.requestCount("agentSession/list") >= 3, "the safety-net poll");
    expect(client.serverFeatures()).toContain("sessions.bound");
  });

  it("reads the features again at every reconnect: a server without sessions.bound is polled at sessionPollMs again", async () => {
    const server = new FakeAppServer();
    const client = await settled(server, { sessionPollMs: 20 });
    await new Promise((r) => setTimeout(r, 100));
    expect(server.requestCount("agentSession/list")).toBe(1);
    server.sessionsBound = false;
    server.dropConnections();
    await waitFor(() => client.state === "online" && server.requestCount("capability/list") === 2, "reconnected");
    await waitFor(() => !client.serverFeatures().includes("sessions.bound"), "the new features");
    server.startSession("s-late");
    await waitFor(() => client.cursor("s-late") === 1, "found by polling");
    expect(server.requestCount("agentSession/list")).toBeGreaterThan(2);
    expect(client.stats().sessionsBound).toBe(0);
  });

  it("polls at sessionPollMs when capability/list is not available (an older server)", async () => {
    const server = new FakeAppServer({ sessionsBound: false });
    server.refuseCapabilityList = true;
    const client = await connect(server, { sessionPollMs: 20 });
    await waitFor(() => server.requestCount("agentSession/list") >= 3, "the fast poll");
    expect(client.serverFeatures()).toEqual([]);
    server.startSession("s-late");
    await waitFor(() => client.cursor("s-late") === 1, "found by polling");
  });
});

describe("messages and interactions", () => {
  it("sends Markdown as a lineup.message envelope from the agent, with an idempotency key", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    const client = await connect(server);
    await waitFor(() => client.session("s-1") !== undefined, "session");
    const receipt = await client.send("s-1", { kind: "markdown", text: "**hi**" });
    const [envelope] = server.agentEnvelopes("s-1", "lineup.message");
    expect(envelope!.payload).toEqual({ format: "markdown", text: "**hi**" });
    expect(envelope!.sender).toEqual({ kind: "agent", id: "demo-agent" });
    expect(envelope!.scope).toEqual({ app_scope: "chat", conversation_id: "s-1" });
    expect(receipt.envelopeId).toBe(envelope!.id);
    const sendRequest = server.requests.find((r) => r.method === "agentSession/envelope/send")!;
    expect(typeof sendRequest.params["idempotency_key"]).toBe("string");
  });

  it("a choice card round trip resolves awaitInteraction with the user's answer", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    const client = await connect(server);
    await waitFor(() => client.session("s-1") !== undefined, "session");
    const sent = await client.send("s-1", { kind: "choice", prompt: "Which app?", options: [{ id: "wb", label: "Whiteboard" }, { id: "timer", label: "Pomodoro" }] });
    const [card] = server.agentEnvelopes("s-1", "lineup.interaction.request");
    expect(card!.payload).toMatchObject({ interaction_id: sent.interactionId, kind: "choice", prompt: "Which app?" });
    const answer = client.awaitInteraction("s-1", sent.interactionId!);
    server.deviceEnvelope("s-1", "lineup.interaction.response", { interaction_id: sent.interactionId!, outcome: "answered", choice_ids: ["timer"] });
    await expect(answer).resolves.toMatchObject({ outcome: "answered", choiceIds: ["timer"], via: "envelope" });
    // An answer that already arrived is returned at once.
    await expect(client.awaitInteraction("s-1", sent.interactionId!)).resolves.toMatchObject({ choiceIds: ["timer"] });
  });

  it("an action.required round trip resolves too (approval → confirmed)", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    const client = await connect(server);
    await waitFor(() => client.session("s-1") !== undefined, "session");
    const action = await client.requestAction("s-1", { kind: "approval", prompt: "Delete the board?" });
    const answer = client.awaitInteraction("s-1", action.action_id);
    server.respondAction("s-1", action.action_id, { outcome: "approved" });
    await expect(answer).resolves.toMatchObject({ outcome: "answered", confirmed: true, via: "action" });
  });

  it("awaitInteraction rejects with expired after its timeout, and with request_cancelled on close", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    const client = await connect(server);
    await waitFor(() => client.session("s-1") !== undefined, "session");
    await expect(client.awaitInteraction("s-1", "never", { timeoutMs: 20 })).rejects.toMatchObject({ code: "expired" });
    const pending = client.awaitInteraction("s-1", "never-either");
    await client.close();
    await expect(pending).rejects.toMatchObject({ code: "request_cancelled" });
  });
});

describe("tool calls", () => {
  async function setup(): Promise<{ server: FakeAppServer; client: AgentClient }> {
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.publishInventory("s-1", 3, [tool("whiteboard", "board.create", { timeout_ms: 10_000 }), tool("pomodoro", "pomodoro.start")]);
    const client = await connect(server);
    await waitFor(() => client.inventory("s-1")?.revision === 3, "inventory");
    return { server, client };
  }

  it("sends lineup.tool.invoke with call_id and inventory_revision; progress streams; one result resolves", async () => {
    const { server, client } = await setup();
    server.onAgentEnvelope = (sessionId, envelope) => {
      if (envelope.type !== "lineup.tool.invoke") return;
      const correlation = { call_id: envelope.correlation!.call_id!, reply_to: envelope.id };
      server.deviceEnvelope(sessionId, "lineup.tool.receipt", { status: "accepted", tool: { method: "board.create", title: "Create a whiteboard" } }, correlation, "whiteboard");
      server.deviceEnvelope(sessionId, "lineup.tool.progress", { stage: "opening", progress: 0.5 }, correlation, "whiteboard");
      server.deviceEnvelope(sessionId, "lineup.tool.result", { result: { board_id: "b1" } }, correlation, "whiteboard");
      server.deviceEnvelope(sessionId, "lineup.tool.result", { result: { board_id: "b2" } }, correlation, "whiteboard");
    };
    const call = client.invokeTool("s-1", "board.create", { title: "Cats" });
    const updates: ToolCallUpdate[] = [];
    for await (const update of call.progress) updates.push(update);
    await expect(call.result).resolves.toEqual({ board_id: "b1" });
    expect(updates).toEqual([
      { type: "receipt", status: "accepted", tool: { method: "board.create", title: "Create a whiteboard" } },
      { type: "progress", stage: "opening", progress: 0.5 },
    ]);
    const [invoke] = server.agentEnvelopes("s-1", "lineup.tool.invoke");
    expect(invoke!.correlation).toEqual({ call_id: call.callId, inventory_revision: "3" });
    expect(invoke!.target).toEqual({ kind: "app", app_scope: "whiteboard" });
    expect(invoke!.payload).toEqual({ method: "board.create", contract_version: "1", arguments: { title: "Cats" } });
    await waitFor(() => client.stats().duplicateTerminals === 1, "the second terminal is counted");
  });

  it("rejects with the Runtime's typed error", async () => {
    const { server, client } = await setup();
    server.onAgentEnvelope = (sessionId, envelope) => {
      if (envelope.type === "lineup.tool.invoke") {
        server.deviceEnvelope(sessionId, "lineup.tool.error", { code: "cancelled_by_user", message: "the user said no" }, { call_id: envelope.correlation!.call_id! });
      }
    };
    const call = client.invokeTool("s-1", "pomodoro.start", {});
    const error = await call.result.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LineUpError);
    expect((error as LineUpError).code).toBe("cancelled_by_user");
  });

  it("refuses a method that is not in the inventory without sending anything", async () => {
    const { server, client } = await setup();
    const call = client.invokeTool("s-1", "voice.request_recording", {});
    await expect(call.result).rejects.toMatchObject({ code: "tool_not_visible" });
    expect(server.agentEnvelopes("s-1", "lineup.tool.invoke")).toHaveLength(0);
  });

  it("times out with operation_expired, tells the Runtime, and counts a late result", async () => {
    const { server, client } = await setup();
    const call = client.invokeTool("s-1", "board.create", {}, { timeoutMs: 30 });
    await expect(call.result).rejects.toMatchObject({ code: "operation_expired" });
    await waitFor(() => server.agentEnvelopes("s-1", "lineup.tool.cancel").length === 1, "the cancel envelope");
    expect(server.agentEnvelopes("s-1", "lineup.tool.cancel")[0]!.correlation).toEqual({ call_id: call.callId });
    server.deviceEnvelope("s-1", "lineup.tool.result", { result: {} }, { call_id: call.callId });
    await waitFor(() => client.stats().lateTerminals === 1, "late terminal counted");
  });

  it("an abort signal cancels the call", async () => {
    const { client } = await setup();
    const controller = new AbortController();
    const call = client.invokeTool("s-1", "board.create", {}, { signal: controller.signal });
    controller.abort();
    await expect(call.result).rejects.toMatchObject({ code: "request_cancelled" });
  });

  it("a call the log already holds is followed, not sent again: its receipts, progress and result from the log, then live; another call under its id is refused duplicate_call", async () => {
    const { server, client } = await setup();
    let invokes = 0;
    server.onAgentEnvelope = (sessionId, envelope) => {
      if (envelope.type !== "lineup.tool.invoke") return;
      invokes += 1;
      const correlation = { call_id: envelope.correlation!.call_id! };
      server.deviceEnvelope(sessionId, "lineup.tool.receipt", { status: "accepted" }, correlation, "whiteboard");
      server.deviceEnvelope(sessionId, "lineup.tool.progress", { stage: "opening", progress: 0.5 }, correlation, "whiteboard");
    };
    client.invokeTool("s-1", "board.create", { title: "Cats" }, { callId: "c-1" });
    await waitFor(() => client.toolCalls("s-1")[0]?.outputs.length === 2, "the call and its updates in the log");
    expect(client.toolCalls("s-1")).toMatchObject([{ callId: "c-1", appScope: "whiteboard", method: "board.create", arguments: { title: "Cats" }, ended: false }]);

    // What a restarted process does, on this client's view of the log: follow the same call.
    const again = client.invokeTool("s-1", "board.create", { title: "Cats" }, { callId: "c-1" });
    const updates: ToolCallUpdate[] = [];
    const collected = (async () => {
      for await (const update of again.progress) updates.push(update);
    })();
    server.deviceEnvelope("s-1", "lineup.tool.result", { result: { board_id: "b1" } }, { call_id: "c-1" }, "whiteboard");
    await expect(again.result).resolves.toEqual({ board_id: "b1" });
    await collected;
    expect(updates).toEqual([
      { type: "receipt", status: "accepted" },
      { type: "progress", stage: "opening", progress: 0.5 },
    ]);
    expect(invokes).toBe(1);
    expect(client.toolCalls("s-1")[0]).toMatchObject({ ended: true });

    // Ended: followed again, it resolves from the log at once.
    await expect(client.invokeTool("s-1", "board.create", { title: "Cats" }, { callId: "c-1" }).result).resolves.toEqual({ board_id: "b1" });
    // Another call under the same id: refused as the Runtime would, nothing sent.
    await expect(client.invokeTool("s-1", "board.create", { title: "Dogs" }, { callId: "c-1" }).result).rejects.toMatchObject({ code: "duplicate_call" });
    expect(invokes).toBe(1);
  });

  it("every pending call is rejected on close", async () => {
    const { client } = await setup();
    const call = client.invokeTool("s-1", "board.create", {});
    await client.close();
    await expect(call.result).rejects.toMatchObject({ code: "request_cancelled" });
  });
});

describe("reconnect and resume", () => {
  it("resumes every session after its cursor: no gap, no duplicate, across repeated drops", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.startSession("s-2");
    const client = await connect(server);
    const seen: SessionEvent[] = [];
    client.onEvent((e) => seen.push(e));
    await waitFor(() => client.cursor("s-1") === 1 && client.cursor("s-2") === 1, "initial catch-up");
    for (let round = 0; round < 5; round++) {
      server.dropConnections();
      // The device keeps writing while the agent is away.
      server.deviceEnvelope("s-1", "lineup.runtime.notice", { level: "info", message: `offline ${round}` });
      server.deviceEnvelope("s-2", "lineup.runtime.notice", { level: "info", message: `offline ${round}` });
      await waitFor(() => client.state === "online" && server.connections.size === 1, `reconnect ${round}`);
      server.deviceEnvelope("s-1", "lineup.runtime.notice", { level: "info", message: `online ${round}` });
    }
    await waitFor(() => client.cursor("s-1") === 11 && client.cursor("s-2") === 6, "everything applied");
    for (const id of ["s-1", "s-2"]) {
      const seqs = seen.filter((e) => e.session_id === id).map((e) => e.seq);
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    }
    expect(client.stats().connects).toBe(6);
    expect(client.stats().seqGaps).toBe(0);
  });

  it("recovers an event the server never sent, by polling the head (the safety-net poll of a sessions.bound server)", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    const client = await connect(server, { boundSessionPollMs: 20 });
    const turns: string[] = [];
    client.onTurn((t) => turns.push(t.turnId));
    await waitFor(() => client.cursor("s-1") === 1, "caught up");
    server.loseLiveEvents = 1;
    server.startTurn("s-1", "lost at the seam", "t-1");
    await waitFor(() => turns.length === 1, "the lost turn after a resync");
    expect(client.stats().resyncs).toBe(1);
    expect(client.cursor("s-1")).toBe(2);
  });

  it("steps over an event it cannot read instead of stalling on it", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    const client = await connect(server);
    const turns: string[] = [];
    client.onTurn((t) => turns.push(t.turnId));
    await waitFor(() => client.cursor("s-1") === 1, "caught up");
    // A newer server's event kind, which this client's schemas do not know.
    server.appendRaw("s-1", "session.renamed", { title: "x" });
    server.startTurn("s-1", "after the unknown event", "t-1");
    await waitFor(() => turns.length === 1, "the turn after it");
    expect(client.stats().invalidEvents).toBe(1);
    expect(client.stats().seqGaps).toBe(0);
    expect(client.cursor("s-1")).toBe(3);
  });

  it("a write whose answer was lost is retried with the same key and applied once", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    const client = await connect(server);
    await waitFor(() => client.session("s-1") !== undefined, "session");
    server.dropResponseOf("agentSession/envelope/send");
    const receipt = await client.send("s-1", { kind: "text", text: "once" });
    expect(server.agentEnvelopes("s-1", "lineup.message")).toHaveLength(1);
    expect(receipt.envelopeId).toBe(server.agentEnvelopes("s-1", "lineup.message")[0]!.id);
    const keys = server.requests.filter((r) => r.method === "agentSession/envelope/send").map((r) => r.params["idempotency_key"]);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
    expect(client.stats().requestRetries).toBeGreaterThanOrEqual(1);
  });

  it("waits through an outage and reconnects with backoff", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    const client = await connect(server);
    const states: string[] = [];
    client.onStateChange((s) => states.push(s));
    server.refuseConnections = true;
    server.dropConnections();
    await new Promise((r) => setTimeout(r, 60));
    expect(client.state).toBe("reconnecting");
    server.refuseConnections = false;
    server.startTurn("s-1", "are you there?", "t-1");
    const turn = new Promise<string>((resolve) => client.onTurn((t) => resolve(t.turnId)));
    await expect(turn).resolves.toBe("t-1");
    expect(states).toEqual(["reconnecting", "online"]);
  });

  it("a wrong token is refused at once with unauthorized", async () => {
    const server = new FakeAppServer();
    await expect(connectToFake(server, { token: "nope" })).rejects.toMatchObject({ code: "unauthorized" });
  });
});

describe("app events and state patches (spec 8.2, 5.4)", () => {
  it("hears the events apps raised on the device, history and live apart, and nothing else", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.deviceAppEvent("s-1", "draw-and-guess", "drawing.done", { strokes: 4 });
    const client = await connect(server);
    const heard: string[] = [];
    client.onAppEvent((event, info) => heard.push(`${event.appScope}/${event.instanceId} ${event.name} ${JSON.stringify(event.data)} #${event.seq} ${info.live ? "live" : "history"}`));
    await waitFor(() => client.cursor("s-1") === 2, "caught up");
    // Not app events: a tool result from the device, and an envelope whose sender is not the app it is about.
    server.deviceEnvelope("s-1", "lineup.tool.result", { result: null }, { call_id: "call-1" });
    server.deviceAppEvent("s-1", "whiteboard", "stroke.added", {}, { senderId: "draw-and-guess" });
    server.deviceAppEvent("s-1", "whiteboard", "stroke.added", { points: 3 });
    await waitFor(() => client.cursor("s-1") === 5, "the live events");
    expect(heard).toEqual(['draw-and-guess/inst-7 drawing.done {"strokes":4} #2 history', 'whiteboard/inst-7 stroke.added {"points":3} #5 live']);
  });

  it("sends a state patch to an app, or to one instance of it, as the agent", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    const client = await connect(server);
    await waitFor(() => client.session("s-1") !== undefined, "the session");
    await client.sendStatePatch("s-1", { appScope: "whiteboard", instanceId: "inst-7", patch: { title: "Plan" }, baseRevision: 3 });
    await client.sendStatePatch("s-1", { appScope: "whiteboard", patch: { zoom: 2 } });
    const sent = server.agentEnvelopes("s-1", "lineup.app.state.patch");
    expect(sent.map((e) => ({ sender: e.sender, target: e.target, scope: e.scope, payload: e.payload }))).toEqual([
      { sender: { kind: "agent", id: "demo-agent" }, target: { kind: "app", app_scope: "whiteboard", instance_id: "inst-7" }, scope: { app_scope: "whiteboard", conversation_id: "s-1" }, payload: { patch: { title: "Plan" }, base_revision: 3 } },
      { sender: { kind: "agent", id: "demo-agent" }, target: { kind: "app", app_scope: "whiteboard" }, scope: { app_scope: "whiteboard", conversation_id: "s-1" }, payload: { patch: { zoom: 2 } } },
    ]);
    await expect(client.sendStatePatch("s-9", { appScope: "whiteboard", patch: {} })).rejects.toMatchObject({ code: "session_not_found" });
  });
});
