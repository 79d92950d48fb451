/**
 * Suspending while running (spec 4.4): the host holds at most a bound of live surfaces. Past it — or
 * once it has been idle in the background for a while — the least recently used background instance is suspended — the host unmounts its frame — and comes back
 * from the Runtime's snapshot (its session data) when it is brought back. Pure: the loop decides after
 * every instance change, the host only follows the statuses.
 *
 * An instance that is launching or restoring is on its way to a surface and cannot be suspended yet;
 * one that is busy (handling a tool call, or an activation waits on it) keeps its surface, since
 * unmounting it would cut the call short. Both still count against the bound, so the next instance to
 * become idle in the background is suspended as soon as one is.
 */
import type { InstanceStatus } from "./lifecycle.js";
import type { AppInstance, InstanceChange, InstancesState } from "./state.js";
import { suspendInstance, type InstanceOutcome } from "./transitions.js";

/** Live surfaces a host holds by default (spec 4.4's example). */
export const DEFAULT_MAX_LIVE_SURFACES = 3;

/** Whether an instance in this status has a surface in the host (a mounted frame). */
export function holdsSurface(status: InstanceStatus): boolean {
  return status === "launching" || status === "active" || status === "backgrounded" || status === "restoring";
}

/** Instances with a surface now. */
export function liveSurfaceCount(state: InstancesState): number {
  let n = 0;
  for (const instance of Object.values(state.instances)) if (holdsSurface(instance.status)) n++;
  return n;
}

export interface SurfaceBound {
  /** At most this many instances hold a surface (at least 1: the foreground). */
  readonly max_live_surfaces: number;
  /** Instances that must keep their surface now (a tool call or an activation is on them). */
  readonly busy: ReadonlySet<string>;
  readonly now: number;
}

/**
 * Least recently used first: the one that left the foreground earliest, then the lower in the focus
 * stack (an instance outside the stack was never in front), then the older.
 */
function leastRecentlyUsedFirst(state: InstancesState): (a: AppInstance, b: AppInstance) => number {
  const position = new Map(state.focus_stack.map((id, i) => [id, i] as const));
  return (a, b) => a.since - b.since || (position.get(a.instance_id) ?? -1) - (position.get(b.instance_id) ?? -1) || a.created_at - b.created_at;
}

/** Suspends background instances, least recently used first, until at most `max_live_surfaces` hold a surface or none is left to suspend. */
export function suspendPastBound(state: InstancesState, bound: SurfaceBound): InstanceOutcome {
  let excess = liveSurfaceCount(state) - Math.max(1, bound.max_live_surfaces);
  if (excess <= 0) return { state, changes: [] };
  const candidates = Object.values(state.instances)
    .filter((i) => i.status === "backgrounded" && !bound.busy.has(i.instance_id))
    .sort(leastRecentlyUsedFirst(state));
  let current = state;
  const changes: InstanceChange[] = [];
  for (const candidate of candidates) {
    if (excess <= 0) break;
    const suspended = suspendInstance(current, candidate.instance_id, bound.now);
    if (!suspended.ok) continue;
    current = suspended.value.state;
    changes.push(...suspended.value.changes);
    excess--;
  }
  return { state: current, changes };
}

export interface IdleBound {
  /** A background instance that left the front this long ago is suspended. */
  readonly idle_ms: number;
  readonly busy: ReadonlySet<string>;
  readonly now: number;
}

const idleSince = (instance: AppInstance, busy: ReadonlySet<string>): boolean => instance.status === "backgrounded" && !busy.has(instance.instance_id);

/** Suspends every background instance idle for `idle_ms` or more (spec 4.4: after an idle time), whatever the bound. */
export function suspendIdle(state: InstancesState, bound: IdleBound): InstanceOutcome {
  let current = state;
  const changes: InstanceChange[] = [];
  for (const instance of Object.values(state.instances)) {
    if (!idleSince(instance, bound.busy) || instance.since + bound.idle_ms > bound.now) continue;
    const suspended = suspendInstance(current, instance.instance_id, bound.now);
    if (!suspended.ok) continue;
    current = suspended.value.state;
    changes.push(...suspended.value.changes);
  }
  return { state: current, changes };
}

/** When the next background instance becomes idle enough to suspend, for the loop's one idle timer; undefined when none. */
export function nextIdleSuspension(state: InstancesState, idleMs: number, busy: ReadonlySet<string>): number | undefined {
  let next: number | undefined;
  for (const instance of Object.values(state.instances)) {
    if (!idleSince(instance, busy)) continue;
    const at = instance.since + idleMs;
    if (next === undefined || at < next) next = at;
  }
  return next;
}
