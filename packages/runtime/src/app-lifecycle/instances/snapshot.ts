/**
 * The instance snapshot that survives a restart (spec 3.3: the Runtime restores restorable
 * instances; spec 4.4: a reclaimed surface comes back from a Runtime snapshot).
 *
 * After a restart no surface exists, so nothing is in the foreground: live instances come back
 * `suspended` in their stack order, ready to be restored when focused. An instance that was still
 * launching failed (its start never finished); one that was closing is closed; one whose app can no
 * longer run (removed, disabled, broken) is closed and leaves the stack — so the start-up target can
 * never be an instance that cannot be restored.
 */
import { isLive } from "./lifecycle.js";
import type { AppInstance, InstanceChange, InstancesState } from "./state.js";

export interface InstancesSnapshot {
  readonly format: "lineup.instances.v1";
  readonly instances: readonly AppInstance[];
  readonly focus_stack: readonly string[];
}

/** Live and closing instances plus the stack, as JSON. */
export function snapshotInstances(state: InstancesState): InstancesSnapshot {
  return {
    format: "lineup.instances.v1",
    instances: Object.values(state.instances).filter((i) => isLive(i.status) || i.status === "closing"),
    focus_stack: [...state.focus_stack],
  };
}

export interface RestoredInstances {
  readonly state: InstancesState;
  readonly changes: readonly InstanceChange[];
}

/**
 * Rebuilds the state after a restart. `isRestorable(instance)` says whether its app can still run
 * (installed, enabled, compatible). Never puts an instance in the foreground.
 */
export function restoreInstances(snapshot: InstancesSnapshot, now: number, isRestorable: (instance: AppInstance) => boolean): RestoredInstances {
  const instances: Record<string, AppInstance> = {};
  const changes: InstanceChange[] = [];
  const record = (instance: AppInstance, next: AppInstance) => {
    instances[next.instance_id] = next;
    if (instance.status !== next.status) changes.push({ instance_id: next.instance_id, app_scope: next.app_scope, from: instance.status, to: next.status, cause: "restart" });
  };
  for (const instance of snapshot.instances) {
    const { status: _s, since: _t, ...rest } = instance as AppInstance & { reason?: string };
    const { reason: _r, ...base } = rest as typeof rest & { reason?: string };
    if (instance.status === "closing" || (isLive(instance.status) && !isRestorable(instance))) {
      record(instance, { ...base, status: "closed", since: now } as AppInstance);
    } else if (instance.status === "launching") {
      record(instance, { ...base, status: "failed", since: now, reason: "interrupted by a restart while launching" } as AppInstance);
    } else if (isLive(instance.status)) {
      record(instance, { ...base, status: "suspended", since: now } as AppInstance);
    }
  }
  const focus_stack = snapshot.focus_stack.filter((id) => instances[id]?.status === "suspended");
  return { state: { instances, focus_stack }, changes };
}
