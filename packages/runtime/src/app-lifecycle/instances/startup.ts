/**
 * What the shell opens at start-up (spec 4.3):
 *
 *   explicit target (deep link / notification) → restorable foreground instance → the user's
 *   default app → `chat`, the Recovery App
 *
 * A target whose app cannot run (removed, disabled, incompatible) is skipped with the reason, so a
 * broken default always falls back to `chat` and the shell can say why. An explicit target that cannot
 * run goes straight to `chat`: the person asked for that app, not for whatever else would come next.
 * Pure: the caller says which apps can run.
 */
import { foregroundInstance, getInstance, type InstancesState } from "./state.js";
import type { CannotOpen } from "../manager/openable.js";

export const RECOVERY_APP = "chat";

/** A deep link's or a notification's target: an app, optionally in a conversation, at an entrypoint, or one instance. */
export interface ExplicitStartupTarget {
  readonly app_scope: string;
  readonly conversation_id?: string;
  readonly entrypoint?: string;
  readonly instance_id?: string;
}

export interface StartupRequest {
  readonly explicit?: ExplicitStartupTarget;
  readonly instances: InstancesState;
  readonly default_app: string;
  /**
   * Why the app (at `entrypoint`, when one is named) cannot be opened on this host — not installed,
   * disabled, incompatible, no such entrypoint — in words for a person; undefined when it can.
   */
  readonly cannotRun: (appScope: string, entrypoint?: string) => CannotOpen | undefined;
  /** Why the app cannot be the default (no default-eligible primary entrypoint); defaults to none. */
  readonly notDefaultEligible?: (appScope: string) => CannotOpen | undefined;
}

/** A target passed over on the way to the one chosen, and why: `reason` in English, `cause` for a host's own words. */
export interface SkippedStartupTarget {
  readonly target: "explicit" | "restore" | "default";
  readonly app_scope: string;
  readonly reason: string;
  readonly cause: CannotOpen;
}

export type StartupTarget =
  | ({ readonly kind: "explicit" } & ExplicitStartupTarget)
  | { readonly kind: "restore"; readonly app_scope: string; readonly instance_id: string; readonly skipped: readonly SkippedStartupTarget[] }
  | { readonly kind: "default"; readonly app_scope: string; readonly skipped: readonly SkippedStartupTarget[] }
  | { readonly kind: "recovery"; readonly app_scope: string; readonly skipped: readonly SkippedStartupTarget[] };

export function resolveStartupTarget(request: StartupRequest): StartupTarget {
  const skipped: SkippedStartupTarget[] = [];
  const { explicit } = request;
  if (explicit !== undefined) {
    const cause = request.cannotRun(explicit.app_scope, explicit.entrypoint);
    if (cause === undefined) {
      const named = explicit.instance_id === undefined ? undefined : getInstance(request.instances, explicit.instance_id);
      const usable = named !== undefined && named.app_scope === explicit.app_scope && named.status !== "closed" && named.status !== "failed" && named.status !== "closing";
      const { instance_id: _named, ...target } = explicit;
      return { kind: "explicit", ...target, ...(usable ? { instance_id: named.instance_id } : {}) };
    }
    // The person asked for this app: showing another one instead would mislead, so the Recovery App says why.
    return { kind: "recovery", app_scope: RECOVERY_APP, skipped: [{ target: "explicit", app_scope: explicit.app_scope, reason: cause.message, cause }] };
  }
  const stack = request.instances.focus_stack;
  const topId = stack[stack.length - 1];
  const top = foregroundInstance(request.instances) ?? (topId === undefined ? undefined : getInstance(request.instances, topId));
  if (top !== undefined && top.status !== "closed" && top.status !== "failed" && top.status !== "closing") {
    const cause = request.cannotRun(top.app_scope, top.entrypoint);
    if (cause === undefined) return { kind: "restore", app_scope: top.app_scope, instance_id: top.instance_id, skipped };
    skipped.push({ target: "restore", app_scope: top.app_scope, reason: cause.message, cause });
  }
  if (request.default_app !== RECOVERY_APP) {
    const cause = request.cannotRun(request.default_app) ?? request.notDefaultEligible?.(request.default_app);
    if (cause === undefined) return { kind: "default", app_scope: request.default_app, skipped };
    skipped.push({ target: "default", app_scope: request.default_app, reason: cause.message, cause });
  }
  return { kind: "recovery", app_scope: RECOVERY_APP, skipped };
}
