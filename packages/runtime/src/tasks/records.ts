/**
 * In-app agent tasks in the Runtime (docs/protocol.md "In-app agent tasks"): the durable record of each task
 * an app started, and the fold that turns the session log into the task's numbered events.
 *
 * A task is one turn of its conversation's session per attempt (the first run, each retry, each resubmit). The
 * record knows every turn it ever had (`turn_ids`), so an event of an earlier attempt — the cancel of the
 * attempt a resubmit replaced — is still the task's (an event of that attempt) but no longer moves its status.
 *
 * Pure: a fold returns the new state, the store writes and the deliveries; the loop commits them together, so
 * an event is stored, numbered and delivered once. Events are rows of their own (`task-events`,
 * `<task_id>/<index>`), read by apps in pages; the record (`tasks`) holds the count.
 */
import { TERMINAL_TASK_STATUSES, type JsonObject, type AgentTask, type AgentTaskEvent, type AgentTaskEventBody, type AgentTaskStatus, type ArtifactRef, type JsonValue, type Provenance } from "@lineup/protocol";
import { createToolSchemaValidator } from "../tools/schema-engine.js";
import { PersistentMap } from "../core/persistent-map.js";
import { RUNTIME_COLLECTIONS as C, padNumber } from "../persistence/runtime-schema.js";
import type { StoreWrite } from "../persistence/store.js";

/** The stored record: the task as apps see it, plus what only the Runtime needs. */
export interface TaskRecord extends AgentTask {
  /** Every turn of every attempt, oldest first; the last is `turn_id`. */
  readonly turn_ids: readonly string[];
  /** The action (`action.required`) the agent waits on for this task, while `waiting_for_user`. */
  readonly waiting_action?: string;
  /** The app as it was when the task was asked for: what the agent and evidence are told. */
  readonly provenance: Provenance;
  /** The current input's attachments and the knowledge bindings, resolved to the artifacts they name. */
  readonly attachments: readonly ArtifactRef[];
  readonly knowledge: readonly ArtifactRef[];
  /** The tools the agent may call for the task, each with its app. */
  readonly requested: readonly { readonly app_scope: string; readonly method: string }[];
}

/** Persistent maps: a step that changes one task copies a bucket of each, not every task the apps keep. */
export interface TasksState {
  readonly tasks: PersistentMap<string, TaskRecord>;
  /** Every turn of every task → its task id. */
  readonly by_turn: PersistentMap<string, string>;
  /** Each app's task ids, oldest first (by creation, then id): its list and the task to drop, read without a sort. */
  readonly by_app: PersistentMap<string, readonly string[]>;
}

export const EMPTY_TASKS: TasksState = { tasks: PersistentMap.empty(), by_turn: PersistentMap.empty(), by_app: PersistentMap.empty() };

/**
 * How many tasks an app keeps: past it, its oldest ended tasks go (record and events) when it starts another.
 * An open task is never dropped. Keeps `sdk.agent.tasks()` a list a person reads and the state small.
 */
export const MAX_TASKS_PER_APP = 200;

/** What a fold or a control produced: the state, its writes and the events to deliver after the commit. */
export interface TaskChange {
  readonly tasks: TasksState;
  readonly writes: readonly StoreWrite[];
  readonly events: readonly { readonly event: AgentTaskEvent; readonly task: AgentTask }[];
}

/** A transition's result with a task change folded in: its state, its rows, and each event for its app after the commit. */
export function withTaskChange<R extends { readonly state: { readonly tasks: TasksState }; readonly writes: readonly StoreWrite[]; readonly deliveries: readonly unknown[] }>(result: R, change: TaskChange): R {
  if (change.writes.length === 0) return result;
  return {
    ...result,
    state: { ...result.state, tasks: change.tasks },
    writes: [...result.writes, ...change.writes],
    deliveries: [...result.deliveries, ...change.events.map(({ event, task }) => ({ kind: "task.event" as const, app_scope: task.app_scope, event, task }))],
  };
}

/** Session event kinds that can concern a task (`foldLogEvent` reads nothing else). */
export const TASK_LOG_KINDS: ReadonlySet<string> = new Set(["turn.started", "turn.activated", "turn.updated", "turn.completed", "turn.failed", "turn.cancelled", "action.required", "action.responded"]);

/** The record without what only the Runtime keeps: what an app receives. */
export function publicTask(record: TaskRecord): AgentTask {
  const { turn_ids: _turns, waiting_action: _waiting, provenance: _p, attachments: _a, knowledge: _k, requested: _r, ...task } = record;
  return task;
}

export const taskEventKey = (taskId: string, index: number): string => `${taskId}/${padNumber(index)}`;

/** The state holding `records` (a restore). */
export function tasksStateOf(records: readonly TaskRecord[]): TasksState {
  const byApp = new Map<string, TaskRecord[]>();
  for (const record of records) {
    const own = byApp.get(record.app_scope);
    if (own === undefined) byApp.set(record.app_scope, [record]);
    else own.push(record);
  }
  return {
    tasks: PersistentMap.of(records.map((record) => [record.task_id, record])),
    by_turn: PersistentMap.of(records.flatMap((record) => record.turn_ids.map((turnId) => [turnId, record.task_id] as const))),
    by_app: PersistentMap.of([...byApp].map(([appScope, own]) => [appScope, own.sort(newestFirst).reverse().map((task) => task.task_id)])),
  };
}

/** The app's task started with `idempotencyKey`, if any. */
export function taskByKey(state: TasksState, appScope: string, idempotencyKey: string): TaskRecord | undefined {
  return tasksOf(state, appScope).find((task) => task.idempotency_key === idempotencyKey);
}

/** The app's tasks, newest first. */
export function tasksOf(state: TasksState, appScope: string): TaskRecord[] {
  const ids = state.by_app.get(appScope) ?? [];
  const tasks: TaskRecord[] = [];
  for (let index = ids.length - 1; index >= 0; index--) tasks.push(state.tasks.get(ids[index]!)!);
  return tasks;
}

/** Newer first: by creation, then by id. */
const newestFirst = (a: TaskRecord, b: TaskRecord): number => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.task_id < b.task_id ? 1 : -1);

/** The task whose current attempt is `turnId` (the one running, to scope the agent's tool calls), if any. */
export function taskOfTurn(state: TasksState, turnId: string | undefined): TaskRecord | undefined {
  if (turnId === undefined) return undefined;
  const taskId = state.by_turn.get(turnId);
  return taskId === undefined ? undefined : state.tasks.get(taskId);
}

/**
 * Accumulates the events of one step: each is numbered after the task's last, stored as its own row, and the
 * record (with the new count and status) written once at the end.
 */
export class TaskDraft {
  /** The state as the draft has changed it so far (the one it began from is never changed). */
  private current: TasksState;
  private readonly changed = new Set<string>();
  private readonly writes: StoreWrite[] = [];
  private readonly events: AgentTaskEvent[] = [];

  constructor(
    state: TasksState,
    private readonly at: string,
  ) {
    this.current = state;
  }

  private set(record: TaskRecord): void {
    const { tasks, by_turn, by_app } = this.current;
    let byTurn = by_turn;
    for (const turnId of record.turn_ids) byTurn = byTurn.with(turnId, record.task_id);
    // A new task takes its place in its app's list: at the end, unless the clock went back.
    let byApp = by_app;
    if (!tasks.has(record.task_id)) {
      const ids = by_app.get(record.app_scope) ?? [];
      let at = ids.length;
      while (at > 0 && newestFirst(record, tasks.get(ids[at - 1]!)!) > 0) at -= 1;
      const next = ids.slice();
      next.splice(at, 0, record.task_id);
      byApp = by_app.with(record.app_scope, next);
    }
    this.current = { tasks: tasks.with(record.task_id, record), by_turn: byTurn, by_app: byApp };
  }

  get(taskId: string): TaskRecord | undefined {
    return this.current.tasks.get(taskId);
  }

  /** The task one of whose attempts is `turnId`, and which attempt (1 = the first). */
  turn(turnId: unknown): { readonly task: TaskRecord; readonly attempt: number } | undefined {
    if (typeof turnId !== "string") return undefined;
    const task = taskOfTurn(this.current, turnId);
    return task === undefined ? undefined : { task, attempt: task.turn_ids.indexOf(turnId) + 1 };
  }

  all(): IterableIterator<TaskRecord> {
    return this.current.tasks.values();
  }

  /** Replaces the record (a new task, a new attempt, a decision). */
  put(record: TaskRecord): void {
    this.set({ ...record, updated_at: this.at });
    this.changed.add(record.task_id);
  }

  /** Drops the app's oldest ended tasks so that one more fits under MAX_TASKS_PER_APP (their records and events are deleted). */
  makeRoom(appScope: string): void {
    const { tasks, by_app } = this.current;
    const ids = by_app.get(appScope) ?? [];
    let over = ids.length + 1 - MAX_TASKS_PER_APP;
    if (over <= 0) return;
    // Oldest first: usually the first ended one is at the front, the open ones (never dropped) are few.
    const dropped = new Set<string>();
    let byTurn = this.current.by_turn;
    for (let index = 0; index < ids.length && over > 0; index++) {
      const task = tasks.get(ids[index]!)!;
      if (!isTerminal(task.status)) continue;
      dropped.add(task.task_id);
      for (const turnId of task.turn_ids) byTurn = byTurn.without(turnId);
      this.changed.delete(task.task_id);
      this.writes.push({ op: "delete", collection: C.tasks, key: task.task_id }, { op: "deleteRange", collection: C.taskEvents, range: { prefix: `${task.task_id}/` } });
      over -= 1;
    }
    if (dropped.size === 0) return;
    let left = tasks;
    for (const taskId of dropped) left = left.without(taskId);
    this.current = { tasks: left, by_turn: byTurn, by_app: by_app.with(appScope, ids.filter((id) => !dropped.has(id))) };
  }

  /** Appends an event of `attempt` to the task; with `status`, the task moves to it (when it is the current attempt). */
  append(taskId: string, attempt: number, body: AgentTaskEventBody, patch: Partial<Pick<TaskRecord, "status" | "result" | "error" | "waiting_action">> & { readonly clearWaiting?: boolean } = {}): void {
    const task = this.current.tasks.get(taskId);
    if (task === undefined) return;
    const index = task.event_count + 1;
    const event = { task_id: taskId, index, attempt, at: this.at, ...body } as AgentTaskEvent;
    const current = attempt === task.attempt;
    const { clearWaiting, ...fields } = patch;
    let next: TaskRecord = { ...task, event_count: index, updated_at: this.at, ...(current ? fields : {}) };
    if (current && clearWaiting === true) {
      const { waiting_action: _gone, ...rest } = next;
      next = rest;
    }
    this.set(next);
    this.changed.add(taskId);
    this.writes.push({ op: "put", collection: C.taskEvents, key: taskEventKey(taskId, index), value: event as unknown as JsonValue });
    this.events.push(event);
  }

  done(): TaskChange {
    const state = this.current;
    const writes = [...this.writes];
    for (const taskId of this.changed) writes.push({ op: "put", collection: C.tasks, key: taskId, value: state.tasks.get(taskId)! as unknown as JsonValue });
    // Each delivered event carries the task as it is after the whole step (one view per task).
    const views = new Map<string, AgentTask>();
    const viewOf = (taskId: string): AgentTask => {
      let view = views.get(taskId);
      if (view === undefined) views.set(taskId, (view = publicTask(state.tasks.get(taskId)!)));
      return view;
    };
    const events = this.events.map((event) => ({ event, task: viewOf(event.task_id) }));
    return { tasks: state, writes, events };
  }
}

export const isTerminal = (status: AgentTaskStatus): boolean => TERMINAL_TASK_STATUSES.has(status);

/** Validators of apps' output schemas, by the schema's JSON text (an app asks with the same schema again and again). */
const validators = new Map<string, ReturnType<typeof createToolSchemaValidator>>();
/**
 * The validator of each schema object as it was when last found by its text (a task's start), so that checking a
 * task's result does not write its schema out again: the record keeps its request's objects in the state.
 */
const validatorsOfSchemas = new WeakMap<JsonObject, ReturnType<typeof createToolSchemaValidator>>();

/**
 * The validator of an output schema (refused with `manifest_invalid_tool_schema` when it cannot be one). With the
 * schema's JSON `text` (a task's start) it is found by that text; without, by the object when it was found so before.
 */
export function outputSchemaValidator(schema: JsonObject, text?: string): ReturnType<typeof createToolSchemaValidator> {
  let validator = text === undefined ? validatorsOfSchemas.get(schema) : undefined;
  if (validator !== undefined) return validator;
  const key = text ?? JSON.stringify(schema);
  validator = validators.get(key);
  if (validator === undefined) {
    validator = createToolSchemaValidator(schema, { code: "invalid_result" });
    if (validators.size >= 256) validators.clear();
    validators.set(key, validator);
  }
  validatorsOfSchemas.set(schema, validator);
  return validator;
}

function outputValidator(task: TaskRecord): ReturnType<typeof createToolSchemaValidator> | undefined {
  return task.request.output_schema === undefined ? undefined : outputSchemaValidator(task.request.output_schema);
}

/** A session event of the log, as the fold reads it. */
export interface LogEvent {
  readonly kind: string;
  readonly data: unknown;
}

type Obj = { readonly [key: string]: unknown };
const obj = (value: unknown): Obj | undefined => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Obj) : undefined);

/**
 * Folds one applied log event into the tasks it concerns (none for most): status, progress, text, knowledge,
 * partial artifacts, the agent's questions, the result (checked against the output schema again: the device
 * does not take the server's word for it) and the end.
 */
export function foldLogEvent(draft: TaskDraft, event: LogEvent): void {
  const data = obj(event.data);
  if (data === undefined) return;
  const turnOf = (turnId: unknown) => draft.turn(turnId);
  switch (event.kind) {
    case "turn.started": {
      const turn = obj(data["turn"]);
      const found = turnOf(turn?.["turn_id"]);
      if (found === undefined || (isTerminal(found.task.status) && found.attempt === found.task.attempt)) return;
      const status: AgentTaskStatus = turn?.["state"] === "running" ? "running" : "queued";
      if (found.attempt === found.task.attempt && status === found.task.status) return;
      draft.append(found.task.task_id, found.attempt, { kind: "status", status }, { status });
      return;
    }
    case "turn.activated": {
      const found = turnOf(data["turn_id"]);
      if (found === undefined || found.attempt !== found.task.attempt || isTerminal(found.task.status)) return;
      draft.append(found.task.task_id, found.attempt, { kind: "status", status: "running" }, { status: "running" });
      return;
    }
    case "turn.updated": {
      const found = turnOf(data["turn_id"]);
      if (found === undefined || isTerminal(found.task.status)) return;
      const { task, attempt } = found;
      const status = data["status"];
      if (status === "waiting_for_user" && task.status !== "waiting_for_user") draft.append(task.task_id, attempt, { kind: "status", status: "waiting_for_user" }, { status: "waiting_for_user" });
      else if ((status === "thinking" || status === "working") && task.status !== "running") draft.append(task.task_id, attempt, { kind: "status", status: "running" }, { status: "running", clearWaiting: true });
      const label = typeof data["label"] === "string" ? data["label"] : undefined;
      const progress = typeof data["progress"] === "number" ? data["progress"] : undefined;
      if (label !== undefined || progress !== undefined) draft.append(task.task_id, attempt, { kind: "progress", ...(label === undefined ? {} : { label }), ...(progress === undefined ? {} : { progress }) });
      if (typeof data["text_delta"] === "string" && data["text_delta"] !== "") draft.append(task.task_id, attempt, { kind: "text", delta: data["text_delta"] });
      const extra = obj(data["data"]);
      if (Array.isArray(extra?.["knowledge"])) draft.append(task.task_id, attempt, { kind: "knowledge", refs: (extra["knowledge"] as JsonValue[]).slice(0, 64) });
      const artifact = obj(extra?.["artifact"]);
      if (artifact !== undefined && typeof artifact["artifact_id"] === "string" && typeof artifact["sha256"] === "string") {
        draft.append(task.task_id, attempt, { kind: "artifact", artifact: artifact as never });
      }
      return;
    }
    case "action.required": {
      const action = obj(data["action"]);
      const found = turnOf(action?.["turn_id"]);
      if (found === undefined || isTerminal(found.task.status) || typeof action?.["action_id"] !== "string") return;
      const prompt = typeof action["prompt"] === "string" ? action["prompt"] : "";
      draft.append(found.task.task_id, found.attempt, { kind: "action", action_id: action["action_id"], prompt });
      if (found.attempt === found.task.attempt) draft.append(found.task.task_id, found.attempt, { kind: "status", status: "waiting_for_user" }, { status: "waiting_for_user", waiting_action: action["action_id"] });
      return;
    }
    case "action.responded": {
      const actionId = data["action_id"];
      if (typeof actionId !== "string") return;
      for (const task of [...draft.all()]) {
        if (task.waiting_action === actionId && task.status === "waiting_for_user") draft.append(task.task_id, task.attempt, { kind: "status", status: "running" }, { status: "running", clearWaiting: true });
      }
      return;
    }
    case "turn.completed": {
      const found = turnOf(data["turn_id"]);
      if (found === undefined || found.attempt !== found.task.attempt || isTerminal(found.task.status)) return;
      const { task, attempt } = found;
      const output = (data["output"] ?? null) as JsonValue;
      const text = typeof data["text"] === "string" ? data["text"] : undefined;
      const validator = outputValidator(task);
      if (validator !== undefined) {
        const checked = validator.ok ? validator.value(data["output"]) : validator;
        if (!checked.ok) {
          const error = { code: "invalid_result", message: `the agent's result does not match the output schema: ${checked.error.message}`.slice(0, 2000) };
          draft.append(task.task_id, attempt, { kind: "error", ...error });
          draft.append(task.task_id, attempt, { kind: "status", status: "failed" }, { status: "failed", error, clearWaiting: true });
          return;
        }
      }
      const result = text === undefined ? { output } : { output, text };
      draft.append(task.task_id, attempt, { kind: "result", ...result });
      draft.append(task.task_id, attempt, { kind: "status", status: "completed" }, { status: "completed", result, clearWaiting: true });
      return;
    }
    case "turn.failed": {
      const found = turnOf(data["turn_id"]);
      if (found === undefined || found.attempt !== found.task.attempt || isTerminal(found.task.status)) return;
      const raw = obj(data["error"]);
      const error = { code: typeof raw?.["code"] === "string" ? raw["code"] : "failed", message: typeof raw?.["message"] === "string" ? raw["message"] : "the agent could not do the task" };
      draft.append(found.task.task_id, found.attempt, { kind: "error", ...error });
      draft.append(found.task.task_id, found.attempt, { kind: "status", status: "failed" }, { status: "failed", error, clearWaiting: true });
      return;
    }
    case "turn.cancelled": {
      const found = turnOf(data["turn_id"]);
      if (found === undefined || (isTerminal(found.task.status) && found.attempt === found.task.attempt)) return;
      const reason = data["reason"] === "interrupted" ? "interrupted" : "cancelled";
      // An earlier attempt's cancel (a resubmit replaced it) is recorded, and moves nothing.
      draft.append(found.task.task_id, found.attempt, { kind: "status", status: "cancelled", reason }, { status: "cancelled", clearWaiting: true });
      return;
    }
    default:
      return;
  }
}
