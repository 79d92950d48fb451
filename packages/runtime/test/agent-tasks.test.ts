/**
 * Apps' agent tasks in the Runtime (docs/protocol.md "In-app agent tasks"), against the fake AppServer: a task
 * is a durable record whose turn goes out through the outbox with what the agent must know; the log's turn
 * events become its numbered events; while it runs the agent may call only the tools it requested; its result
 * is checked against the app's schema; cancel, retry, resubmit, accept and reject do what they say and nothing
 * else; every bad request is a typed refusal with nothing written; and the record survives a restart.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryStoreData, type AppPort } from "../src/index.js";
import type { AgentTask, AgentTaskEvent, AgentTaskRequest, AppManifest, AppScope, JsonObject, ToolDescriptor } from "@lineup/protocol";
import { agentInvokes, device, onlineDevice, signedBundle, toolOutputs } from "./helpers/apps-harness.js";
import { boardCreate, boardSummary, whiteboardManifest } from "./apps-fixtures.js";
import { FakeAppServer, until, type Device } from "./helpers/runtime-harness.js";

const devices: Device[] = [];
afterEach(async () => {
  for (const d of devices.splice(0)) await d.stop();
});

const LAYOUT_SCHEMA: JsonObject = {
  type: "object",
  required: ["layout"],
  additionalProperties: false,
  properties: { layout: { type: "array", items: { type: "object", required: ["id", "x", "y"], properties: { id: { type: "string" }, x: { type: "number" }, y: { type: "number" } } } } },
};

/** The whiteboard, declaring one task entry that may use its own board.summary. */
function taskingBoard(extra: Partial<AppManifest> = {}): AppManifest {
  return whiteboardManifest("1.0.0", {
    runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1", "app.agent-task.v1"] },
    agent_tasks: { entries: [{ id: "tidy_board", title: "Tidy this board", tools: [{ method: (boardSummary as ToolDescriptor).method }] }] },
    ...extra,
  });
}

const tidy = (extra: Partial<AgentTaskRequest> = {}): AgentTaskRequest => ({
  entry: "tidy_board",
  title: "Tidy this board",
  input: { text: "Please tidy it" },
  context: { board: { width: 800, height: 600, items: [{ id: "a", x: 5, y: 7, w: 10, h: 10 }] } },
  requested_tools: [{ method: boardSummary.method }],
  output_schema: LAYOUT_SCHEMA,
  ...extra,
});

/** The task turn the server holds for `task`'s current attempt. */
function serverTurn(server: FakeAppServer, turnId: string): { input: JsonObject; options?: JsonObject; output_schema?: JsonObject; queue: string } | undefined {
  const started = server.sessions.get("s-1")?.events.find((e) => e.kind === "turn.started" && (e.data as { turn: { turn_id: string } }).turn.turn_id === turnId);
  return (started?.data as { turn: never } | undefined)?.turn;
}

/** Every event of the task, read the way an app reads them (pages from the store). */
async function eventsOf(port: AppPort, taskId: string): Promise<AgentTaskEvent[]> {
  const out: AgentTaskEvent[] = [];
  for (;;) {
    const page = await port.taskEvents(taskId, out.length, 2);
    if (page.length === 0) return out;
    out.push(...page);
  }
}

const kinds = (events: readonly AgentTaskEvent[]) => events.map((e) => (e.kind === "status" ? `status:${e.status}` : e.kind));

async function taskingDevice(): Promise<{ server: FakeAppServer; d: Device; board: AppPort; live: AgentTaskEvent[] }> {
  const { server, d } = await onlineDevice({ install: taskingBoard() });
  devices.push(d);
  const board = d.runtime.appPort("whiteboard");
  const live: AgentTaskEvent[] = [];
  board.subscribeTasks((event) => live.push(event));
  return { server, d, board, live };
}

describe("an app's agent task", () => {
  it("goes out as a turn that tells the agent everything; its events follow the log; the agent may use only the requested tools; accept tells the agent", async () => {
    const { server, d, board, live } = await taskingDevice();
    const task = await board.startTask(tidy(), { conversation_id: "s-1" });
    expect(task).toMatchObject({ app_scope: "whiteboard", conversation_id: "s-1", entry: "tidy_board", status: "queued", attempt: 1, event_count: 1 });
    await until(() => serverTurn(server, task.turn_id) !== undefined, 3_000, "the task's turn reaches the server");
    const turn = serverTurn(server, task.turn_id)!;
    expect(turn.input).toEqual({ text: "Please tidy it" });
    expect(turn.output_schema).toEqual(LAYOUT_SCHEMA);
    expect(turn.queue).toBe("enqueue");
    expect(turn.options).toMatchObject({
      lineup_task: {
        task_id: task.task_id,
        attempt: 1,
        entry: "tidy_board",
        provenance: { app_scope: "whiteboard", app_version: "1.0.0" },
        requested_tools: [{ app_scope: "whiteboard", method: boardSummary.method }],
        knowledge: [],
        trace_id: task.trace_id,
        context: tidy().context,
      },
    });
    expect((turn.options as { lineup_task: { provenance: { bundle_digest?: string } } }).lineup_task.provenance.bundle_digest).toMatch(/^sha256:[0-9a-f]{64}$/);

    await until(() => board.getTask(task.task_id).status === "running", 3_000, "running");
    server.agentUpdatesTurn("s-1", task.turn_id, { status: "working", label: "Reading the board", progress: 0.25, text_delta: "Looking…" });
    const revision = Math.max(...server.applied.filter((w) => w.method === "inventory/publish").map((w) => Number(w.params["revision"])));
    agentInvokes(server, "allowed", "whiteboard", boardSummary.method, {}, revision);
    agentInvokes(server, "refused", "whiteboard", boardCreate.method, { title: "x" }, revision);
    await until(() => toolOutputs(server, "refused").length > 0, 3_000, "the refused call is answered");
    expect(toolOutputs(server, "refused")).toEqual([["lineup.tool.error", expect.objectContaining({ code: "tool_not_visible" })]]);
    const audit = await d.runtime.verifyAudit();
    expect(audit).toMatchObject({ ok: true });

    server.agentCompletesTurn("s-1", task.turn_id, "Done", { layout: [{ id: "a", x: 24, y: 24 }] });
    await until(() => board.getTask(task.task_id).status === "completed", 3_000, "completed");
    expect(board.getTask(task.task_id).result).toEqual({ output: { layout: [{ id: "a", x: 24, y: 24 }] }, text: "Done" });

    const accepted = await board.controlTask(task.task_id, { op: "accept" });
    expect(accepted.decision).toMatchObject({ decision: "accepted" });
    await until(() => server.applied.some((w) => (w.params["envelope"] as { type?: string } | undefined)?.type === "lineup.task.decision"), 3_000, "the decision reaches the server");
    const decision = server.applied.find((w) => (w.params["envelope"] as { type?: string } | undefined)?.type === "lineup.task.decision")!.params["envelope"] as JsonObject;
    expect(decision).toMatchObject({ sender: { kind: "app", id: "whiteboard" }, payload: { task_id: task.task_id, turn_id: task.turn_id, decision: "accepted" } });
    await expect(board.controlTask(task.task_id, { op: "reject", reason: "too late" })).rejects.toMatchObject({ code: "invalid_state" });

    const events = await eventsOf(board, task.task_id);
    // The allowed call waits for the board (no instance answers it here); the refused one ends at once, blocked.
    expect(kinds(events)).toEqual(["status:queued", "status:running", "progress", "text", "tool_call", "tool_call", "tool_result", "blocked", "result", "status:completed", "decision"]);
    expect(events.map((e) => e.index)).toEqual(events.map((_, i) => i + 1));
    expect(events.find((e) => e.kind === "blocked")).toMatchObject({ code: "tool_not_visible", call_id: "refused" });
    // Live, the app saw the same events once each, in order (the first came with the start's commit).
    await until(() => live.length === events.length, 3_000, "live events");
    expect(live).toEqual(events);
    // The chat shows the task as the app's card, and the decision.
    await until(() => d.received.some((m) => m.type === "lineup.task.decision"), 3_000, "chat hears the decision");
    expect(d.received.find((m) => m.type === "lineup.task.request")).toMatchObject({ turn_id: task.turn_id, payload: { task_id: task.task_id, app_scope: "whiteboard", entry: "tidy_board", title: "Tidy this board" } });
    expect(d.received.some((m) => m.type === "lineup.message" && m.turn_id === task.turn_id)).toBe(false);
  });

  it("the same key and request is the same task, once; another request with that key is a conflict", async () => {
    const { server, board } = await taskingDevice();
    const first = await board.startTask(tidy({ idempotency_key: "k-1" }), { conversation_id: "s-1" });
    const again = await board.startTask(tidy({ idempotency_key: "k-1" }), { conversation_id: "s-1" });
    expect(again.task_id).toBe(first.task_id);
    await expect(board.startTask(tidy({ idempotency_key: "k-1", input: { text: "other" } }), { conversation_id: "s-1" })).rejects.toMatchObject({ code: "idempotency_conflict" });
    await until(() => serverTurn(server, first.turn_id) !== undefined, 3_000, "sent");
    expect(server.applied.filter((w) => w.method === "agentSession/turn/start")).toHaveLength(1);
    expect(board.listTasks().map((t) => t.task_id)).toEqual([first.task_id]);
  });

  it("bad requests are refused with their codes, and nothing is written", async () => {
    const { server, d, board } = await taskingDevice();
    const before = server.applied.length;
    const refusals: [Partial<AgentTaskRequest>, string][] = [
      [{ entry: "unknown_entry" }, "capability_not_declared"],
      [{ context: { blob: "x".repeat(20_000) } }, "message_too_large"],
      [{ output_schema: { type: "object", properties: { a: { $ref: "https://example.com/remote" } } } }, "manifest_invalid_tool_schema"],
      [{ requested_tools: [{ method: boardCreate.method }] }, "capability_not_declared"],
      [{ input: { text: 5 as unknown as string } }, "invalid_params"],
      [{ input: { attachments: [{ artifact_id: "nobody-has-this" }] } }, "not_found"],
    ];
    for (const [change, code] of refusals) await expect(board.startTask(tidy(change), { conversation_id: "s-1" }), code).rejects.toMatchObject({ code });
    await expect(board.startTask(tidy(), { conversation_id: "s-nope" })).rejects.toMatchObject({ code: "conversation_unknown" });
    // An app without the feature may not ask.
    await expect(d.runtime.appPort("chat").startTask(tidy(), { conversation_id: "s-1" })).rejects.toMatchObject({ code: "capability_not_declared" });
    expect(board.listTasks()).toEqual([]);
    expect(server.applied.length).toBe(before);
    // A disabled app may not ask either.
    await d.runtime.appManager.disable("whiteboard");
    await expect(board.startTask(tidy(), { conversation_id: "s-1" })).rejects.toMatchObject({ code: "app_disabled" });
  });

  it("a requested tool that is not in the agent's inventory is tool_not_visible", async () => {
    const manifest = taskingBoard({ agent_tasks: { entries: [{ id: "tidy_board", title: "Tidy", tools: [{ app_scope: "pomodoro" as AppScope, method: "focus.start" }] }] } });
    const { server, d } = await onlineDevice({ install: manifest });
    devices.push(d);
    await expect(d.runtime.appPort("whiteboard").startTask(tidy({ requested_tools: [{ app_scope: "pomodoro", method: "focus.start" }] }), { conversation_id: "s-1" })).rejects.toMatchObject({
      code: "tool_not_visible",
      path: "/requested_tools/0",
    });
    expect(server.applied.filter((w) => w.method === "agentSession/turn/start")).toHaveLength(0);
  });

  it("a result that fails the app's schema fails the task invalid_result", async () => {
    const { server, board } = await taskingDevice();
    const task = await board.startTask(tidy(), { conversation_id: "s-1" });
    await until(() => board.getTask(task.task_id).status === "running", 3_000, "running");
    server.agentCompletesTurn("s-1", task.turn_id, undefined, { layout: "not a list" });
    await until(() => board.getTask(task.task_id).status === "failed", 3_000, "failed");
    expect(board.getTask(task.task_id).error).toMatchObject({ code: "invalid_result" });
    await expect(board.controlTask(task.task_id, { op: "accept" })).rejects.toMatchObject({ code: "invalid_state" });
  });

  it("cancel, retry and resubmit: each attempt is a turn; an earlier attempt's end moves nothing", async () => {
    const { server, board } = await taskingDevice();
    const task = await board.startTask(tidy(), { conversation_id: "s-1" });
    await until(() => board.getTask(task.task_id).status === "running", 3_000, "running");
    await board.controlTask(task.task_id, { op: "cancel", reason: "changed my mind" });
    await until(() => board.getTask(task.task_id).status === "cancelled", 3_000, "cancelled");
    await expect(board.controlTask(task.task_id, { op: "cancel" })).rejects.toMatchObject({ code: "invalid_state" });

    const retried = await board.controlTask(task.task_id, { op: "retry" });
    expect(retried).toMatchObject({ attempt: 2, status: "queued" });
    expect(retried.turn_id).not.toBe(task.turn_id);
    await until(() => board.getTask(task.task_id).status === "running", 3_000, "attempt 2 runs");

    // Resubmitting while attempt 2 runs cancels it and starts attempt 3 with the new input.
    const resubmitted = await board.controlTask(task.task_id, { op: "resubmit", input: { text: "Only the left half" } });
    expect(resubmitted.attempt).toBe(3);
    await until(() => server.turnState("s-1", retried.turn_id) === "cancelled", 3_000, "attempt 2 cancelled");
    await until(() => board.getTask(task.task_id).status === "running", 3_000, "attempt 3 runs");
    expect(serverTurn(server, resubmitted.turn_id)!.input).toEqual({ text: "Only the left half" });
    expect(board.getTask(task.task_id)).toMatchObject({ attempt: 3, request: { input: { text: "Only the left half" } } });

    server.agentCompletesTurn("s-1", resubmitted.turn_id, undefined, { layout: [] });
    await until(() => board.getTask(task.task_id).status === "completed", 3_000, "completed");
    await board.controlTask(task.task_id, { op: "reject", reason: "not tidy enough" });
    const again = await board.controlTask(task.task_id, { op: "retry" });
    expect(again).toMatchObject({ attempt: 4, status: "queued" });
    expect(again.decision).toBeUndefined();
    const events = await eventsOf(board, task.task_id);
    // Attempt 2's cancel is recorded as attempt 2's, after attempt 3 was queued.
    const cancelOf2 = events.find((e) => e.kind === "status" && e.status === "cancelled" && e.attempt === 2)!;
    const queuedOf3 = events.find((e) => e.kind === "status" && e.status === "queued" && e.attempt === 3)!;
    expect(cancelOf2.index).toBeGreaterThan(queuedOf3.index);
    expect(events.find((e) => e.kind === "decision")).toMatchObject({ decision: "rejected", reason: "not tidy enough", attempt: 3 });
  });

  it("started offline, it is sent once on reconnect; the record and its events survive a restart", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const data = createMemoryStoreData();
    let d = await device(server, data);
    await d.runtime.whenOnline();
    await d.runtime.appManager.install(await signedBundle(taskingBoard()), { approved: true });
    server.transport.setReachable(false);
    d.runtime.dropConnection();
    await until(() => d.runtime.lifecycle.snapshot().status !== "online", 3_000, "offline");
    const task: AgentTask = await d.runtime.appPort("whiteboard").startTask(tidy(), { conversation_id: "s-1" });
    await d.stop();

    server.transport.setReachable(true);
    d = await device(server, data, "r1");
    devices.push(d);
    const board = d.runtime.appPort("whiteboard");
    expect(board.getTask(task.task_id)).toMatchObject({ status: "queued", attempt: 1 });
    await until(() => board.getTask(task.task_id).status === "running", 5_000, "sent after the restart and running");
    expect(server.applied.filter((w) => w.method === "agentSession/turn/start")).toHaveLength(1);
    expect(kinds(await eventsOf(board, task.task_id))).toEqual(["status:queued", "status:running"]);
  });
});

describe("an app's task list", () => {
  it("keeps the newest MAX_TASKS_PER_APP: starting one more drops the oldest ended task with its events, never an open one", async () => {
    const { EMPTY_TASKS, MAX_TASKS_PER_APP, TaskDraft } = await import("../src/tasks/records.js");
    const draft = new TaskDraft(EMPTY_TASKS, "2026-12-02T00:00:00.000Z");
    const base = { app_scope: "whiteboard", conversation_id: "s-1", entry: "tidy_board", idempotency_key: "k", request_hash: "0".repeat(64), request: tidy(), attempt: 1, trace_id: "tr", updated_at: "x", event_count: 0, provenance: { app_scope: "whiteboard", app_version: "1.0.0" }, attachments: [], knowledge: [], requested: [] };
    for (let i = 0; i < MAX_TASKS_PER_APP; i++) {
      const at = `2026-12-01T00:${String(Math.floor(i / 60)).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}.000Z`;
      // The oldest is still open; the next two have ended.
      draft.put({ ...base, task_id: `t${i}`, turn_id: `turn-${i}`, turn_ids: [`turn-${i}`], created_at: at, status: i === 0 ? "running" : "completed" });
    }
    draft.put({ ...base, task_id: "other", turn_id: "turn-o", turn_ids: ["turn-o"], created_at: "2026-11-01T00:00:00.000Z", status: "completed", app_scope: "pomodoro" });
    const before = draft.done();
    const next = new TaskDraft(before.tasks, "2026-12-02T00:00:00.000Z");
    next.makeRoom("whiteboard");
    const change = next.done();
    expect(change.tasks.tasks.has("t0")).toBe(true);
    expect(change.tasks.tasks.has("t1")).toBe(false);
    expect(change.tasks.tasks.has("t2")).toBe(true);
    expect(change.tasks.tasks.has("other")).toBe(true);
    expect(change.tasks.by_turn.has("turn-1")).toBe(false);
    expect(change.writes).toEqual([
      { op: "delete", collection: "tasks", key: "t1" },
      { op: "deleteRange", collection: "task-events", range: { prefix: "t1/" } },
    ]);
  });
});
