/**
 * A task's events folded into what its card shows: per attempt, the status, the latest progress, the text
 * streamed so far, the tool calls with their outcomes, blocks, errors, knowledge and partial artifacts; and
 * the task's decision. Pure: events in index order in, a view out; an event seen twice is counted once.
 */
import type { AgentTaskEvent, AgentTaskStatus, ArtifactRef } from "@lineup/protocol";

export interface ToolCallView {
  readonly call_id: string;
  readonly app_scope: string;
  readonly method: string;
  /** Undefined while the call runs. */
  readonly outcome?: "result" | "error";
  readonly code?: string;
}

export interface AttemptView {
  readonly attempt: number;
  readonly status: AgentTaskStatus;
  /** Why it ended so (a cancel's reason), when the status event said. */
  readonly reason?: string;
  readonly progress?: { readonly label?: string; readonly value?: number };
  /** The text the agent streamed in this attempt. */
  readonly text: string;
  readonly toolCalls: readonly ToolCallView[];
  readonly blocked: readonly { readonly code: string; readonly message: string }[];
  readonly errors: readonly { readonly code: string; readonly message: string }[];
  /** How many references the agent said it used. */
  readonly knowledge: number;
  readonly artifacts: readonly ArtifactRef[];
  /** What the agent asks the person (`waiting_for_user`). */
  readonly actions: readonly { readonly action_id: string; readonly prompt: string }[];
}

export interface TaskView {
  /** Oldest first; never empty once a task has an event (an attempt before its first event is `queued`). */
  readonly attempts: readonly AttemptView[];
  readonly decision?: { readonly decision: "accepted" | "rejected"; readonly reason?: string };
  /** The index of the last event folded (0: none). */
  readonly through: number;
}

const emptyAttempt = (attempt: number): AttemptView => ({ attempt, status: "queued", text: "", toolCalls: [], blocked: [], errors: [], knowledge: 0, artifacts: [], actions: [] });

export const EMPTY_VIEW: TaskView = { attempts: [], through: 0 };

function foldAttempt(view: AttemptView, event: AgentTaskEvent): AttemptView {
  switch (event.kind) {
    case "status": {
      const { reason: _old, ...rest } = view;
      return { ...rest, status: event.status, ...(event.reason === undefined ? {} : { reason: event.reason }) };
    }
    case "progress":
      return { ...view, progress: { ...(event.label === undefined ? {} : { label: event.label }), ...(event.progress === undefined ? {} : { value: Math.max(0, Math.min(1, event.progress)) }) } };
    case "text":
      return { ...view, text: view.text + event.delta };
    case "tool_call":
      return view.toolCalls.some((c) => c.call_id === event.call_id) ? view : { ...view, toolCalls: [...view.toolCalls, { call_id: event.call_id, app_scope: event.app_scope, method: event.method }] };
    case "tool_result": {
      const known = view.toolCalls.some((c) => c.call_id === event.call_id);
      const ended = (c: ToolCallView): ToolCallView => ({ ...c, outcome: event.outcome, ...(event.code === undefined ? {} : { code: event.code }) });
      return known
        ? { ...view, toolCalls: view.toolCalls.map((c) => (c.call_id === event.call_id ? ended(c) : c)) }
        : { ...view, toolCalls: [...view.toolCalls, ended({ call_id: event.call_id, app_scope: "", method: "a tool" })] };
    }
    case "blocked":
      return { ...view, blocked: [...view.blocked, { code: event.code, message: event.message }] };
    case "error":
      return { ...view, errors: [...view.errors, { code: event.code, message: event.message }] };
    case "knowledge":
      return { ...view, knowledge: view.knowledge + event.refs.length };
    case "artifact":
      return { ...view, artifacts: [...view.artifacts, event.artifact] };
    case "action":
      return { ...view, actions: [...view.actions, { action_id: event.action_id, prompt: event.prompt }] };
    case "result":
    case "decision":
      return view;
  }
}

/** Folds `events` (index order) onto `view`; events at or below `view.through` are skipped. */
export function foldEvents(events: readonly AgentTaskEvent[], view: TaskView = EMPTY_VIEW): TaskView {
  let attempts = [...view.attempts];
  let decision = view.decision;
  let through = view.through;
  for (const event of events) {
    if (event.index <= through) continue;
    through = event.index;
    if (event.kind === "decision") {
      decision = { decision: event.decision, ...(event.reason === undefined ? {} : { reason: event.reason }) };
      continue;
    }
    let at = attempts.findIndex((a) => a.attempt === event.attempt);
    if (at < 0) {
      attempts = [...attempts, emptyAttempt(event.attempt)].sort((a, b) => a.attempt - b.attempt);
      at = attempts.findIndex((a) => a.attempt === event.attempt);
    }
    attempts[at] = foldAttempt(attempts[at]!, event);
  }
  return { attempts, ...(decision === undefined ? {} : { decision }), through };
}

/** The attempt the task is on: the newest one, or `attempt` queued when no event of it arrived yet. */
export function currentAttempt(view: TaskView, attempt: number): AttemptView {
  return view.attempts.find((a) => a.attempt === attempt) ?? emptyAttempt(attempt);
}

/** Whether a status event's reason says more than its status ("cancelled" for a cancel does not). */
export const tellsMore = (status: AgentTaskStatus, reason: string | undefined): reason is string => reason !== undefined && reason !== status && !(status === "cancelled" && /^cancel/i.test(reason));

/** How an earlier attempt's line is worded: its number, status, the reason when it says more, and its last error. */
export type AttemptWords = (attempt: number, status: string, reason: string | undefined, error: string | undefined) => string;

export const ENGLISH_ATTEMPT: AttemptWords = (n, status, reason, error) => `Attempt ${n}: ${status}${reason === undefined ? "" : ` (${reason})`}${error === undefined ? "" : ` — ${error}`}`;

/** One line for an earlier attempt: "Attempt 1: Stopped (by you)". */
export function attemptLine(attempt: AttemptView, statusLabel: (status: AgentTaskStatus) => string, words: AttemptWords = ENGLISH_ATTEMPT): string {
  const error = attempt.errors[attempt.errors.length - 1];
  return words(attempt.attempt, statusLabel(attempt.status), tellsMore(attempt.status, attempt.reason) ? attempt.reason : undefined, error?.message);
}
