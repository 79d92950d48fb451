/**
 * An in-memory `RuntimeAppManager` for the App Registry / Settings UI test only. It keeps real state
 * by running the Runtime's own pure pieces: `verifyBundle` against the fake settings' trusted
 * publishers, then the App Manager's `decide*` functions over an `AppRegistryState` (so operations
 * carry the real steps and codes). `inspect` is `decideInstall` without approval, reported as waiting
 * for it. Effects are applied as far as the UI can see them: instance counts drop on close, removed
 * apps' storage goes. A fixed clock ticks one second per request, so the test is deterministic.
 */
import { LineUpError, RUNTIME_SDK_FEATURES, projectManifest, type AppManifest, type AppScope } from "@lineup/protocol";
import {
  activeManifest,
  createAppRegistryState,
  decideDisable,
  decideEnable,
  decideInstall,
  decideRemove,
  decideRollback,
  decideSetDefaultApp,
  decideUpdate,
  decideUpdateApproval,
  decideUpdateToRetained,
  DEFAULT_ROLLBACK_REASON,
  getManagedApp,
  instancePolicyFor,
  listApps,
  operationSteps,
  PIPELINE_STEPS,
  verifyBundle,
  withActiveInstanceCount,
  type AppDecision,
  type AppInstance,
  type AppOperation,
  type AppRegistryState,
  type BundleCandidate,
  type HostEnvironment,
} from "@lineup/runtime";
import type { AppDetails, RuntimeAppManager, RuntimeSettings } from "../../src/core-apps/registry/manager-api.js";

export interface FakeAppManager extends RuntimeAppManager {
  /** Every call, in order, as `method:argument`. */
  readonly calls: string[];
  /** Bytes each app uses (bundle size plus a fixed amount of data), for the fake settings. */
  usage(): { app_scope: string; bytes: number }[];
}

const HOST: HostEnvironment = { features: Object.keys(RUNTIME_SDK_FEATURES) };
const MAX_OPERATIONS = 50;

function coreManifest(scope: string, name: string, description: string, defaultEligible: boolean): AppManifest {
  return {
    format: "lineup.app.v1",
    app_scope: scope as AppScope,
    version: "1.0.0",
    name,
    description,
    runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1"] },
    entrypoints: [{ id: "main", kind: "primary", default_eligible: defaultEligible }],
  };
}

export const FAKE_CORE_MANIFESTS: readonly AppManifest[] = [
  coreManifest("chat", "Chat", "Conversations with agents; the recovery app.", true),
  coreManifest("app-registry", "Apps", "Install, enable, update, roll back and remove apps.", false),
  coreManifest("settings", "Settings", "Trusted publishers, permissions, storage and theme.", false),
];

export function createFakeAppManager(options: { settings: () => RuntimeSettings; now: () => number; tick: () => void }): FakeAppManager {
  let state: AppRegistryState = createAppRegistryState(FAKE_CORE_MANIFESTS, options.now());
  let operations: AppOperation[] = [];
  let nextId = 1;
  const bundleBytes = new Map<string, number>();
  const listeners = new Set<() => void>();
  const calls: string[] = [];
  const instances = new Map<string, AppInstance>();

  const changed = () => {
    for (const listener of [...listeners]) listener();
  };
  const request = () => {
    options.tick();
    return { operation_id: `op-${nextId++}`, now: options.now() };
  };
  /** Commits a decision the way the Runtime's loop does: state, then effects, then notify. */
  const commit = (decision: AppDecision, bytes?: number): AppOperation => {
    state = decision.state;
    for (const effect of decision.effects) {
      if (effect.kind === "close_instances") {
        for (const [id, instance] of instances) if (instance.app_scope === effect.app_scope) instances.delete(id);
        if (getManagedApp(state, effect.app_scope) !== undefined) state = withActiveInstanceCount(state, effect.app_scope, 0);
      }
      if (effect.kind === "delete_app_data") bundleBytes.delete(effect.app_scope);
    }
    const op = decision.operation;
    if (bytes !== undefined && op.status !== "failed" && (op.kind === "install" || op.kind === "update")) bundleBytes.set(op.app_scope, bytes);
    operations = [op, ...operations].slice(0, MAX_OPERATIONS);
    changed();
    return op;
  };
  const candidateOf = async (bytes: Uint8Array): Promise<BundleCandidate> => {
    const trustedKeys = options.settings().trustedPublishers().map((p) => ({ key_id: p.key_id, public_key: p.public_key }));
    const verified = await verifyBundle(bytes, { trustedKeys });
    return verified.ok
      ? { manifest: verified.value.manifest, bundle_digest: verified.value.fileListSha256, verification: { ok: true } }
      : { manifest: undefined, bundle_digest: "", verification: { ok: false, error: verified.error } };
  };

  const manager: FakeAppManager = {
    calls,
    usage: () => listApps(state).map((r) => ({ app_scope: r.app_scope, bytes: (bundleBytes.get(r.app_scope) ?? 0) + (r.kind === "core" ? 40_960 : 12_288) })),
    listApps: (filter = {}) => listApps(state, { ...(filter.kind === undefined ? {} : { kind: filter.kind }), ...(filter.enabled === undefined ? {} : { enabled: filter.enabled }) }),
    getApp(appScope): AppDetails | undefined {
      const app = getManagedApp(state, appScope);
      const manifest = app === undefined ? undefined : activeManifest(app);
      if (app === undefined || manifest === undefined) return undefined;
      const pending = app.pending_update;
      return {
        record: app.record,
        manifest,
        projection: projectManifest(manifest),
        versions: [...app.retained].reverse().map((v) => ({ version: v.version, installed_at: v.installed_at, active: v.version === app.record.installed_version })),
        ...(pending === undefined ? {} : { pending_update: { operation_id: pending.operation_id, version: pending.candidate.version, projection: pending.projection, diff: pending.diff } }),
        is_default: state.default_app === appScope,
      };
    },
    async inspect(bundle) {
      calls.push("inspect");
      const candidate = await candidateOf(bundle);
      const decision = decideInstall(state, { ...request(), candidate, approved: false }, HOST);
      const op = decision.operation;
      // Every check passed and only the user's approval is missing: that is what inspect reports.
      if (op.error?.code === "cancelled_by_user") {
        const { error: _none, ...rest } = op;
        return { ...rest, status: "awaiting_approval", steps: operationSteps(PIPELINE_STEPS, "authorization", "waiting") };
      }
      return op;
    },
    async install(bundle, installOptions) {
      calls.push(`install:${String(installOptions.approved)}`);
      const candidate = await candidateOf(bundle);
      return commit(decideInstall(state, { ...request(), candidate, approved: installOptions.approved, ...(installOptions.enable === undefined ? {} : { enable: installOptions.enable }) }, HOST), bundle.byteLength);
    },
    async enable(appScope) {
      calls.push(`enable:${appScope}`);
      return commit(decideEnable(state, { ...request(), app_scope: appScope }, HOST));
    },
    async disable(appScope) {
      calls.push(`disable:${appScope}`);
      return commit(decideDisable(state, { ...request(), app_scope: appScope }));
    },
    async update(appScope, targetVersion, updateOptions) {
      calls.push(`update:${appScope}`);
      const target = targetVersion === undefined ? {} : { target_version: targetVersion };
      const bundle = updateOptions?.bundle;
      if (bundle === undefined) return commit(decideUpdateToRetained(state, { ...request(), app_scope: appScope, ...target }));
      const candidate = await candidateOf(bundle);
      return commit(decideUpdate(state, { ...request(), app_scope: appScope, candidate, ...target }, HOST), bundle.byteLength);
    },
    async resolveUpdate(appScope, approved) {
      calls.push(`resolveUpdate:${appScope}=${String(approved)}`);
      const waiting = getManagedApp(state, appScope)?.pending_update?.operation_id ?? "";
      const { now } = request();
      return commit(decideUpdateApproval(state, { operation_id: waiting, app_scope: appScope, approved, now }));
    },
    async rollback(appScope, rollbackOptions = {}) {
      calls.push(`rollback:${appScope}`);
      return commit(decideRollback(state, { ...request(), app_scope: appScope, reason: rollbackOptions.reason ?? DEFAULT_ROLLBACK_REASON, ...(rollbackOptions.version === undefined ? {} : { target_version: rollbackOptions.version }) }));
    },
    async remove(appScope, removeOptions = {}) {
      calls.push(`remove:${appScope}=${String(removeOptions.confirmed === true)}`);
      return commit(decideRemove(state, { ...request(), app_scope: appScope, confirmed: removeOptions.confirmed === true }));
    },
    async setDefaultApp(appScope) {
      calls.push(`setDefaultApp:${appScope}`);
      return commit(decideSetDefaultApp(state, { ...request(), app_scope: appScope }));
    },
    defaultApp: () => state.default_app,
    async launch(launchRequest) {
      calls.push(`launch:${launchRequest.app_scope}`);
      const record = getManagedApp(state, launchRequest.app_scope)?.record;
      if (record === undefined) throw new LineUpError("app_not_found", `"${launchRequest.app_scope}" is not installed`);
      if (!record.enabled) throw new LineUpError("app_disabled", `"${launchRequest.app_scope}" is disabled`);
      const { operation_id, now } = request();
      const instance: AppInstance = {
        instance_id: `inst-${operation_id}`,
        app_scope: record.app_scope,
        policy: instancePolicyFor(record.app_scope),
        created_at: now,
        status: "launching",
        since: now,
        ...(launchRequest.conversation_id === undefined ? {} : { conversation_id: launchRequest.conversation_id }),
        ...(launchRequest.entrypoint === undefined ? {} : { entrypoint: launchRequest.entrypoint }),
      };
      instances.set(instance.instance_id, instance);
      state = withActiveInstanceCount(state, record.app_scope, record.active_instance_count + 1);
      changed();
      return instance;
    },
    async closeInstance(instanceId) {
      calls.push(`closeInstance:${instanceId}`);
      const instance = instances.get(instanceId);
      if (instance === undefined) return;
      instances.delete(instanceId);
      const record = getManagedApp(state, instance.app_scope)?.record;
      if (record !== undefined) state = withActiveInstanceCount(state, record.app_scope, Math.max(0, record.active_instance_count - 1));
      changed();
    },
    operations: () => operations,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return manager;
}
