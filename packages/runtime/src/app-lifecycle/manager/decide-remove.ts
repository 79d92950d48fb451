/**
 * Remove (spec 4.2, 4.4): closes the app's instances and, after the user's confirmation, deletes
 * every stored bundle of it and its private data. Core apps ship with the Runtime and cannot be
 * removed; `chat` least of all.
 */
import { refusedOperation, operationSteps, type AppDecision, type AppEffect } from "./operation.js";
import { getManagedApp, isoTime, withoutApp, type AppRegistryState } from "./records.js";

export interface RemoveAppRequest {
  readonly operation_id: string;
  readonly app_scope: string;
  /** The user confirmed deleting the app and its data. */
  readonly confirmed: boolean;
  readonly now: number;
}

const REMOVE_STEPS = ["confirmation", "disable", "cleanup"] as const;

export function decideRemove(state: AppRegistryState, request: RemoveAppRequest): AppDecision {
  const at = isoTime(request.now);
  const base = { operation_id: request.operation_id, kind: "remove" as const, app_scope: request.app_scope, requested_at: at };
  const app = getManagedApp(state, request.app_scope);
  if (app === undefined) return refusedOperation(state, base, REMOVE_STEPS, "confirmation", "app_not_installed", `"${request.app_scope}" is not installed`);
  const from = { ...base, from_version: app.record.installed_version };
  if (app.record.kind === "core") return refusedOperation(state, from, REMOVE_STEPS, "confirmation", "app_protected", `"${request.app_scope}" is a core app and cannot be removed`);
  if (!request.confirmed) return refusedOperation(state, from, REMOVE_STEPS, "confirmation", "confirmation_required", `removing "${request.app_scope}" deletes its bundle and data; confirm first`);
  const bundles = [...app.retained.map((v) => ({ version: v.version, digest: v.bundle_digest })), ...(app.pending_update === undefined ? [] : [{ version: app.pending_update.candidate.version, digest: app.pending_update.candidate.bundle_digest }])];
  // Order matters to the loop: stop calls and instances first, then delete what they were using.
  const effects: AppEffect[] = [
    { kind: "refuse_pending_calls", app_scope: request.app_scope, code: "app_not_installed" },
    { kind: "close_instances", app_scope: request.app_scope },
    ...bundles.filter((b) => b.digest !== null).map((b): AppEffect => ({ kind: "delete_bundle", app_scope: request.app_scope, version: b.version, bundle_digest: b.digest! })),
    { kind: "delete_app_data", app_scope: request.app_scope },
    { kind: "publish_inventory" },
  ];
  return {
    state: withoutApp(state, request.app_scope),
    operation: { ...from, status: "succeeded", steps: operationSteps(REMOVE_STEPS, undefined, "done") },
    effects,
    audit: [{ type: "app.remove.succeeded", subject: request.app_scope, detail: `removed ${app.record.installed_version} and its data` }],
  };
}
