/**
 * Instances and the focus stack (spec 4.4, 4.5) as plain data.
 *
 * The focus stack lists live instances bottom → top. Its top is the instance the user sees or is
 * about to see; launching an app in the foreground pushes it and sends the old top to the
 * background, and when the top closes or fails the one below returns (the interaction app comes
 * back after a game). Closed and failed instances are never in it.
 */
import type { InstanceLifecycle, InstanceStatus } from "./lifecycle.js";

/** `singleton`: one global instance (chat, app-registry); `per_conversation`: one per conversation unless a new instance is asked for. */
export type InstancePolicy = "singleton" | "per_conversation";

export type AppInstance = {
  readonly instance_id: string;
  readonly app_scope: string;
  readonly policy: InstancePolicy;
  readonly conversation_id?: string;
  readonly entrypoint?: string;
  /** The instance whose call or navigation started this one. */
  readonly parent_instance_id?: string;
  /** The app that opened it through its SDK (`apps.launch`): it may focus and close it too. */
  readonly opened_by?: string;
  readonly created_at: number;
} & InstanceLifecycle;

export interface InstancesState {
  readonly instances: Readonly<Record<string, AppInstance>>;
  /** Live instance ids, bottom → top. */
  readonly focus_stack: readonly string[];
}

export const EMPTY_INSTANCES: InstancesState = { instances: {}, focus_stack: [] };

/** One lifecycle change, for the loop to persist and to call the app's lifecycle callbacks. */
export interface InstanceChange {
  readonly instance_id: string;
  readonly app_scope: string;
  readonly from: InstanceStatus | "not_running";
  readonly to: InstanceStatus;
  /** `restart`: the process went away; not a lifecycle transition the app made. */
  readonly cause?: "restart";
}

/** Core apps that run as one global instance (spec 4.4). */
export const SINGLETON_APP_SCOPES: ReadonlySet<string> = new Set(["chat", "app-registry", "settings"]);

export function instancePolicyFor(appScope: string): InstancePolicy {
  return SINGLETON_APP_SCOPES.has(appScope) ? "singleton" : "per_conversation";
}

export function getInstance(state: InstancesState, instanceId: string): AppInstance | undefined {
  return Object.prototype.hasOwnProperty.call(state.instances, instanceId) ? state.instances[instanceId] : undefined;
}

/** The instance in the foreground, if any. */
export function foregroundInstance(state: InstancesState): AppInstance | undefined {
  const top = state.focus_stack[state.focus_stack.length - 1];
  const instance = top === undefined ? undefined : getInstance(state, top);
  return instance?.status === "active" ? instance : undefined;
}

/**
 * The live instance that serves `app_scope` in `conversation_id`: the singleton for global apps,
 * else the most recently created live instance of that conversation.
 */
export function findLiveInstance(state: InstancesState, appScope: string, conversationId?: string): AppInstance | undefined {
  let found: AppInstance | undefined;
  for (const instance of Object.values(state.instances)) {
    if (instance.app_scope !== appScope) continue;
    if (instance.status !== "launching" && instance.status !== "active" && instance.status !== "backgrounded" && instance.status !== "suspended" && instance.status !== "restoring") continue;
    if (instance.policy === "per_conversation" && instance.conversation_id !== conversationId) continue;
    if (found === undefined || instance.created_at >= found.created_at) found = instance;
  }
  return found;
}

/** Live instances of an app: the `active_instance_count` of its AppRecord. */
export function liveInstanceCount(state: InstancesState, appScope: string): number {
  let n = 0;
  for (const i of Object.values(state.instances)) {
    if (i.app_scope === appScope && (i.status === "launching" || i.status === "active" || i.status === "backgrounded" || i.status === "suspended" || i.status === "restoring")) n++;
  }
  return n;
}
