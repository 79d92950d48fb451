/**
 * The Capability Gateway's part of the Runtime's state, and the bridge between it and the pure
 * gateway (`gateway.ts`, `resolve.ts`).
 *
 * One source of truth for the user's remembered decisions: `RuntimeState.grants` (the Settings list,
 * persisted under `settings/grants`). The loop keeps only what is not a user decision here — the
 * requests still waiting (`pending`) and the recent host invocations for the rate limit (`recent`) —
 * and neither is persisted: a restart ends every waiting request (the app's promise is gone with the
 * process), and the rate limit starts afresh.
 *
 * Before each decision the loop builds the gateway's `CapabilityGatewayState` with `decisions`
 * derived from the grants (`gatewayStateOf`); after it, the decision's `decisions` are folded back
 * into the grants (`grantsAfter`), so a denial remembered by the gateway is a Settings entry, and
 * `settings.setGrant(…, "ask")` (which removes the entry) is what makes the gateway ask again.
 */
import { toTimestamp } from "../core/ports.js";
import type { CapabilityGrant } from "../app-lifecycle/app-manager-api.js";
import type { CapabilityPolicy } from "./gateway.js";
import type { SystemPermission } from "./host-provider.js";
import { decisionKey, type CapabilityGatewayState, type UserDecision } from "./state.js";

/** `RuntimeState.capabilities`: the gateway's state minus the user's decisions (those are `grants`). */
export type CapabilitiesState = Omit<CapabilityGatewayState, "decisions">;

export const EMPTY_CAPABILITIES: CapabilitiesState = { pending: {}, recent: {} };

/**
 * What the shell reads from the host and its options just before it posts a capability input, so
 * that the transition stays pure: the OS permission for the request's capability, and the policy.
 */
export interface CapabilityHostSnapshot {
  readonly system_permission: SystemPermission;
  readonly policy: CapabilityPolicy;
}

type Decisions = CapabilityGatewayState["decisions"];

const derived = new WeakMap<readonly CapabilityGrant[], Decisions>();

/** The gateway's remembered decisions, read from the Settings grants (memoised per grants array). */
export function decisionsOf(grants: readonly CapabilityGrant[]): Decisions {
  let decisions = derived.get(grants);
  if (decisions === undefined) {
    const built: Record<string, { decision: UserDecision; decided_at: number }> = {};
    for (const g of grants) {
      const at = Date.parse(g.decided_at);
      built[decisionKey(g.app_scope, g.capability)] = { decision: g.decision, decided_at: Number.isFinite(at) ? at : 0 };
    }
    derived.set(grants, (decisions = built));
  }
  return decisions;
}

export function gatewayStateOf(capabilities: CapabilitiesState, grants: readonly CapabilityGrant[]): CapabilityGatewayState {
  return { decisions: decisionsOf(grants), pending: capabilities.pending, recent: capabilities.recent };
}

/**
 * The grants after a gateway decision changed `before` into `after`: entries whose decision changed
 * are replaced (stamped `now`), removed ones dropped. Returns `grants` itself when nothing changed.
 */
export function grantsAfter(grants: readonly CapabilityGrant[], before: Decisions, after: Decisions, now: number): readonly CapabilityGrant[] {
  if (before === after) return grants;
  const changed = new Set<string>();
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (before[key]?.decision !== after[key]?.decision) changed.add(key);
  }
  if (changed.size === 0) return grants;
  const kept = grants.filter((g) => !changed.has(decisionKey(g.app_scope, g.capability)));
  const added: CapabilityGrant[] = [];
  for (const key of changed) {
    const entry = after[key];
    if (entry === undefined) continue;
    const space = key.indexOf(" ");
    added.push({ app_scope: key.slice(0, space), capability: key.slice(space + 1), decision: entry.decision, decided_at: toTimestamp(now) });
  }
  return [...kept, ...added];
}

/**
 * The loop's part of a gateway state after a decision. Rate-limit times older than the policy's
 * window are dropped (without a rate limit nothing needs remembering), so `recent` stays bounded.
 */
export function capabilitiesAfter(state: CapabilityGatewayState, policy: CapabilityPolicy | undefined, now: number): CapabilitiesState {
  const limit = policy?.rate_limit;
  if (limit === undefined) return { pending: state.pending, recent: policy === undefined ? state.recent : {} };
  const recent: Record<string, readonly number[]> = {};
  for (const [key, times] of Object.entries(state.recent)) {
    const kept = times.filter((t) => t > now - limit.window_ms);
    if (kept.length > 0) recent[key] = kept;
  }
  return { pending: state.pending, recent };
}

/** When the next waiting request expires (the shell's timer), or undefined when none waits. */
export function nextCapabilityExpiry(capabilities: CapabilitiesState): number | undefined {
  let next: number | undefined;
  for (const request of Object.values(capabilities.pending)) if (next === undefined || request.expires_at < next) next = request.expires_at;
  return next;
}
