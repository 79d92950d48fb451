/**
 * `sdk.agent` and `sdk.evidence` of a core app over a fake `AppPort` that keeps one app's tasks the way the
 * Runtime does: events stored and numbered first, then sent live. Pages can be held and answered later, with the
 * store as it was when they were asked or as it is when they are answered, so pages and live events overlap
 * both ways. The handle must give each index after `after` exactly once, in order.
 */
import fc from "fast-check";
import { LineUpError, type AgentTask, type AgentTaskControl, type AgentTaskEvent, type AgentTaskEventBody, type AgentTaskRequest } from "@lineup/protocol";
import type { AppPort } from "@lineup/runtime";
import { describe, expect, it } from "vitest";
import { createAppSdk, TASK_EVENTS_PAGE, type AppDiagnostic } from "@lineup/app-sdk";

const REQUEST: AgentTaskRequest = { entry: "tidy_board", title: "Tidy this board", input: { text: "tidy" }, output_schema: { type: "object" } };

function taskOf(overrides: Partial<AgentTask> = {}): AgentTask {
  return {
    task_id: "task-1",
    app_scope: "whiteboard",
    conversation_id: "conv-1",
    entry: "tidy_board",
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

interface HeldPage {
  readonly after: number;
  readonly limit: number;
  /** Answers with the store as it was when the page was asked (`asked`) or as it is now (`now`). */
  answer(when: "asked" | "now"): void;
  fail(error: unknown): void;
}

/** One app's tasks, as the Runtime's port shows them. */
class FakeTasks {
  readonly tasks = new Map<string, AgentTask>();
  readonly stored = new Map<string, AgentTaskEvent[]>();
  readonly listeners = new Set<(event: AgentTaskEvent, task: AgentTask) => void>();
  readonly controls: [string, AgentTaskControl][] = [];
  readonly started: [AgentTaskRequest, unknown][] = [];
  readonly exports: unknown[] = [];
  readonly pages: [string, number, number][] = [];
  /** Pages asked and not answered yet, when `holdPages` is on. */
  readonly held: HeldPage[] = [];
  holdPages = false;
  #clock = 0;
  controlRefusal: LineUpError | undefined;

  constructor(task: AgentTask = taskOf()) {
    this.tasks.set(task.task_id, task);
    this.stored.set(task.task_id, []);
  }

  get task(): AgentTask {
    return this.tasks.get("task-1")!;
  }

  /** Stores the next event of the task (and the task after it); `live: false` leaves it unsent. */
  commit(body: AgentTaskEventBody, patch: Partial<AgentTask> = {}, options: { live?: boolean; taskId?: string } = {}): AgentTaskEvent {
    const taskId = options.taskId ?? "task-1";
    const before = this.tasks.get(taskId)!;
    const index = before.event_count + 1;
    const at = new Date(Date.UTC(2026, 11, 2, 9, 0, ++this.#clock)).toISOString();
    const event = { task_id: taskId, index, attempt: before.attempt, at, ...body } as AgentTaskEvent;
    const task = { ...before, ...patch, event_count: index, updated_at: at };
    this.tasks.set(taskId, task);
    this.stored.get(taskId)!.push(event);
    if (options.live !== false) for (const listener of [...this.listeners]) listener(event, task);
    return event;
  }

  #page(taskId: string, after: number, limit: number): AgentTaskEvent[] {
    return this.stored.get(taskId)!.filter((e) => e.index > after).slice(0, limit);
  }

  port(): AppPort {
    const get = (taskId: string): AgentTask => {
      const task = this.tasks.get(taskId);
      if (task === undefined) throw new LineUpError("not_found", `no task ${taskId} of whiteboard`);
      return task;
    };
    const port = {
      app_scope: "whiteboard",
      record: { app_scope: "whiteboard", kind: "core", installed_version: "1.0.0", enabled: true, removable: false, subscriptions: [] },
      instance: (instanceId: string) => {
        if (instanceId === "inst-1") return { instance_id: "inst-1", app_scope: "whiteboard", conversation_id: "conv-1", entrypoint: "canvas", status: "active" };
        if (instanceId === "inst-bare") return { instance_id: "inst-bare", app_scope: "whiteboard", entrypoint: "canvas", status: "active" };
        throw new LineUpError("not_found", `no instance ${instanceId}`);
      },
      subscribeInstanceChanges: () => () => undefined,
      startTask: async (request: AgentTaskRequest, where: unknown) => {
        this.started.push([request, where]);
        return this.task;
      },
      listTasks: () => [...this.tasks.values()],
      getTask: get,
      taskEvents: (taskId: string, after: number, limit = 200) => {
        get(taskId);
        this.pages.push([taskId, after, limit]);
        if (!this.holdPages) return Promise.resolve(this.#page(taskId, after, limit));
        const asked = this.#page(taskId, after, limit);
        return new Promise<AgentTaskEvent[]>((resolve, reject) => {
          this.held.push({ after, limit, answer: (when) => resolve(when === "asked" ? asked : this.#page(taskId, after, limit)), fail: reject });
        });
      },
      controlTask: async (taskId: string, control: AgentTaskControl) => {
        get(taskId);
        this.controls.push([taskId, control]);
        if (this.controlRefusal !== undefined) throw this.controlRefusal;
        const status = control.op === "cancel" ? "cancelled" : control.op === "retry" || control.op === "resubmit" ? "queued" : this.task.status;
        const attempt = control.op === "retry" || control.op === "resubmit" ? this.task.attempt + 1 : this.task.attempt;
        this.commit(control.op === "accept" || control.op === "reject" ? { kind: "decision", decision: control.op === "accept" ? "accepted" : "rejected" } : { kind: "status", status }, { status, attempt });
        return this.task;
      },
      subscribeTasks: (listener: (event: AgentTaskEvent, task: AgentTask) => void) => {
        const entry = (event: AgentTaskEvent, task: AgentTask) => listener(event, task);
        this.listeners.add(entry);
        return () => this.listeners.delete(entry);
      },
      exportEvidence: async (request: unknown) => {
        this.exports.push(request);
        return { export_id: "exp-1", conversation_id: "conv-1", through_seq: 9, artifact: { artifact_id: "art-1", name: "evidence.json", mime_type: "application/json", size: 10, sha256: "b".repeat(64) }, pack_digest: "c".repeat(64) };
      },
    };
    return port as unknown as AppPort;
  }
}

const flush = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

const progress = (label: string): AgentTaskEventBody => ({ kind: "progress", label });

function collect(): { indexes: number[]; listener: (event: AgentTaskEvent) => void } {
  const indexes: number[] = [];
  return { indexes, listener: (event) => indexes.push(event.index) };
}

describe("an agent task's handle: every event once, in order, pages then live", () => {
  it("gives the stored events, then live ones, with `after` respected", async () => {
    const fake = new FakeTasks();
    for (const label of ["a", "b", "c"]) fake.commit(progress(label));
    const sdk = createAppSdk(fake.port(), { instance_id: "inst-1" });
    const handle = await sdk.agent.task("task-1");
    const all = collect();
    const later = collect();
    handle.subscribe(all.listener);
    handle.subscribe(later.listener, { after: 2 });
    await flush();
    expect(all.indexes).toEqual([1, 2, 3]);
    expect(later.indexes).toEqual([3]);
    fake.commit(progress("d"));
    expect(all.indexes).toEqual([1, 2, 3, 4]);
    expect(later.indexes).toEqual([3, 4]);
    expect(handle.task.event_count).toBe(4);
  });

  it("buffers live events while a page is out: a page older than the live events, and one that has them too", async () => {
    for (const when of ["asked", "now"] as const) {
      const fake = new FakeTasks();
      for (const label of ["a", "b"]) fake.commit(progress(label));
      fake.holdPages = true;
      const handle = await createAppSdk(fake.port()).agent.task("task-1");
      const seen = collect();
      handle.subscribe(seen.listener);
      fake.commit(progress("c"));
      fake.commit(progress("d"));
      expect(seen.indexes).toEqual([]);
      fake.held.shift()!.answer(when);
      await flush();
      expect(seen.indexes, when).toEqual([1, 2, 3, 4]);
      fake.commit(progress("e"));
      expect(seen.indexes, when).toEqual([1, 2, 3, 4, 5]);
    }
  });

  it("reads page after page until a short one", async () => {
    const fake = new FakeTasks();
    const total = TASK_EVENTS_PAGE * 2 + 50;
    for (let i = 0; i < total; i++) fake.commit(progress(`p${i}`), {}, { live: false });
    const handle = await createAppSdk(fake.port()).agent.task("task-1");
    const seen = collect();
    handle.subscribe(seen.listener);
    await flush();
    expect(seen.indexes).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(fake.pages.map(([, after]) => after)).toEqual([0, TASK_EVENTS_PAGE, TASK_EVENTS_PAGE * 2]);
  });

  it("a live event that skips an index reads the missing one from the store before going on", async () => {
    const fake = new FakeTasks();
    const handle = await createAppSdk(fake.port()).agent.task("task-1");
    const seen = collect();
    handle.subscribe(seen.listener);
    await flush();
    fake.commit(progress("a"));
    fake.commit(progress("b"), {}, { live: false });
    fake.commit(progress("c"));
    await flush();
    expect(seen.indexes).toEqual([1, 2, 3]);
    expect(fake.pages.map(([, after]) => after)).toEqual([0, 1]);
  });

  it("holds under any interleaving of commits, dropped live sends and page answers (seeded)", async () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant("commit" as const), live: fc.boolean() }),
      fc.record({ kind: fc.constant("answer" as const), when: fc.constantFrom("asked" as const, "now" as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 6 }), fc.nat({ max: 4 }), fc.array(step, { maxLength: 30 }), async (before, after, steps) => {
        const fake = new FakeTasks();
        for (let i = 0; i < before; i++) fake.commit(progress(`b${i}`), {}, { live: false });
        fake.holdPages = true;
        const handle = await createAppSdk(fake.port()).agent.task("task-1");
        const seen = collect();
        const stop = handle.subscribe(seen.listener, { after });
        for (const s of steps) {
          if (s.kind === "commit") fake.commit(progress("x"), {}, { live: s.live });
          else fake.held.shift()?.answer(s.when);
          await flush();
        }
        // The feed ends with an event that is sent; every page still out is answered.
        fake.commit(progress("last"));
        for (let round = 0; round < 20 && fake.held.length > 0; round++) {
          fake.held.shift()!.answer("now");
          await flush();
        }
        const expected = Array.from({ length: Math.max(0, fake.task.event_count - after) }, (_, i) => after + i + 1);
        expect(seen.indexes).toEqual(expected);
        stop();
      }),
      { numRuns: 200, seed: 19 },
    );
  });

  it("stops at unsubscribe, and a throwing listener goes to diagnostics without losing its later events", async () => {
    const fake = new FakeTasks();
    const diagnostics: AppDiagnostic[] = [];
    const handle = await createAppSdk(fake.port(), { diagnostics: (d) => diagnostics.push(d) }).agent.task("task-1");
    const seen = collect();
    const stop = handle.subscribe(seen.listener);
    const thrown: number[] = [];
    handle.subscribe((event) => {
      thrown.push(event.index);
      throw new Error("render failed");
    });
    await flush();
    fake.commit(progress("a"));
    stop();
    fake.commit(progress("b"));
    expect(seen.indexes).toEqual([1]);
    expect(thrown).toEqual([1, 2]);
    expect(diagnostics.filter((d) => d.level === "error" && d.message.includes("task-1"))).toHaveLength(2);
    expect(fake.listeners.size).toBe(1);
  });

  it("ignores the app's other tasks", async () => {
    const fake = new FakeTasks();
    fake.tasks.set("task-2", taskOf({ task_id: "task-2" }));
    fake.stored.set("task-2", []);
    const handle = await createAppSdk(fake.port()).agent.task("task-1");
    const seen = collect();
    handle.subscribe(seen.listener);
    await flush();
    fake.commit(progress("other"), {}, { taskId: "task-2" });
    fake.commit(progress("mine"));
    expect(seen.indexes).toEqual([1]);
    expect(handle.task.event_count).toBe(1);
  });
});

describe("result()", () => {
  it("resolves with the structured result once the task completes", async () => {
    const fake = new FakeTasks();
    const handle = await createAppSdk(fake.port()).agent.task("task-1");
    const result = handle.result();
    await flush();
    fake.commit({ kind: "status", status: "running" }, { status: "running" });
    const output = { layout: [{ id: "n1", x: 24, y: 24 }], summary: "Arranged 1 items in a 1×1 grid." };
    fake.commit({ kind: "result", output }, { result: { output } });
    fake.commit({ kind: "status", status: "completed" }, { status: "completed", result: { output } });
    await expect(result).resolves.toEqual({ output });
    expect(fake.listeners.size).toBe(0);
  });

  it("answers at once for a task that already ended, reading it fresh (the handle's copy may be older)", async () => {
    const fake = new FakeTasks();
    const handle = await createAppSdk(fake.port()).agent.task("task-1");
    fake.commit({ kind: "status", status: "completed" }, { status: "completed", result: { output: { ok: true }, text: "done" } }, { live: false });
    await expect(handle.result()).resolves.toEqual({ output: { ok: true }, text: "done" });
  });

  it("rejects with the task's error code when it failed, and cancelled_by_user when it was cancelled", async () => {
    const failed = new FakeTasks();
    const one = await createAppSdk(failed.port()).agent.task("task-1");
    const first = one.result();
    await flush();
    failed.commit({ kind: "error", code: "invalid_result", message: "the agent's result does not match the output schema" });
    failed.commit({ kind: "status", status: "failed" }, { status: "failed", error: { code: "invalid_result", message: "the agent's result does not match the output schema" } });
    const error = await first.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LineUpError);
    expect(error).toMatchObject({ code: "invalid_result", message: "the agent's result does not match the output schema" });

    const cancelled = new FakeTasks();
    const two = await createAppSdk(cancelled.port()).agent.task("task-1");
    const second = two.result();
    await flush();
    await two.cancel("not now");
    await expect(second).rejects.toMatchObject({ code: "cancelled_by_user" });
  });

  it("waits through a retry: the new attempt's result counts", async () => {
    const fake = new FakeTasks(taskOf({ status: "failed", error: { code: "failed", message: "no" }, event_count: 0 }));
    const handle = await createAppSdk(fake.port()).agent.task("task-1");
    await expect(handle.result()).rejects.toMatchObject({ code: "failed" });
    await handle.retry();
    expect(handle.task).toMatchObject({ status: "queued", attempt: 2 });
    const again = handle.result();
    await flush();
    fake.commit({ kind: "status", status: "completed" }, { status: "completed", result: { output: 2 } });
    await expect(again).resolves.toEqual({ output: 2 });
  });

  it("rejects when the task's events cannot be read", async () => {
    const fake = new FakeTasks();
    fake.holdPages = true;
    const handle = await createAppSdk(fake.port()).agent.task("task-1");
    const result = handle.result();
    fake.held.shift()!.fail(new LineUpError("store_read_failed", "the store could not answer"));
    await expect(result).rejects.toMatchObject({ code: "store_read_failed" });
  });
});

describe("controls", () => {
  it("sends each control for its task and keeps the task it returns", async () => {
    const fake = new FakeTasks(taskOf({ status: "completed", result: { output: 1 } }));
    const handle = await createAppSdk(fake.port()).agent.task("task-1");
    await handle.accept();
    await handle.reject("keep the notes in a row");
    await handle.reject();
    await handle.resubmit({ text: "one row" });
    await handle.retry();
    await handle.cancel();
    const last = await handle.cancel("stop");
    expect(fake.controls).toEqual([
      ["task-1", { op: "accept" }],
      ["task-1", { op: "reject", reason: "keep the notes in a row" }],
      ["task-1", { op: "reject" }],
      ["task-1", { op: "resubmit", input: { text: "one row" } }],
      ["task-1", { op: "retry" }],
      ["task-1", { op: "cancel" }],
      ["task-1", { op: "cancel", reason: "stop" }],
    ]);
    expect(last).toEqual(fake.task);
    expect(handle.task).toEqual(fake.task);
  });

  it("rejects with the Runtime's refusal", async () => {
    const fake = new FakeTasks(taskOf({ status: "completed" }));
    fake.controlRefusal = new LineUpError("invalid_state", "task-1 is completed: nothing to cancel");
    const handle = await createAppSdk(fake.port()).agent.task("task-1");
    await expect(handle.cancel()).rejects.toMatchObject({ code: "invalid_state" });
  });
});

describe("sdk.agent and sdk.evidence", () => {
  it("starts a task in the bound instance's conversation, or the one an unbound SDK names", async () => {
    const fake = new FakeTasks();
    const bound = await createAppSdk(fake.port(), { instance_id: "inst-1" }).agent.startTask(REQUEST);
    expect(bound.task_id).toBe("task-1");
    await createAppSdk(fake.port()).agent.startTask(REQUEST, { conversation_id: "conv-9" });
    expect(fake.started).toEqual([
      [REQUEST, { conversation_id: "conv-1", instance_id: "inst-1" }],
      [REQUEST, { conversation_id: "conv-9" }],
    ]);
    await expect(createAppSdk(fake.port()).agent.startTask(REQUEST)).rejects.toMatchObject({ code: "invalid_params" });
    await expect(createAppSdk(fake.port(), { instance_id: "inst-bare" }).agent.startTask(REQUEST)).rejects.toMatchObject({ code: "invalid_params" });
    expect(fake.started).toHaveLength(2);
  });

  it("lists the app's tasks, and refuses to follow one it does not have", async () => {
    const fake = new FakeTasks();
    const sdk = createAppSdk(fake.port());
    await expect(sdk.agent.tasks()).resolves.toEqual([fake.task]);
    await expect(sdk.agent.task("task-404")).rejects.toMatchObject({ code: "not_found" });
  });

  it("exports a task's evidence, or the bound conversation's", async () => {
    const fake = new FakeTasks();
    const exported = await createAppSdk(fake.port(), { instance_id: "inst-1" }).evidence.export({ task_id: "task-1" });
    expect(exported).toMatchObject({ export_id: "exp-1", through_seq: 9, pack_digest: "c".repeat(64), artifact: { artifact_id: "art-1" } });
    await createAppSdk(fake.port(), { instance_id: "inst-1" }).evidence.export({ conversation: true });
    await createAppSdk(fake.port()).evidence.export({ conversation: true, conversation_id: "conv-9" });
    expect(fake.exports).toEqual([{ task_id: "task-1" }, { conversation_id: "conv-1" }, { conversation_id: "conv-9" }]);
    await expect(createAppSdk(fake.port()).evidence.export({ conversation: true })).rejects.toMatchObject({ code: "invalid_params" });
  });
});

