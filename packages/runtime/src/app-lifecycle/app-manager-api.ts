/**
 * The public faces of the apps layer (spec 4.3, 4.4, 6): `RuntimeAppManager` — what the App Registry
 * app and the shell use to manage installed apps — and `InstancesView`, what the shell watches to
 * mount, focus and tear down app surfaces. Both are served by the Runtime's single-writer loop: every
 * method posts an input, and resolves only after the decision and its audit record are committed.
 */
import type { AppManifest, ManifestProjection, ProjectionDiff } from "@lineup/protocol";
import type { Unsubscribe } from "../core/emitter.js";
import type { AppInstance } from "./instances/state.js";
import type { ExplicitStartupTarget, StartupTarget } from "./instances/startup.js";
import type { AppOperation } from "./manager/operation.js";
import type { AppRecord } from "./manager/records.js";
import type { CannotOpen } from "./manager/openable.js";

export type { AppOperation, AppRecord, AppInstance };

/** One app as the App Registry app shows it. */
export interface AppDetails {
  readonly record: AppRecord;
  /** The active version's manifest (name, description, entrypoints, tools, capabilities). */
  readonly manifest: AppManifest;
  readonly projection: ManifestProjection;
  /** Versions kept for an explicit rollback, newest first, the active one included. */
  readonly versions: readonly { readonly version: string; readonly installed_at: string; readonly active: boolean }[];
  /** An update waiting for the user's approval, with what it adds. */
  readonly pending_update?: { readonly operation_id: string; readonly version: string; readonly projection: ManifestProjection; readonly diff: ProjectionDiff };
  readonly is_default: boolean;
}

export interface InstallOptions {
  /** The user approved the projection shown by `inspect` (what the app adds, its capabilities and risk). */
  readonly approved: boolean;
  /** Enable right after installing. Default true. */
  readonly enable?: boolean;
}

export interface LaunchRequest {
  readonly app_scope: string;
  readonly conversation_id?: string;
  readonly entrypoint?: string;
  /** Default true: the app comes to the front. */
  readonly foreground?: boolean;
  /** Another instance of a per-conversation app in the same conversation. */
  readonly new_instance?: boolean;
  /** The app opening it through its SDK (it may then focus and close it), and its instance that asked. */
  readonly opened_by?: string;
  readonly parent_instance_id?: string;
}

/** `disable` (spec 4.3 `DisableAppOptions`). */
export interface DisableAppOptions {
  /** Why, in the audit record. */
  readonly reason?: string;
}

/** `update` beyond the spec's target version. */
export interface UpdateAppOptions {
  /** A newer bundle to verify and install; with `targetVersion`, its manifest must have that version. */
  readonly bundle?: Uint8Array;
}

/** `rollback` beyond the spec's default (the previous version). */
export interface RollbackAppOptions {
  /** A retained version other than the active one. Default: the previous version. */
  readonly version?: string;
  /** Why, in the audit record. Default: the user asked for an older version. An empty reason is refused. */
  readonly reason?: string;
}

/** `remove` (spec 4.3 `RemoveAppOptions`). */
export interface RemoveAppOptions {
  /** The user confirmed deleting the app's bundles and data. Default false: refused `confirmation_required`, nothing changes. */
  readonly confirmed?: boolean;
}

/** The audited reason of a rollback asked for without one. */
export const DEFAULT_ROLLBACK_REASON = "the user asked for an older version";

/** Spec 4.3 `RuntimeAppManager`. Refusals resolve as a failed `AppOperation` (with its code), never throw. */
export interface RuntimeAppManager {
  listApps(filter?: { readonly kind?: AppRecord["kind"]; readonly enabled?: boolean }): readonly AppRecord[];
  getApp(appScope: string): AppDetails | undefined;
  /** Runs verify → projection → readiness on a bundle without installing it: what the user approves. */
  inspect(bundle: Uint8Array): Promise<AppOperation>;
  install(bundle: Uint8Array, options: InstallOptions): Promise<AppOperation>;
  enable(appScope: string): Promise<AppOperation>;
  /** Stops new calls, refuses waiting ones `app_disabled` and closes the app's instances. */
  disable(appScope: string, options?: DisableAppOptions): Promise<AppOperation>;
  /**
   * To a newer version. With `options.bundle`: that bundle, verified (`awaiting_approval` when it asks for
   * a new capability). Without: a retained version newer than the active one (after a rollback) —
   * `targetVersion`, else the newest — or `version_not_retained`.
   */
  update(appScope: string, targetVersion?: string, options?: UpdateAppOptions): Promise<AppOperation>;
  /** The user's answer to an update that waits (`approved: false` keeps the running version). */
  resolveUpdate(appScope: string, approved: boolean): Promise<AppOperation>;
  /** The only way back to an older version; audited with the reason. */
  rollback(appScope: string, options?: RollbackAppOptions): Promise<AppOperation>;
  /** When `confirmed`: closes the app's instances and deletes its bundles and data. */
  remove(appScope: string, options?: RemoveAppOptions): Promise<AppOperation>;
  setDefaultApp(appScope: string): Promise<AppOperation>;
  defaultApp(): string;
  launch(request: LaunchRequest): Promise<AppInstance>;
  /**
   * Closes an instance; what it displaced comes back. Calls it was still handling end at once: with
   * `cancelled_by_user` when `by: "user"` (the person closed it), else `handler_failed`. A runtime-owned
   * operation keeps its deadline.
   */
  closeInstance(instanceId: string, options?: { readonly by?: "user" | "app" }): Promise<void>;
  /** The latest operations, newest first (bounded). */
  operations(): readonly AppOperation[];
  /** Called after every committed change to the apps, their records or the operations. */
  subscribe(listener: () => void): Unsubscribe;
}

/** What the shell renders: live instances and the focus stack (bottom → top). */
export interface InstancesSnapshotView {
  readonly instances: readonly AppInstance[];
  readonly focus_stack: readonly string[];
  /** The instance in the foreground, if any. */
  readonly foreground?: string;
  /**
   * Instances a tool call or an activation is on, sorted. A host does not replace such an instance's frame
   * (a reload on a new app version waits until it is idle): the call would be cut.
   */
  readonly busy: readonly string[];
}

/** The shell's side of instances: it mounts surfaces for them and reports how they went. */
export interface InstancesView {
  snapshot(): InstancesSnapshotView;
  subscribe(listener: (view: InstancesSnapshotView) => void): Unsubscribe;
  /** The surface finished loading (`lifecycle.ready`): launching → active/backgrounded; restoring → active. */
  ready(instanceId: string): Promise<void>;
  /**
   * What the shell opens at start-up (spec 4.3): `explicit` (a deep link, a notification's click) when it
   * can be opened, else the restorable foreground instance, else the default app, else `chat`; each target
   * passed over is named with why. Decided from the records, before anything launches.
   */
  startupTarget(explicit?: ExplicitStartupTarget): StartupTarget;
  /** Why a person cannot open the app (at `entrypoint`) on this host, in words for a notice; undefined when they can. */
  whyCannotOpen(appScope: string, entrypoint?: string): string | undefined;
  /** The same as a kind a host can put in its own words (`not_installed`, `disabled`, …), with the English sentence. */
  cannotOpen(appScope: string, entrypoint?: string): CannotOpen | undefined;
  /** The user brought this instance to the front (app switcher, a chat card). */
  focus(instanceId: string): Promise<void>;
  /** The user went back to the shell; the instance keeps its place. */
  background(instanceId: string): Promise<void>;
  /** The surface failed to load or crashed. */
  failed(instanceId: string, reason: string): Promise<void>;
  /** The surface finished `closing` (or its deadline passed): closing → closed. */
  closed(instanceId: string): Promise<void>;
  /** The manifest of the instance's app version and the file to load (single-file HTML entry). */
  entry(instanceId: string): Promise<{ readonly manifest: AppManifest; readonly html: string }>;
  /**
   * An entrypoint of an app, for a surface that is not an instance (a result card): of `version` while
   * that version is retained, else of the active version.
   */
  appEntry(appScope: string, entrypoint: string, version?: string): Promise<{ readonly manifest: AppManifest; readonly html: string }>;
}

/** A publisher key the Runtime trusts (docs/bundle.md §5), with a label the user chose. */
export interface TrustedPublisher {
  readonly key_id: string;
  /** Standard padded base64 of the 32-byte raw Ed25519 public key. */
  readonly public_key: string;
  readonly label?: string;
  readonly added_at: string;
}

/** A remembered capability decision (spec 6.3): a denial is not re-asked until it is changed here. */
export interface CapabilityGrant {
  readonly app_scope: string;
  readonly capability: string;
  readonly decision: "granted" | "denied";
  readonly decided_at: string;
}

/** The origins a person let one MCP Apps view reach (`RuntimeSettings.setViewGrant`). */
export interface ViewGrant {
  readonly app_scope: string;
  readonly resource_uri: string;
  readonly connect_domains: readonly string[];
  readonly resource_domains: readonly string[];
  readonly decided_at: string;
}

/** What the Settings app manages. Every change is committed (and audited) before the promise resolves. */
export interface RuntimeSettings {
  trustedPublishers(): readonly TrustedPublisher[];
  /** Refuses a malformed entry or a key id that is not the SHA-256 of the key (`bundle_untrusted_key` family codes). */
  addTrustedPublisher(entry: { readonly key_id: string; readonly public_key: string; readonly label?: string }): Promise<void>;
  removeTrustedPublisher(keyId: string): Promise<void>;
  grants(): readonly CapabilityGrant[];
  /** `ask` forgets the decision: the user is asked again next time. */
  setGrant(appScope: string, capability: string, decision: "granted" | "denied" | "ask"): Promise<void>;
  /**
   * The origins of an MCP Apps view's declared CSP (`McpView.csp`) the person lets it reach; empty lists forget the
   * grant. Each must be one the view declares now (`invalid_params` otherwise). `AppPort.readMcpView` hands it back.
   */
  setViewGrant(appScope: string, resourceUri: string, grant: { readonly connect_domains: readonly string[]; readonly resource_domains: readonly string[] }): Promise<void>;
  /** The grants `setViewGrant` stored, by app and view (what the person allowed, which the view may no longer declare). */
  viewGrants(): Promise<readonly ViewGrant[]>;
  /**
   * Bytes each app uses in this Runtime's store: bundles, session data, the artifacts it made (with
   * `runtime` for the conversations' files the device keeps, read from the AppServer).
   */
  storageUsage(): Promise<readonly { readonly app_scope: string; readonly bytes: number }[]>;
  /** The language the person chose for the host's UI (a canonical BCP 47 tag); undefined: the device's. */
  language(): string | undefined;
  /** Chooses the UI language, or (undefined) follows the device again. A tag that is not BCP 47 is refused `invalid_params`. */
  setLanguage(language: string | undefined): Promise<void>;
  subscribe(listener: () => void): Unsubscribe;
}
