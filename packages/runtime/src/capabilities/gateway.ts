/**
 * The Capability Gateway's decisions (spec 6.3). A request passes, in order:
 *
 *   declared in the manifest → app enabled → host supports it → app in the foreground (where the
 *   capability needs it) → policy → rate limit → user confirmation (asked once; a denial is
 *   remembered and never re-asked until the user changes it in settings) → system permission →
 *   audit → host
 *
 * Policy and the rate limit come before the user's confirmation so that nobody is asked about
 * something that would be refused anyway. Every decision carries an audit fact, and the loop
 * commits it before it performs the step: no host call happens that is not already in the audit
 * log. Results are only from the spec's closed set; they never carry paths, tokens or native errors.
 */
import {
  CAPABILITIES,
  capabilityRefused,
  isCapabilityName,
  type CapabilityName,
  type CapabilityRefusalStatus,
  type ErrorCode,
  type JsonValue,
} from "@lineup/protocol";
import type { AuditFact } from "../app-lifecycle/manager/audit-fact.js";
import { decisionKey, type CapabilityDecision, type CapabilityGatewayState, type CapabilityStep, type PendingCapabilityRequest } from "./state.js";

export interface CapabilityPolicy {
  readonly denied_capabilities?: readonly string[];
  readonly denied_apps?: readonly string[];
  /** Ask the user even where the registry does not require it. */
  readonly require_confirmation?: readonly string[];
  /** At most `max` host invocations per app and capability in any `window_ms`. */
  readonly rate_limit?: { readonly max: number; readonly window_ms: number };
  /** How long a request may wait for the user or the host. Default 120 s. */
  readonly request_timeout_ms?: number;
}

/** What the gateway reads about the world; the loop supplies it from its state and the host. */
export interface CapabilityContext {
  /** Capabilities the app's active manifest declares; undefined when the app is not installed. */
  readonly declared: (appScope: string) => readonly string[] | undefined;
  readonly appEnabled: (appScope: string) => boolean;
  readonly hostSupports: (capability: CapabilityName) => boolean;
  /** The instance in the foreground, if any. */
  readonly foregroundInstanceId: string | undefined;
  /** The operating system's permission for the capability; `not_applicable` where the OS has none. */
  readonly systemPermission: (capability: CapabilityName) => "granted" | "denied" | "prompt" | "not_applicable";
  readonly policy: CapabilityPolicy;
}

export interface CapabilityRequest {
  readonly request_id: string;
  readonly app_scope: string;
  readonly instance_id: string;
  /**
   * The `ui://` MCP Apps view of one of the app's tools that asks, shown by the host on screen (a card in the chat):
   * it stands in the foreground for itself, as the instance in front does.
   */
  readonly view?: string;
  readonly capability: string;
  readonly purpose: string;
  readonly input: JsonValue;
  readonly now: number;
}

export const DEFAULT_CAPABILITY_REQUEST_TIMEOUT_MS = 120_000;

export function capabilityAuditFact(type: string, request: { request_id: string; app_scope: string; capability: string }, code?: ErrorCode, detail?: string): AuditFact {
  return { type, subject: request.app_scope, detail: `${request.capability} ${request.request_id}${detail === undefined ? "" : `: ${detail}`}`, ...(code === undefined ? {} : { code }) };
}

/** A final refusal; the pending entry (if any) is dropped. */
export function refuseCapability(state: CapabilityGatewayState, request: { request_id: string; app_scope: string; capability: string }, status: CapabilityRefusalStatus, message: string, code: ErrorCode = status): CapabilityDecision {
  const pending = { ...state.pending };
  delete pending[request.request_id];
  return {
    state: { ...state, pending },
    steps: [{ kind: "respond", request_id: request.request_id, result: capabilityRefused(status, message, code) }],
    audit: [capabilityAuditFact("capability.refused", request, code, message)],
  };
}

function needsConfirmation(capability: CapabilityName, policy: CapabilityPolicy): boolean {
  return CAPABILITIES[capability].requires_confirmation || (policy.require_confirmation ?? []).includes(capability);
}

/** The conditions that hold for the whole life of a request; re-checked after every wait. */
export function standingCapabilityRefusal(state: CapabilityGatewayState, request: PendingCapabilityRequest | (CapabilityRequest & { capability: CapabilityName }), context: CapabilityContext): CapabilityDecision | undefined {
  const { capability, app_scope } = request;
  if (!context.appEnabled(app_scope)) return refuseCapability(state, request, "permission_denied", `${app_scope} is not enabled`, "app_disabled");
  if (!context.hostSupports(capability)) return refuseCapability(state, request, "unsupported_on_host", `this host cannot provide ${capability}`);
  if (CAPABILITIES[capability].requires_foreground && request.view === undefined && context.foregroundInstanceId !== request.instance_id) {
    return refuseCapability(state, request, "permission_denied", `${capability} needs the app in the foreground`, "foreground_required");
  }
  const { policy } = context;
  if ((policy.denied_apps ?? []).includes(app_scope) || (policy.denied_capabilities ?? []).includes(capability)) {
    return refuseCapability(state, request, "policy_denied", `policy does not allow ${capability} for ${app_scope}`);
  }
  if (state.decisions[decisionKey(app_scope, capability)]?.decision === "denied") {
    return refuseCapability(state, request, "permission_denied", `the user denied ${capability} for ${app_scope}; it can be changed in settings`);
  }
  return undefined;
}

/** How long a host call says it will run (`max_ms` of its input, at most an hour); 0 when it does not say. */
function statedDurationMs(input: JsonValue): number {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return 0;
  const max = input["max_ms"];
  return typeof max === "number" && Number.isFinite(max) && max > 0 ? Math.min(max, 3_600_000) : 0;
}

/** Continues a request that passed the standing checks: confirmation, system permission, audit, host. */
export function proceedCapabilityRequest(state: CapabilityGatewayState, request: PendingCapabilityRequest, context: CapabilityContext, now: number): CapabilityDecision {
  const key = decisionKey(request.app_scope, request.capability);
  const put = (stage: PendingCapabilityRequest["stage"]) => ({ ...state, pending: { ...state.pending, [request.request_id]: { ...request, stage } } });
  if (needsConfirmation(request.capability, context.policy) && state.decisions[key]?.decision !== "granted") {
    const info = CAPABILITIES[request.capability];
    const step: CapabilityStep = { kind: "ask_user", request_id: request.request_id, app_scope: request.app_scope, capability: request.capability, purpose: request.purpose, description: info.description, risk: info.risk };
    return { state: put("awaiting_user"), steps: [step], audit: [capabilityAuditFact("capability.ask_user", request)] };
  }
  const system = context.systemPermission(request.capability);
  if (system === "denied") return refuseCapability(state, request, "permission_denied", `the system denies ${request.capability}`);
  if (system === "prompt") {
    return { state: put("awaiting_system_permission"), steps: [{ kind: "request_system_permission", request_id: request.request_id, capability: request.capability }], audit: [capabilityAuditFact("capability.ask_system", request)] };
  }
  const limit = context.policy.rate_limit;
  const recent = (state.recent[key] ?? []).filter((t) => limit === undefined || t > now - limit.window_ms);
  if (limit !== undefined && recent.length >= limit.max) return refuseCapability(state, request, "policy_denied", `${request.capability} was used ${recent.length} times in ${limit.window_ms} ms`, "rate_limited");
  // The host's own work starts now: it gets the answer time again, plus how long the input says the work lasts
  // (a recording of `max_ms`), so a long recording is never cut off by the wait that came before it.
  const running: PendingCapabilityRequest = { ...request, stage: "host_running", expires_at: Math.max(request.expires_at, now + (context.policy.request_timeout_ms ?? DEFAULT_CAPABILITY_REQUEST_TIMEOUT_MS) + statedDurationMs(request.input)) };
  return {
    state: { ...state, pending: { ...state.pending, [request.request_id]: running }, recent: { ...state.recent, [key]: [...recent, now] } },
    steps: [{ kind: "invoke_host", request_id: request.request_id, app_scope: request.app_scope, capability: request.capability, input: request.input }],
    audit: [capabilityAuditFact("capability.invoke", request, undefined, request.purpose.slice(0, 200))],
  };
}

/** A new capability request from an app (through the SDK or the Surface Bridge). */
export function decideCapabilityRequest(state: CapabilityGatewayState, request: CapabilityRequest, context: CapabilityContext): CapabilityDecision {
  if (Object.prototype.hasOwnProperty.call(state.pending, request.request_id)) {
    return { state, steps: [], audit: [capabilityAuditFact("capability.duplicate_request", request, "duplicate_call")] };
  }
  const declared = context.declared(request.app_scope);
  if (declared === undefined) return refuseCapability(state, request, "permission_denied", `${request.app_scope} is not installed`, "app_not_installed");
  if (!isCapabilityName(request.capability) || !declared.includes(request.capability)) {
    return refuseCapability(state, request, "permission_denied", `${request.app_scope} does not declare ${request.capability}`, "capability_not_declared");
  }
  const typed = { ...request, capability: request.capability };
  const standing = standingCapabilityRefusal(state, typed, context);
  if (standing !== undefined) return standing;
  // The rate limit is checked before asking anyone, again in `proceedCapabilityRequest` just before the host call.
  const limit = context.policy.rate_limit;
  const key = decisionKey(request.app_scope, request.capability);
  if (limit !== undefined && (state.recent[key] ?? []).filter((t) => t > request.now - limit.window_ms).length >= limit.max) {
    return refuseCapability(state, request, "policy_denied", `${request.capability} is used too often`, "rate_limited");
  }
  const pending: PendingCapabilityRequest = {
    request_id: request.request_id,
    app_scope: request.app_scope,
    instance_id: request.instance_id,
    ...(request.view === undefined ? {} : { view: request.view }),
    capability: request.capability,
    purpose: request.purpose,
    input: request.input,
    requested_at: request.now,
    expires_at: request.now + (context.policy.request_timeout_ms ?? DEFAULT_CAPABILITY_REQUEST_TIMEOUT_MS),
    stage: "awaiting_user",
  };
  return proceedCapabilityRequest(state, pending, context, request.now);
}

