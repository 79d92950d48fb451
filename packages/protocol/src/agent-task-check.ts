/**
 * The generated validator of an app's agent task request, on its own: the Runtime checks every
 * request with it, and importing it does not bring every contract's validators along (index.ts's
 * `validators` does).
 */
import { validators } from "./generated/manifest.js";
import { schemaId } from "./schema-kit.js";
import type { CompiledValidator } from "./validation.js";

const id = schemaId("agent-task.request");
const found = validators[id];
// A missing validator is a build mistake, found at module load.
if (found === undefined) throw new Error(`no generated validator for ${id}: run npm run gen`);

/** Checks an `agent.start_task` request body (`agent-task.request`): use it with `checkWith`. */
export const validateAgentTaskRequest: CompiledValidator = found;
