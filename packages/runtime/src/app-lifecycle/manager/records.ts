/**
 * The App Manager's records (spec 4.3): the single source of truth for which apps are installed,
 * which version of each is active, which older versions are kept for rollback, which update waits
 * for the user's approval, and which app is the default. Plain, JSON-serialisable data: the loop
 * persists it as it is and reads it back after a restart.
 */
import type { AppManifest, ManifestProjection, ProjectionDiff, Provenance } from "@lineup/protocol";
import { toTimestamp } from "../../core/ports.js";

/** Spec 4.3, field for field. Timestamps are RFC 3339 strings; `app_scope` is a valid local scope. */
export interface AppRecord {
  readonly app_scope: string;
  readonly kind: "core" | "installed";
  readonly installed_version: string;
  readonly previous_version?: string;
  readonly enabled: boolean;
  /** `updating` while an update waits for approval (the installed version keeps running). */
  readonly install_state: "installed" | "updating" | "failed";
  /** Maintained by the instance manager through `withActiveInstanceCount`. */
  readonly active_instance_count: number;
  readonly installed_at: string;
  readonly enabled_at?: string;
}

/** One version kept on the device: the active one and up to `RETAINED_VERSIONS - 1` before it. */
export interface RetainedVersion {
  readonly version: string;
  readonly manifest: AppManifest;
  /** Digest of the verified bundle (null for core apps, which ship with the Runtime). */
  readonly bundle_digest: string | null;
  /** The publisher key that signed the bundle; absent for core apps (and versions installed before keys were recorded). */
  readonly publisher_key_id?: string;
  readonly installed_at: string;
}

/** An update that adds a capability: staged and verified, waiting for the user (RELIABILITY P4). */
export interface PendingUpdate {
  readonly operation_id: string;
  readonly candidate: RetainedVersion;
  readonly projection: ManifestProjection;
  /** What the user is shown: `diff.added_capabilities` is what they approve. */
  readonly diff: ProjectionDiff;
  readonly requested_at: string;
}

export interface ManagedApp {
  readonly record: AppRecord;
  /** Oldest first; the last entry whose version equals `record.installed_version` is active. */
  readonly retained: readonly RetainedVersion[];
  readonly pending_update?: PendingUpdate;
}

export interface AppRegistryState {
  readonly apps: Readonly<Record<string, ManagedApp>>;
  /** The user's chosen default app; `resolveStartupTarget` falls back to `chat` when it is unusable. */
  readonly default_app: string;
}

/** How many versions (the active one included) are kept for an explicit rollback. */
export const RETAINED_VERSIONS = 3;

export const RECOVERY_APP_SCOPE = "chat";

/** RFC 3339 from the injected clock's milliseconds (the core reads no clock of its own). */
export function isoTime(now: number): string {
  return toTimestamp(now);
}

/** A registry holding the core apps that ship with the Runtime, all enabled, `chat` the default. */
export function createAppRegistryState(coreManifests: readonly AppManifest[], now: number): AppRegistryState {
  const at = isoTime(now);
  const apps: Record<string, ManagedApp> = {};
  for (const manifest of coreManifests) {
    apps[manifest.app_scope] = {
      record: {
        app_scope: manifest.app_scope,
        kind: "core",
        installed_version: manifest.version,
        enabled: true,
        install_state: "installed",
        active_instance_count: 0,
        installed_at: at,
        enabled_at: at,
      },
      retained: [{ version: manifest.version, manifest, bundle_digest: null, installed_at: at }],
    };
  }
  return { apps, default_app: RECOVERY_APP_SCOPE };
}

/** `RuntimeAppManager.listApps` over the state. */
export function listApps(state: AppRegistryState, filter: { kind?: AppRecord["kind"]; enabled?: boolean } = {}): readonly AppRecord[] {
  return Object.values(state.apps)
    .map((app) => app.record)
    .filter((r) => (filter.kind === undefined || r.kind === filter.kind) && (filter.enabled === undefined || r.enabled === filter.enabled))
    .sort((a, b) => (a.app_scope < b.app_scope ? -1 : a.app_scope > b.app_scope ? 1 : 0));
}

/** `RuntimeAppManager.getApp` over the state. */
export function getApp(state: AppRegistryState, appScope: string): AppRecord | undefined {
  return Object.prototype.hasOwnProperty.call(state.apps, appScope) ? state.apps[appScope]?.record : undefined;
}

export function getManagedApp(state: AppRegistryState, appScope: string): ManagedApp | undefined {
  return Object.prototype.hasOwnProperty.call(state.apps, appScope) ? state.apps[appScope] : undefined;
}

/**
 * Who an app's products come from (spec 003 provenance): its scope, the active version and that version's
 * bundle digest (`sha256:<hex>`; none for a core app, which ships with the Runtime). Undefined: no such app.
 */
export function appProvenance(state: AppRegistryState, appScope: string): Provenance | undefined {
  const app = getManagedApp(state, appScope);
  if (app === undefined) return undefined;
  const version = app.record.installed_version;
  const digest = [...app.retained].reverse().find((v) => v.version === version)?.bundle_digest ?? null;
  const bundle = digest === null ? undefined : /^sha256:[0-9a-f]{64}$/.test(digest) ? digest : /^[0-9a-f]{64}$/.test(digest) ? `sha256:${digest}` : undefined;
  return { app_scope: appScope, app_version: version, ...(bundle === undefined ? {} : { bundle_digest: bundle }) };
}

/**
 * Whether the key that signed the active version is still trusted here. Core apps, and versions
 * stored before the signing key was recorded, name no key and count as trusted.
 */
export function publisherTrusted(app: ManagedApp, trustedKeyIds: ReadonlySet<string>): boolean {
  for (let i = app.retained.length - 1; i >= 0; i--) {
    const v = app.retained[i]!;
    if (v.version === app.record.installed_version) return v.publisher_key_id === undefined || trustedKeyIds.has(v.publisher_key_id);
  }
  return true;
}

/** The manifest of the active version. */
export function activeManifest(app: ManagedApp): AppManifest | undefined {
  for (let i = app.retained.length - 1; i >= 0; i--) {
    const v = app.retained[i]!;
    if (v.version === app.record.installed_version) return v.manifest;
  }
  return undefined;
}

export function withApp(state: AppRegistryState, app: ManagedApp): AppRegistryState {
  return { ...state, apps: { ...state.apps, [app.record.app_scope]: app } };
}

export function withoutApp(state: AppRegistryState, appScope: string): AppRegistryState {
  const apps = { ...state.apps };
  delete apps[appScope];
  return { ...state, apps, default_app: state.default_app === appScope ? RECOVERY_APP_SCOPE : state.default_app };
}

/** Records how many live instances an app has (the instance manager calls this on every change). */
export function withActiveInstanceCount(state: AppRegistryState, appScope: string, count: number): AppRegistryState {
  const app = getManagedApp(state, appScope);
  if (app === undefined || app.record.active_instance_count === count) return state;
  return withApp(state, { ...app, record: { ...app.record, active_instance_count: count } });
}
