/**
 * The instance manager's pure operations: launch, ready, focus, background, suspend, restored,
 * crash, close, closed. Each returns the new state and the lifecycle changes it made, or refuses
 * with `illegal_transition` / `app_not_found` and changes nothing. Time is an argument; instance
 * ids come from the caller.
 */
import { fail, ok, type Result } from "@lineup/protocol";
import { isLegalInstanceTransition, isLive, type InstanceLifecycle, type InstanceStatus } from "./lifecycle.js";
import { findLiveInstance, getInstance, type AppInstance, type InstanceChange, type InstancePolicy, type InstancesState } from "./state.js";

export interface InstanceOutcome {
  readonly state: InstancesState;
  readonly changes: readonly InstanceChange[];
}

export type InstanceResult = Result<InstanceOutcome>;

export interface LaunchInstanceRequest {
  readonly instance_id: string;
  readonly app_scope: string;
  readonly policy: InstancePolicy;
  readonly conversation_id?: string;
  readonly entrypoint?: string;
  readonly parent_instance_id?: string;
  readonly opened_by?: string;
  /** Push onto the focus stack (an extension app launched in front of the interaction app). */
  readonly foreground: boolean;
  /** Another instance of a per-conversation app in the same conversation (spec 4.4 `instance_id`). */
  readonly new_instance?: boolean;
  readonly now: number;
}

type Base = Omit<AppInstance, "status" | "since" | "reason">;

function baseOf(instance: AppInstance): Base {
  const { status: _s, since: _t, ...rest } = instance as AppInstance & { reason?: string };
  const { reason: _r, ...base } = rest as typeof rest & { reason?: string };
  return base;
}

function withLifecycle(instance: AppInstance, lifecycle: InstanceLifecycle): AppInstance {
  return { ...baseOf(instance), ...lifecycle } as AppInstance;
}

/** A small mutable draft: every operation edits a copy and reports its changes in order. */
class Draft {
  readonly instances: Record<string, AppInstance>;
  stack: string[];
  readonly changes: InstanceChange[] = [];
  constructor(state: InstancesState, private readonly now: number) {
    this.instances = { ...state.instances };
    this.stack = [...state.focus_stack];
  }
  set(id: string, to: InstanceStatus, reason = ""): void {
    const current = this.instances[id]!;
    if (current.status === to) return;
    const lifecycle: InstanceLifecycle = to === "failed" ? { status: "failed", since: this.now, reason } : ({ status: to, since: this.now } as InstanceLifecycle);
    this.instances[id] = withLifecycle(current, lifecycle);
    this.changes.push({ instance_id: id, app_scope: current.app_scope, from: current.status, to });
  }
  top(): AppInstance | undefined {
    const id = this.stack[this.stack.length - 1];
    return id === undefined ? undefined : this.instances[id];
  }
  /** The top stops being the foreground (something else is coming in front). */
  demoteTop(): void {
    const top = this.top();
    if (top?.status === "active") this.set(top.instance_id, "backgrounded");
  }
  /** The new top comes to the foreground: the displaced instance returns. */
  promoteTop(): void {
    const top = this.top();
    if (top === undefined) return;
    if (top.status === "backgrounded") this.set(top.instance_id, "active");
    else if (top.status === "suspended") this.set(top.instance_id, "restoring");
  }
  /** Removes from the stack; if it was the top, the one below returns to the foreground. */
  removeFromStack(id: string): void {
    const wasTop = this.stack[this.stack.length - 1] === id;
    this.stack = this.stack.filter((x) => x !== id);
    if (wasTop) this.promoteTop();
  }
  done(): InstanceResult {
    return ok({ state: { instances: this.instances, focus_stack: this.stack }, changes: this.changes });
  }
}

function illegal(instance: AppInstance, to: InstanceStatus | "focus"): InstanceResult {
  return fail("illegal_transition", `instance ${instance.instance_id} of ${instance.app_scope} cannot go from ${instance.status} to ${to}`);
}

function lookup(state: InstancesState, instanceId: string): Result<AppInstance> {
  const instance = getInstance(state, instanceId);
  return instance === undefined ? fail("app_not_found", `no instance ${instanceId}`) : ok(instance);
}

/** not_running → launching. A singleton app, or a per-conversation app already live in that conversation, is refused unless `new_instance`. */
export function launchInstance(state: InstancesState, request: LaunchInstanceRequest): InstanceResult {
  if (getInstance(state, request.instance_id) !== undefined) return fail("illegal_transition", `instance ${request.instance_id} already exists`);
  const existing = findLiveInstance(state, request.app_scope, request.conversation_id);
  if (existing !== undefined && (request.policy === "singleton" || request.new_instance !== true)) {
    return fail("illegal_transition", `${request.app_scope} already has a live instance ${existing.instance_id} here; focus it instead`);
  }
  const draft = new Draft(state, request.now);
  const instance = {
    instance_id: request.instance_id,
    app_scope: request.app_scope,
    policy: request.policy,
    ...(request.conversation_id === undefined || request.policy === "singleton" ? {} : { conversation_id: request.conversation_id }),
    ...(request.entrypoint === undefined ? {} : { entrypoint: request.entrypoint }),
    ...(request.parent_instance_id === undefined ? {} : { parent_instance_id: request.parent_instance_id }),
    ...(request.opened_by === undefined ? {} : { opened_by: request.opened_by }),
    created_at: request.now,
    status: "launching",
    since: request.now,
  } as AppInstance;
  draft.instances[request.instance_id] = instance;
  draft.changes.push({ instance_id: request.instance_id, app_scope: request.app_scope, from: "not_running", to: "launching" });
  if (request.foreground) {
    draft.demoteTop();
    draft.stack.push(request.instance_id);
  }
  return draft.done();
}

/** launching → active (when it is the top of the stack) or backgrounded (when something else has the focus). */
export function markInstanceReady(state: InstancesState, instanceId: string, now: number): InstanceResult {
  const found = lookup(state, instanceId);
  if (!found.ok) return found;
  if (found.value.status !== "launching") return illegal(found.value, "active");
  const draft = new Draft(state, now);
  draft.set(instanceId, draft.top()?.instance_id === instanceId ? "active" : "backgrounded");
  return draft.done();
}

/** restoring → active (top of stack) or backgrounded. */
export function markInstanceRestored(state: InstancesState, instanceId: string, now: number): InstanceResult {
  const found = lookup(state, instanceId);
  if (!found.ok) return found;
  if (found.value.status !== "restoring") return illegal(found.value, "active");
  const draft = new Draft(state, now);
  draft.set(instanceId, draft.top()?.instance_id === instanceId ? "active" : "backgrounded");
  return draft.done();
}

/**
 * A suspended instance's surface is back (after a restart or a reclaimed surface): suspended →
 * restoring → active when it is the top of the stack, else backgrounded.
 */
export function resumeInstance(state: InstancesState, instanceId: string, now: number): InstanceResult {
  const found = lookup(state, instanceId);
  if (!found.ok) return found;
  if (found.value.status !== "suspended") return illegal(found.value, "restoring");
  const draft = new Draft(state, now);
  draft.set(instanceId, "restoring");
  draft.set(instanceId, draft.top()?.instance_id === instanceId ? "active" : "backgrounded");
  return draft.done();
}

/**
 * A suspended instance gets its surface back without coming to the front (a call is delivered to it):
 * suspended → restoring, then `markInstanceRestored` when the host reports it ready.
 */
export function restoreInstanceInBackground(state: InstancesState, instanceId: string, now: number): InstanceResult {
  const found = lookup(state, instanceId);
  if (!found.ok) return found;
  if (found.value.status !== "suspended") return illegal(found.value, "restoring");
  const draft = new Draft(state, now);
  draft.set(instanceId, "restoring");
  return draft.done();
}

/**
 * Brings a live instance to the top of the stack: backgrounded → active, suspended → restoring
 * (then `markInstanceRestored`), launching stays launching; the previous foreground goes to the background.
 */
export function focusInstance(state: InstancesState, instanceId: string, now: number): InstanceResult {
  const found = lookup(state, instanceId);
  if (!found.ok) return found;
  const instance = found.value;
  if (!isLive(instance.status)) return illegal(instance, "focus");
  const draft = new Draft(state, now);
  if (draft.top()?.instance_id === instanceId && instance.status === "active") return draft.done();
  if (draft.top()?.instance_id !== instanceId) draft.demoteTop();
  draft.stack = [...draft.stack.filter((x) => x !== instanceId), instanceId];
  draft.promoteTop();
  return draft.done();
}

/**
 * A call with `restore_focus` ended (spec 4.5): if its instance is still on top, the instance it
 * displaced comes back to the front, or — when none was in front — the instance goes to the background.
 * If the person moved elsewhere meanwhile, or the displaced instance is gone, nothing changes but that.
 */
export function returnFocus(state: InstancesState, instanceId: string, displacedInstanceId: string | undefined, now: number): InstanceResult {
  const unchanged: InstanceResult = ok({ state, changes: [] });
  if (state.focus_stack[state.focus_stack.length - 1] !== instanceId) return unchanged;
  const displaced = displacedInstanceId === undefined || displacedInstanceId === instanceId ? undefined : getInstance(state, displacedInstanceId);
  if (displaced !== undefined && isLive(displaced.status)) return focusInstance(state, displaced.instance_id, now);
  return getInstance(state, instanceId)?.status === "active" ? backgroundInstance(state, instanceId, now) : unchanged;
}

/** active → backgrounded (the user went to the shell); it keeps its place in the stack. */
export function backgroundInstance(state: InstancesState, instanceId: string, now: number): InstanceResult {
  const found = lookup(state, instanceId);
  if (!found.ok) return found;
  if (found.value.status !== "active") return illegal(found.value, "backgrounded");
  const draft = new Draft(state, now);
  draft.set(instanceId, "backgrounded");
  return draft.done();
}

/** backgrounded → suspended (the host reclaimed the surface). */
export function suspendInstance(state: InstancesState, instanceId: string, now: number): InstanceResult {
  const found = lookup(state, instanceId);
  if (!found.ok) return found;
  if (!isLegalInstanceTransition(found.value.status, "suspended")) return illegal(found.value, "suspended");
  const draft = new Draft(state, now);
  draft.set(instanceId, "suspended");
  return draft.done();
}

/** Any live or closing state → failed; leaves the stack, and the displaced instance returns. */
export function crashInstance(state: InstancesState, instanceId: string, now: number, reason = "crashed"): InstanceResult {
  const found = lookup(state, instanceId);
  if (!found.ok) return found;
  if (!isLegalInstanceTransition(found.value.status, "failed")) return illegal(found.value, "failed");
  const draft = new Draft(state, now);
  draft.set(instanceId, "failed", reason);
  draft.removeFromStack(instanceId);
  return draft.done();
}

/** Any live state → closing; leaves the stack, and the displaced instance returns. */
export function closeInstance(state: InstancesState, instanceId: string, now: number): InstanceResult {
  const found = lookup(state, instanceId);
  if (!found.ok) return found;
  if (!isLegalInstanceTransition(found.value.status, "closing")) return illegal(found.value, "closing");
  const draft = new Draft(state, now);
  draft.set(instanceId, "closing");
  draft.removeFromStack(instanceId);
  return draft.done();
}

/** closing → closed (the app finished its closing callback, or the loop's grace period ended). */
export function markInstanceClosed(state: InstancesState, instanceId: string, now: number): InstanceResult {
  const found = lookup(state, instanceId);
  if (!found.ok) return found;
  if (found.value.status !== "closing") return illegal(found.value, "closed");
  const draft = new Draft(state, now);
  draft.set(instanceId, "closed");
  return draft.done();
}

/** Closes every live instance of an app (disable, remove): the effect `close_instances`. */
export function closeAppInstances(state: InstancesState, appScope: string, now: number): InstanceOutcome {
  let current = state;
  const changes: InstanceChange[] = [];
  for (const instance of Object.values(state.instances)) {
    if (instance.app_scope !== appScope || !isLive(instance.status)) continue;
    const closed = closeInstance(current, instance.instance_id, now);
    if (closed.ok) {
      current = closed.value.state;
      changes.push(...closed.value.changes);
    }
  }
  return { state: current, changes };
}

/** Drops closed and failed instances from the record (they are history once persisted and reported). */
export function pruneFinishedInstances(state: InstancesState): InstancesState {
  const instances: Record<string, AppInstance> = {};
  for (const [id, instance] of Object.entries(state.instances)) if (instance.status !== "closed" && instance.status !== "failed") instances[id] = instance;
  return { ...state, instances };
}
