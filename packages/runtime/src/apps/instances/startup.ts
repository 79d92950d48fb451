/**
 * What the shell opens at start-up (spec 4.3):
 *
 *   explicit target (deep link / notification) → restorable foreground instance → the user's
 *   default app → `chat`, the Recovery App
 *
 * A target whose app cannot run (removed, disabled, broken) is skipped, so a broken default always
 * falls back to `chat`. Pure: the caller says which apps can run.
 */
import { foregroundInstance, getInstance, type InstancesState } from "./state.js";

export const RECOVERY_APP = "chat";

export interface StartupRequest {
  readonly explicit?: { readonly app_scope: string; readonly conversation_id?: string; readonly instance_id?: string };
  readonly instances: InstancesState;
  readonly default_app: string;
  /** Installed, enabled and runnable on this host. */
  readonly launchable: (appScope: string) => boolean;
  /** Can be the default app (a default-eligible primary entrypoint); defaults to `launchable`. */
  readonly defaultEligible?: (appScope: string) => boolean;
}

export type StartupTarget =
  | { readonly kind: "explicit"; readonly app_scope: string; readonly conversation_id?: string; readonly instance_id?: string }
  | { readonly kind: "restore"; readonly app_scope: string; readonly instance_id: string }
  | { readonly kind: "default"; readonly app_scope: string }
  | { readonly kind: "recovery"; readonly app_scope: string; readonly skipped: readonly string[] };

export function resolveStartupTarget(request: StartupRequest): StartupTarget {
  const skipped: string[] = [];
  const { explicit } = request;
  if (explicit !== undefined) {
    if (request.launchable(explicit.app_scope)) {
      const named = explicit.instance_id === undefined ? undefined : getInstance(request.instances, explicit.instance_id);
      const usable = named !== undefined && named.app_scope === explicit.app_scope && named.status !== "closed" && named.status !== "failed" && named.status !== "closing";
      return {
        kind: "explicit",
        app_scope: explicit.app_scope,
        ...(explicit.conversation_id === undefined ? {} : { conversation_id: explicit.conversation_id }),
        ...(usable ? { instance_id: named.instance_id } : {}),
      };
    }
    skipped.push(`explicit target ${explicit.app_scope} cannot run`);
  }
  const stack = request.instances.focus_stack;
  const topId = stack[stack.length - 1];
  const top = foregroundInstance(request.instances) ?? (topId === undefined ? undefined : getInstance(request.instances, topId));
  if (top !== undefined && top.status !== "closed" && top.status !== "failed" && top.status !== "closing") {
    if (request.launchable(top.app_scope)) return { kind: "restore", app_scope: top.app_scope, instance_id: top.instance_id };
    skipped.push(`instance ${top.instance_id} of ${top.app_scope} cannot be restored`);
  }
  const eligible = request.defaultEligible ?? request.launchable;
  if (request.default_app !== RECOVERY_APP) {
    if (request.launchable(request.default_app) && eligible(request.default_app)) return { kind: "default", app_scope: request.default_app };
    skipped.push(`default app ${request.default_app} cannot run`);
  }
  return { kind: "recovery", app_scope: RECOVERY_APP, skipped };
}
