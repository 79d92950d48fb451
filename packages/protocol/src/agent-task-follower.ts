/**
 * An app's handle on one of its agent tasks (docs/protocol.md "In-app agent tasks"), over whatever carries the
 * task to the app: the Runtime's `AppPort` for a core app, the Surface Bridge for an installed one. The source
 * gives pages of stored events and a live feed of new ones; the handle joins the two so that a listener gets
 * every event after its `after` exactly once, in index order, however pages and live deliveries overlap.
 *
 * How a subscription joins them: it listens live first and buffers, then reads pages from `after` until a short
 * page; buffered events the pages already gave are dropped, the rest follow in order. A live event that skips
 * an index makes it read a page again (an event is stored before it is sent live, so the page has the missing
 * ones); only when a page's task already counted past the gap and the page still lacks it are the buffered
 * events delivered past it (the store no longer has it: nothing could ever fill it).
 *
 * No I/O of its own: both SDKs (`@lineup/app-sdk`, `@lineup/surface-sdk`) give it their source.
 */
import { LineUpError } from "./errors.js";
import { TERMINAL_TASK_STATUSES, isTaskErrorCode } from "./agent-task-terms.js";
import type { AgentTask, AgentTaskControl, AgentTaskEvent, AgentTaskInput, AgentTaskResult } from "./agent-task.js";
import type { Unsubscribe } from "./emitter.js";


/** What a handle needs of the Runtime. Every method rejects with a `LineUpError`-shaped refusal. */
export interface TaskSource {
  /**
   * The task and its events after `after` in index order, at most `limit`. The task is read no later than the
   * events: each event it counts is in the page (unless the page is full), so a gap below its count is final.
   */
  events(taskId: string, after: number, limit: number): Promise<{ readonly task: AgentTask; readonly events: readonly AgentTaskEvent[] }>;
  /** Each new event of the app's tasks (any task), after it was stored, with the task after it. */
  live(listener: (event: AgentTaskEvent, task: AgentTask) => void): Unsubscribe;
  /** The task after the control. */
  control(taskId: string, control: AgentTaskControl): Promise<AgentTask>;
}

/** Trouble nobody can be told of: a listener threw, or a subscription's page could not be read (the next live event tries again). */
export interface TaskTrouble {
  readonly kind: "listener_threw" | "events_unreadable";
  readonly task_id: string;
  readonly error: unknown;
}
export type TaskTroubleSink = (trouble: TaskTrouble) => void;

/**
 * One of the app's agent tasks. `task` is the task as the handle last saw it: from a page, a live event, or a
 * control's answer (the newest of them, by its event count).
 */
export interface AgentTaskHandle {
  readonly task_id: string;
  readonly task: AgentTask;
  /**
   * Calls `listener` with every event of the task after `after` (default 0: all of them) exactly once, in index
   * order, then with each new one as it comes, until the returned function is called. `task` is the task as the
   * handle knows it then. A throwing listener goes to diagnostics and keeps its subscription.
   */
  subscribe(listener: (event: AgentTaskEvent, task: AgentTask) => void, options?: { readonly after?: number }): Unsubscribe;
  /**
   * Resolves with the structured result once the task is completed (at once if it already is); rejects with a
   * `LineUpError` when it failed (its error's code) or was cancelled (`cancelled_by_user`), or when its events
   * cannot be read. A retry or resubmit starts a new attempt: ask again for its result.
   */
  result(): Promise<AgentTaskResult>;
  /** Stops the running attempt; `invalid_state` once the task ended. */
  cancel(reason?: string): Promise<AgentTask>;
  /** Runs the same request again as a new attempt (after it failed, was cancelled or was rejected). */
  retry(): Promise<AgentTask>;
  /** Runs the task again with edited input, as a new attempt. */
  resubmit(input: AgentTaskInput): Promise<AgentTask>;
  /** Accepts the completed task's result; the agent is told. */
  accept(): Promise<AgentTask>;
  /** Rejects the completed task's result, with a reason the agent reads. */
  reject(reason?: string): Promise<AgentTask>;
}

/** How many events a subscription asks for per page. */
export const TASK_EVENTS_PAGE = 200;

/** Whether `candidate` is at least as new as `known` (the same task): more events, or as many and not older. */
const isNewer = (candidate: AgentTask, known: AgentTask): boolean =>
  candidate.event_count > known.event_count || (candidate.event_count === known.event_count && candidate.updated_at >= known.updated_at);

/** The handle's answer for a task that ended, or undefined while it still runs. */
function outcomeOf(task: AgentTask): { readonly result: AgentTaskResult } | { readonly error: LineUpError } | undefined {
  if (!TERMINAL_TASK_STATUSES.has(task.status)) return undefined;
  const data = { task_id: task.task_id, attempt: task.attempt };
  if (task.status === "completed") return { result: task.result ?? { output: null } };
  if (task.status === "cancelled") return { error: new LineUpError("cancelled_by_user", `task ${task.task_id} was cancelled`, { data }) };
  const code = task.error !== undefined && isTaskErrorCode(task.error.code) ? (task.error.code as LineUpError["code"]) : "failed";
  return { error: new LineUpError(code, task.error?.message ?? `the agent could not do task ${task.task_id}`, { data }) };
}

function asLineUpError(error: unknown): LineUpError {
  if (error instanceof LineUpError) return error;
  const e = error as { code?: unknown; message?: unknown; path?: unknown } | null;
  const code = typeof e?.code === "string" && isTaskErrorCode(e.code) ? (e.code as LineUpError["code"]) : "internal_error";
  const message = typeof e?.message === "string" ? e.message : String(error);
  return new LineUpError(code, message, typeof e?.path === "string" ? { path: e.path } : undefined);
}

interface FollowHooks {
  /** An event to deliver, in order, once. */
  readonly deliver: (event: AgentTaskEvent) => void;
  /** Every page read completely (the subscription is caught up with the store). */
  readonly caughtUp?: () => void;
  /** A page could not be read: the next live event tries again. */
  readonly failed: (error: unknown) => void;
}

export class TaskFollower implements AgentTaskHandle {
  readonly task_id: string;
  #task: AgentTask;
  readonly #source: TaskSource;
  readonly #trouble: TaskTroubleSink;

  constructor(task: AgentTask, source: TaskSource, trouble: TaskTroubleSink) {
    this.task_id = task.task_id;
    this.#task = task;
    this.#source = source;
    this.#trouble = trouble;
  }

  get task(): AgentTask {
    return this.#task;
  }

  /** Keeps the newest view of the task. */
  see(task: AgentTask): AgentTask {
    if (task.task_id === this.task_id && isNewer(task, this.#task)) this.#task = task;
    return this.#task;
  }

  subscribe(listener: (event: AgentTaskEvent, task: AgentTask) => void, options: { readonly after?: number } = {}): Unsubscribe {
    const after = Math.max(0, Math.floor(options.after ?? 0)) || 0;
    return this.#follow(after, {
      deliver: (event) => {
        try {
          listener(event, this.#task);
        } catch (error) {
          this.#trouble({ kind: "listener_threw", task_id: this.task_id, error });
        }
      },
      failed: (error) => this.#trouble({ kind: "events_unreadable", task_id: this.task_id, error }),
    });
  }

  result(): Promise<AgentTaskResult> {
    return new Promise<AgentTaskResult>((resolve, reject) => {
      let done = false;
      const finish = (settle: () => void): void => {
        if (done) return;
        done = true;
        stop();
        settle();
      };
      const check = (): void => {
        const outcome = outcomeOf(this.#task);
        if (outcome === undefined) return;
        finish(() => ("result" in outcome ? resolve(outcome.result) : reject(outcome.error)));
      };
      // From the last event the handle knows: the first page says whether the task already ended. (Hooks run
      // only after a page was awaited, so `stop` is set by the time `finish` calls it.)
      const stop = this.#follow(this.#task.event_count, { deliver: check, caughtUp: check, failed: (error) => finish(() => reject(asLineUpError(error))) });
    });
  }

  cancel(reason?: string): Promise<AgentTask> {
    return this.#control(reason === undefined ? { op: "cancel" } : { op: "cancel", reason });
  }

  retry(): Promise<AgentTask> {
    return this.#control({ op: "retry" });
  }

  resubmit(input: AgentTaskInput): Promise<AgentTask> {
    return this.#control({ op: "resubmit", input });
  }

  accept(): Promise<AgentTask> {
    return this.#control({ op: "accept" });
  }

  reject(reason?: string): Promise<AgentTask> {
    return this.#control(reason === undefined ? { op: "reject" } : { op: "reject", reason });
  }

  async #control(control: AgentTaskControl): Promise<AgentTask> {
    const task = await this.#source.control(this.task_id, control).catch((error: unknown) => {
      throw asLineUpError(error);
    });
    this.see(task);
    return task;
  }

  /** One subscription's join of pages and live events; see the file's comment. */
  #follow(after: number, hooks: FollowHooks): Unsubscribe {
    let cursor = after;
    let closed = false;
    let paging = false;
    const buffered = new Map<number, AgentTaskEvent>();
    const deliver = (event: AgentTaskEvent): void => {
      cursor = event.index;
      hooks.deliver(event);
    };
    /**
     * Delivers what is buffered, in order. A gap reads a page, unless the page just read counted past it
     * (`stored`: its task's event count) and still did not have it.
     */
    const drain = (stored: number | undefined): void => {
      while (!closed && buffered.size > 0) {
        const next = buffered.get(cursor + 1);
        const lowest = next === undefined ? Math.min(...buffered.keys()) : cursor + 1;
        if (next === undefined && (stored === undefined || stored < lowest - 1)) {
          void page();
          return;
        }
        const index = lowest;
        const event = buffered.get(index)!;
        buffered.delete(index);
        deliver(event);
      }
    };
    const page = async (): Promise<void> => {
      paging = true;
      let stored: number;
      try {
        for (;;) {
          const { task, events } = await this.#source.events(this.task_id, cursor, TASK_EVENTS_PAGE);
          if (closed) return;
          this.see(task);
          stored = task.event_count;
          for (const event of events) {
            if (closed) return;
            if (event.task_id !== this.task_id || event.index <= cursor) continue;
            buffered.delete(event.index);
            deliver(event);
          }
          if (events.length < TASK_EVENTS_PAGE) break;
        }
      } catch (error) {
        paging = false;
        if (!closed) hooks.failed(error);
        return;
      }
      paging = false;
      for (const index of buffered.keys()) if (index <= cursor) buffered.delete(index);
      drain(stored);
      if (!closed && !paging) hooks.caughtUp?.();
    };
    const off = this.#source.live((event, task) => {
      if (closed || event.task_id !== this.task_id) return;
      this.see(task);
      if (event.index <= cursor || buffered.has(event.index)) return;
      buffered.set(event.index, event);
      if (!paging) drain(undefined);
    });
    void page();
    return () => {
      if (closed) return;
      closed = true;
      off();
      buffered.clear();
    };
  }
}
