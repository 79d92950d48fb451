/**
 * What moves a waiting capability request on: the user's answer, the system dialog's answer, the
 * host's result, a settings change (which may revoke a grant mid-call) and time. Each re-checks the
 * standing conditions (enabled, host support, foreground, policy, denial), because they may have
 * changed while the request waited.
 */
import { capabilityRefused, checkCapabilityResult } from "@lineup/protocol";
import { capabilityAuditFact, proceedCapabilityRequest, refuseCapability, standingCapabilityRefusal, type CapabilityContext } from "./gateway.js";
import { decisionKey, type CapabilityDecision, type CapabilityGatewayState, type PendingCapabilityRequest, type UserDecision } from "./state.js";

function pendingAt(state: CapabilityGatewayState, requestId: string, stage: PendingCapabilityRequest["stage"]): PendingCapabilityRequest | undefined {
  const p = Object.prototype.hasOwnProperty.call(state.pending, requestId) ? state.pending[requestId] : undefined;
  return p?.stage === stage ? p : undefined;
}

const nothing = (state: CapabilityGatewayState, type: string, requestId: string): CapabilityDecision => ({ state, steps: [], audit: [{ type, detail: requestId }] });

/**
 * The user's answer to the Runtime's confirmation. `allow` and `deny` are remembered (a denial is
 * not asked again until settings change); `dismiss` ends this request with `cancelled_by_user` and
 * remembers nothing.
 */
export function answerUserPrompt(state: CapabilityGatewayState, answer: { readonly request_id: string; readonly answer: "allow" | "deny" | "dismiss"; readonly now: number }, context: CapabilityContext): CapabilityDecision {
  const request = pendingAt(state, answer.request_id, "awaiting_user");
  if (request === undefined) return nothing(state, "capability.stale_answer", answer.request_id);
  if (answer.answer === "dismiss") return refuseCapability(state, request, "cancelled_by_user", "the user dismissed the request");
  const decision: UserDecision = answer.answer === "allow" ? "granted" : "denied";
  const remembered: CapabilityGatewayState = { ...state, decisions: { ...state.decisions, [decisionKey(request.app_scope, request.capability)]: { decision, decided_at: answer.now } } };
  const recorded = capabilityAuditFact(`capability.user_${decision}`, request);
  const next = standingCapabilityRefusal(remembered, request, context) ?? proceedCapabilityRequest(remembered, request, context, answer.now);
  return { ...next, audit: [recorded, ...next.audit] };
}

/** The operating system's permission dialog answered. */
export function answerSystemPermission(state: CapabilityGatewayState, answer: { readonly request_id: string; readonly granted: boolean; readonly now: number }, context: CapabilityContext): CapabilityDecision {
  const request = pendingAt(state, answer.request_id, "awaiting_system_permission");
  if (request === undefined) return nothing(state, "capability.stale_answer", answer.request_id);
  if (!answer.granted) return refuseCapability(state, request, "permission_denied", `the system denied ${request.capability}`);
  const standing = standingCapabilityRefusal(state, request, context);
  if (standing !== undefined) return standing;
  // The system now says granted; `proceedCapabilityRequest` would ask it again if the context still said "prompt".
  return proceedCapabilityRequest(state, request, { ...context, systemPermission: () => "granted" }, answer.now);
}

/** The host provider's answer. A malformed answer is `failed`; an answer for a revoked or finished request is discarded. */
export function completeHostCall(state: CapabilityGatewayState, report: { readonly request_id: string; readonly result: unknown }): CapabilityDecision {
  const request = pendingAt(state, report.request_id, "host_running");
  if (request === undefined) return nothing(state, "capability.late_host_result", report.request_id);
  const pending = { ...state.pending };
  delete pending[request.request_id];
  const checked = checkCapabilityResult(report.result);
  const result = checked.ok ? checked.value : capabilityRefused("failed", `${request.capability} failed on the host`);
  return {
    state: { ...state, pending },
    steps: [{ kind: "respond", request_id: request.request_id, result }],
    audit: [capabilityAuditFact("capability.result", request, result.status === "completed" ? undefined : result.code, result.status)],
  };
}

/**
 * The user changed an app's permission in settings: `granted`, `denied`, or `ask` (forget the
 * decision, so the next request asks again). Denying revokes at once: requests of that app and
 * capability still waiting end with `permission_denied`, and a host call in flight is aborted.
 */
export function changeCapabilitySetting(state: CapabilityGatewayState, change: { readonly app_scope: string; readonly capability: string; readonly decision: UserDecision | "ask"; readonly now: number }): CapabilityDecision {
  const key = decisionKey(change.app_scope, change.capability);
  const decisions = { ...state.decisions };
  if (change.decision === "ask") delete decisions[key];
  else decisions[key] = { decision: change.decision, decided_at: change.now };
  let next: CapabilityGatewayState = { ...state, decisions };
  const steps: CapabilityDecision["steps"][number][] = [];
  const audit = [capabilityAuditFact("capability.setting_changed", { request_id: "-", app_scope: change.app_scope, capability: change.capability }, undefined, change.decision)];
  if (change.decision === "denied") {
    for (const request of Object.values(state.pending)) {
      if (request.app_scope !== change.app_scope || request.capability !== change.capability) continue;
      if (request.stage === "host_running") steps.push({ kind: "abort_host_call", request_id: request.request_id });
      const refused = refuseCapability(next, request, "permission_denied", `${request.capability} was revoked in settings`);
      next = refused.state;
      steps.push(...refused.steps);
      audit.push(...refused.audit);
    }
  }
  return { state: next, steps, audit };
}

/** Requests that waited past their time end with `expired` (a running host call is aborted). */
export function expireCapabilityRequests(state: CapabilityGatewayState, now: number): CapabilityDecision {
  let next = state;
  const steps: CapabilityDecision["steps"][number][] = [];
  const audit: CapabilityDecision["audit"][number][] = [];
  for (const request of Object.values(state.pending)) {
    if (request.expires_at > now) continue;
    if (request.stage === "host_running") steps.push({ kind: "abort_host_call", request_id: request.request_id });
    const refused = refuseCapability(next, request, "expired", `${request.capability} was not answered in time`);
    next = refused.state;
    steps.push(...refused.steps);
    audit.push(...refused.audit);
  }
  return { state: next, steps, audit };
}

/** The App Manager disabled or removed an app: its waiting requests end, its host calls are aborted. */
export function refuseAppCapabilityRequests(state: CapabilityGatewayState, appScope: string): CapabilityDecision {
  let next = state;
  const steps: CapabilityDecision["steps"][number][] = [];
  const audit: CapabilityDecision["audit"][number][] = [];
  for (const request of Object.values(state.pending)) {
    if (request.app_scope !== appScope) continue;
    if (request.stage === "host_running") steps.push({ kind: "abort_host_call", request_id: request.request_id });
    const refused = refuseCapability(next, request, "permission_denied", `${appScope} is no longer enabled`, "app_disabled");
    next = refused.state;
    steps.push(...refused.steps);
    audit.push(...refused.audit);
  }
  return { state: next, steps, audit };
}
