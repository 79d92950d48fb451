/**
 * Runtime-owned operations and deadlines (spec 6.3, 7.3 — the pomodoro example). An app may show
 * a timer from its session data, but three things belong to the Runtime alone: the `started`
 * progress (sent only once the host confirmed the app is in front and the operation exists — it
 * also stands for `activation_ready`), the expiry at `ends_at`, and an interruption; each of the
 * last two produces the call's one result. Any other unfinished call past its deadline ends with
 * `operation_expired`.
 *
 * The result of an operation is `{ outcome, operation_id, started_at, ends_at, ended_at, reason? }`
 * (timestamps RFC 3339) and must pass the tool's output schema like any other result.
 */
import type { JsonObject } from "@lineup/protocol";
import { toTimestamp } from "../core/ports.js";
import { CallDraft, getCall, refuseReport, type CallDecision, type CallRecord, type ToolCallsState } from "./call-state.js";
import type { ToolRegistry } from "./registry.js";

const iso = toTimestamp;

export interface StartOperationRequest {
  readonly call_id: string;
  readonly operation_id: string;
  readonly now: number;
  readonly ends_at: number;
  /** The host confirmed the app is in the foreground. */
  readonly foreground: boolean;
  /** The app runs it and reports the result itself; `ends_at` is then its deadline. */
  readonly app_run?: boolean;
}

export function startOperation(state: ToolCallsState, request: StartOperationRequest): CallDecision {
  const call = getCall(state, request.call_id);
  if (call === undefined || call.phase !== "awaiting_operation") {
    return refuseReport(state, { code: "call_not_active", message: `call ${request.call_id} is not waiting for its operation to start` });
  }
  const draft = new CallDraft(state);
  if (!request.foreground) {
    draft.error(call.call_id, "foreground_required", `${call.app_scope} could not be brought to the foreground`);
    return draft.done();
  }
  const operation = { operation_id: request.operation_id, started_at: request.now, ends_at: request.ends_at, ...(request.app_run === true ? { app_run: true as const } : {}) };
  draft.update(call.call_id, { phase: "operation_running", operation });
  draft.emit(call.call_id, {
    type: "lineup.tool.progress",
    call_id: call.call_id,
    payload: { stage: "started", data: { operation_id: request.operation_id, started_at: iso(request.now), ends_at: iso(request.ends_at) } },
  });
  draft.audit.push({ type: "tool.operation.started", conversation_id: call.conversation_id, subject: call.call_id, detail: request.operation_id });
  return draft.done();
}

function finishOperation(draft: CallDraft, call: CallRecord, registry: ToolRegistry, outcome: "completed" | "interrupted", now: number, reason?: string): void {
  const op = call.operation!;
  const result: JsonObject = {
    outcome,
    operation_id: op.operation_id,
    started_at: iso(op.started_at),
    ends_at: iso(op.ends_at),
    ended_at: iso(outcome === "completed" ? op.ends_at : now),
    ...(reason === undefined ? {} : { reason }),
  };
  const checked = registry.get(call.app_scope, call.method)?.validateOutput(result);
  if (checked === undefined) draft.error(call.call_id, "handler_failed", `${call.app_scope}/${call.method} is no longer installed`);
  else if (!checked.ok) draft.error(call.call_id, "invalid_result", `the operation's result does not match the output schema: ${checked.error.message}`);
  else draft.result(call.call_id, checked.value);
}

/**
 * Ends every unfinished runtime-owned operation call of an app in a conversation (pomodoro's
 * `interrupt`, itself an `activation_not_required` call): one still starting gets
 * `activation_cancelled`; one running gets its `interrupted` result.
 */
export function interruptOperations(state: ToolCallsState, request: { readonly app_scope: string; readonly conversation_id: string; readonly reason: string; readonly now: number }, registry: ToolRegistry): CallDecision & { readonly interrupted: number } {
  const draft = new CallDraft(state);
  let interrupted = 0;
  for (const call of Object.values(state.calls)) {
    if (call.handling !== "operation" || call.app_scope !== request.app_scope || call.conversation_id !== request.conversation_id || call.phase === "terminal") continue;
    interrupted++;
    if (call.phase === "operation_running") {
      finishOperation(draft, call, registry, "interrupted", request.now, request.reason);
      continue;
    }
    const activation = call.instance_id === undefined ? undefined : draft.activations[call.instance_id];
    if (call.phase === "starting" && activation?.trigger_call_id === call.call_id) draft.receipt(call.call_id, "activation_cancelled", "activation_cancelled", request.reason);
    if (activation !== undefined) draft.activations[activation.instance_id] = { ...activation, waiting: activation.waiting.filter((id) => id !== call.call_id) };
    draft.error(call.call_id, "activation_cancelled", request.reason);
  }
  return { ...draft.done(), interrupted };
}

/** Ends what is due at `now`: finished operations with their result, other calls with `operation_expired`. */
export function expireDueCalls(state: ToolCallsState, now: number, registry: ToolRegistry): CallDecision {
  const draft = new CallDraft(state);
  for (const call of Object.values(state.calls)) {
    if (call.phase === "terminal") continue;
    if (call.phase === "operation_running" && call.operation !== undefined) {
      if (call.operation.ends_at > now) continue;
      if (call.operation.app_run === true) {
        // The app did not finish its operation in time: the Runtime ends it.
        if (call.instance_id !== undefined) draft.actions.push({ kind: "cancel_in_app", call_id: call.call_id, instance_id: call.instance_id });
        draft.error(call.call_id, "operation_expired", `${call.method} did not finish before its deadline`);
      } else finishOperation(draft, call, registry, "completed", now);
      continue;
    }
    if (call.deadline_at > now) continue;
    if (call.phase === "running") draft.actions.push({ kind: "cancel_in_app", call_id: call.call_id, ...(call.instance_id === undefined ? {} : { instance_id: call.instance_id }) });
    const activation = call.instance_id === undefined ? undefined : draft.activations[call.instance_id];
    if (activation !== undefined && activation.waiting.includes(call.call_id)) draft.activations[activation.instance_id] = { ...activation, waiting: activation.waiting.filter((id) => id !== call.call_id) };
    draft.error(call.call_id, "operation_expired", `${call.method} passed its deadline`);
  }
  return draft.done();
}
