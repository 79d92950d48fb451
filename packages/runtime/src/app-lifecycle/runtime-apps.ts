/**
 * The Runtime's apps faces — `RuntimeAppManager`, `InstancesView` and `RuntimeSettings` — over the
 * single-writer loop. Reads come from the committed state; every change is an input whose promise
 * settles after its commit. Work that is slow and pure of state (reading and verifying a bundle's
 * bytes and signature) runs here, before the input is posted, so the loop decides on a verified
 * candidate and stores its bytes in the deciding commit.
 */
import { base64ToBytes, LineUpError, projectManifest, type AppManifest, type ErrorCode } from "@lineup/protocol";
import { Emitter, listenerErrorsTo, type DiagnosticsSink } from "../core/emitter.js";
import type { IdSource } from "../core/ports.js";
import type { AppManagerRequest, RuntimeInput } from "../coordination/inputs.js";
import type { RuntimeState } from "../coordination/state.js";
import { appDirectoryOf } from "../coordination/app-directory.js";
import { busyInstances } from "../coordination/instance-folding.js";
import { viewGrantKey } from "../coordination/handlers/settings.js";
import { RUNTIME_COLLECTIONS as C } from "../persistence/runtime-schema.js";
import type { RuntimeStore } from "../persistence/store.js";
import { verifyBundle } from "./bundle/verify.js";
import { checkTrustedKeys, keyIdOf } from "./bundle/signature.js";
import { DEFAULT_ROLLBACK_REASON, type AppDetails, type InstancesSnapshotView, type InstancesView, type RuntimeAppManager, type RuntimeSettings, type ViewGrant } from "./app-manager-api.js";
import { foregroundInstance, getInstance, type AppInstance } from "./instances/state.js";
import { decideInstall } from "./manager/decide-install.js";
import { isDefaultEligible } from "./manager/decide-state.js";
import { cannotOpen } from "./manager/openable.js";
import { resolveStartupTarget } from "./instances/startup.js";
import { loadToolSchemaEngine } from "../tools/schema-engine.js";

import { operationSteps, type AppOperation } from "./manager/operation.js";
import { PIPELINE_STEPS, type AppPolicy, type BundleCandidate, type HostEnvironment } from "./manager/pipeline.js";
import { activeManifest, getManagedApp, listApps } from "./manager/records.js";

export interface RuntimeAppsOptions {
  readonly post: (input: RuntimeInput) => Promise<unknown>;
  /** The committed state (throws before start). */
  readonly state: () => RuntimeState;
  readonly store: RuntimeStore;
  readonly ids: IdSource;
  readonly now: () => number;
  readonly host: HostEnvironment;
  /** The app policy `install` applies: `inspect` shows the same verdict before anything is installed. */
  readonly policy?: AppPolicy;
  readonly diagnostics: DiagnosticsSink;
}

export interface RuntimeApps {
  readonly manager: RuntimeAppManager;
  readonly instances: InstancesView;
  readonly settings: RuntimeSettings;
  /** An accepted install or update could not be completed and nothing is left to go back to: `install_state: "failed"`. */
  installFailed(appScope: string, kind: "install" | "update", code: ErrorCode, reason: string): Promise<AppOperation>;
  /** Called by the Runtime after every commit whose state differs. */
  changed(before: RuntimeState | undefined, after: RuntimeState): void;
  /** A file of the active version's bundle (a back-end's entry), read from the store and verified again. */
  bundleFile(appScope: string, path: string): Promise<Uint8Array>;
  /** Every file of the active version's verified bundle under `folder` (`""`: all), by its path relative to it. */
  bundleFolder(appScope: string, folder: string): Promise<ReadonlyMap<string, Uint8Array>>;
  /**
   * The publisher keys the host ships with: those this store has not seen (`seen`, the ids the restore read), checked
   * like `addTrustedPublisher`'s, are trusted once (settings change `shipped_publishers`).
   */
  trustShippedKeys(keys: readonly PublisherKeyEntry[], seen: readonly string[]): Promise<void>;
}

type PublisherKeyEntry = Parameters<RuntimeSettings["addTrustedPublisher"]>[0];

/** A publisher key as settings accept it: well formed, its id the SHA-256 of the key. */
async function checkPublisherKey(entry: PublisherKeyEntry): Promise<void> {
  const checked = checkTrustedKeys([{ key_id: entry.key_id, public_key: entry.public_key }]);
  if (!checked.ok) throw new LineUpError(checked.error.code, checked.error.message);
  const raw = base64ToBytes(entry.public_key);
  if (raw === undefined || (await keyIdOf(raw)) !== entry.key_id) throw new LineUpError("bundle_untrusted_key", "the key id is not the SHA-256 of the public key");
}

export function createRuntimeApps(options: RuntimeAppsOptions): RuntimeApps {
  const appsChanged = new Emitter<void>(listenerErrorsTo(options.diagnostics, "apps listener"));
  const instancesChanged = new Emitter<InstancesSnapshotView>(listenerErrorsTo(options.diagnostics, "instances listener"));
  const settingsChanged = new Emitter<void>(listenerErrorsTo(options.diagnostics, "settings listener"));

  const decide = async (request: AppManagerRequest): Promise<AppOperation> => (await options.post({ kind: "app.request", request })) as AppOperation;

  /** Reads and verifies a bundle against the trusted keys; a refusal is a candidate that fails at `verify`. */
  const candidateOf = async (bundle: Uint8Array): Promise<BundleCandidate> => {
    const verified = await verifyAgainstSettings(options, options.state(), bundle);
    if (!verified.ok) return { manifest: undefined, bundle_digest: "", verification: { ok: false, error: verified.error } };
    return { manifest: verified.value.manifest, bundle_digest: verified.value.fileListSha256, publisher_key_id: verified.value.keyId, verification: { ok: true } };
  };

  /**
   * A candidate that may enter the state: its app-schema engine is loaded while the bundle is verified, so every
   * schema its manifest declares can be checked from the deciding turn on (a new profile's start does not load it).
   */
  const candidateOfNewVersion = async (bundle: Uint8Array): Promise<BundleCandidate> => (await Promise.all([candidateOf(bundle), loadToolSchemaEngine()]))[0];

  const busyOf = (state: RuntimeState): readonly string[] => [...busyInstances(state.tools)].sort();
  const instancesView = (state: RuntimeState): InstancesSnapshotView => {
    const foreground = foregroundInstance(state.instances)?.instance_id;
    return { instances: Object.values(state.instances.instances), focus_stack: state.instances.focus_stack, ...(foreground === undefined ? {} : { foreground }), busy: busyOf(state) };
  };
  /** The instances, or which of them are busy, differ (the busy set is read again only when the calls changed). */
  const instancesDiffer = (before: RuntimeState, after: RuntimeState): boolean =>
    before.instances !== after.instances || (before.tools !== after.tools && busyOf(before).join("\n") !== busyOf(after).join("\n"));

  const instanceInput = async (request: Extract<RuntimeInput, { kind: "instance" }>["request"]): Promise<void> => {
    await options.post({ kind: "instance", request });
  };

  const manager: RuntimeAppManager = {
    listApps: (filter) => listApps(options.state().apps, filter),
    getApp(appScope) {
      const state = options.state();
      const app = getManagedApp(state.apps, appScope);
      if (app === undefined) return undefined;
      const manifest = activeManifest(app);
      if (manifest === undefined) return undefined;
      const details: AppDetails = {
        record: app.record,
        manifest,
        projection: projectManifest(manifest),
        versions: [...app.retained].reverse().map((v) => ({ version: v.version, installed_at: v.installed_at, active: v.version === app.record.installed_version })),
        ...(app.pending_update === undefined
          ? {}
          : { pending_update: { operation_id: app.pending_update.operation_id, version: app.pending_update.candidate.version, projection: app.pending_update.projection, diff: app.pending_update.diff } }),
        is_default: appDirectoryOf(state.apps).defaultApp() === appScope,
      };
      return details;
    },
    async inspect(bundle) {
      const candidate = await candidateOf(bundle);
      const decision = decideInstall(options.state().apps, { operation_id: options.ids.next("op"), candidate, approved: true, enable: true, now: options.now() }, options.host, options.policy ?? {});
      if (decision.operation.status === "failed") return decision.operation;
      // Nothing is installed: the operation stops where the user's approval is needed.
      return { ...decision.operation, status: "awaiting_approval", steps: operationSteps(PIPELINE_STEPS, "authorization", "waiting") };
    },
    async install(bundle, installOptions) {
      const candidate = await candidateOfNewVersion(bundle);
      return decide({ type: "install", operation_id: options.ids.next("op"), candidate, bundle, approved: installOptions.approved, ...(installOptions.enable === undefined ? {} : { enable: installOptions.enable }) });
    },
    enable: (appScope) => decide({ type: "enable", operation_id: options.ids.next("op"), app_scope: appScope }),
    disable: (appScope, disableOptions) => decide({ type: "disable", operation_id: options.ids.next("op"), app_scope: appScope, ...(disableOptions?.reason === undefined ? {} : { reason: disableOptions.reason }) }),
    async update(appScope, targetVersion, updateOptions) {
      const target = targetVersion === undefined ? {} : { target_version: targetVersion };
      const bundle = updateOptions?.bundle;
      if (bundle === undefined) return decide({ type: "update_retained", operation_id: options.ids.next("op"), app_scope: appScope, ...target });
      const candidate = await candidateOfNewVersion(bundle);
      return decide({ type: "update", operation_id: options.ids.next("op"), app_scope: appScope, candidate, bundle, ...target });
    },
    resolveUpdate(appScope, approved) {
      const pending = getManagedApp(options.state().apps, appScope)?.pending_update;
      return decide({ type: "resolve_update", operation_id: pending?.operation_id ?? options.ids.next("op"), app_scope: appScope, approved });
    },
    rollback: (appScope, rollbackOptions = {}) =>
      decide({ type: "rollback", operation_id: options.ids.next("op"), app_scope: appScope, reason: rollbackOptions.reason ?? DEFAULT_ROLLBACK_REASON, ...(rollbackOptions.version === undefined ? {} : { version: rollbackOptions.version }) }),
    remove: (appScope, removeOptions = {}) => decide({ type: "remove", operation_id: options.ids.next("op"), app_scope: appScope, confirmed: removeOptions.confirmed === true }),
    setDefaultApp: (appScope) => decide({ type: "set_default", operation_id: options.ids.next("op"), app_scope: appScope }),
    defaultApp: () => appDirectoryOf(options.state().apps).defaultApp(),
    async launch(request) {
      const instanceId = (await options.post({
        kind: "instance",
        request: {
          op: "launch",
          app_scope: request.app_scope,
          foreground: request.foreground ?? true,
          ...(request.conversation_id === undefined ? {} : { conversation_id: request.conversation_id }),
          ...(request.entrypoint === undefined ? {} : { entrypoint: request.entrypoint }),
          ...(request.new_instance === undefined ? {} : { new_instance: request.new_instance }),
          ...(request.opened_by === undefined ? {} : { opened_by: request.opened_by }),
          ...(request.parent_instance_id === undefined ? {} : { parent_instance_id: request.parent_instance_id }),
        },
      })) as string;
      const instance = getInstance(options.state().instances, instanceId);
      if (instance === undefined) throw new LineUpError("internal_error", `instance ${instanceId} vanished after launch`);
      return instance;
    },
    closeInstance: (instanceId, close) => instanceInput({ op: "close", instance_id: instanceId, ...(close?.by === undefined ? {} : { by: close.by }) }),
    operations: () => options.state().operations,
    subscribe: (listener) => appsChanged.on(() => listener()),
  };

  const instances: InstancesView = {
    snapshot: () => instancesView(options.state()),
    subscribe: (listener) => instancesChanged.on(listener),
    startupTarget(explicit) {
      const state = options.state();
      return resolveStartupTarget({
        ...(explicit === undefined ? {} : { explicit }),
        instances: state.instances,
        default_app: state.apps.default_app,
        cannotRun: (appScope, entrypoint) => cannotOpen(state.apps, options.host, appScope, entrypoint),
        notDefaultEligible: (appScope) => (isDefaultEligible(state.apps, appScope) ? undefined : { kind: "not_default_eligible", message: "it cannot be the default app" }),
      });
    },
    whyCannotOpen: (appScope, entrypoint) => cannotOpen(options.state().apps, options.host, appScope, entrypoint)?.message,
    cannotOpen: (appScope, entrypoint) => cannotOpen(options.state().apps, options.host, appScope, entrypoint),
    ready: (instanceId) => instanceInput({ op: "ready", instance_id: instanceId }),
    focus: (instanceId) => instanceInput({ op: "focus", instance_id: instanceId }),
    background: (instanceId) => instanceInput({ op: "background", instance_id: instanceId }),
    failed: (instanceId, reason) => instanceInput({ op: "failed", instance_id: instanceId, reason }),
    closed: (instanceId) => instanceInput({ op: "closed", instance_id: instanceId }),
    async entry(instanceId) {
      const state = options.state();
      const instance = getInstance(state.instances, instanceId);
      if (instance === undefined) throw new LineUpError("app_not_found", `no instance ${instanceId}`);
      return loadEntry(options, state, instance);
    },
    appEntry: (appScope, entrypoint, version) => loadEntry(options, options.state(), { app_scope: appScope, entrypoint }, version),
  };

  const settings: RuntimeSettings = {
    trustedPublishers: () => options.state().trusted_publishers,
    async addTrustedPublisher(entry) {
      await checkPublisherKey(entry);
      await options.post({ kind: "settings", change: { type: "trust", key_id: entry.key_id, public_key: entry.public_key, ...(entry.label === undefined ? {} : { label: entry.label }) } });
    },
    async removeTrustedPublisher(keyId) {
      await options.post({ kind: "settings", change: { type: "distrust", key_id: keyId } });
    },
    grants: () => options.state().grants,
    async setGrant(appScope, capability, decision) {
      await options.post({ kind: "settings", change: { type: "grant", app_scope: appScope, capability, decision } });
    },
    async setViewGrant(appScope, resourceUri, grant) {
      if (appDirectoryOf(options.state().apps).get(appScope) === undefined) throw new LineUpError("app_not_installed", `no app ${appScope}`);
      if (!resourceUri.startsWith("ui://") || resourceUri.length > 400 || !/^[\x21-\x7e]+$/.test(resourceUri)) throw new LineUpError("invalid_params", "a view is named by its ui:// address", { path: "/resource_uri" });
      const origins = (list: readonly string[], path: string): string[] => {
        if (!Array.isArray(list) || list.length > 8 || !list.every((o) => typeof o === "string" && o.length <= 300)) throw new LineUpError("invalid_params", "at most 8 origins of each kind", { path });
        return [...list];
      };
      await options.post({ kind: "settings", change: { type: "view_grant", app_scope: appScope, resource_uri: resourceUri, connect_domains: origins(grant.connect_domains, "/connect_domains"), resource_domains: origins(grant.resource_domains, "/resource_domains") } });
    },
    async viewGrants() {
      const grants: ViewGrant[] = [];
      const prefix = viewGrantKey("", "").slice(0, -1);
      for (const { key, value } of await options.store.range(C.settings, { prefix })) {
        const rest = key.slice(prefix.length);
        const slash = rest.indexOf("/");
        const row = value as { connect_domains?: string[]; resource_domains?: string[]; decided_at?: string } | null;
        if (slash < 0 || row === null) continue;
        grants.push({ app_scope: rest.slice(0, slash), resource_uri: rest.slice(slash + 1), connect_domains: row.connect_domains ?? [], resource_domains: row.resource_domains ?? [], decided_at: row.decided_at ?? "" });
      }
      return grants;
    },
    async storageUsage() {
      const usage = new Map<string, number>();
      const add = (scope: string, bytes: number) => usage.set(scope, (usage.get(scope) ?? 0) + bytes);
      const state = options.state();
      for (const app of Object.values(state.apps.apps)) {
        add(app.record.app_scope, 0);
        for (const version of app.retained) {
          if (version.bundle_digest === null) continue;
          const bytes = await options.store.get(C.bundles, version.bundle_digest);
          if (bytes instanceof Uint8Array) add(app.record.app_scope, bytes.byteLength);
        }
      }
      for (const { key, value } of await options.store.range(C.sessionData)) add(key.slice(0, key.indexOf("/")), JSON.stringify(value).length);
      // Artifacts by the app that made them; `runtime` for the conversations' files the device keeps.
      for (const { value } of await options.store.range(C.artifacts)) {
        const record = value as { app_scope?: unknown; artifact?: { size?: unknown } } | null;
        if (typeof record?.app_scope === "string" && typeof record.artifact?.size === "number") add(record.app_scope, record.artifact.size);
      }
      return [...usage].map(([app_scope, bytes]) => ({ app_scope, bytes })).sort((a, b) => b.bytes - a.bytes || (a.app_scope < b.app_scope ? -1 : 1));
    },
    language: () => options.state().language ?? undefined,
    async setLanguage(language) {
      await options.post({ kind: "settings", change: { type: "language", language: language === undefined ? null : canonicalLanguage(language) } });
    },
    subscribe: (listener) => settingsChanged.on(() => listener()),
  };

  return {
    manager,
    instances,
    settings,
    installFailed: (appScope, kind, code, reason) => decide({ type: "install_failed", operation_id: options.ids.next("op"), app_scope: appScope, kind, code, reason }),
    async bundleFile(appScope, path) {
      const bundle = await loadBundle(options, options.state(), appScope);
      const file = bundle.files.get(path);
      if (file === undefined) throw new LineUpError("bundle_manifest_invalid", `${appScope}'s bundle has no ${path}`);
      return file;
    },
    async bundleFolder(appScope, folder) {
      const bundle = await loadBundle(options, options.state(), appScope);
      const prefix = folder === "" ? "" : `${folder}/`;
      return new Map([...bundle.files].filter(([path]) => path.startsWith(prefix)).map(([path, bytes]) => [path.slice(prefix.length), bytes] as const));
    },
    async trustShippedKeys(keys, seen) {
      // Most starts have seen every key: they post nothing. The loop decides again against the row it reads.
      const fresh = keys.filter((k) => !seen.includes(k.key_id));
      if (fresh.length === 0) return;
      for (const key of fresh) await checkPublisherKey(key);
      await options.post({ kind: "settings", change: { type: "shipped_publishers", keys: fresh.map((k) => ({ key_id: k.key_id, public_key: k.public_key, ...(k.label === undefined ? {} : { label: k.label }) })) } });
    },
    changed(before, after) {
      if (before === undefined || before.apps !== after.apps || before.operations !== after.operations) appsChanged.fire(undefined);
      if (before === undefined || instancesDiffer(before, after)) instancesChanged.fire(instancesView(after));
      if (before === undefined || before.trusted_publishers !== after.trusted_publishers || before.grants !== after.grants || before.language !== after.language) settingsChanged.fire(undefined);
    },
  };
}

/** `language` as a canonical BCP 47 tag; anything else is refused `invalid_params`. */
function canonicalLanguage(language: string): string {
  try {
    const [canonical] = Intl.getCanonicalLocales(language);
    if (canonical !== undefined) return canonical;
  } catch {
    // not a language tag
  }
  throw new LineUpError("invalid_params", `${JSON.stringify(language)} is not a language tag`, { path: "/language" });
}

/** A bundle checked against this Runtime's trusted publishers and host features (install and every load). */
function verifyAgainstSettings(options: RuntimeAppsOptions, state: RuntimeState, bytes: Uint8Array) {
  const trustedKeys = state.trusted_publishers.map((k) => ({ key_id: k.key_id, public_key: k.public_key }));
  return verifyBundle(bytes, { trustedKeys, hostFeatures: options.host.features, archiveDigest: false });
}

/** The stored bundle of an app's active version (or `preferVersion` while retained), verified again before any of it runs. */
async function loadBundle(options: RuntimeAppsOptions, state: RuntimeState, appScope: string, preferVersion?: string): Promise<{ manifest: AppManifest; files: ReadonlyMap<string, Uint8Array> }> {
  const app = getManagedApp(state.apps, appScope);
  // A result card shows the version that did the work while it is still retained; else the active one.
  const version = (preferVersion === undefined ? undefined : app?.retained.find((v) => v.version === preferVersion)) ?? app?.retained.find((v) => v.version === app.record.installed_version);
  if (app === undefined || version === undefined) throw new LineUpError("app_not_installed", `${appScope} is not installed`);
  if (version.bundle_digest === null) throw new LineUpError("invalid_params", `${appScope} is a core app; the shell renders it`);
  const bytes = await options.store.get(C.bundles, version.bundle_digest);
  if (!(bytes instanceof Uint8Array)) throw new LineUpError("bundle_hash_mismatch", `the stored bundle of ${appScope} ${version.version} is missing`);
  const verified = await verifyAgainstSettings(options, state, bytes);
  if (!verified.ok) throw new LineUpError(verified.error.code, verified.error.message);
  if (verified.value.fileListSha256 !== version.bundle_digest) throw new LineUpError("bundle_hash_mismatch", `the stored bundle of ${appScope} is not the one installed`);
  return { manifest: verified.value.manifest, files: verified.value.files };
}

/** The instance's entry page: the stored bundle of the app's active version, verified again before it runs. */
async function loadEntry(options: RuntimeAppsOptions, state: RuntimeState, instance: Pick<AppInstance, "app_scope" | "entrypoint">, preferVersion?: string): Promise<{ manifest: AppManifest; html: string }> {
  const bundle = await loadBundle(options, state, instance.app_scope, preferVersion);
  const entrypoints = bundle.manifest.entrypoints;
  const entry = entrypoints.find((e) => e.id === instance.entrypoint) ?? entrypoints.find((e) => e.kind === "primary") ?? entrypoints[0];
  const file = bundle.files.get(entry?.path ?? "index.html");
  if (file === undefined) throw new LineUpError("bundle_manifest_invalid", `${instance.app_scope} has no entry page`);
  return { manifest: bundle.manifest, html: new TextDecoder().decode(file) };
}

