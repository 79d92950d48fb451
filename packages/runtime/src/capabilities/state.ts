/**
 * The Capability Gateway's state (spec 6.3, RELIABILITY P5): the user's remembered decisions per
 * app and capability, recent uses for the rate limit, and the requests still waiting for the user,
 * the system permission dialog or the host. Plain JSON. In the Runtime loop the decisions are the
 * Settings grants (`RuntimeState.grants`, persisted) and the rest is `RuntimeState.capabilities` (not
 * persisted: a restart ends waiting requests); see `loop-state.ts`.
 */
import type { CapabilityName, CapabilityResult, JsonValue, RiskLevel } from "@lineup/protocol";
import type { AuditFact } from "../app-lifecycle/manager/audit-fact.js";

/** `ask` is the absence of a decision: the user is asked (once) when the capability needs confirmation. */
export type UserDecision = "granted" | "denied";

export interface PendingCapabilityRequest {
  readonly request_id: string;
  readonly app_scope: string;
  readonly instance_id: string;
  /** The MCP Apps view that asks (`CapabilityRequest.view`), if a view asks rather than an instance. */
  readonly view?: string;
  readonly capability: CapabilityName;
  readonly purpose: string;
  readonly input: JsonValue;
  readonly requested_at: number;
  readonly expires_at: number;
  readonly stage: "awaiting_user" | "awaiting_system_permission" | "host_running";
}

export interface CapabilityGatewayState {
  /** Keyed `app_scope capability`. A denial stays until the user changes it in settings. */
  readonly decisions: Readonly<Record<string, { readonly decision: UserDecision; readonly decided_at: number }>>;
  /** Keyed `app_scope capability`: times of recent host invocations, for the rate limit. */
  readonly recent: Readonly<Record<string, readonly number[]>>;
  readonly pending: Readonly<Record<string, PendingCapabilityRequest>>;
}

export const EMPTY_CAPABILITY_GATEWAY: CapabilityGatewayState = { decisions: {}, recent: {}, pending: {} };

export function decisionKey(appScope: string, capability: string): string {
  return `${appScope} ${capability}`;
}

/** What the gateway asks the loop to do next. */
export type CapabilityStep =
  /** Final: the app gets this result (from the spec's closed set). */
  | { readonly kind: "respond"; readonly request_id: string; readonly result: CapabilityResult }
  /** Show the Runtime's confirmation; answer with `answerUserPrompt`. */
  | { readonly kind: "ask_user"; readonly request_id: string; readonly app_scope: string; readonly capability: CapabilityName; readonly purpose: string; readonly description: string; readonly risk: RiskLevel }
  /** Show the system's permission dialog; answer with `answerSystemPermission`. */
  | { readonly kind: "request_system_permission"; readonly request_id: string; readonly capability: CapabilityName }
  /** The effect: call the host provider, then report with `completeHostCall`. Audited before. */
  | { readonly kind: "invoke_host"; readonly request_id: string; readonly app_scope: string; readonly capability: CapabilityName; readonly input: JsonValue }
  /** Stop a host call already running (the grant was revoked); its late result is discarded. */
  | { readonly kind: "abort_host_call"; readonly request_id: string };

export interface CapabilityDecision {
  readonly state: CapabilityGatewayState;
  readonly steps: readonly CapabilityStep[];
  /** Commit these before performing any step. */
  readonly audit: readonly AuditFact[];
}
