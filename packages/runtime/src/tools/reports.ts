/**
 * What happens to a call after it was accepted: the app's progress, result and error reports, the
 * agent's cancel, an app crash, and the App Manager refusing an app's calls (disable, remove).
 *
 * Progress is a protocol fact, recorded and replayable, never checked against the output schema;
 * only the one terminal result is, and a result that fails it becomes `invalid_result` and is not
 * delivered. A report for a call that already has its terminal outcome is refused
 * (`call_not_active`) and changes nothing; a report from another instance is `not_owner`.
 */
import type { ErrorCode } from "@lineup/protocol";
import type { ToolProgressPayload } from "./payloads.js";
import { settleActivation } from "./activation.js";
import { CallDraft, getCall, refuseReport, type CallDecision, type CallRecord, type ToolCallsState } from "./call-state.js";
import type { ToolRegistry } from "./registry.js";

/** Codes an app's handler may fail a call with (spec 6.2 `AppToolErrorCode`); anything else becomes `handler_failed`. */
export const APP_TOOL_ERROR_CODES: readonly ErrorCode[] = ["cancelled_by_user", "permission_denied", "foreground_required", "handler_failed", "invalid_arguments", "operation_expired"];

interface AppReport {
  readonly call_id: string;
  /** The instance reporting; must be the one the call was delivered to. */
  readonly instance_id: string;
}

function activeCall(state: ToolCallsState, report: AppReport, phases: readonly CallRecord["phase"][]): CallRecord | CallDecision {
  const call = getCall(state, report.call_id);
  if (call === undefined || call.phase === "terminal" || !phases.includes(call.phase)) {
    return refuseReport(state, { code: "call_not_active", message: `call ${report.call_id} is not running (unknown, not yet delivered, or already finished)` });
  }
  if (call.instance_id !== undefined && call.instance_id !== report.instance_id) {
    return refuseReport(state, { code: "not_owner", message: `call ${report.call_id} was not delivered to instance ${report.instance_id}` }, { type: "tool.report.refused", code: "not_owner", subject: report.call_id });
  }
  return call;
}

const isDecision = (x: CallRecord | CallDecision): x is CallDecision => "state" in x;

export function reportProgress(state: ToolCallsState, report: AppReport & { readonly progress: ToolProgressPayload }): CallDecision {
  const call = activeCall(state, report, ["running", "operation_running"]);
  if (isDecision(call)) return call;
  const draft = new CallDraft(state);
  draft.emit(call.call_id, { type: "lineup.tool.progress", call_id: call.call_id, payload: report.progress });
  return draft.done();
}

/** The app's one result, checked against the tool's output schema. A runtime-owned operation's result is the Runtime's, not the app's. */
export function reportResult(state: ToolCallsState, report: AppReport & { readonly result: unknown }, registry: ToolRegistry): CallDecision {
  const call = activeCall(state, report, ["running", "awaiting_operation", "operation_running"]);
  if (isDecision(call)) return call;
  if (call.handling === "operation" && call.operation?.app_run !== true) {
    return refuseReport(state, { code: "not_owner", message: `${call.method} is a runtime-owned operation; its result comes from the Runtime` }, { type: "tool.report.refused", code: "not_owner", subject: call.call_id });
  }
  const draft = new CallDraft(state);
  const tool = registry.get(call.app_scope, call.method);
  if (tool === undefined) {
    draft.error(call.call_id, "handler_failed", `${call.app_scope}/${call.method} is no longer installed`);
    return draft.done();
  }
  const checked = tool.validateOutput(report.result);
  if (!checked.ok) draft.error(call.call_id, "invalid_result", `the app's result does not match the output schema: ${checked.error.message}`);
  else draft.result(call.call_id, checked.value);
  return draft.done();
}

export function reportError(state: ToolCallsState, report: AppReport & { readonly code: string; readonly message?: string }): CallDecision {
  const call = activeCall(state, report, ["running", "awaiting_operation", "operation_running"]);
  if (isDecision(call)) return call;
  const code = (APP_TOOL_ERROR_CODES as readonly string[]).includes(report.code) ? (report.code as ErrorCode) : "handler_failed";
  const draft = new CallDraft(state);
  draft.error(call.call_id, code, report.message ?? `the app's handler failed (${code})`);
  return draft.done();
}

function stopCall(draft: CallDraft, call: CallRecord, code: ErrorCode, message: string): void {
  if (call.phase === "starting" || call.phase === "waiting_activation") {
    const activation = call.instance_id === undefined ? undefined : draft.activations[call.instance_id];
    if (activation !== undefined && activation.trigger_call_id === call.call_id && call.phase === "starting") draft.receipt(call.call_id, "activation_cancelled", "activation_cancelled", message);
    if (activation !== undefined) draft.activations[activation.instance_id] = { ...activation, waiting: activation.waiting.filter((id) => id !== call.call_id) };
    draft.error(call.call_id, "activation_cancelled", message);
    return;
  }
  if (call.phase === "running") draft.actions.push({ kind: "cancel_in_app", call_id: call.call_id, ...(call.instance_id === undefined ? {} : { instance_id: call.instance_id }) });
  draft.error(call.call_id, code, message);
}

/** `lineup.tool.cancel` from the agent that made the call. */
export function cancelCall(state: ToolCallsState, request: { readonly call_id: string; readonly agent_id: string; readonly reason?: string }): CallDecision {
  const call = getCall(state, request.call_id);
  if (call === undefined || call.phase === "terminal") return refuseReport(state, { code: "call_not_active", message: `call ${request.call_id} is not active` });
  if (call.agent_id !== request.agent_id) return refuseReport(state, { code: "not_owner", message: `call ${request.call_id} belongs to another agent` });
  const draft = new CallDraft(state);
  stopCall(draft, call, "request_cancelled", request.reason ?? "the agent cancelled the call");
  return draft.done();
}

/**
 * An instance crashed or failed: its activation fails, and calls it was handling fail with
 * `handler_failed`. A running runtime-owned operation keeps its deadline: the Runtime, not the
 * app, owns its result.
 */
export function instanceFailed(state: ToolCallsState, request: { readonly instance_id: string }): CallDecision {
  const draft = new CallDraft(state);
  failInstanceCalls(draft, request.instance_id);
  return draft.done();
}

/** `instanceFailed` in a draft: its activation fails (with `activationMessage`), the calls it was handling fail. */
export function failInstanceCalls(draft: CallDraft, instanceId: string, activationMessage = "the app stopped while starting"): void {
  settleActivation(draft, { instance_id: instanceId, outcome: "failed", foreground: false, message: activationMessage });
  for (const call of handledBy(draft.calls, instanceId)) draft.error(call.call_id, "handler_failed", "the app stopped before it finished the call");
}

/**
 * The calls an instance is still handling: delivered to it and not answered, or waiting for it to start
 * their operation. A runtime-owned operation already running is not among them: its result is the Runtime's.
 */
function handledBy(calls: Readonly<Record<string, CallRecord>>, instanceId: string): CallRecord[] {
  return Object.values(calls).filter((call) => call.instance_id === instanceId && (call.phase === "running" || call.phase === "awaiting_operation"));
}

/**
 * An instance was closed: the calls it was still handling cannot be answered any more and end now, with
 * a `tool.cancel` to the closing instance so it stops working on them. Runtime-owned operations keep
 * their deadline (their result never came from the app).
 */
export function endClosedInstanceCalls(state: ToolCallsState, request: { readonly instance_id: string; readonly app_name: string; readonly by: "user" | "app" }): CallDecision | undefined {
  const draft = new CallDraft(state);
  const handled = handledBy(state.calls, request.instance_id);
  for (const call of handled) {
    draft.actions.push({ kind: "cancel_in_app", call_id: call.call_id, instance_id: request.instance_id });
    if (request.by === "user") draft.error(call.call_id, "cancelled_by_user", `${request.app_name} was closed before it finished`);
    else draft.error(call.call_id, "handler_failed", `${request.app_name} closed itself before it finished the call`);
  }
  return handled.length > 0 ? draft.done() : undefined;
}

/**
 * A turn was cancelled (the person pressed Stop, or a newer turn interrupted it): every call the agent made
 * in it that has no terminal outcome yet ends `cancelled_by_user`, and the app handling one is told to stop
 * (`tool.cancel`). A timed runtime-owned operation that already runs (a pomodoro's timer) is left alone: it
 * runs on by itself, beyond its turn, and the person stops it in its app. An app-run operation (an export)
 * is the turn's work and ends with it. Undefined when the turn has no open call.
 */
export function endTurnCalls(state: ToolCallsState, request: { readonly conversation_id: string; readonly turn_id: string; readonly message: string }): CallDecision | undefined {
  const draft = new CallDraft(state);
  let ended = 0;
  for (const call of Object.values(state.calls)) {
    if (call.turn_id !== request.turn_id || call.conversation_id !== request.conversation_id || call.phase === "terminal") continue;
    if (call.phase === "operation_running" && call.operation?.app_run !== true) continue;
    ended += 1;
    if (call.phase === "starting" || call.phase === "waiting_activation") {
      // The app goes on starting (another call may need it); this call no longer waits for it.
      const activation = call.instance_id === undefined ? undefined : draft.activations[call.instance_id];
      if (activation !== undefined && activation.waiting.includes(call.call_id)) draft.activations[activation.instance_id] = { ...activation, waiting: activation.waiting.filter((id) => id !== call.call_id) };
    } else {
      draft.actions.push({ kind: "cancel_in_app", call_id: call.call_id, ...(call.instance_id === undefined ? {} : { instance_id: call.instance_id }) });
    }
    draft.error(call.call_id, "cancelled_by_user", request.message);
  }
  return ended === 0 ? undefined : draft.done();
}

/** The App Manager's `refuse_pending_calls` effect: every unfinished call of the app ends with `code`. */
export function refuseAppCalls(state: ToolCallsState, request: { readonly app_scope: string; readonly code: "app_disabled" | "app_not_installed" }): CallDecision {
  const draft = new CallDraft(state);
  for (const activation of Object.values(draft.activations)) if (activation.app_scope === request.app_scope) delete draft.activations[activation.instance_id];
  for (const call of Object.values(draft.calls)) {
    if (call.app_scope !== request.app_scope || call.phase === "terminal") continue;
    if (call.phase === "running") draft.actions.push({ kind: "cancel_in_app", call_id: call.call_id, ...(call.instance_id === undefined ? {} : { instance_id: call.instance_id }) });
    draft.error(call.call_id, request.code, request.code === "app_disabled" ? `"${request.app_scope}" was disabled` : `"${request.app_scope}" was removed`);
  }
  return draft.done();
}

