/**
 * Explicit rollback (spec 4.2; RELIABILITY P3): the only way back to an older version. Only to a
 * retained version, only with a stated reason, and always audited with it. The version rolled back
 * from stays retained, so the user can move forward again with another rollback or an update.
 */
import { refusedOperation, operationSteps, type AppDecision, type AppEffect } from "./operation.js";
import { getManagedApp, isoTime, withApp, type AppRegistryState, type ManagedApp, type RetainedVersion } from "./records.js";

export interface RollbackAppRequest {
  readonly operation_id: string;
  readonly app_scope: string;
  /** Defaults to `previous_version`. */
  readonly target_version?: string;
  /** Why: shown in the audit log. Required. */
  readonly reason: string;
  readonly now: number;
}

const ROLLBACK_STEPS = ["authorization", "rollback"] as const;

export function decideRollback(state: AppRegistryState, request: RollbackAppRequest): AppDecision {
  const at = isoTime(request.now);
  const reason = request.reason.trim();
  const app = getManagedApp(state, request.app_scope);
  const base = { operation_id: request.operation_id, kind: "rollback" as const, app_scope: request.app_scope, requested_at: at, ...(reason === "" ? {} : { reason }) };
  if (app === undefined) return refusedOperation(state, base, ROLLBACK_STEPS, "rollback", "app_not_installed", `"${request.app_scope}" is not installed`);
  const from = { ...base, from_version: app.record.installed_version };
  if (app.record.kind === "core") return refusedOperation(state, from, ROLLBACK_STEPS, "rollback", "app_protected", `"${request.app_scope}" is a core app; it changes only with the Runtime`);
  if (reason === "") return refusedOperation(state, from, ROLLBACK_STEPS, "authorization", "invalid_params", "a rollback needs a reason; it is audited", "/reason");
  const target = request.target_version ?? app.record.previous_version;
  const version = target === undefined ? undefined : app.retained.find((v) => v.version === target);
  if (version === undefined || target === app.record.installed_version) {
    return refusedOperation(state, from, ROLLBACK_STEPS, "rollback", "version_not_retained", `${target ?? "no previous version"} is not a retained version other than the active ${app.record.installed_version} (retained: ${app.retained.map((v) => v.version).join(", ")})`);
  }
  const moved = activateRetained(app, version);
  return {
    state: withApp(state, moved.app),
    operation: { ...from, to_version: version.version, status: "succeeded", steps: operationSteps(ROLLBACK_STEPS, undefined, "done") },
    effects: moved.effects,
    audit: [{ type: "app.rollback.succeeded", subject: app.record.app_scope, detail: `${app.record.installed_version} -> ${version.version}; reason: ${reason}` }],
  };
}

/**
 * `app` with the retained `version` active (the one it leaves becomes `previous_version`), any update waiting
 * for approval dropped, and the effects that follow: that update's bundle deleted, the inventory republished.
 * A rollback and an update to a retained version both move this way.
 */
export function activateRetained(app: ManagedApp, version: RetainedVersion): { readonly app: ManagedApp; readonly effects: AppEffect[] } {
  const { pending_update: superseded, ...rest } = app;
  const record = { ...app.record, installed_version: version.version, previous_version: app.record.installed_version, install_state: "installed" as const };
  return {
    app: { ...rest, record },
    effects: [
      ...(superseded?.candidate.bundle_digest == null ? [] : [{ kind: "delete_bundle" as const, app_scope: app.record.app_scope, version: superseded.candidate.version, bundle_digest: superseded.candidate.bundle_digest }]),
      { kind: "publish_inventory" },
    ],
  };
}
