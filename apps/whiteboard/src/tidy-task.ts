/**
 * The whiteboard's one agent task, "tidy this board", from the button to the decision. It starts
 * `tidy_board` with the board's items as context, follows the task's events, and once the agent's layout
 * arrives waits for the person: Accept tells the Runtime first and then applies the layout (through the
 * store: one undoable change); Reject tells it why and changes nothing. After a reload it picks up the
 * newest tidy task still running or waiting for a decision.
 */
import { TERMINAL_TASK_STATUSES, type AgentTask, type AgentTaskEvent, type AgentTaskRequest } from "@lineup/protocol";
import { readTidyResult, TIDY_ENTRY, TIDY_OUTPUT_SCHEMA, type Placement, type TidyContext, type TidyResult } from "./model/tidy.js";

/** One task followed by id: the surface SDK's `AgentTaskHandle`, as far as the whiteboard uses it. */
export interface TidyHandle {
  readonly task_id: string;
  readonly task: AgentTask;
  subscribe(listener: (event: AgentTaskEvent, task: AgentTask) => void, options?: { after?: number }): () => void;
  cancel(reason?: string): Promise<AgentTask>;
  accept(): Promise<AgentTask>;
  reject(reason?: string): Promise<AgentTask>;
}

/** What the tidy task needs of the surface SDK (`surface.agent`). */
export interface TidyPort {
  startTask(request: AgentTaskRequest): Promise<TidyHandle>;
  tasks(): Promise<AgentTask[]>;
  task(taskId: string): Promise<TidyHandle>;
}

export type TidyState =
  | { readonly phase: "idle" }
  | { readonly phase: "starting" }
  /** Queued, running or waiting for the person; `label` the agent's latest progress. */
  | { readonly phase: "working"; readonly task: AgentTask; readonly label?: string; readonly cancelling?: boolean }
  /** The agent's layout, waiting for Accept or Reject (`deciding` while one is on its way). */
  | { readonly phase: "proposed"; readonly task: AgentTask; readonly result: TidyResult; readonly deciding?: "accept" | "reject" }
  | { readonly phase: "ended"; readonly outcome: "accepted" | "rejected" | "cancelled" | "failed"; readonly message: string };

export type TidyView = TidyState & { readonly problem?: string };

/** A refusal (`{code, message}`) or anything thrown, as a sentence. */
const problemText = (error: unknown): string =>
  typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string"
    ? `${(error as { message: string }).message}${typeof (error as { code?: unknown }).code === "string" ? ` (${(error as { code: string }).code})` : ""}`
    : String(error);

const plural = (n: number): string => (n === 1 ? "1 item" : `${n} items`);

/** The request the button sends. */
export function tidyRequest(context: TidyContext): AgentTaskRequest {
  const count = context.board.items.length;
  return {
    entry: TIDY_ENTRY,
    title: "Tidy this board",
    input: { text: `Tidy this whiteboard: arrange its ${plural(count)} neatly. Answer with a position for each item.` },
    context: context as unknown as NonNullable<AgentTaskRequest["context"]>,
    output_schema: TIDY_OUTPUT_SCHEMA,
  };
}

export class TidyTask {
  readonly #port: TidyPort;
  readonly #listeners = new Set<(view: TidyView) => void>();
  #view: TidyView = { phase: "idle" };
  #handle: TidyHandle | undefined;
  #unsubscribe: (() => void) | undefined;

  constructor(port: TidyPort) {
    this.#port = port;
  }

  get view(): TidyView {
    return this.#view;
  }


  subscribe(listener: (view: TidyView) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Asks the agent; refused (a problem on the view) while another tidy task is under way. */
  async start(context: TidyContext): Promise<void> {
    if (this.#view.phase !== "idle" && this.#view.phase !== "ended") return;
    this.#set({ phase: "starting" });
    try {
      this.#follow(await this.#port.startTask(tidyRequest(context)));
    } catch (error) {
      this.#set({ phase: "idle", problem: `The agent could not be asked: ${problemText(error)}` });
    }
  }

  /** Follows the newest tidy task that still runs or waits for a decision (after a reload). */
  async restore(): Promise<void> {
    if (this.#view.phase !== "idle") return;
    let tasks: AgentTask[];
    try {
      tasks = await this.#port.tasks();
    } catch {
      return; // Nothing listed: nothing to pick up (the button still works).
    }
    const open = tasks.find((t) => t.entry === TIDY_ENTRY && (!TERMINAL_TASK_STATUSES.has(t.status) || (t.status === "completed" && t.decision === undefined)));
    if (open === undefined || this.#view.phase !== "idle") return;
    try {
      this.#follow(await this.#port.task(open.task_id));
    } catch {
      // Gone meanwhile: nothing to show.
    }
  }

  async cancel(): Promise<void> {
    const view = this.#view;
    const handle = this.#handle;
    if (view.phase !== "working" || handle === undefined || view.cancelling === true) return;
    this.#set({ ...view, cancelling: true });
    try {
      this.#fromTask(await handle.cancel("cancelled on the whiteboard"));
    } catch (error) {
      const now = this.#view;
      if (now.phase === "working") this.#set({ ...now, cancelling: false, problem: `The task could not be cancelled: ${problemText(error)}` });
    }
  }

  /**
   * The person accepted the layout: the Runtime is told, then `apply` changes the board (it returns how many
   * items moved). A refused accept changes nothing.
   */
  async accept(apply: (layout: readonly Placement[]) => number): Promise<void> {
    const view = this.#view;
    const handle = this.#handle;
    if (view.phase !== "proposed" || handle === undefined || view.deciding !== undefined) return;
    this.#set({ ...view, deciding: "accept" });
    try {
      await handle.accept();
    } catch (error) {
      this.#set({ ...view, problem: `The layout could not be accepted: ${problemText(error)}` });
      return;
    }
    const moved = apply(view.result.layout);
    this.#end({ phase: "ended", outcome: "accepted", message: moved === 0 ? "Everything was already in place." : `Moved ${plural(moved)}. Undo puts them back.` });
  }

  /** The person rejected the layout (`reason` is told to the agent); the board stays as it is. */
  async reject(reason: string): Promise<void> {
    const view = this.#view;
    const handle = this.#handle;
    if (view.phase !== "proposed" || handle === undefined || view.deciding !== undefined) return;
    this.#set({ ...view, deciding: "reject" });
    try {
      const trimmed = reason.trim();
      await handle.reject(trimmed === "" ? undefined : trimmed);
    } catch (error) {
      this.#set({ ...view, problem: `The layout could not be rejected: ${problemText(error)}` });
      return;
    }
    this.#end({ phase: "ended", outcome: "rejected", message: "Kept the board as it was." });
  }

  /** Closes what the panel says about the last task. */
  dismiss(): void {
    if (this.#view.phase === "ended" || (this.#view.phase === "idle" && this.#view.problem !== undefined)) this.#set({ phase: "idle" });
  }

  dispose(): void {
    this.#unsubscribe?.();
    this.#listeners.clear();
  }

  #follow(handle: TidyHandle): void {
    this.#unsubscribe?.();
    this.#handle = handle;
    this.#fromTask(handle.task);
    this.#unsubscribe = handle.subscribe((event, task) => {
      if (this.#handle !== handle) return;
      this.#fromTask(task, event.kind === "progress" ? event.label : undefined);
    });
  }

  /** The view for the task as the Runtime now has it; a decision under way here is not overtaken. */
  #fromTask(task: AgentTask, label?: string): void {
    const view = this.#view;
    if (view.phase === "ended" || (view.phase === "proposed" && view.deciding !== undefined)) return;
    if (!TERMINAL_TASK_STATUSES.has(task.status)) {
      const kept = label ?? (view.phase === "working" ? view.label : undefined);
      this.#set({ phase: "working", task, ...(kept === undefined ? {} : { label: kept }), ...(view.phase === "working" && view.cancelling === true ? { cancelling: true } : {}) });
      return;
    }
    if (task.status === "cancelled") return this.#end({ phase: "ended", outcome: "cancelled", message: "Stopped: the board is unchanged." });
    if (task.status === "failed") return this.#end({ phase: "ended", outcome: "failed", message: `The agent could not tidy the board${task.error === undefined ? "." : `: ${task.error.message}`}` });
    if (task.decision !== undefined) {
      return this.#end({ phase: "ended", outcome: task.decision.decision, message: task.decision.decision === "accepted" ? "The layout was accepted." : "The layout was rejected." });
    }
    const result = task.result === undefined ? undefined : readTidyResult(task.result.output);
    if (result === undefined) return this.#end({ phase: "ended", outcome: "failed", message: "The agent’s answer was not a layout." });
    if (view.phase !== "proposed") this.#set({ phase: "proposed", task, result });
  }

  #end(view: TidyState & { readonly phase: "ended" }): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#handle = undefined;
    this.#set(view);
  }

  #set(view: TidyView): void {
    this.#view = view;
    for (const listener of [...this.#listeners]) listener(view);
  }
}
