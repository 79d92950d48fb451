/**
 * The activation queue (spec 7.3). A call that needs its app ready (`app_ready`) or in front
 * (`foreground_required`) and finds it starting is stored and waits; when the activation is ready
 * the trigger gets `activation_ready` (except a runtime-owned operation, whose `started` progress
 * says it) and every waiting call runs in arrival order; when it fails or is cancelled, the trigger
 * gets the matching receipt and every waiting call a definite error. `activation_not_required`
 * calls never enter the queue.
 */
import { CallDraft, type CallDecision, type ToolCallsState } from "./call-state.js";

export interface ActivationOutcome {
  readonly instance_id: string;
  readonly outcome: "ready" | "failed" | "cancelled";
  /** The instance is in the foreground now (the host confirmed it). */
  readonly foreground: boolean;
  readonly message?: string;
}

/** Delivers a call now: to the app's handler, or to the Runtime's operation starter. */
export function releaseCall(draft: CallDraft, callId: string, instanceId: string | undefined): void {
  const call = draft.get(callId);
  if (call === undefined || call.phase === "terminal") return;
  const at = instanceId === undefined ? {} : { instance_id: instanceId };
  if (call.handling === "operation") {
    draft.update(callId, { phase: "awaiting_operation", ...at });
    draft.actions.push({ kind: "start_operation", call_id: callId, ...at });
    return;
  }
  draft.update(callId, { phase: "running", ...at });
  draft.actions.push({ kind: "deliver_to_app", call_id: callId, app_scope: call.app_scope, conversation_id: call.conversation_id, method: call.method, arguments: call.arguments, ...at });
}

/** Settles an activation in a draft (shared with crash and restart handling). */
export function settleActivation(draft: CallDraft, outcome: ActivationOutcome): void {
  const activation = draft.activations[outcome.instance_id];
  if (activation === undefined) return;
  delete draft.activations[outcome.instance_id];
  const queue = [activation.trigger_call_id, ...activation.waiting];
  if (outcome.outcome === "ready") {
    const released = queue.filter((id) => draft.get(id)?.phase === "starting" || draft.get(id)?.phase === "waiting_activation");
    const needsFront = released.some((id) => draft.get(id)?.activation_requirement === "foreground_required");
    if (needsFront && !outcome.foreground) draft.actions.push({ kind: "focus_instance", call_id: released[0]!, instance_id: outcome.instance_id });
    for (const id of released) {
      const call = draft.get(id)!;
      if (id === activation.trigger_call_id && call.phase === "starting" && call.handling !== "operation") draft.receipt(id, "activation_ready");
      releaseCall(draft, id, outcome.instance_id);
    }
    return;
  }
  const code = outcome.outcome === "failed" ? "activation_failed" : "activation_cancelled";
  const message = outcome.message ?? (outcome.outcome === "failed" ? `${activation.app_scope} failed to start` : `starting ${activation.app_scope} was cancelled`);
  for (const id of queue) {
    const call = draft.get(id);
    if (call === undefined || (call.phase !== "starting" && call.phase !== "waiting_activation")) continue;
    if (id === activation.trigger_call_id && call.phase === "starting") draft.receipt(id, code, code, message);
    draft.error(id, code, message);
  }
}

/** The loop reports that an instance finished starting or coming to the front — or did not. */
export function activationSettled(state: ToolCallsState, outcome: ActivationOutcome): CallDecision {
  const draft = new CallDraft(state);
  settleActivation(draft, outcome);
  return draft.done();
}
