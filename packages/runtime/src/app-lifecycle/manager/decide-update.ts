/**
 * Update (spec 4.3; RELIABILITY P3, P4). An update must be newer than the active version — an older
 * bundle, however validly signed, is refused (`bundle_downgrade`); only an explicit rollback goes
 * back. An update that adds a capability stops at authorization and waits for the user with the
 * projection difference; until then, and if the user refuses, the active version keeps running.
 */
import { diffProjections, projectManifest } from "@lineup/protocol";
import type { AuditFact } from "./audit-fact.js";
import type { AppDecision, AppEffect } from "./operation.js";
import { refusedOperation, operationSteps } from "./operation.js";
import { checkCandidate, coreScopesOf, PIPELINE_STEPS, publisherOf, type AppPolicy, type BundleCandidate, type HostEnvironment } from "./pipeline.js";
import {
  activeManifest,
  getManagedApp,
  isoTime,
  RETAINED_VERSIONS,
  withApp,
  type AppRegistryState,
  type ManagedApp,
  type RetainedVersion,
} from "./records.js";
import { activateRetained } from "./decide-rollback.js";
import { compareVersions } from "./versions.js";

export interface UpdateAppRequest {
  readonly operation_id: string;
  readonly app_scope: string;
  readonly candidate: BundleCandidate;
  /** The version the caller means to install: a bundle of another version is refused. */
  readonly target_version?: string;
  readonly now: number;
}

export interface ResolveUpdateRequest {
  /** The operation that is waiting (from the `awaiting_approval` AppOperation). */
  readonly operation_id: string;
  readonly app_scope: string;
  readonly approved: boolean;
  readonly now: number;
}

/** Makes `candidate` the active version, keeping at most `RETAINED_VERSIONS` and deleting the rest. */
export function activateVersion(app: ManagedApp, candidate: RetainedVersion): { app: ManagedApp; effects: AppEffect[] } {
  const kept = [...app.retained.filter((v) => v.version !== candidate.version), candidate];
  const dropped = kept.splice(0, Math.max(0, kept.length - RETAINED_VERSIONS));
  const effects: AppEffect[] = dropped
    .filter((v) => v.bundle_digest !== null)
    .map((v) => ({ kind: "delete_bundle", app_scope: app.record.app_scope, version: v.version, bundle_digest: v.bundle_digest! }));
  effects.push({ kind: "publish_inventory" });
  const { pending_update: _dropped, ...rest } = app;
  const record = { ...app.record, installed_version: candidate.version, previous_version: app.record.installed_version, install_state: "installed" as const };
  return { app: { ...rest, record, retained: kept }, effects };
}

export function decideUpdate(state: AppRegistryState, request: UpdateAppRequest, host: HostEnvironment, policy: AppPolicy = {}): AppDecision {
  const at = isoTime(request.now);
  const app = getManagedApp(state, request.app_scope);
  const base = { operation_id: request.operation_id, kind: "update" as const, app_scope: request.app_scope, requested_at: at };
  if (app === undefined) return refusedOperation(state, base, PIPELINE_STEPS, "verify", "app_not_installed", `"${request.app_scope}" is not installed`);
  const from = { ...base, from_version: app.record.installed_version };
  if (app.record.kind === "core") return refusedOperation(state, from, PIPELINE_STEPS, "verify", "app_protected", `"${request.app_scope}" is a core app; it updates with the Runtime`);
  const outcome = checkCandidate(request.candidate, host, policy, coreScopesOf(state.apps));
  if (!outcome.ok) return refusedOperation(state, from, PIPELINE_STEPS, outcome.step, outcome.code, outcome.message, outcome.path);
  const { manifest, projection } = outcome;
  const to = { ...from, to_version: manifest.version, projection };
  if (manifest.app_scope !== request.app_scope) {
    return refusedOperation(state, to, PIPELINE_STEPS, "verify", "manifest_invalid", `the bundle is for "${manifest.app_scope}", not "${request.app_scope}"`, "/app_scope");
  }
  if (request.target_version !== undefined && request.target_version !== manifest.version) {
    return refusedOperation(state, to, PIPELINE_STEPS, "verify", "invalid_params", `the bundle is version ${manifest.version}, not the ${request.target_version} asked for`, "/version");
  }
  if (compareVersions(manifest.version, app.record.installed_version) <= 0) {
    return refusedOperation(state, to, PIPELINE_STEPS, "verify", "bundle_downgrade", `${manifest.version} is not newer than the installed ${app.record.installed_version}; use an explicit rollback to go back`);
  }
  const current = activeManifest(app);
  const diff = diffProjections(projectManifest(current ?? manifest), projection);
  const candidate: RetainedVersion = { version: manifest.version, manifest, bundle_digest: request.candidate.bundle_digest, ...publisherOf(request.candidate), installed_at: at };
  const superseded: AppEffect[] =
    app.pending_update === undefined || app.pending_update.candidate.bundle_digest === null
      ? []
      : [{ kind: "delete_bundle", app_scope: app.record.app_scope, version: app.pending_update.candidate.version, bundle_digest: app.pending_update.candidate.bundle_digest }];
  if (diff.requires_approval) {
    const waiting: ManagedApp = {
      ...app,
      record: { ...app.record, install_state: "updating" },
      pending_update: { operation_id: request.operation_id, candidate, projection, diff, requested_at: at },
    };
    const added = [
      ...diff.added_capabilities.map((c) => c.name),
      ...diff.added_endpoints.map((host) => `data sent to ${host}`),
      ...diff.added_backends.map((b) => `back-end ${b.id} (${b.protocol})`),
    ].join(", ");
    return {
      state: withApp(state, waiting),
      operation: { ...to, diff, status: "awaiting_approval", steps: operationSteps(PIPELINE_STEPS, "authorization", "waiting", { detail: `new: ${added}` }) },
      effects: superseded,
      audit: [{ type: "app.update.awaiting_approval", subject: app.record.app_scope, detail: `${app.record.installed_version} -> ${manifest.version} adds ${added}` }],
    };
  }
  const activated = activateVersion(app, candidate);
  return {
    state: withApp(state, activated.app),
    operation: { ...to, diff, status: "succeeded", steps: operationSteps(PIPELINE_STEPS, undefined, "done") },
    effects: [...superseded, ...activated.effects],
    audit: [{ type: "app.update.succeeded", subject: app.record.app_scope, detail: `${app.record.installed_version} -> ${manifest.version}` }],
  };
}

/** The user's answer to an update waiting for approval. Refusing keeps the active version running. */
export function decideUpdateApproval(state: AppRegistryState, request: ResolveUpdateRequest): AppDecision {
  const at = isoTime(request.now);
  const app = getManagedApp(state, request.app_scope);
  const base = { operation_id: request.operation_id, kind: "approve_update" as const, app_scope: request.app_scope, requested_at: at };
  const pending = app?.pending_update;
  if (app === undefined || pending === undefined || pending.operation_id !== request.operation_id) {
    return refusedOperation(state, base, PIPELINE_STEPS, "authorization", "update_not_pending", `no update of "${request.app_scope}" waits under operation ${request.operation_id}`);
  }
  const to = { ...base, from_version: app.record.installed_version, to_version: pending.candidate.version, projection: pending.projection, diff: pending.diff };
  if (!request.approved) {
    const { pending_update: _refused, ...rest } = app;
    const kept: ManagedApp = { ...rest, record: { ...app.record, install_state: "installed" } };
    const audit: AuditFact[] = [{ type: "app.update.refused", code: "cancelled_by_user", subject: app.record.app_scope, detail: `kept ${app.record.installed_version}; refused ${pending.candidate.version}` }];
    return {
      state: withApp(state, kept),
      operation: { ...to, status: "failed", steps: operationSteps(PIPELINE_STEPS, "authorization", "failed", { code: "cancelled_by_user" }), error: { code: "cancelled_by_user", message: "the user refused the new capabilities" } },
      effects: pending.candidate.bundle_digest === null ? [] : [{ kind: "delete_bundle", app_scope: app.record.app_scope, version: pending.candidate.version, bundle_digest: pending.candidate.bundle_digest }],
      audit,
    };
  }
  const activated = activateVersion(app, pending.candidate);
  return {
    state: withApp(state, activated.app),
    operation: { ...to, status: "succeeded", steps: operationSteps(PIPELINE_STEPS, undefined, "done") },
    effects: activated.effects,
    audit: [{ type: "app.update.approved", subject: app.record.app_scope, detail: `${app.record.installed_version} -> ${pending.candidate.version}; approved ${pending.diff.added_capabilities.map((c) => c.name).join(", ")}` }],
  };
}

export interface UpdateToRetainedRequest {
  readonly operation_id: string;
  readonly app_scope: string;
  /** Default: the newest retained version. */
  readonly target_version?: string;
  readonly now: number;
}

/**
 * Spec 4.3 `update(appScope, targetVersion?)` with no bundle: forward again to a version this device still
 * holds, newer than the active one (what a rollback left behind). Nothing is downloaded or verified again:
 * the version was verified when it was installed. Audited as an update.
 */
export function decideUpdateToRetained(state: AppRegistryState, request: UpdateToRetainedRequest): AppDecision {
  const at = isoTime(request.now);
  const app = getManagedApp(state, request.app_scope);
  const base = { operation_id: request.operation_id, kind: "update" as const, app_scope: request.app_scope, requested_at: at };
  const steps = ["authorization", "enable"] as const;
  if (app === undefined) return refusedOperation(state, base, steps, "authorization", "app_not_installed", `"${request.app_scope}" is not installed`);
  const from = { ...base, from_version: app.record.installed_version };
  if (app.record.kind === "core") return refusedOperation(state, from, steps, "authorization", "app_protected", `"${request.app_scope}" is a core app; it updates with the Runtime`);
  const newer = app.retained.filter((v) => compareVersions(v.version, app.record.installed_version) > 0);
  const target = request.target_version ?? newer.map((v) => v.version).sort(compareVersions).at(-1);
  const version = newer.find((v) => v.version === target);
  if (version === undefined) {
    return refusedOperation(state, from, steps, "authorization", "version_not_retained", `${target ?? "no version"} is not a retained version newer than the active ${app.record.installed_version} (retained: ${app.retained.map((v) => v.version).join(", ")}); pass a bundle to update beyond them`);
  }
  const moved = activateRetained(app, version);
  return {
    state: withApp(state, moved.app),
    operation: { ...from, to_version: version.version, status: "succeeded", steps: operationSteps(steps, undefined, "done") },
    effects: moved.effects,
    audit: [{ type: "app.update.succeeded", subject: app.record.app_scope, detail: `${app.record.installed_version} -> ${version.version} (a retained version)` }],
  };
}
