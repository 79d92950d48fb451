/**
 * In-app agent tasks on the agent's side (docs/protocol.md, "In-app agent tasks"). An app asks the
 * conversation's agent for a piece of work; the device's Runtime starts it as one turn of the conversation's
 * session, with `options.lineup_task` saying which app asked, with what context and which tools the agent may
 * use, and the turn's `output_schema` saying what the structured result must look like.
 *
 * Here: the task a turn carries (`taskOfTurn`, exposed as `IncomingTurn.task`), the tools an agent may offer
 * and call in a turn (`toolsForTurn`), the check of a task's output before it is sent (`checkTurnOutput`,
 * which `completeTurn` runs), and the app's decision on the result as the agent reads it in the log
 * (`taskDecisionOf`, surfaced by `AgentClient.onTaskDecision`).
 */
import {
  LineUpError,
  createToolSchemaValidator,
  taskOptionsOf,
  type InventoryTool,
  type JsonObject,
  type JsonValue,
  type RuntimeEnvelope,
  type SessionEvent,
  type TaskTurnOptions,
  type ToolValueValidator,
  type Turn,
} from "@lineup/protocol";
import type { SessionInventory } from "./session-state.js";

/** The task a turn carries: what the Runtime told the agent (`options.lineup_task`) and the turn's output schema. */
export interface TaskTurn extends TaskTurnOptions {
  /** What `output` must match when the turn completes; absent: any JSON value. */
  readonly output_schema?: JsonObject;
}

/** The task `turn` carries, or undefined for an ordinary chat turn (or task options too malformed to read). */
export function taskOfTurn(turn: Turn): TaskTurn | undefined {
  const options = taskOptionsOf(turn.options);
  if (options === undefined) return undefined;
  return turn.output_schema === undefined ? options : { ...options, output_schema: turn.output_schema };
}

/**
 * The tools an agent may offer its model and call in a turn: for a task, only the inventory's tools the task
 * requested (the Runtime refuses any other call `tool_not_visible`), none when it requested none; for an
 * ordinary turn, the whole inventory.
 */
export function toolsForTurn(inventory: SessionInventory | readonly InventoryTool[] | undefined, turn: { readonly task?: TaskTurn }): InventoryTool[] {
  const tools = inventory === undefined ? [] : "tools" in inventory ? inventory.tools : inventory;
  const task = turn.task;
  if (task === undefined) return [...tools];
  return tools.filter((tool) => task.requested_tools.some((requested) => requested.app_scope === tool.app_scope && requested.method === tool.method));
}

/** Validators of the output schemas seen, by schema object: a turn's schema is checked once per completion attempt, built once. */
const validators = new WeakMap<JsonObject, ToolValueValidator>();

function validatorOf(schema: JsonObject): ToolValueValidator {
  const known = validators.get(schema);
  if (known !== undefined) return known;
  const built = createToolSchemaValidator(schema, { code: "invalid_result" });
  // The AppServer refused such a schema when the turn started; one that reaches here cannot be met.
  if (!built.ok) throw new LineUpError("invalid_state", `the turn's output_schema cannot be used: ${built.error.message}`, built.error.path === undefined ? {} : { path: built.error.path });
  validators.set(schema, built.value);
  return built.value;
}

/**
 * Checks a turn's output against its output schema (the AppServer checks too; this refuses before anything is
 * sent). Returns the output; throws a LineUpError `invalid_result` whose `path` is the JSON Pointer, inside the
 * output, of the first problem (`""`: the output as a whole, or its absence). No schema: any output passes.
 */
export function checkTurnOutput(schema: JsonObject | undefined, output: JsonValue | undefined): JsonValue | undefined {
  if (schema === undefined) return output;
  if (output === undefined) throw new LineUpError("invalid_result", "the turn's output_schema requires an output", { path: "" });
  const checked = validatorOf(schema)(output);
  if (!checked.ok) {
    const path = checked.error.path ?? "";
    throw new LineUpError("invalid_result", `the output does not match the turn's output_schema: ${checked.error.message}`, { path });
  }
  return checked.value;
}

/** An app's decision on the result of a task it asked for (`lineup.task.decision`), as the agent reads it in the log. */
export interface TaskDecision {
  readonly sessionId: string;
  readonly seq: number;
  readonly envelopeId: string;
  /** The app that asked for the task, and decided. */
  readonly appScope: string;
  readonly taskId: string;
  /** The turn of the attempt whose result was decided on. */
  readonly turnId: string;
  readonly decision: "accepted" | "rejected";
  /** Why, when the person or the app said (a rejection's reason). */
  readonly reason?: string;
  readonly timestamp: string;
}

/** The task decision a session event carries: a `lineup.task.decision` the device's Runtime wrote for an app; else undefined. */
export function taskDecisionOf(event: SessionEvent): TaskDecision | undefined {
  if (event.kind !== "envelope" || event.actor.role !== "device") return undefined;
  const envelope = (event.data as { envelope?: RuntimeEnvelope }).envelope;
  if (envelope?.type !== "lineup.task.decision" || envelope.sender.kind !== "app") return undefined;
  const payload = envelope.payload as { task_id?: unknown; turn_id?: unknown; decision?: unknown; reason?: unknown } | null;
  const appScope = envelope.scope.app_scope;
  if (typeof appScope !== "string" || typeof payload?.task_id !== "string" || typeof payload.turn_id !== "string") return undefined;
  if (payload.decision !== "accepted" && payload.decision !== "rejected") return undefined;
  return {
    sessionId: event.session_id,
    seq: event.seq,
    envelopeId: envelope.id,
    appScope,
    taskId: payload.task_id,
    turnId: payload.turn_id,
    decision: payload.decision,
    ...(typeof payload.reason === "string" && payload.reason.trim() !== "" ? { reason: payload.reason } : {}),
    timestamp: envelope.timestamp,
  };
}
