/**
 * The generated validator of an app's agent task request, on its own: the Runtime checks every
 * request with it. It is imported by name, not through its contract's table, so a bundle that
 * checks task requests carries only this validator (and what it references).
 */
import { validate_agent_task_request } from "./generated/app-records.js";
import type { CompiledValidator } from "./validation.js";

/** Checks an `agent.start_task` request body (`agent-task.request`): use it with `checkWith`. */
export const validateAgentTaskRequest: CompiledValidator = validate_agent_task_request;
