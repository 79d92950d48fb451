/**
 * An agent task's statuses and the codes it may end with, as plain data (no schema builder), so
 * an app's page can follow a task (agent-task-follower.ts) without carrying the task's schemas.
 */
import { ERROR_CODES } from "./errors.js";

export const AGENT_TASK_STATUSES = ["queued", "running", "waiting_for_user", "completed", "failed", "cancelled"] as const;
export type AgentTaskStatus = (typeof AGENT_TASK_STATUSES)[number];
export const TERMINAL_TASK_STATUSES: ReadonlySet<AgentTaskStatus> = new Set(["completed", "failed", "cancelled"]);

/** Every error code a task event may carry is a LineUp code. */
export const isTaskErrorCode = (code: string): boolean => Object.prototype.hasOwnProperty.call(ERROR_CODES, code);
