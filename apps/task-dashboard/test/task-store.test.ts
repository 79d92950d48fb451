/**
 * The dashboard's store over a port that behaves as the surface SDK does: a handle replays a task's events
 * after `after`, then sends the live ones; controls answer with the task as it then is, or refuse.
 */
import { describe, expect, it } from "vitest";
import type { AgentTask, AgentTaskEvent, AgentTaskEventBody, AgentTaskRequest } from "@lineup/protocol";
import { currentAttempt } from "../src/model/task-view.js";
import { fresher, problemText, TaskStore, type EvidenceExport, type TaskHandle, type TaskPort } from "../src/task-store.js";
import { dashboardText } from "../src/ui/text.js";

const EN = dashboardText("en");
const ZH = dashboardText("zh-CN");
import { task } from "./fixtures.js";

class FakeTask {
  record: AgentTask;
  readonly events: AgentTaskEvent[] = [];
  readonly listeners = new Set<(event: AgentTaskEvent, task: AgentTask) => void>();
  refusal: { code: string; message: string } | undefined;
  /** Control calls not yet answered. */
  readonly held: (() => void)[] = [];
  hold = false;

  constructor(record: AgentTask) {
    this.record = record;
  }

  emit(body: AgentTaskEventBody, changes: Partial<AgentTask> = {}): void {
    const event = { task_id: this.record.task_id, index: this.events.length + 1, attempt: this.record.attempt, at: "2026-03-02T09:00:01.000Z", ...body } as AgentTaskEvent;
    this.events.push(event);
    this.record = { ...this.record, ...changes, event_count: event.index, updated_at: `2026-03-02T09:00:${String(event.index).padStart(2, "0")}.000Z` };
    for (const l of [...this.listeners]) l(event, this.record);
  }

  handle(): TaskHandle {
    const answer = (changes: Partial<AgentTask>): Promise<AgentTask> =>
      new Promise((resolve, reject) => {
        const run = () => {
          if (this.refusal !== undefined) reject(this.refusal);
          else {
            this.record = { ...this.record, ...changes };
            resolve(this.record);
          }
        };
        if (this.hold) this.held.push(run);
        else run();
      });
    return {
      task_id: this.record.task_id,
      task: this.record,
      subscribe: (listener, options) => {
        for (const e of this.events.filter((e) => e.index > (options?.after ?? 0))) listener(e, this.record);
        this.listeners.add(listener);
        return () => void this.listeners.delete(listener);
      },
      cancel: () => answer({ status: "cancelled" }),
      retry: () => answer({ status: "queued", attempt: this.record.attempt + 1 }),
      resubmit: (input) => answer({ status: "queued", attempt: this.record.attempt + 1, request: { ...this.record.request, input } }),
      accept: () => answer({ decision: { decision: "accepted", at: "now" } }),
      reject: (reason) => answer({ decision: { decision: "rejected", at: "now", ...(reason === undefined ? {} : { reason }) } }),
    };
  }
}

class FakePort implements TaskPort {
  readonly tasksById = new Map<string, FakeTask>();
  listRefusal: Error | undefined;
  exportRefusal: { code: string; message: string } | undefined;
  started: AgentTaskRequest[] = [];

  add(record: AgentTask): FakeTask {
    const fake = new FakeTask(record);
    this.tasksById.set(record.task_id, fake);
    return fake;
  }
  async startTask(request: AgentTaskRequest): Promise<TaskHandle> {
    this.started.push(request);
    const fake = this.add(task({ task_id: `t${this.tasksById.size + 1}`, entry: request.entry, request, status: "queued", created_at: "2026-03-02T10:00:00.000Z" }));
    return fake.handle();
  }
  async tasks(): Promise<AgentTask[]> {
    if (this.listRefusal !== undefined) throw this.listRefusal;
    return [...this.tasksById.values()].map((t) => t.record).reverse();
  }
  async task(taskId: string): Promise<TaskHandle> {
    const fake = this.tasksById.get(taskId);
    if (fake === undefined) throw { code: "not_found", message: `no task ${taskId}` };
    return fake.handle();
  }
  async exportEvidence(taskId: string): Promise<EvidenceExport> {
    if (this.exportRefusal !== undefined) throw this.exportRefusal;
    return { artifact: { artifact_id: `ev-${taskId}`, name: "evidence.json", mime_type: "application/vnd.lineup.evidence+json", size: 10, sha256: "a".repeat(64) }, pack_digest: "b".repeat(64), through_seq: 7, export_id: "x1" };
  }
}

const ids = (store: TaskStore) => store.state.tasks.map((e) => e.task.task_id);

describe("the task store", () => {
  it("after a reload lists the app's tasks newest first and replays each one's events into its card", async () => {
    const port = new FakePort();
    const older = port.add(task({ task_id: "t1", status: "running" }));
    older.emit({ kind: "status", status: "running" });
    older.emit({ kind: "text", delta: "Tea is " });
    const newer = port.add(task({ task_id: "t2", entry: "plan_week", status: "completed", result: { output: { days: [], unscheduled: [] } } }));
    newer.emit({ kind: "status", status: "completed" });

    const store = new TaskStore(port);
    await store.load();
    expect(store.state.loaded).toBe(true);
    expect(ids(store)).toEqual(["t2", "t1"]);
    expect(currentAttempt(store.entry("t1")!.view, 1).text).toBe("Tea is ");

    // Live events after the replay arrive once, in order.
    older.emit({ kind: "text", delta: "good." });
    older.emit({ kind: "status", status: "completed" }, { status: "completed" });
    expect(currentAttempt(store.entry("t1")!.view, 1)).toMatchObject({ text: "Tea is good.", status: "completed" });
    expect(store.entry("t1")!.task.status).toBe("completed");
  });

  it("a started task goes on top and is followed", async () => {
    const port = new FakePort();
    port.add(task({ task_id: "t1", status: "completed" }));
    const store = new TaskStore(port);
    await store.load();
    const seen: number[] = [];
    store.subscribe((s) => seen.push(s.tasks.length));
    const id = await store.start({ entry: "write_note", input: { text: "tea" } });
    expect(ids(store)).toEqual([id, "t1"]);
    port.tasksById.get(id)!.emit({ kind: "status", status: "running" }, { status: "running" });
    expect(store.entry(id)!.task.status).toBe("running");
    expect(seen.at(-1)).toBe(2);
  });

  it("a control is pending until the Runtime answers, then the card has the task as it is", async () => {
    const port = new FakePort();
    const fake = port.add(task({ task_id: "t1", status: "running" }));
    const store = new TaskStore(port);
    await store.load();
    fake.hold = true;
    const cancelling = store.control("t1", { op: "cancel" });
    expect(store.entry("t1")!.pending).toBe("cancel");
    fake.held.shift()!();
    await cancelling;
    expect(store.entry("t1")!.pending).toBeUndefined();
    expect(store.entry("t1")!.task.status).toBe("cancelled");
  });

  it("a refused control says why on the card and changes nothing else", async () => {
    const port = new FakePort();
    const fake = port.add(task({ task_id: "t1", status: "completed" }));
    const store = new TaskStore(port);
    await store.load();
    fake.refusal = { code: "invalid_state", message: "the result was already decided" };
    await store.control("t1", { op: "accept" });
    expect(store.entry("t1")).toMatchObject({ task: { status: "completed" } });
    expect(EN.storeProblem(store.entry("t1")!.problem!)).toBe("the result was already decided (invalid_state)");
    expect(ZH.storeProblem(store.entry("t1")!.problem!)).toBe("操作未完成：任务当前的状态不允许这样做");
    expect(store.entry("t1")!.task.decision).toBeUndefined();
    // The next control clears the old problem.
    fake.refusal = undefined;
    await store.control("t1", { op: "reject", reason: "too short" });
    expect(store.entry("t1")!.problem).toBeUndefined();
    expect(store.entry("t1")!.task.decision).toMatchObject({ decision: "rejected", reason: "too short" });
  });

  it("an answer older than an event that arrived meanwhile does not turn the card back", async () => {
    const port = new FakePort();
    const fake = port.add(task({ task_id: "t1", status: "completed" }));
    const store = new TaskStore(port);
    await store.load();
    fake.hold = true;
    const retrying = store.control("t1", { op: "retry" });
    fake.held.shift()!(); // the Runtime's answer: queued, attempt 2 (event_count 0) …
    fake.emit({ kind: "status", status: "running" }, { status: "running" }); // … overtaken by the turn starting
    await retrying;
    expect(store.entry("t1")!.task).toMatchObject({ status: "running", attempt: 2 });
    expect(fresher(task({ event_count: 3, updated_at: "b" }), task({ event_count: 2, updated_at: "c" })).event_count).toBe(3);
  });

  it("exports evidence onto the card, or says why not", async () => {
    const port = new FakePort();
    port.add(task({ task_id: "t1", status: "completed" }));
    const store = new TaskStore(port);
    await store.load();
    await store.exportEvidence("t1");
    expect(store.entry("t1")!.evidence).toMatchObject({ pack_digest: "b".repeat(64), through_seq: 7 });
    port.exportRefusal = { code: "agent_unavailable", message: "the server is not reachable" };
    await store.exportEvidence("t1");
    expect(EN.storeProblem(store.entry("t1")!.problem!)).toBe("The evidence could not be exported: the server is not reachable (agent_unavailable)");
    expect(ZH.storeProblem(store.entry("t1")!.problem!)).toBe("无法导出证据：智能体或服务器暂时无法连接");
  });

  it("says when the tasks cannot be listed, and stops following everything when disposed", async () => {
    const port = new FakePort();
    port.listRefusal = new Error("bridge closed");
    const failing = new TaskStore(port);
    await failing.load();
    expect(failing.state.loaded).toBe(true);
    expect(EN.storeProblem(failing.state.problem!)).toBe("The tasks could not be listed: bridge closed");
    // In Chinese no English is left: a refusal without a code reads as one.
    expect(ZH.storeProblem(failing.state.problem!)).toBe("无法列出任务：请求被拒绝了");

    port.listRefusal = undefined;
    const fake = port.add(task({ task_id: "t1" }));
    const store = new TaskStore(port);
    await store.load();
    expect(fake.listeners.size).toBe(1);
    store.dispose();
    expect(fake.listeners.size).toBe(0);
    expect(problemText("plain")).toBe("plain");
  });
});
