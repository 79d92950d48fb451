/**
 * After a restart (the calls state was persisted as JSON and read back): every activation in
 * progress failed with the process that ran it, so its calls are refused; calls already delivered
 * are delivered again (at least once — the app's SDK deduplicates by call_id) when their tool is
 * idempotent, and end `handler_failed` when it is not (at most once: never a second run); operations
 * waiting to start are asked for again on the same terms; running operations keep their deadline; then whatever fell due
 * while the Runtime was down is expired.
 */
import { releaseCall, settleActivation } from "./activation.js";
import { CallDraft, type CallDecision, type ToolCallsState } from "./call-state.js";
import { expireDueCalls } from "./operations.js";
import type { ToolRegistry } from "./registry.js";

export function resumeAfterRestart(state: ToolCallsState, now: number, registry: ToolRegistry): CallDecision {
  const draft = new CallDraft(state);
  for (const instanceId of Object.keys(draft.activations)) {
    settleActivation(draft, { instance_id: instanceId, outcome: "failed", foreground: false, message: "the Runtime restarted while the app was starting" });
  }
  for (const call of Object.values(draft.calls)) {
    if (call.phase !== "running" && call.phase !== "awaiting_operation") continue;
    // Whether the handler saw it is unknown: a call that must not run twice ends here instead.
    if (call.at_most_once === true) draft.error(call.call_id, "handler_failed", `the Runtime restarted after ${call.method} was delivered; it is not idempotent, so it was not delivered again and may or may not have taken effect`);
    else releaseCall(draft, call.call_id, call.instance_id);
  }
  const resumed = draft.done();
  const expired = expireDueCalls(resumed.state, now, registry);
  return {
    state: expired.state,
    outputs: [...resumed.outputs, ...expired.outputs],
    actions: [...resumed.actions, ...expired.actions],
    audit: [...resumed.audit, ...expired.audit],
  };
}
