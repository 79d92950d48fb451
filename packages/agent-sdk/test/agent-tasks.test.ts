/**
 * In-app agent tasks on the agent's side: a task turn as the agent gets it, its output checked before it is
 * sent, the tools it may use, the demo agent's answers to the shipped apps' entries, and the apps' decisions
 * on results, handed over once.
 */
import { LineUpError, type JsonObject, type SessionEvent, type TaskTurnOptions, type Turn } from "@lineup/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { runDemoAgent, sequentialIds, taskOfTurn, toolsForTurn, type AgentClient, type Clock, type DemoAgent, type EventInfo, type IncomingTurn, type TaskDecision } from "../src/index.js";
import { FakeAppServer, tool } from "./fake-app-server.js";
import { connectToFake, waitFor } from "./helpers.js";

const clients: AgentClient[] = [];
const agents: DemoAgent[] = [];
afterEach(async () => {
  for (const agent of agents.splice(0)) agent.dispose();
  for (const client of clients.splice(0)) await client.close();
});

/** A connected client, caught up on every session; `listen` runs first, as an agent's process does right after connecting. */
async function connect(server: FakeAppServer, from = 1, listen: (client: AgentClient) => void = () => undefined): Promise<AgentClient> {
  const client = await connectToFake(server, { ids: sequentialIds(from) });
  clients.push(client);
  listen(client);
  await waitFor(() => [...server.sessions.keys()].every((id) => client.cursor(id) === server.sessions.get(id)!.session.last_seq), "caught up");
  return client;
}

async function demo(server: FakeAppServer, from = 1, options: Parameters<typeof runDemoAgent>[1] = {}): Promise<{ client: AgentClient; agent: DemoAgent }> {
  let agent: DemoAgent | undefined;
  const client = await connect(server, from, (connected) => {
    agent = runDemoAgent(connected, { noteWordMs: 5, ...options });
    agents.push(agent);
  });
  return { client, agent: agent! };
}

/** `options.lineup_task` as the device's Runtime sends it. */
function taskOptions(entry: string, more: Partial<TaskTurnOptions> = {}): JsonObject {
  const task: TaskTurnOptions = {
    task_id: "task-1",
    attempt: 1,
    entry,
    provenance: { app_scope: "task-dashboard", app_version: "1.0.0" },
    requested_tools: [],
    knowledge: [],
    trace_id: "trace-1",
    ...more,
  };
  return { lineup_task: task as unknown as JsonObject };
}

const TIDY_SCHEMA: JsonObject = {
  type: "object",
  required: ["layout", "summary"],
  additionalProperties: false,
  properties: {
    layout: { type: "array", items: { type: "object", required: ["id", "x", "y"], additionalProperties: false, properties: { id: { type: "string" }, x: { type: "number" }, y: { type: "number" } } } },
    summary: { type: "string" },
  },
};
const FILES_SCHEMA: JsonObject = {
  type: "object",
  required: ["summary", "files"],
  additionalProperties: false,
  properties: {
    summary: { type: "string" },
    files: {
      type: "array",
      items: {
        type: "object",
        required: ["name", "lines", "words", "first_line"],
        additionalProperties: false,
        properties: { name: { type: "string" }, lines: { type: "integer", minimum: 0 }, words: { type: "integer", minimum: 0 }, first_line: { type: "string" } },
      },
    },
  },
};
const PLAN_SCHEMA: JsonObject = {
  type: "object",
  required: ["days", "unscheduled"],
  additionalProperties: false,
  properties: {
    days: { type: "array", items: { type: "object", required: ["day", "items"], additionalProperties: false, properties: { day: { type: "string" }, items: { type: "array", items: { type: "string" } } } } },
    unscheduled: { type: "array", items: { type: "string" } },
  },
};
const NOTE_SCHEMA: JsonObject = { type: "object", required: ["title", "text"], additionalProperties: false, properties: { title: { type: "string" }, text: { type: "string" } } };

const BOARD = {
  board: {
    width: 800,
    height: 600,
    items: [
      { id: "a", x: 5, y: 5, w: 100, h: 50, label: "Zebra" },
      { id: "e", x: 0, y: 0, w: 20, h: 20 },
      { id: "c", x: 1, y: 1, w: 120, h: 40, label: "apple" },
      { id: "d", x: 0, y: 0, w: 10, h: 10, label: "Mango" },
      { id: "b", x: 0, y: 0, w: 80, h: 60, label: "" },
    ],
  },
};

/** A clock that moves only when the test says. */
function manualClock(): { clock: Clock; advance(ms: number): void; pending(): number } {
  let now = 0;
  let next = 0;
  const timers = new Map<number, { at: number; callback: () => void }>();
  return {
    clock: {
      now: () => now,
      setTimeout: (callback, ms) => {
        timers.set(++next, { at: now + ms, callback });
        return next;
      },
      clearTimeout: (handle) => void timers.delete(handle as number),
    },
    advance(ms) {
      now += ms;
      for (const [handle, timer] of [...timers].sort(([, a], [, b]) => a.at - b.at)) {
        if (timer.at > now) continue;
        timers.delete(handle);
        timer.callback();
      }
    },
    pending: () => timers.size,
  };
}

async function turnEnds(server: FakeAppServer, turnId: string, sessionId = "s-1"): Promise<Turn> {
  await waitFor(() => ["completed", "failed"].includes(server.turn(sessionId, turnId)?.state ?? ""), `turn ${turnId} to end`);
  return server.turn(sessionId, turnId)!;
}

const completions = (server: FakeAppServer, outcome: "completed" | "failed") => server.requests.filter((r) => r.method === "agentSession/turn/complete" && r.params["outcome"] === outcome);

const textDeltas = (server: FakeAppServer, sessionId = "s-1") =>
  server.eventsOf(sessionId).flatMap((e: SessionEvent) => {
    const delta = e.kind === "turn.updated" ? (e.data as { text_delta?: unknown }).text_delta : undefined;
    return typeof delta === "string" ? [{ seq: e.seq, text: delta }] : [];
  });

describe("a task turn as the agent gets it", () => {
  it("reads the task from options.lineup_task, with the turn's output schema; an ordinary or malformed turn has none", () => {
    const base: Turn = { turn_id: "t-1", session_id: "s-1", state: "running", queue: "enqueue", input: { text: "x" }, created_at: "2026-12-01T09:00:00.000Z", updated_at: "2026-12-01T09:00:00.000Z", started_seq: 2 };
    expect(taskOfTurn(base)).toBeUndefined();
    expect(taskOfTurn({ ...base, options: { other: true } })).toBeUndefined();
    // Missing its provenance: not a task the agent can trust to be one.
    expect(taskOfTurn({ ...base, options: { lineup_task: { task_id: "task-1", attempt: 1, entry: "plan_week", trace_id: "tr", requested_tools: [], knowledge: [] } } as unknown as NonNullable<Turn["options"]> })).toBeUndefined();
    const task = taskOfTurn({ ...base, options: taskOptions("plan_week"), output_schema: PLAN_SCHEMA });
    expect(task).toMatchObject({ task_id: "task-1", entry: "plan_week", provenance: { app_scope: "task-dashboard" }, output_schema: PLAN_SCHEMA });
    expect(taskOfTurn({ ...base, options: taskOptions("plan_week") })).not.toHaveProperty("output_schema");
  });

  it("hands a task turn over with `task` set, and a chat turn without", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    const client = await connect(server);
    const turns: IncomingTurn[] = [];
    const subscription = client.onTurn((turn) => turns.push(turn));
    server.startTurn("s-1", "Plan it", "t-1", { options: taskOptions("plan_week", { title: "Plan my week", context: { week: 49 } }), output_schema: PLAN_SCHEMA });
    await waitFor(() => turns.length === 1, "the task turn");
    expect(turns[0]!.task).toMatchObject({ entry: "plan_week", title: "Plan my week", context: { week: 49 }, output_schema: PLAN_SCHEMA, trace_id: "trace-1" });
    await client.completeTurn("s-1", "t-1", { output: { days: [], unscheduled: [] } });
    server.startTurn("s-1", "hello", "t-2");
    await waitFor(() => turns.length === 2, "the chat turn");
    expect(turns[1]!.task).toBeUndefined();
    subscription.dispose();
  });

  it("refuses an output that does not match the schema before sending it: a typed invalid_result with the pointer, the turn still running", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    const client = await connect(server);
    server.startTurn("s-1", "tidy", "t-1", { options: taskOptions("tidy_board"), output_schema: TIDY_SCHEMA });
    await waitFor(() => server.turn("s-1", "t-1")?.state === "running" && client.cursor("s-1") === server.sessions.get("s-1")!.session.last_seq, "the turn");

    const wrong = await client.completeTurn("s-1", "t-1", { output: { layout: [{ id: "a", x: "12", y: 3 }], summary: "done" } }).catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(LineUpError);
    expect(wrong).toMatchObject({ code: "invalid_result", path: "/layout/0/x" });
    const missing = await client.completeTurn("s-1", "t-1", { text: "no output" }).catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: "invalid_result", path: "" });
    const extra = await client.completeTurn("s-1", "t-1", { output: { layout: [], summary: "ok", note: "extra" } }).catch((e: unknown) => e);
    expect(extra).toMatchObject({ code: "invalid_result" });
    expect(server.requestCount("agentSession/turn/complete")).toBe(0);
    expect(server.turn("s-1", "t-1")!.state).toBe("running");

    const output = { layout: [{ id: "a", x: 24, y: 24 }], summary: "Arranged 1 items in a 1×1 grid." };
    await client.completeTurn("s-1", "t-1", { output });
    expect(server.turn("s-1", "t-1")).toMatchObject({ state: "completed", output });
  });
});

describe("the tools of a turn", () => {
  const inventory = [tool("whiteboard", "board.read"), tool("whiteboard", "board.add_shapes"), tool("pomodoro", "pomodoro.start"), tool("other", "board.read")];
  const task = (requested: TaskTurnOptions["requested_tools"]) => ({ task: taskOfTurn({ turn_id: "t", session_id: "s", state: "running", queue: "enqueue", input: { text: "" }, created_at: "x", updated_at: "x", started_seq: 1, options: taskOptions("tidy_board", { requested_tools: requested }) })! });

  it("are, for a task, only the inventory's tools it requested (by app and method); none when it requested none", () => {
    expect(toolsForTurn(inventory, task([{ app_scope: "whiteboard", method: "board.read" }]))).toEqual([inventory[0]]);
    expect(toolsForTurn({ revision: 3, tools: inventory }, task([{ app_scope: "pomodoro", method: "pomodoro.start" }, { app_scope: "voice", method: "voice.record" }]))).toEqual([inventory[2]]);
    expect(toolsForTurn(inventory, task([]))).toEqual([]);
    expect(toolsForTurn(undefined, task([{ app_scope: "whiteboard", method: "board.read" }]))).toEqual([]);
  });

  it("are, for an ordinary turn, the whole inventory", () => {
    expect(toolsForTurn(inventory, {})).toEqual(inventory);
    expect(toolsForTurn({ revision: 1, tools: inventory }, {})).toEqual(inventory);
  });
});

describe("the demo agent answering apps' tasks", () => {
  it("tidy_board: the items sorted by label in a grid of ceil(√n) columns, cells of the largest item plus 24, from (24, 24)", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    await demo(server);
    server.startTurn("s-1", "", "t-1", { input: { content: {} }, options: taskOptions("tidy_board", { provenance: { app_scope: "whiteboard", app_version: "2.0.0" }, context: BOARD }), output_schema: TIDY_SCHEMA });
    const turn = await turnEnds(server, "t-1");
    expect(turn.state).toBe("completed");
    // 5 items: 3 columns, 2 rows; cells 120 + 24 wide, 60 + 24 high. An empty label is no label.
    expect(turn.output).toEqual({
      layout: [
        { id: "c", x: 24, y: 24 },
        { id: "d", x: 168, y: 24 },
        { id: "a", x: 312, y: 24 },
        { id: "b", x: 24, y: 108 },
        { id: "e", x: 168, y: 108 },
      ],
      summary: "Arranged 5 items in a 3×2 grid.",
    });
    // A task is answered in its own card, not in the chat.
    expect(server.agentEnvelopes("s-1", "lineup.message")).toEqual([]);
  });

  it("tidy_board without a board in its context fails the task invalid_params, saying what it needs", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    await demo(server);
    server.startTurn("s-1", "tidy", "t-1", { options: taskOptions("tidy_board", { context: { board: { items: [{ id: "a", w: "wide", h: 1 }] } } }), output_schema: TIDY_SCHEMA });
    const turn = await turnEnds(server, "t-1");
    expect(turn).toMatchObject({ state: "failed", error: { code: "invalid_params" } });
    expect(turn.error!.message).toContain("tidy_board needs each item's w");
  });

  it("summarize_files: reads each attachment (in chunks) and counts its lines and words, with its first line", async () => {
    const server = new FakeAppServer();
    server.artifactChunkBytes = 8;
    server.startSession("s-1");
    const encoder = new TextEncoder();
    const notes = await server.putArtifact("s-1", "notes.txt", "text/plain", encoder.encode("First line\nsecond line here\n\nlast one\n"));
    const todo = await server.putArtifact("s-1", "todo.md", "text/markdown", encoder.encode("  \n  - buy milk\n- call Ada"));
    const blob = await server.putArtifact("s-1", "photo.bin", "application/octet-stream", new Uint8Array([0xff, 0xfe, 0x00, 0x81]));
    await demo(server);
    server.startTurn("s-1", "", "t-1", { input: { text: "Summarize these", attachments: [notes, todo, blob] }, options: taskOptions("summarize_files"), output_schema: FILES_SCHEMA });
    const turn = await turnEnds(server, "t-1");
    expect(turn.state).toBe("completed");
    expect(turn.output).toEqual({
      summary: "Read 3 files: 7 lines and 13 words in all. The longest is notes.txt (4 lines). One file is not text and counted as empty.",
      files: [
        { name: "notes.txt", lines: 4, words: 7, first_line: "First line" },
        { name: "todo.md", lines: 3, words: 6, first_line: "- buy milk" },
        { name: "photo.bin", lines: 0, words: 0, first_line: "" },
      ],
    });
    expect(server.requestCount("artifact/read")).toBeGreaterThan(3);
    const labels = server.eventsOf("s-1").flatMap((e) => (e.kind === "turn.updated" && typeof (e.data as { label?: unknown }).label === "string" ? [(e.data as { label: string }).label] : []));
    expect(labels).toEqual(expect.arrayContaining(["Reading notes.txt", "Reading todo.md", "Reading photo.bin"]));
  });

  it("plan_week: one note per line, Monday to Friday round-robin in order; '?' lines unscheduled, without the '?'", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    // The whiteboard is here, and the notes name it: a task is never read as a chat request.
    server.publishInventory("s-1", 1, [tool("whiteboard", "board.create", { input_schema: { type: "object", properties: { title: { type: "string" } } } })]);
    await demo(server);
    const notes = "open the whiteboard\n?Maybe gym\nCall Ada\n\n  Review PR  \nPlan sprint\nTeam lunch\n? someday: learn piano\nDentist";
    server.startTurn("s-1", notes, "t-1", { options: taskOptions("plan_week"), output_schema: PLAN_SCHEMA });
    const turn = await turnEnds(server, "t-1");
    expect(turn.state).toBe("completed");
    expect(turn.output).toEqual({
      days: [
        { day: "Monday", items: ["open the whiteboard", "Dentist"] },
        { day: "Tuesday", items: ["Call Ada"] },
        { day: "Wednesday", items: ["Review PR"] },
        { day: "Thursday", items: ["Plan sprint"] },
        { day: "Friday", items: ["Team lunch"] },
      ],
      unscheduled: ["Maybe gym", "someday: learn piano"],
    });
    expect(server.agentEnvelopes("s-1", "lineup.tool.invoke")).toEqual([]);
    expect(server.agentEnvelopes("s-1", "lineup.message")).toEqual([]);
  });

  it("write_note: streams the note word by word as the turn's text, then completes with its title and text", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    await demo(server);
    server.startTurn("s-1", "  the   garden ", "t-1", { options: taskOptions("write_note"), output_schema: NOTE_SCHEMA });
    const turn = await turnEnds(server, "t-1");
    expect(turn.state).toBe("completed");
    const output = turn.output as { title: string; text: string };
    expect(output.title).toBe("A note on the garden");
    expect(output.text.startsWith("The garden deserves a few quiet minutes.")).toBe(true);
    const words = output.text.split(" ").length;
    expect(words).toBeGreaterThanOrEqual(35);
    expect(words).toBeLessThanOrEqual(50);
    const deltas = textDeltas(server);
    // Word by word: the text grew in many updates, all before the completion, and adds up to the note.
    expect(deltas.length).toBeGreaterThan(words / 2);
    expect(deltas.map((d) => d.text).join("")).toBe(output.text);
    const completedAt = server.eventsOf("s-1").find((e) => e.kind === "turn.completed")!.seq;
    expect(Math.max(...deltas.map((d) => d.seq))).toBeLessThan(completedAt);
  });

  it("write_note cancelled mid-stream: stops at once, its wait for the next word given up, and sends nothing more for the turn", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    // The note's words come when the test moves this clock: nothing here depends on how fast the machine is.
    const time = manualClock();
    const { agent } = await demo(server, 1, { noteWordMs: 100, clock: time.clock });
    server.startTurn("s-1", "the garden", "t-1", { options: taskOptions("write_note"), output_schema: NOTE_SCHEMA });
    await waitFor(() => textDeltas(server).length === 1, "the first word");
    for (let word = 2; word <= 4; word++) {
      await waitFor(() => time.pending() > 0, "the wait for the next word");
      time.advance(100);
      await waitFor(() => textDeltas(server).length === word, `word ${word}`);
    }
    await waitFor(() => time.pending() > 0, "the wait for the fifth word");
    server.cancelTurn("s-1", "t-1");
    let idle = false;
    void agent.idle().then(() => (idle = true));
    // Without moving the clock: the wait for the next word ends with the cancel.
    await waitFor(() => idle, "the agent done with the turn");
    expect(time.pending()).toBe(0);
    const after = server.requests.length;
    time.advance(10_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.requests.slice(after).map((r) => r.method).filter((m) => m !== "agentSession/list" && m !== "capability/list")).toEqual([]);
    expect(textDeltas(server).map((d) => d.text)).toEqual(["The", " garden", " deserves", " a"]);
    expect(server.requestCount("agentSession/turn/complete")).toBe(0);
    expect(server.turn("s-1", "t-1")!.state).toBe("cancelled");
  });

  it("an entry it does not know fails the task invalid_params, naming the entry; nothing is said in the chat", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    await demo(server);
    server.startTurn("s-1", "hello", "t-1", { options: taskOptions("translate_text"), output_schema: NOTE_SCHEMA });
    const turn = await turnEnds(server, "t-1");
    expect(turn).toMatchObject({ state: "failed", error: { code: "invalid_params" } });
    expect(turn.error!.message).toContain('"translate_text"');
    expect(server.agentEnvelopes("s-1", "lineup.message")).toEqual([]);
  });

  it("an answer the app's schema does not allow is refused before it is sent: the task fails invalid_result", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    await demo(server);
    const schema: JsonObject = { type: "object", required: ["moves"], properties: { moves: { type: "array" } } };
    server.startTurn("s-1", "", "t-1", { input: { content: {} }, options: taskOptions("tidy_board", { context: BOARD }), output_schema: schema });
    const turn = await turnEnds(server, "t-1");
    expect(turn).toMatchObject({ state: "failed", error: { code: "invalid_result" } });
    expect(turn.error!.message).toContain("/moves");
    expect(completions(server, "completed")).toEqual([]);
  });
});

describe("apps' decisions on task results", () => {
  const decisionsOf = (client: AgentClient): { decision: TaskDecision; info: EventInfo }[] => {
    const seen: { decision: TaskDecision; info: EventInfo }[] = [];
    client.onTaskDecision((decision, info) => seen.push({ decision, info }));
    return seen;
  };

  it("are handed over once each: not again after a reconnect, nor to a restarted agent reading the history", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    const client = await connect(server);
    const seen = decisionsOf(client);
    const seq = server.taskDecision("s-1", "whiteboard", { task_id: "task-1", turn_id: "t-1", decision: "rejected", reason: "Too crowded" });
    server.taskDecision("s-1", "task-dashboard", { task_id: "task-2", turn_id: "t-2", decision: "accepted" });
    await waitFor(() => seen.length === 2, "the decisions");
    expect(seen[0]).toMatchObject({ decision: { sessionId: "s-1", seq, appScope: "whiteboard", taskId: "task-1", turnId: "t-1", decision: "rejected", reason: "Too crowded" }, info: { live: true } });
    expect(seen[1]!.decision).toMatchObject({ appScope: "task-dashboard", taskId: "task-2", decision: "accepted" });
    expect(seen[1]!.decision).not.toHaveProperty("reason");

    // A decision made while the connection was down is new to this client: handed over once it is back.
    server.refuseConnections = true;
    server.dropConnections();
    await waitFor(() => client.state === "reconnecting", "the connection lost");
    server.taskDecision("s-1", "whiteboard", { task_id: "task-3", turn_id: "t-3", decision: "rejected", reason: "Wrong colours" });
    server.refuseConnections = false;
    await waitFor(() => client.state === "online" && client.cursor("s-1") === server.sessions.get("s-1")!.session.last_seq, "caught up again");
    await waitFor(() => seen.length === 3, "the decision made meanwhile");
    expect(seen[2]!.decision).toMatchObject({ taskId: "task-3", reason: "Wrong colours" });

    // The agent restarts: the history it reads again is not handed over again; a new decision is.
    await client.close();
    let seenAfter: { decision: TaskDecision; info: EventInfo }[] = [];
    const restarted = await connect(server, 1_000, (connected) => (seenAfter = decisionsOf(connected)));
    server.startTurn("s-1", "hello", "t-9");
    await waitFor(() => restarted.cursor("s-1") === server.sessions.get("s-1")!.session.last_seq, "caught up");
    expect(seenAfter).toEqual([]);
    server.taskDecision("s-1", "whiteboard", { task_id: "task-4", turn_id: "t-4", decision: "accepted" });
    await waitFor(() => seenAfter.length === 1, "the new decision");
    expect(seenAfter[0]!.decision.taskId).toBe("task-4");
    expect(seen).toHaveLength(3);
    // A model reading the conversation learns of them where they happened.
    expect(restarted.transcript("s-1").filter((e) => e.role === "runtime").map((e) => e.text)).toContain("The whiteboard app rejected the result of its task task-1 (turn t-1): Too crowded");
  });

  it("a decision that does not come from an app's task is not one", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    const client = await connect(server);
    const seen = decisionsOf(client);
    // The runtime itself as sender, or a payload without its turn: ignored.
    server.deviceEnvelope("s-1", "lineup.task.decision", { task_id: "task-1", turn_id: "t-1", decision: "accepted" }, {}, "whiteboard");
    server.appendRaw("s-1", "envelope", { envelope: { v: 1, id: "e-9", type: "lineup.task.decision", timestamp: new Date().toISOString(), sender: { kind: "app", id: "whiteboard" }, target: { kind: "runtime", app_scope: "runtime" }, scope: { app_scope: "whiteboard", conversation_id: "s-1" }, payload: { task_id: "task-1", decision: "accepted" } } });
    server.taskDecision("s-1", "whiteboard", { task_id: "task-2", turn_id: "t-2", decision: "accepted" });
    await waitFor(() => seen.length === 1, "the one real decision");
    expect(seen[0]!.decision.taskId).toBe("task-2");
  });

  it("the demo agent acknowledges a rejection with a reason, once, even across a restart; an acceptance gets no word", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    const first = await demo(server);
    const texts = () => server.agentEnvelopes("s-1", "lineup.message").map((e) => e.payload);
    const rejected = server.taskDecision("s-1", "whiteboard", { task_id: "task-1", turn_id: "t-1", decision: "rejected", reason: "  Keep the red ones together " });
    server.taskDecision("s-1", "whiteboard", { task_id: "task-2", turn_id: "t-2", decision: "accepted" });
    server.taskDecision("s-1", "whiteboard", { task_id: "task-3", turn_id: "t-3", decision: "rejected" });
    await waitFor(() => texts().length === 1, "the acknowledgement");
    expect(texts()).toEqual([{ format: "text", text: "Understood: Keep the red ones together" }]);
    const decisionId = (server.eventsOf("s-1").find((e) => e.seq === rejected)!.data as { envelope: { id: string } }).envelope.id;
    expect(server.agentEnvelopes("s-1", "lineup.message")[0]!.id).toBe(`${decisionId}.ack`);

    first.agent.dispose();
    await first.client.close();
    await demo(server, 1_000);
    server.startTurn("s-1", "hello", "t-9");
    await turnEnds(server, "t-9");
    // Its reply to "hello", and no second acknowledgement.
    expect(texts().filter((p) => (p as { text: string }).text.startsWith("Understood:"))).toHaveLength(1);
  });
});

describe("the demo agent opens the task dashboard", () => {
  it("reads 'open the task dashboard' as opening that app", async () => {
    const { parseIntent } = await import("../src/demo/intents.js");
    expect(parseIntent("open the task dashboard")).toEqual({ kind: "open_app", target: "task-dashboard" });
    expect(parseIntent("打开任务面板")).toEqual({ kind: "open_app", target: "task-dashboard" });
  });
});
