/**
 * `surface.agent.startTask/tasks/task` and `surface.evidence.export` over the Surface Bridge, against the fake
 * host: the requests the app makes (never naming itself or a conversation), the handle joining
 * `agent.task_events` pages with the host's `agent.task_event` pushes (each index once, in order), controls,
 * and the host's refusals as typed `LineUpError`s.
 */
import { bridgeResult, LineUpError, type AgentTask, type AgentTaskEvent, type AgentTaskRequest, type BridgeRequest, type ConversationID } from "@lineup/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connectSurface, type Surface, type SurfaceDiagnostic } from "../src/index.js";
import { eventually, FakeHost, NONCE } from "./fake-host.js";

const REQUEST: AgentTaskRequest = { entry: "tidy_board", title: "Tidy this board", input: { text: "tidy" }, context: { board: { width: 800, height: 600, items: [] } } };

function taskOf(overrides: Partial<AgentTask> = {}): AgentTask {
  return {
    task_id: "task-1",
    app_scope: "whiteboard",
    instance_id: "inst-1",
    conversation_id: "conv-1",
    entry: "tidy_board",
    title: "Tidy this board",
    idempotency_key: "idem-1",
    request_hash: "a".repeat(64),
    request: REQUEST,
    status: "queued",
    attempt: 1,
    turn_id: "turn-1",
    trace_id: "trace-1",
    created_at: "2026-12-02T09:00:00.000Z",
    updated_at: "2026-12-02T09:00:00.000Z",
    event_count: 0,
    ...overrides,
  };
}

const eventOf = (index: number, body: Record<string, unknown> = { kind: "progress", label: `step ${index}` }): AgentTaskEvent =>
  ({ task_id: "task-1", index, attempt: 1, at: `2026-12-02T09:00:${String(index).padStart(2, "0")}.000Z`, ...body }) as AgentTaskEvent;

let host: FakeHost;
let surface: Surface;
const diagnostics: SurfaceDiagnostic[] = [];
beforeEach(async () => {
  diagnostics.length = 0;
  host = new FakeHost();
  const connecting = connectSurface({ window: host.window, applyTheme: false, diagnostics: (d) => diagnostics.push(d) });
  host.handover();
  surface = await connecting;
  await surface.lifecycle.ready();
});
afterEach(() => {
  surface.disconnect();
  host.close();
});

/** Answers a request the fake host left to the test. */
const answer = (request: BridgeRequest, result: unknown): void => host.send(bridgeResult(NONCE, request.id, request.method as never, result as never));

describe("surface.agent.startTask", () => {
  it("sends the request alone (the host knows the app and its conversation) and returns a handle on the task", async () => {
    host.on("agent.start_task", () => ({ task: taskOf() }));
    const handle = await surface.agent.startTask(REQUEST);
    expect(handle.task_id).toBe("task-1");
    expect(handle.task).toEqual(taskOf());
    expect(host.requestsOf("agent.start_task").map((r) => r.params)).toEqual([{ request: REQUEST }]);
  });

  it("rejects with the host's refusal as a LineUpError: an app without the feature, a tool it may not request", async () => {
    let refusal = new LineUpError("capability_not_declared", "whiteboard does not list app.agent-task.v1 in its manifest's runtime_sdk features");
    host.on("agent.start_task", () => {
      throw refusal;
    });
    const error = await surface.agent.startTask(REQUEST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LineUpError);
    expect(error).toMatchObject({ code: "capability_not_declared", message: refusal.message });
    refusal = new LineUpError("tool_not_visible", "notes.delete is not in the conversation's inventory");
    await expect(surface.agent.startTask({ ...REQUEST, requested_tools: [{ method: "notes.delete" }] })).rejects.toMatchObject({ code: "tool_not_visible" });
  });

  it("refuses a request the bridge schema refuses before it leaves the app (an app scope in the request)", async () => {
    host.on("agent.start_task", () => ({ task: taskOf() }));
    await expect(surface.agent.startTask({ ...REQUEST, app_scope: "notes" } as unknown as AgentTaskRequest)).rejects.toMatchObject({ code: "invalid_params" });
  });
});

describe("surface.agent.tasks and task(id)", () => {
  it("lists the app's tasks and follows one by id", async () => {
    host.on("agent.tasks", () => ({ tasks: [taskOf({ task_id: "task-2" }), taskOf()] }));
    host.on("agent.task_events", ({ task_id }) => {
      if (task_id !== "task-1") throw new LineUpError("not_found", `whiteboard has no task ${task_id}`);
      return { task: taskOf({ status: "running", event_count: 1 }), events: [eventOf(1)] };
    });
    expect((await surface.agent.tasks()).map((t) => t.task_id)).toEqual(["task-2", "task-1"]);
    const handle = await surface.agent.task("task-1");
    expect(handle.task).toMatchObject({ status: "running", event_count: 1 });
    await expect(surface.agent.task("task-9")).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("a task handle over the bridge", () => {
  it("joins a page with live pushes: every index once, in order, whichever comes first", async () => {
    const handle = await (async () => {
      host.on("agent.start_task", () => ({ task: taskOf() }));
      return surface.agent.startTask(REQUEST);
    })();
    host.on("agent.task_events", () => undefined); // the test answers
    const seen: number[] = [];
    const statuses: string[] = [];
    handle.subscribe((event, task) => {
      seen.push(event.index);
      statuses.push(task.status);
    });
    const page = await host.nextRequest("agent.task_events");
    expect(page.params).toEqual({ task_id: "task-1", after: 0, limit: 200 });
    // While the page is out: the host pushes 2 (which the page will have too) and 3.
    host.event("agent.task_event", { event: eventOf(2), task: taskOf({ status: "running", event_count: 2 }) });
    host.event("agent.task_event", { event: eventOf(3), task: taskOf({ status: "running", event_count: 3 }) });
    await eventually(() => expect(handle.task.event_count).toBe(3));
    expect(seen).toEqual([]);
    answer(page, { task: taskOf({ status: "running", event_count: 2 }), events: [eventOf(1, { kind: "status", status: "running" }), eventOf(2)] });
    await eventually(() => expect(seen).toEqual([1, 2, 3]));
    // A push the app already has (a second surface's replay, a resend) is dropped; the next one follows.
    host.event("agent.task_event", { event: eventOf(3), task: taskOf({ status: "running", event_count: 3 }) });
    host.event("agent.task_event", { event: eventOf(4, { kind: "status", status: "completed" }), task: taskOf({ status: "completed", event_count: 4, result: { output: { ok: true } } }) });
    await eventually(() => expect(seen).toEqual([1, 2, 3, 4]));
    expect(statuses.at(-1)).toBe("completed");
    expect(handle.task.status).toBe("completed");
  });

  it("a push that skips an index reads the missing one before going on", async () => {
    host.on("agent.start_task", () => ({ task: taskOf() }));
    const handle = await surface.agent.startTask(REQUEST);
    const stored: AgentTaskEvent[] = [];
    host.on("agent.task_events", ({ after }) => ({ task: taskOf({ event_count: stored.length }), events: stored.filter((e) => e.index > after) }));
    const seen: number[] = [];
    handle.subscribe((event) => seen.push(event.index));
    await eventually(() => expect(host.requestsOf("agent.task_events")).toHaveLength(1));
    stored.push(eventOf(1), eventOf(2));
    host.event("agent.task_event", { event: eventOf(2), task: taskOf({ event_count: 2 }) });
    await eventually(() => expect(seen).toEqual([1, 2]));
    expect(host.requestsOf("agent.task_events").map((r) => (r.params as { after: number }).after)).toEqual([0, 0]);
  });

  it("result() resolves with the completed task's result, and rejects cancelled_by_user after a cancel", async () => {
    const output = { layout: [{ id: "n1", x: 24, y: 24 }], summary: "Arranged 1 items in a 1×1 grid." };
    let task = taskOf({ status: "running", event_count: 1 });
    host.on("agent.task_events", () => ({ task, events: [] }));
    host.on("agent.task_control", ({ control }) => {
      task = { ...task, status: control.op === "cancel" ? "cancelled" : task.status, event_count: task.event_count + 1 };
      return { task };
    });
    const handle = await surface.agent.task("task-1");
    const result = handle.result();
    await eventually(() => expect(host.requestsOf("agent.task_events")).toHaveLength(2));
    task = { ...task, status: "completed", event_count: 3, result: { output } };
    host.event("agent.task_event", { event: eventOf(2, { kind: "result", output }), task: { ...task, event_count: 2 } });
    host.event("agent.task_event", { event: eventOf(3, { kind: "status", status: "completed" }), task });
    await expect(result).resolves.toEqual({ output });

    task = taskOf({ status: "running", event_count: 1 });
    const other = await surface.agent.task("task-1");
    const pending = other.result();
    await expect(other.cancel("not now")).resolves.toMatchObject({ status: "cancelled" });
    host.event("agent.task_event", { event: eventOf(2, { kind: "status", status: "cancelled" }), task });
    await expect(pending).rejects.toMatchObject({ code: "cancelled_by_user" });
  });

  it("sends each control with the task's id and returns the task after it; refusals keep their code", async () => {
    const controls: unknown[] = [];
    host.on("agent.task_events", () => ({ task: taskOf({ status: "completed", event_count: 2 }), events: [] }));
    host.on("agent.task_control", ({ task_id, control }) => {
      controls.push([task_id, control]);
      if (control.op === "cancel") throw new LineUpError("invalid_state", "task-1 is completed: nothing to cancel");
      return { task: taskOf({ status: control.op === "accept" ? "completed" : "queued", attempt: control.op === "retry" || control.op === "resubmit" ? 2 : 1, event_count: 3 + controls.length }) };
    });
    const handle = await surface.agent.task("task-1");
    await handle.accept();
    await handle.reject("keep the notes in a row");
    await handle.resubmit({ text: "one row" });
    const retried = await handle.retry();
    expect(retried).toMatchObject({ status: "queued", attempt: 2 });
    expect(handle.task).toEqual(retried);
    await expect(handle.cancel()).rejects.toMatchObject({ code: "invalid_state" });
    expect(controls).toEqual([
      ["task-1", { op: "accept" }],
      ["task-1", { op: "reject", reason: "keep the notes in a row" }],
      ["task-1", { op: "resubmit", input: { text: "one row" } }],
      ["task-1", { op: "retry" }],
      ["task-1", { op: "cancel" }],
    ]);
  });

  it("a push whose frame breaks the schema is dropped and reported, never handed to the listener", async () => {
    host.on("agent.task_events", () => ({ task: taskOf(), events: [] }));
    const handle = await surface.agent.task("task-1");
    const seen: number[] = [];
    handle.subscribe((event) => seen.push(event.index));
    await eventually(() => expect(host.requestsOf("agent.task_events")).toHaveLength(2));
    host.send({ bridge: "lineup.surface", v: 1, nonce: NONCE, kind: "event", name: "agent.task_event", data: { event: eventOf(1), task: taskOf() }, extra: true });
    host.event("agent.task_event", { event: eventOf(1), task: taskOf({ event_count: 1 }) });
    await eventually(() => expect(seen).toEqual([1]));
    expect(diagnostics.some((d) => d.kind === "frame_dropped")).toBe(true);
  });
});

describe("surface.evidence.export", () => {
  const EXPORTED = { export_id: "exp-1", conversation_id: "conv-1" as ConversationID, through_seq: 42, artifact: { artifact_id: "art-9", name: "evidence.json", mime_type: "application/json", size: 100, sha256: "b".repeat(64) }, pack_digest: "c".repeat(64) };

  it("names a task, or nothing for the instance's conversation, and resolves with the stored pack", async () => {
    host.on("evidence.export", () => EXPORTED);
    await expect(surface.evidence.export({ task_id: "task-1" })).resolves.toEqual(EXPORTED);
    await expect(surface.evidence.export({ conversation: true })).resolves.toEqual(EXPORTED);
    expect(host.requestsOf("evidence.export").map((r) => r.params)).toEqual([{ task_id: "task-1" }, {}]);
  });

  it("rejects offline with request_cancelled, and refuses an answer whose frame carries both a result and an error", async () => {
    host.on("evidence.export", () => {
      throw new LineUpError("request_cancelled", "not connected to the AppServer: evidence can be exported once online");
    });
    await expect(surface.evidence.export({ task_id: "task-1" })).rejects.toMatchObject({ code: "request_cancelled" });
    host.on("evidence.export", () => new Promise(() => {}));
    const exporting = surface.evidence.export({ conversation: true });
    const request = await host.nextRequest("evidence.export");
    host.send({ ...bridgeResult(NONCE, request.id, "evidence.export", EXPORTED), error: { code: "internal_error", message: "both" } });
    await expect(exporting).rejects.toMatchObject({ code: "bridge_frame_invalid" });
  });
});
