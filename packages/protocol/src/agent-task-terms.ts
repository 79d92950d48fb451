/**
 * An agent task's fixed terms: its feature, limits, statuses and the codes it may end with, as
 * plain data (no schema builder), so an app's page can start and follow a task
 * (agent-task-follower.ts) without carrying the task's schemas (agent-task.ts).
 */
import { isErrorCode } from "./errors.js";

/** The feature a host negotiates when its apps may start agent tasks. */
export const AGENT_TASK_FEATURE = "app.agent-task.v1";

/** Limits of a task request, checked by the Runtime before anything is written (`payload_too_large` past them). */
export const AGENT_TASK_LIMITS = {
  /** The task's text input, in characters. */
  text: 16_384,
  /** Attachments and knowledge bindings, each. */
  refs: 16,
  /** Requested tools. */
  tools: 64,
  /** The business context, serialized as JSON, in UTF-8 bytes. */
  contextBytes: 16_384,
  /** The output schema, serialized as JSON, in UTF-8 bytes. */
  outputSchemaBytes: 16_384,
  /** The reason of a rejection or a cancel, in characters. */
  reason: 2_000,
} as const;

export const AGENT_TASK_STATUSES = ["queued", "running", "waiting_for_user", "completed", "failed", "cancelled"] as const;
export type AgentTaskStatus = (typeof AGENT_TASK_STATUSES)[number];
export const TERMINAL_TASK_STATUSES: ReadonlySet<AgentTaskStatus> = new Set(["completed", "failed", "cancelled"]);

/** Every error code a task event may carry is a LineUp code. */
export const isTaskErrorCode = (code: string): boolean => isErrorCode(code);
