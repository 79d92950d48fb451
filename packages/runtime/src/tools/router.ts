/**
 * The Tool Router (spec 7.3): given a tool's activation requirement and launch policy and the state
 * of the app's instances, decide how the call reaches its handler — run it directly, launch the
 * app, bring it to the foreground, wait for an activation already under way, or wait for the user
 * (an interactive tool whose app is in front) — or refuse. A tool that `requires_foreground` under
 * `launch_policy: never` is refused `foreground_required` unless its app is in front already. Pure.
 */
import type { ActivationRequirement, CallModel, ErrorCode, LaunchPolicy } from "@lineup/protocol";
import { findLiveInstance, foregroundInstance, type InstancesState } from "../app-lifecycle/instances/state.js";

export interface RoutableTool {
  readonly activation_requirement: ActivationRequirement;
  readonly launch_policy: LaunchPolicy;
  readonly call_model: CallModel;
  /** The work needs the foreground: with `launch_policy: never` the call may not move the app either, so it runs only if the app is in front already. */
  readonly requires_foreground?: boolean;
}

export type RouteDecision =
  /** Deliver now (to the live instance when there is one; a runtime-owned handler otherwise). */
  | { readonly action: "run_directly"; readonly instance_id?: string }
  /** Start a new instance (in the foreground when the tool needs it) and deliver once it is ready. */
  | { readonly action: "launch_app"; readonly foreground: boolean; readonly new_instance: boolean }
  /** Focus (and if suspended, restore) the instance and deliver once it is in front. */
  | { readonly action: "bring_to_foreground"; readonly instance_id: string }
  /** The instance is suspended and the call needs it ready, not in front: its surface comes back behind, then the call runs. */
  | { readonly action: "restore_behind"; readonly instance_id: string }
  /** The instance is launching or restoring already: deliver when it is ready. */
  | { readonly action: "wait_for_activation"; readonly instance_id: string }
  /** The app is in front; the call now waits on the user (interactive). */
  | { readonly action: "wait_for_user"; readonly instance_id: string }
  | { readonly action: "refuse"; readonly code: ErrorCode; readonly message: string };

export function routeToolCall(tool: RoutableTool, instances: InstancesState, appScope: string, conversationId: string): RouteDecision {
  const live = findLiveInstance(instances, appScope, conversationId);
  if (tool.activation_requirement === "activation_not_required") {
    return live === undefined ? { action: "run_directly" } : { action: "run_directly", instance_id: live.instance_id };
  }
  const needsForeground = tool.activation_requirement === "foreground_required";
  if (tool.launch_policy === "new_instance") return { action: "launch_app", foreground: needsForeground, new_instance: true };
  if (live === undefined) {
    if (tool.launch_policy === "never") {
      return needsForeground
        ? { action: "refuse", code: "foreground_required", message: `${appScope} is not running and the tool may not start it` }
        : { action: "refuse", code: "activation_failed", message: `${appScope} is not running and the tool may not start it` };
    }
    return { action: "launch_app", foreground: needsForeground, new_instance: false };
  }
  const inFront = foregroundInstance(instances)?.instance_id === live.instance_id;
  if (tool.requires_foreground === true && tool.launch_policy === "never" && !inFront) {
    return { action: "refuse", code: "foreground_required", message: `${appScope} is not in the foreground and the tool may not bring it there` };
  }
  if (live.status === "launching" || live.status === "restoring") return { action: "wait_for_activation", instance_id: live.instance_id };
  if (live.status === "suspended") return needsForeground ? { action: "bring_to_foreground", instance_id: live.instance_id } : { action: "restore_behind", instance_id: live.instance_id };
  if (!needsForeground) return { action: "run_directly", instance_id: live.instance_id };
  if (!inFront) return { action: "bring_to_foreground", instance_id: live.instance_id };
  return tool.call_model === "interactive" ? { action: "wait_for_user", instance_id: live.instance_id } : { action: "run_directly", instance_id: live.instance_id };
}
