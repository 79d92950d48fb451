/**
 * The Runtime's parts, each built by a named function that `createRuntime` composes. The loop and the
 * connection exist only once started: `StartedParts` holds them, so every other part is built with the
 * Runtime and reaches them through it.
 */
import { LineUpError, RUNTIME_SDK_FEATURES, type AppManifest, type JsonValue, type TenantSettings, type BackendProtocol, type CatalogRelease } from "@lineup/protocol";
import type { AppDirectory } from "./app-lifecycle/core-app-registry.js";
import { CORE_MANIFESTS } from "./app-lifecycle/core-manifests.js";
import { activeManifest, createAppRegistryState, getManagedApp, type AppRegistryState } from "./app-lifecycle/manager/records.js";
import { createRuntimeApps, type RuntimeApps } from "./app-lifecycle/runtime-apps.js";
import { NO_HOST_CAPABILITIES, type HostProvider } from "./capabilities/host-provider.js";
import { createCapabilityShell, type CapabilityShell } from "./capabilities/shell.js";
import { backoffDelay, type BackoffPolicy } from "./communication/backoff.js";
import { SyncDriver } from "./communication/sync-driver.js";
import { appDirectoryOf } from "./coordination/app-directory.js";
import { releaseArtifacts, type ArtifactAccessDeps } from "./coordination/artifact-access.js";
import { createDeadlineTimer } from "./coordination/deadline-timer.js";
import { DeliveryHub } from "./coordination/delivery.js";
import { createIdleTimer } from "./coordination/idle-timer.js";
import type { Delivery, Effect, RuntimeInput } from "./coordination/inputs.js";
import { LifecycleCell } from "./coordination/lifecycle.js";
import { createRuntimeLoop, type RuntimeLoop, type RuntimeLoopOptions } from "./coordination/loop.js";
import type { restoreState } from "./coordination/restore.js";
import { isLiveFor, type RuntimeState } from "./coordination/state.js";
import { ToolHub } from "./coordination/tool-hub.js";
import { Emitter, ignoreDiagnostics, listenerErrorsTo, type DiagnosticsSink } from "./core/emitter.js";
import type { Clock, IdSource } from "./core/ports.js";
import { createSystemIds, systemClock } from "./core/system.js";
import type { InstanceChange } from "./app-lifecycle/instances/state.js";
import { createAppServices, type AppServices } from "./app-services.js";
import type { AppPortParts } from "./app-port.js";
import { createHostFacts, type HostFactsCell } from "./host-facts.js";
import { captureResultCard } from "./result-cards.js";
import { RUNTIME_COLLECTIONS } from "./persistence/runtime-schema.js";
import type { RuntimeStore } from "./persistence/store.js";
import { SessionContextRegistry, type SessionContext } from "./session-data/context.js";
import { createSessionDataService, type SessionDataService } from "./session-data/service.js";
import { publicTask } from "./tasks/records.js";
import { createWorkflowShell, type WorkflowShell } from "./workflows/shell.js";
import { createWorkflowSteps } from "./workflows/steps.js";
import { viewsOf, type AppPort, type OpenedRuntimeOptions, type RuntimeView } from "./runtime.js";

/** What every part is built with: the injected clock and ids, the diagnostics sink, the host's facts, the lifecycle and view. */
export interface RuntimeBasics {
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly diagnostics: DiagnosticsSink;
  readonly hostProvider: HostProvider;
  /** The Runtime SDK features this host offers apps. */
  readonly features: readonly string[];
  readonly backendProtocols: readonly BackendProtocol[];
  /** The facts transitions read: replaced when the host's capabilities, the policy or the tenant change. */
  readonly host: HostFactsCell;
  readonly coreManifests: readonly AppManifest[];
  /** The core apps' records before the store is read. */
  readonly initialApps: AppRegistryState;
  readonly lifecycle: LifecycleCell;
  readonly views: Emitter<RuntimeView>;
  /** The view of a state (`viewsOf`): each made on the one before, so unchanged conversations keep their objects. */
  readonly viewOf: (state: RuntimeState) => RuntimeView;
  /** True once `stop()` has begun. */
  stopping(): boolean;
}

export function runtimeBasics(options: OpenedRuntimeOptions): RuntimeBasics {
  const clock = options.clock ?? systemClock;
  const hostProvider = options.host ?? NO_HOST_CAPABILITIES;
  const features = offeredFeatures(options);
  const backendProtocols = Object.keys(options.backends ?? {}) as BackendProtocol[];
  const coreManifests = options.coreManifests ?? CORE_MANIFESTS;
  const diagnostics = options.diagnostics ?? ignoreDiagnostics;
  const lifecycle = new LifecycleCell(diagnostics);
  return {
    clock,
    ids: options.ids ?? createSystemIds(),
    diagnostics,
    hostProvider,
    features,
    backendProtocols,
    host: createHostFacts({ host: hostProvider, features, backendProtocols, appPolicy: options.appPolicy, capabilityPolicy: options.capabilityPolicy, inventoryPolicy: options.inventoryPolicy }),
    coreManifests,
    initialApps: createAppRegistryState(coreManifests, clock.now()),
    lifecycle,
    views: new Emitter<RuntimeView>(listenerErrorsTo(diagnostics, "view listener")),
    viewOf: viewsOf(),
    stopping: () => lifecycle.snapshot().status === "stopping" || lifecycle.snapshot().status === "stopped",
  };
}

/** Features that need a host part: offered only when the host gives the part. */
function offeredFeatures(options: OpenedRuntimeOptions): string[] {
  const all = options.hostFeatures ?? Object.keys(RUNTIME_SDK_FEATURES);
  return all.filter((feature) => {
    if (feature === "app.storage.v1") return options.appStorage !== undefined;
    if (feature === "app.backend.v1") return Object.keys(options.backends ?? {}).length > 0;
    return true;
  });
}

/** The loop and the connection to the AppServer: both exist only once `start()` has set them, once. */
export interface StartedParts {
  /** The loop, or undefined before `start()`. */
  readonly loop: RuntimeLoop | undefined;
  /** The connection, or undefined before `start()`. */
  readonly driver: SyncDriver | undefined;
  /** The loop; `invalid_state` before `start()`. */
  requireLoop(): RuntimeLoop;
  /** The loop's state; `invalid_state` before `start()`. */
  state(): RuntimeState;
  /** The loop's state, or undefined before `start()`. */
  started(): RuntimeState | undefined;
  /** Posts an input to the loop; `invalid_state` before `start()`. */
  post(input: RuntimeInput): Promise<JsonValue | undefined>;
  /** The connection; `request_cancelled` with `message` before `start()`. */
  requireDriver(message: string): SyncDriver;
  /** `start()`: the loop over the restored state first, then the connection that posts to it. */
  setLoop(loop: RuntimeLoop): void;
  setDriver(driver: SyncDriver): void;
}

export function createStartedParts(): StartedParts {
  let loop: RuntimeLoop | undefined;
  let driver: SyncDriver | undefined;
  const requireLoop = (): RuntimeLoop => {
    if (loop === undefined) throw new LineUpError("invalid_state", "the Runtime is not started");
    return loop;
  };
  return {
    get loop() {
      return loop;
    },
    get driver() {
      return driver;
    },
    requireLoop,
    state: () => requireLoop().state,
    started: () => loop?.state,
    post: (input) => requireLoop().post(input),
    requireDriver(message) {
      if (driver === undefined) throw new LineUpError("request_cancelled", message);
      return driver;
    },
    setLoop(next) {
      loop = next;
    },
    setDriver(next) {
      driver = next;
    },
  };
}

/** A live view: the directory of whatever the App Manager's records are now (the core apps before `start()`). */
export function liveAppDirectory(started: StartedParts, initialApps: AppRegistryState): AppDirectory {
  const now = (): AppDirectory => appDirectoryOf(started.started()?.apps ?? initialApps);
  return { get: (appScope) => now().get(appScope), list: () => now().list(), defaultApp: () => now().defaultApp() };
}

/** The timers that post to the loop when a tool call's deadline or an instance's idleness is due. */
export interface RuntimeTimers {
  readonly deadlines: ReturnType<typeof createDeadlineTimer>;
  readonly idle: ReturnType<typeof createIdleTimer>;
}

export function openTimers(options: OpenedRuntimeOptions, basics: RuntimeBasics, started: StartedParts): RuntimeTimers {
  const { clock, diagnostics } = basics;
  /** A timer's tick: posted to the loop unless the Runtime is stopping. */
  const tick = (input: Extract<RuntimeInput, { kind: "tools.tick" | "instances.tick" }>, what: string) => (): void => {
    if (!basics.stopping()) started.loop?.post(input).catch((error: unknown) => diagnostics(error, what));
  };
  return {
    deadlines: createDeadlineTimer({ clock, fire: tick({ kind: "tools.tick" }, "tool deadlines") }),
    idle: createIdleTimer({ clock, idleMs: options.suspendIdleMs, fire: tick({ kind: "instances.tick" }, "idle instances") }),
  };
}

/** What serves apps: the App Manager, the Capability Gateway's shell, tool calls, session data, storage and back-ends, artifacts. */
export interface AppParts {
  readonly runtimeApps: RuntimeApps;
  readonly capabilityShell: CapabilityShell;
  readonly toolHub: ToolHub;
  readonly sessionData: SessionDataService;
  /** The one session context of an app's session (the same object for the same pair). */
  readonly contextFor: (appScope: string, appSessionId: string) => SessionContext;
  readonly services: AppServices;
  readonly artifacts: ArtifactAccessDeps;
}

export function openAppParts(options: OpenedRuntimeOptions, basics: RuntimeBasics, started: StartedParts, appPort: (appScope: string) => AppPort): AppParts {
  const { clock, ids, diagnostics, host, hostProvider } = basics;
  const post = started.post;
  const contexts = new SessionContextRegistry();
  const sessionData = createSessionDataService({ store: options.store, collection: RUNTIME_COLLECTIONS.sessionData, contexts, post, onListenerError: (error) => diagnostics(error, "session data listener") });
  const capabilityShell = createCapabilityShell({
    host: hostProvider,
    get policy() {
      return host.capabilityPolicy();
    },
    clock,
    ids,
    diagnostics,
    post,
  });
  const runtimeApps = createRuntimeApps({
    post,
    state: started.state,
    store: options.store,
    ids,
    now: () => clock.now(),
    host: { features: basics.features, backend_protocols: basics.backendProtocols },
    get policy() {
      return host.appPolicy();
    },
    diagnostics,
  });
  const services = createAppServices({
    appStorageHost: options.appStorage,
    runners: options.backends,
    hostProvider,
    elicitationTimeoutMs: options.elicitationTimeoutMs,
    mcpSampler: options.mcpSampler,
    samplingApps: () => host.facts.appPolicy.mcp_sampling_apps,
    started: started.started,
    runtimeApps,
    requestCapability: (appScope, request) => capabilityShell.request(appScope, request),
    reportTool: (appScope, callId, report, instanceId) => appPort(appScope).reportTool(callId, report, instanceId),
    ids,
    now: () => clock.now(),
    diagnostics,
  });
  const artifacts: ArtifactAccessDeps = {
    store: options.store,
    state: started.state,
    post,
    readServer: (conversationId, artifactId, maxBytes) => started.requireDriver("the Runtime is not started").readServerArtifact(conversationId, artifactId, maxBytes),
    requestCapability: (appScope, request) => capabilityShell.request(appScope, request),
    diagnostics,
  };
  const toolHub = new ToolHub(diagnostics, (call) => services.backendTools(call));
  return { runtimeApps, capabilityShell, toolHub, sessionData, contextFor: (appScope, appSessionId) => contexts.contextOf(appScope, appSessionId), services, artifacts };
}

/** Where committed deliveries go besides the loop: the delivery hub (apps' messages), the listeners of instances, tasks and workflows, and the workflow shell. */
export interface DeliveryParts {
  readonly hub: DeliveryHub;
  readonly listeners: DeliveryListeners;
  readonly workflowShell: WorkflowShell;
}

export function openDelivery(options: OpenedRuntimeOptions, basics: RuntimeBasics, started: StartedParts, app: AppParts, appPort: (appScope: string) => AppPort): DeliveryParts {
  const { clock, ids, diagnostics } = basics;
  const listeners = deliveryListeners(diagnostics);
  // Created with the Runtime, so apps may subscribe before start(); nothing is delivered before online.
  const hub = new DeliveryHub({
    store: options.store,
    diagnostics,
    isLive: (conversationId) => started.loop !== undefined && isLiveFor(started.loop.state, conversationId),
    // Display messages are acknowledged on delivery; a failed commit is retried (with backoff), so a passing
    // store fault does not leave them pending until the next restart.
    acknowledgeDisplayed: (appScope, messageIds) =>
      retried(() => started.post({ kind: "acknowledge", app_scope: appScope, message_ids: messageIds, displayed: true }), { clock, ids, backoff: options.backoff, stopping: basics.stopping, onError: (error) => diagnostics(error, "auto-acknowledge") }),
  });
  const workflowShell = openWorkflows(options.store, { started, appPort, backends: app.services.backends, listeners, clock, diagnostics });
  return { hub, listeners, workflowShell };
}

/** What follows each commit: `onState` (the lifecycle, the view, the apps' follow-ups and the timers) and `afterCommit` (deliveries and effects). */
export interface CommitFollowers extends Pick<RuntimeLoopOptions, "onState" | "afterCommit"> {
  /** The state restored at `start()`: the view published next is compared with it. */
  restored(state: RuntimeState): void;
}

export function commitFollowers(basics: RuntimeBasics, started: StartedParts, app: AppParts, delivery: DeliveryParts, timers: RuntimeTimers): CommitFollowers {
  const { lifecycle, views, diagnostics } = basics;
  const { runtimeApps, services, capabilityShell, sessionData, toolHub } = app;
  let lastViewState: RuntimeState | undefined;
  return {
    restored(state) {
      lastViewState = state;
    },
    onState(next) {
      lifecycle.publish(next.lifecycle);
      const before = lastViewState;
      if (lastViewState === undefined || viewChanged(lastViewState, next)) {
        lastViewState = next;
        // Built only for someone to see it (a headless Runtime has no view listener).
        if (views.size > 0) views.fire(basics.viewOf(next));
      }
      runtimeApps.changed(before, next);
      services.follow(before, next);
      timers.deadlines.arm(next);
      timers.idle.arm(next);
      capabilityShell.changed(next.capabilities);
    },
    async afterCommit(deliveries: readonly Delivery[], effects: readonly Effect[]) {
      toolHub.run(deliveries);
      for (const d of deliveries) {
        delivery.listeners.emit(d);
        if (d.kind === "session_data.changed") sessionData.changed(d.app_scope, d.app_session_id, d.snapshot);
        if (d.kind !== "app.removed") continue;
        sessionData.removeApp(d.app_scope);
        // Its artifacts kept to itself go with it; those shared with a conversation stay the conversation's.
        void releaseArtifacts(app.artifacts, [d.app_scope]).catch((error: unknown) => diagnostics(error, "artifacts of a removed app"));
      }
      await delivery.hub.run(deliveries);
      for (const effect of effects) {
        if (effect.kind === "capability") capabilityShell.run(effect);
        else if (effect.kind === "workflow.advance") delivery.workflowShell.advance(effect.run_id);
        else started.driver?.run(effect);
      }
    },
  };
}

function viewChanged(before: RuntimeState, after: RuntimeState): boolean {
  return before.lifecycle !== after.lifecycle || before.conversations !== after.conversations || before.outbox !== after.outbox || before.apps !== after.apps;
}

/** What an app's port is built from (`createAppPort`). */
export function appPortParts(options: OpenedRuntimeOptions, basics: RuntimeBasics, started: StartedParts, app: AppParts, delivery: DeliveryParts, apps: AppDirectory): AppPortParts {
  const { clock, ids, diagnostics, host } = basics;
  const { runtimeApps, sessionData, contextFor } = app;
  const { instanceChanges, taskEvents, workflowEvents } = delivery.listeners;
  const activeManifestOf = (appScope: string): AppManifest | undefined => {
    const managed = getManagedApp(started.state().apps, appScope);
    return managed === undefined ? undefined : activeManifest(managed);
  };
  return {
    store: options.store,
    ids,
    apps,
    state: started.state,
    started: started.started,
    post: started.post,
    view: () => basics.viewOf(started.state()),
    views: basics.views,
    hub: delivery.hub,
    toolHub: app.toolHub,
    runtimeApps,
    sessionData,
    contextFor,
    capabilityShell: app.capabilityShell,
    hostProvider: basics.hostProvider,
    capabilityPolicy: () => host.capabilityPolicy(),
    artifacts: app.artifacts,
    instanceChanges,
    taskEvents,
    workflowEvents,
    storageFor: app.services.storageFor,
    backends: app.services.backends,
    activeVersion: app.services.activeVersion,
    onResult: (appScope, callId) =>
      void captureResultCard({ store: options.store, manager: runtimeApps.manager, activeManifest: activeManifestOf, sessionData, contextFor, now: () => clock.now(), post: started.post }, appScope, callId).catch((error: unknown) => diagnostics(error, "result card")),
    serverEvidence: async (conversationId, idempotencyKey, taskId) => started.requireDriver("not connected to the AppServer: evidence can be exported once online").exportEvidence(conversationId, idempotencyKey, taskId),
  };
}

/** The loop over the restored state, its transitions reading the host's current facts. */
export function openLoop(options: OpenedRuntimeOptions, restored: Awaited<ReturnType<typeof restoreState>>, basics: RuntimeBasics, followers: CommitFollowers): RuntimeLoop {
  const { host, clock, ids } = basics;
  return createRuntimeLoop({
    store: options.store,
    state: restored.state,
    auditHead: restored.auditHead,
    diagnostics: basics.diagnostics,
    ...(options.maxInputsPerTurn === undefined ? {} : { maxInputsPerTurn: options.maxInputsPerTurn }),
    env: {
      // Replaced when the host's capabilities or the policy change at run time: transitions read the current facts.
      get host() {
        return host.facts;
      },
      now: () => clock.now(),
      newId: (prefix) => ids.next(prefix),
      ...(options.maxPendingPerApp === undefined ? {} : { maxPendingPerApp: options.maxPendingPerApp }),
      ...(options.maxLiveSurfaces === undefined ? {} : { maxLiveSurfaces: options.maxLiveSurfaces }),
      ...(options.suspendIdleMs === undefined ? {} : { suspendIdleMs: options.suspendIdleMs }),
      ...(options.keptArtifactBytes === undefined ? {} : { keptArtifactBytes: options.keptArtifactBytes }),
    },
    // Log chunks and unseen marks are written by turns only (restore prunes marks before the loop starts).
    cachedCollections: [RUNTIME_COLLECTIONS.logChunks, RUNTIME_COLLECTIONS.inboxUnseen],
    onState: followers.onState,
    afterCommit: followers.afterCommit,
  });
}

/** The sync driver: the connection to the AppServer, posting what it hears to the loop. */
export function openConnection(
  options: OpenedRuntimeOptions,
  basics: RuntimeBasics,
  started: StartedParts,
  parts: { readonly onTenant: (tenant: TenantSettings | undefined) => Promise<void>; readonly onCatalogRelease: (release: CatalogRelease) => void },
): SyncDriver {
  return new SyncDriver({
    transport: options.transport,
    serverUrl: options.serverUrl,
    token: options.token,
    clock: basics.clock,
    ids: basics.ids,
    diagnostics: basics.diagnostics,
    post: started.post,
    state: started.state,
    ...(options.backoff === undefined ? {} : { backoff: options.backoff }),
    ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
    ...(options.relistIntervalMs === undefined ? {} : { relistIntervalMs: options.relistIntervalMs }),
    ...(options.clientInfo === undefined ? {} : { clientInfo: options.clientInfo }),
    onTenant: parts.onTenant,
    onCatalogRelease: parts.onCatalogRelease,
  });
}

/** Apps' workflow runs: the shell that runs each step after its commit, through the step executor. */
function openWorkflows(store: RuntimeStore, parts: { readonly started: StartedParts; readonly appPort: (appScope: string) => AppPort; readonly backends: AppServices["backends"]; readonly listeners: DeliveryListeners; readonly clock: Clock; readonly diagnostics: DiagnosticsSink }): WorkflowShell {
  const { started } = parts;
  const execute = createWorkflowSteps({
    store,
    post: started.post,
    appPort: parts.appPort,
    backends: parts.backends,
    serverEvidence: async (conversationId, idempotencyKey) => (await started.requireDriver("not connected to the AppServer").exportEvidence(conversationId, idempotencyKey)) as unknown as JsonValue,
    toolSettlements: parts.listeners.toolSettlements,
    taskEvents: parts.listeners.taskEvents,
    task: (taskId) => {
      const now = started.requireLoop().state.tasks.tasks.get(taskId);
      return now === undefined ? undefined : publicTask(now);
    },
  });
  return createWorkflowShell({ post: (appScope, op) => started.post({ kind: "workflow", app_scope: appScope, op }), state: started.started, clock: parts.clock, execute, diagnostics: parts.diagnostics });
}

/** The listeners of committed deliveries beside the delivery hub's, each fed by `emit`. */
export type DeliveryListeners = ReturnType<typeof deliveryListeners>;

function deliveryListeners(diagnostics: DiagnosticsSink) {
  const listeners = {
    /** Instance lifecycle steps (`instances.changed`), for `subscribeInstanceChanges`. */
    instanceChanges: new Emitter<InstanceChange>(listenerErrorsTo(diagnostics, "instance changes")),
    /** Apps' task events (`task.event`), for `subscribeTasks`. */
    taskEvents: new Emitter<Extract<Delivery, { kind: "task.event" }>>(listenerErrorsTo(diagnostics, "task events")),
    /** Apps' workflow runs as commits change them (`workflow.changed`), for `subscribeWorkflows`. */
    workflowEvents: new Emitter<Extract<Delivery, { kind: "workflow.changed" }>>(listenerErrorsTo(diagnostics, "workflow events")),
    /** The terminal outputs of workflows' tool calls (`tool.settled`), for the steps waiting on them. */
    toolSettlements: new Emitter<Extract<Delivery, { kind: "tool.settled" }>>(listenerErrorsTo(diagnostics, "workflow tool calls")),
    emit(delivery: Delivery): void {
      if (delivery.kind === "instances.changed") for (const change of delivery.changes) listeners.instanceChanges.fire(change);
      if (delivery.kind === "task.event") listeners.taskEvents.fire(delivery);
      if (delivery.kind === "workflow.changed") listeners.workflowEvents.fire(delivery);
      if (delivery.kind === "tool.settled") listeners.toolSettlements.fire(delivery);
    },
  };
  return listeners;
}

/** Runs `attempt` until it succeeds, waiting the Runtime's backoff between tries, unless the Runtime is stopping. */
function retried(attempt: () => Promise<unknown>, parts: { readonly clock: Clock; readonly ids: IdSource; readonly backoff: BackoffPolicy | undefined; readonly stopping: () => boolean; readonly onError: (error: unknown) => void }): void {
  const run = (n: number): void => {
    if (parts.stopping()) return;
    attempt().catch((error: unknown) => {
      parts.onError(error);
      parts.clock.setTimer(backoffDelay(Math.min(n, 8), () => parts.ids.random(), parts.backoff) + 100, () => run(n + 1));
    });
  };
  run(0);
}
