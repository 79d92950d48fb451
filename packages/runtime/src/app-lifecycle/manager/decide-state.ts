/**
 * Enable, disable and the default-app choice (spec 4.3, 4.4). Disabling stops new calls and winds
 * down live instances; `chat`, the Recovery App, can never be disabled.
 */
import type { ErrorCode } from "@lineup/protocol";
import { RECOVERY_APP_SCOPE, activeManifest, getManagedApp, isoTime, withApp, type AppRegistryState } from "./records.js";
import { refusedOperation, operationSteps, type AppDecision } from "./operation.js";
import type { AppPolicy, HostEnvironment } from "./pipeline.js";

export interface AppRequest {
  readonly operation_id: string;
  readonly app_scope: string;
  readonly now: number;
}

const ENABLE_STEPS = ["readiness", "enable"] as const;
const DISABLE_STEPS = ["disable"] as const;
const DEFAULT_STEPS = ["readiness", "enable"] as const;

/** Enables an installed app after re-checking readiness against this host (its features may have changed). */
export function decideEnable(state: AppRegistryState, request: AppRequest, host: HostEnvironment, policy: AppPolicy = {}): AppDecision {
  const at = isoTime(request.now);
  const base = { operation_id: request.operation_id, kind: "enable" as const, app_scope: request.app_scope, requested_at: at };
  const app = getManagedApp(state, request.app_scope);
  if (app === undefined) return refusedOperation(state, base, ENABLE_STEPS, "readiness", "app_not_installed", `"${request.app_scope}" is not installed`);
  const manifest = activeManifest(app);
  const offered = new Set(host.features);
  const missing = manifest?.runtime_sdk.required_features.filter((f) => !offered.has(f)) ?? [];
  if (app.record.kind === "installed" && missing.length > 0) {
    return refusedOperation(state, base, ENABLE_STEPS, "readiness", "app_host_incompatible", `this host does not offer ${missing.join(", ")}`);
  }
  if (app.record.kind === "installed" && policy.allowed_apps !== undefined && !policy.allowed_apps.includes(request.app_scope)) {
    return refusedOperation(state, base, ENABLE_STEPS, "readiness", "policy_denied", `the app "${request.app_scope}" is not in the allowlist of this device's tenant`);
  }
  const operation = { ...base, to_version: app.record.installed_version, status: "succeeded" as const, steps: operationSteps(ENABLE_STEPS, undefined, "done") };
  if (app.record.enabled) return { state, operation, effects: [], audit: [] };
  return {
    state: withApp(state, { ...app, record: { ...app.record, enabled: true, enabled_at: at } }),
    operation,
    effects: [{ kind: "publish_inventory" }],
    audit: [{ type: "app.enable.succeeded", subject: request.app_scope }],
  };
}

/** Disables an app: new calls are refused with `app_disabled`, live instances close. */
export function decideDisable(state: AppRegistryState, request: AppRequest & { readonly reason?: string }): AppDecision {
  const at = isoTime(request.now);
  const base = { operation_id: request.operation_id, kind: "disable" as const, app_scope: request.app_scope, requested_at: at };
  const app = getManagedApp(state, request.app_scope);
  if (app === undefined) return refusedOperation(state, base, DISABLE_STEPS, "disable", "app_not_installed", `"${request.app_scope}" is not installed`);
  // A core app is part of the Runtime: turned off, it would still be on screen.
  if (request.app_scope === RECOVERY_APP_SCOPE) return refusedOperation(state, base, DISABLE_STEPS, "disable", "app_protected", "chat is the Recovery App and cannot be disabled");
  if (app.record.kind === "core") return refusedOperation(state, base, DISABLE_STEPS, "disable", "app_protected", `"${request.app_scope}" is a core app, part of the Runtime: it is always on`);
  const operation = { ...base, from_version: app.record.installed_version, status: "succeeded" as const, steps: operationSteps(DISABLE_STEPS, undefined, "done") };
  if (!app.record.enabled) return { state, operation, effects: [], audit: [] };
  const { enabled_at: _gone, ...record } = app.record;
  return {
    state: withApp(state, { ...app, record: { ...record, enabled: false } }),
    operation,
    effects: [
      { kind: "refuse_pending_calls", app_scope: request.app_scope, code: "app_disabled" },
      { kind: "close_instances", app_scope: request.app_scope },
      { kind: "publish_inventory" },
    ],
    audit: [{ type: "app.disable.succeeded", subject: request.app_scope, ...(request.reason === undefined || request.reason.trim() === "" ? {} : { detail: `reason: ${request.reason.trim().slice(0, 500)}` }) }],
  };
}

/** True when the app can be the default: enabled, and `chat` or an app with a default-eligible primary entrypoint. */
export function isDefaultEligible(state: AppRegistryState, appScope: string): boolean {
  const app = getManagedApp(state, appScope);
  if (app === undefined || !app.record.enabled || app.record.install_state === "failed") return false;
  if (appScope === RECOVERY_APP_SCOPE) return true;
  return (activeManifest(app)?.entrypoints ?? []).some((e) => e.kind === "primary" && e.default_eligible === true);
}

/** The user's choice of default app (spec 4.3: it changes only the main way in). */
export function decideSetDefaultApp(state: AppRegistryState, request: AppRequest): AppDecision {
  const at = isoTime(request.now);
  const base = { operation_id: request.operation_id, kind: "set_default" as const, app_scope: request.app_scope, requested_at: at };
  if (getManagedApp(state, request.app_scope) === undefined) return refusedOperation(state, base, DEFAULT_STEPS, "readiness", "app_not_installed", `"${request.app_scope}" is not installed`);
  if (!isDefaultEligible(state, request.app_scope)) {
    return refusedOperation(state, base, DEFAULT_STEPS, "readiness", "app_not_default_eligible", `"${request.app_scope}" is disabled or has no default-eligible primary entrypoint`);
  }
  return {
    state: { ...state, default_app: request.app_scope },
    operation: { ...base, status: "succeeded", steps: operationSteps(DEFAULT_STEPS, undefined, "done") },
    effects: [],
    audit: [{ type: "app.set_default.succeeded", subject: request.app_scope, detail: `was ${state.default_app}` }],
  };
}

/**
 * An install or update the App Manager accepted but that could not be completed — the app's storage could not
 * be brought to the new version, and no earlier version is left to go back to: the app stays, with
 * `install_state: "failed"` — not openable, out of the inventory and the directory, its waiting calls refused
 * `app_disabled`, its instances closed — until the person updates it with another bundle or removes it.
 */
export function decideInstallFailed(state: AppRegistryState, request: AppRequest & { readonly kind: "install" | "update"; readonly code: ErrorCode; readonly reason: string }): AppDecision {
  const at = isoTime(request.now);
  const app = getManagedApp(state, request.app_scope);
  const base = { operation_id: request.operation_id, kind: request.kind, app_scope: request.app_scope, requested_at: at };
  if (app === undefined) return refusedOperation(state, base, ["enable"], "enable", "app_not_installed", `"${request.app_scope}" is not installed`);
  const reason = request.reason.slice(0, 500);
  return {
    state: withApp(state, { ...app, record: { ...app.record, install_state: "failed" } }),
    operation: { ...base, from_version: app.record.installed_version, status: "failed", steps: operationSteps(["enable"], "enable", "failed", { code: request.code }), error: { code: request.code, message: reason } },
    effects: [
      { kind: "refuse_pending_calls", app_scope: request.app_scope, code: "app_disabled" },
      { kind: "close_instances", app_scope: request.app_scope },
      { kind: "publish_inventory" },
    ],
    audit: [{ type: `app.${request.kind}.failed`, code: request.code, subject: request.app_scope, detail: reason }],
  };
}
