/**
 * The dashboard's tasks: the app's own tasks as the Runtime keeps them (listed again after a reload), each
 * followed through its handle — every event once, in order — and folded into what its card shows. Starting,
 * the five controls and the evidence export go through the same port; a refusal is kept on the task's entry
 * for the card to say, never thrown at the screen.
 */
import type { AgentTask, AgentTaskControl, AgentTaskEvent, AgentTaskInput, AgentTaskRequest, ArtifactRef } from "@lineup/protocol";
import type { TaskControlName } from "./model/controls.js";
import { EMPTY_VIEW, foldEvents, type TaskView } from "./model/task-view.js";

/** One task followed by id: the surface SDK's `AgentTaskHandle`, as far as the dashboard uses it. */
export interface TaskHandle {
  readonly task_id: string;
  readonly task: AgentTask;
  /** Every event after `after` (default 0) once, in index order, then the live ones; returns the unsubscribe. */
  subscribe(listener: (event: AgentTaskEvent, task: AgentTask) => void, options?: { after?: number }): () => void;
  cancel(reason?: string): Promise<AgentTask>;
  retry(): Promise<AgentTask>;
  resubmit(input: AgentTaskInput): Promise<AgentTask>;
  accept(): Promise<AgentTask>;
  reject(reason?: string): Promise<AgentTask>;
}

export interface EvidenceExport {
  readonly artifact: ArtifactRef;
  readonly pack_digest: string;
  readonly through_seq: number;
  readonly export_id: string;
}

/** What the store needs of the surface SDK (`surface.agent`, `surface.evidence`). */
export interface TaskPort {
  startTask(request: AgentTaskRequest): Promise<TaskHandle>;
  /** The app's tasks, newest first. */
  tasks(): Promise<AgentTask[]>;
  task(taskId: string): Promise<TaskHandle>;
  exportEvidence(taskId: string): Promise<EvidenceExport>;
}

export interface TaskEntry {
  readonly task: AgentTask;
  readonly view: TaskView;
  /** The control or export under way. */
  readonly pending?: TaskControlName | "export";
  /** Why the last control or export was refused (worded by the UI in its language). */
  readonly problem?: StoreProblem;
  readonly evidence?: EvidenceExport;
}

/**
 * What the store could not do, and the refusal behind it: typed, so the UI words it in its own language
 * (`DashboardText.storeProblem`), the refusal by its code.
 */
export interface StoreProblem {
  readonly kind: "list" | "follow" | "not_followed" | "control" | "export";
  /** What was thrown or refused (a `{code, message}` refusal, an Error, anything); absent for `not_followed`. */
  readonly error?: unknown;
}

export interface TasksState {
  readonly loaded: boolean;
  /** Newest first. */
  readonly tasks: readonly TaskEntry[];
  /** Why the list could not be read. */
  readonly problem?: StoreProblem;
}

/** At most this many tasks are followed live (the newest); older ones show as last listed. */
export const MAX_FOLLOWED = 50;

/** A refusal (`{code, message}`, a LineUpError) or anything thrown, as a sentence. */
export function problemText(error: unknown): string {
  if (typeof error === "object" && error !== null && "message" in error && typeof (error as { message: unknown }).message === "string") {
    const { message, code } = error as { message: string; code?: unknown };
    return typeof code === "string" ? `${message} (${code})` : message;
  }
  return String(error);
}

/** The fresher of two records of one task: more events, else the later update. */
export function fresher(current: AgentTask, next: AgentTask): AgentTask {
  if (next.event_count !== current.event_count) return next.event_count > current.event_count ? next : current;
  return next.updated_at >= current.updated_at ? next : current;
}

export class TaskStore {
  readonly #port: TaskPort;
  readonly #onError: (error: unknown) => void;
  readonly #listeners = new Set<(state: TasksState) => void>();
  readonly #handles = new Map<string, TaskHandle>();
  readonly #unsubscribes = new Map<string, () => void>();
  #state: TasksState = { loaded: false, tasks: [] };
  #disposed = false;

  constructor(port: TaskPort, options: { readonly onError?: (error: unknown) => void } = {}) {
    this.#port = port;
    this.#onError = options.onError ?? (() => {});
  }

  get state(): TasksState {
    return this.#state;
  }

  entry(taskId: string): TaskEntry | undefined {
    return this.#state.tasks.find((e) => e.task.task_id === taskId);
  }

  /** Calls `listener` on every change; returns the unsubscribe. */
  subscribe(listener: (state: TasksState) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Lists the app's tasks and follows the newest `MAX_FOLLOWED`; resolves once listed (their events follow). */
  async load(): Promise<void> {
    let listed: AgentTask[];
    try {
      listed = await this.#port.tasks();
    } catch (error) {
      this.#set({ ...this.#state, loaded: true, problem: { kind: "list", error } });
      return;
    }
    const known = new Map(this.#state.tasks.map((e) => [e.task.task_id, e]));
    const merged = listed.map((task) => {
      const entry = known.get(task.task_id);
      return entry === undefined ? { task, view: EMPTY_VIEW } : { ...entry, task: fresher(entry.task, task) };
    });
    // Tasks started here while the list was read stay on top.
    const started = this.#state.tasks.filter((e) => !listed.some((t) => t.task_id === e.task.task_id));
    const { problem: _gone, ...rest } = this.#state;
    this.#set({ ...rest, loaded: true, tasks: [...started, ...merged] });
    await Promise.all(
      listed.slice(0, MAX_FOLLOWED).map((task) =>
        this.#port.task(task.task_id).then(
          (handle) => this.#follow(handle),
          (error: unknown) => this.#patch(task.task_id, { problem: { kind: "follow", error } }),
        ),
      ),
    );
  }

  /** Starts a task; resolves with its id once the Runtime took it (rejects with the refusal). */
  async start(request: AgentTaskRequest): Promise<string> {
    const handle = await this.#port.startTask(request);
    this.#follow(handle);
    return handle.task_id;
  }

  /** Asks for one of the controls; a refusal lands on the entry's `problem`. */
  async control(taskId: string, control: AgentTaskControl): Promise<void> {
    const handle = this.#handles.get(taskId);
    if (handle === undefined) {
      this.#patch(taskId, { problem: { kind: "not_followed" } });
      return;
    }
    this.#patch(taskId, { pending: control.op, problem: undefined });
    try {
      const task = await runControl(handle, control);
      this.#patch(taskId, { pending: undefined }, task);
    } catch (error) {
      this.#patch(taskId, { pending: undefined, problem: { kind: "control", error } });
    }
  }

  /** Exports the task's evidence pack; the export's digest lands on the entry. */
  async exportEvidence(taskId: string): Promise<void> {
    this.#patch(taskId, { pending: "export", problem: undefined });
    try {
      const evidence = await this.#port.exportEvidence(taskId);
      this.#patch(taskId, { pending: undefined, evidence });
    } catch (error) {
      this.#patch(taskId, { pending: undefined, problem: { kind: "export", error } });
    }
  }

  dispose(): void {
    this.#disposed = true;
    for (const off of this.#unsubscribes.values()) off();
    this.#unsubscribes.clear();
    this.#listeners.clear();
  }

  #follow(handle: TaskHandle): void {
    const taskId = handle.task_id;
    if (this.#disposed || this.#unsubscribes.has(taskId)) return;
    this.#handles.set(taskId, handle);
    if (this.entry(taskId) === undefined) this.#set({ ...this.#state, tasks: [{ task: handle.task, view: EMPTY_VIEW }, ...this.#state.tasks] });
    else this.#patch(taskId, {}, handle.task);
    this.#unsubscribes.set(
      taskId,
      handle.subscribe((event, task) => {
        const entry = this.entry(taskId);
        if (entry === undefined) return;
        this.#replace(taskId, { ...entry, task: fresher(entry.task, task), view: foldEvents([event], entry.view) });
      }),
    );
  }

  /** Sets (or, with `undefined`, clears) fields of the entry; `task` replaces its record when fresher. */
  #patch(taskId: string, fields: { readonly [K in keyof Omit<TaskEntry, "task" | "view">]?: TaskEntry[K] | undefined }, task?: AgentTask): void {
    const entry = this.entry(taskId);
    if (entry === undefined) return;
    const next: Record<string, unknown> = { ...entry, task: task === undefined ? entry.task : fresher(entry.task, task) };
    for (const [key, value] of Object.entries(fields)) {
      if (value === undefined) delete next[key];
      else next[key] = value;
    }
    this.#replace(taskId, next as unknown as TaskEntry);
  }

  #replace(taskId: string, entry: TaskEntry): void {
    this.#set({ ...this.#state, tasks: this.#state.tasks.map((e) => (e.task.task_id === taskId ? entry : e)) });
  }

  #set(state: TasksState): void {
    this.#state = state;
    for (const listener of [...this.#listeners]) {
      try {
        listener(state);
      } catch (error) {
        this.#onError(error);
      }
    }
  }
}

function runControl(handle: TaskHandle, control: AgentTaskControl): Promise<AgentTask> {
  switch (control.op) {
    case "cancel":
      return handle.cancel(control.reason);
    case "retry":
      return handle.retry();
    case "resubmit":
      return handle.resubmit(control.input);
    case "accept":
      return handle.accept();
    case "reject":
      return handle.reject(control.reason);
  }
}
