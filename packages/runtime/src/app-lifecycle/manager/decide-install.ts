/**
 * Install (spec 4.3): a verified bundle becomes an installed app. The user approves the projection
 * shown before installing (`approved`); without it, or on any failed check, nothing is installed.
 */
import type { AppDecision } from "./operation.js";
import { refusedOperation, operationSteps } from "./operation.js";
import { checkCandidate, coreScopesOf, PIPELINE_STEPS, publisherOf, type AppPolicy, type BundleCandidate, type HostEnvironment } from "./pipeline.js";
import { getManagedApp, isoTime, withApp, type AppRegistryState, type ManagedApp } from "./records.js";

export interface InstallAppRequest {
  readonly operation_id: string;
  readonly candidate: BundleCandidate;
  /** The user approved the projection (what the app adds, its capabilities and risk). */
  readonly approved: boolean;
  /** Enable right after installing (default true). */
  readonly enable?: boolean;
  readonly now: number;
}

export function decideInstall(state: AppRegistryState, request: InstallAppRequest, host: HostEnvironment, policy: AppPolicy = {}): AppDecision {
  const at = isoTime(request.now);
  const scopeGuess = request.candidate.manifest?.app_scope;
  const base = { operation_id: request.operation_id, kind: "install" as const, app_scope: typeof scopeGuess === "string" ? scopeGuess : "", requested_at: at };
  const outcome = checkCandidate(request.candidate, host, policy, coreScopesOf(state.apps));
  if (!outcome.ok) {
    const refused = refusedOperation(state, base, PIPELINE_STEPS, outcome.step, outcome.code, outcome.message, outcome.path);
    return outcome.projection === undefined ? refused : { ...refused, operation: { ...refused.operation, projection: outcome.projection } };
  }
  const { manifest, projection } = outcome;
  const withVersion = { ...base, app_scope: manifest.app_scope, to_version: manifest.version, projection };
  if (getManagedApp(state, manifest.app_scope) !== undefined) {
    return refusedOperation(state, withVersion, PIPELINE_STEPS, "verify", "app_already_installed", `"${manifest.app_scope}" is already installed; offer the bundle as an update`);
  }
  if (!request.approved) {
    return refusedOperation(state, withVersion, PIPELINE_STEPS, "authorization", "cancelled_by_user", "the user did not approve the install");
  }
  const enable = request.enable ?? true;
  const app: ManagedApp = {
    record: {
      app_scope: manifest.app_scope,
      kind: "installed",
      installed_version: manifest.version,
      enabled: enable,
      install_state: "installed",
      active_instance_count: 0,
      installed_at: at,
      ...(enable ? { enabled_at: at } : {}),
    },
    retained: [{ version: manifest.version, manifest, bundle_digest: request.candidate.bundle_digest, ...publisherOf(request.candidate), installed_at: at }],
  };
  const steps = operationSteps(PIPELINE_STEPS, "enable", enable ? "done" : "skipped");
  return {
    state: withApp(state, app),
    operation: { ...withVersion, status: "succeeded", steps },
    effects: enable ? [{ kind: "publish_inventory" }] : [],
    audit: [{ type: "app.install.succeeded", subject: manifest.app_scope, detail: `version ${manifest.version}${enable ? ", enabled" : ""}` }],
  };
}
