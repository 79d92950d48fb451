/**
 * Which of a task's controls a person may use now, by its status and whether its result was decided —
 * the same rules the Runtime applies, so a button is enabled only when its request can succeed.
 */
import { TERMINAL_TASK_STATUSES, type AgentTask, type AgentTaskStatus } from "@lineup/protocol";

export const TASK_CONTROLS = ["cancel", "retry", "resubmit", "accept", "reject"] as const;
export type TaskControlName = (typeof TASK_CONTROLS)[number];

type TaskFacts = Pick<AgentTask, "status"> & { readonly decision?: Pick<NonNullable<AgentTask["decision"]>, "decision"> | undefined };

const NONE: ReadonlySet<TaskControlName> = new Set();
const WHILE_WORKING: ReadonlySet<TaskControlName> = new Set(["cancel", "resubmit"]);
const TO_DECIDE: ReadonlySet<TaskControlName> = new Set(["accept", "reject", "resubmit"]);
const TO_TRY_AGAIN: ReadonlySet<TaskControlName> = new Set(["retry", "resubmit"]);

/**
 * - queued, running, waiting for the person: it can be cancelled, or edited and resubmitted (the attempt under
 *   way is cancelled for the new one);
 * - completed and undecided: its result can be accepted or rejected, or the task edited and resubmitted — not
 *   retried as it was (reject it first: the agent should hear why);
 * - completed and rejected, failed or cancelled: it can be run again, as it was or edited;
 * - completed and accepted: it is done.
 */
export function allowedControls(task: TaskFacts): ReadonlySet<TaskControlName> {
  if (!TERMINAL_TASK_STATUSES.has(task.status)) return WHILE_WORKING;
  if (task.status !== "completed") return TO_TRY_AGAIN;
  if (task.decision === undefined) return TO_DECIDE;
  return task.decision.decision === "rejected" ? TO_TRY_AGAIN : NONE;
}

/** A task's evidence can be exported once its attempt has ended: the pack then holds the whole turn. */
export const canExportEvidence = (task: Pick<AgentTask, "status">): boolean => TERMINAL_TASK_STATUSES.has(task.status);

/** What a status is called on the dashboard. */
export const STATUS_LABELS: Readonly<Record<AgentTaskStatus, string>> = {
  queued: "Waiting to start",
  running: "Working",
  waiting_for_user: "Needs you",
  completed: "Done",
  failed: "Failed",
  cancelled: "Stopped",
};

/** The status as a person reads it, with the decision on a completed task ("Done · accepted"). */
export function statusText(task: TaskFacts): string {
  const label = STATUS_LABELS[task.status];
  if (task.status !== "completed" || task.decision === undefined) return label;
  return `${label} · ${task.decision.decision}`;
}
