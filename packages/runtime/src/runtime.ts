/**
 * `LineUpRuntime`: the one owner of the server connection, the store, sync, the outbox, the filter chain
 * and delivery to apps (spec 11, F1). This file declares its API and composes it from named parts
 * (`runtime-parts.ts`, the public object in `runtime-object.ts`); each part lives in its own module:
 * the loop and pure transition (`coordination/`), the connection shell and outbox (`communication/`),
 * the App Manager (`app-lifecycle/`), inbox and history (`persistence/`).
 */
import type { ArtifactRef, AppManifest, CapabilityName, CatalogRelease, CapabilityResult, JsonValue } from "@lineup/protocol";
import type { InstancesView, RuntimeAppManager, RuntimeSettings } from "./app-lifecycle/app-manager-api.js";
import type { AppInstance } from "./app-lifecycle/instances/state.js";
import type { InstanceStatus } from "./app-lifecycle/instances/lifecycle.js";
import type { AppDirectory, AppRecord } from "./app-lifecycle/core-app-registry.js";
import type { AppPolicy } from "./app-lifecycle/manager/pipeline.js";
import type { HostProvider } from "./capabilities/host-provider.js";
import type { CapabilityPolicy } from "./capabilities/gateway.js";
import type { AppCapabilityRequest } from "./capabilities/shell.js";
import { appDirectoryOf } from "./coordination/app-directory.js";
import type { ToolCallHandler } from "./coordination/tool-hub.js";
import type { ToolReport } from "./coordination/inputs.js";
import type { SessionDataListener } from "./session-data/service.js";
import type { SessionDataError, SessionDataSnapshot } from "./session-data/semantics.js";
import type { InventoryPolicy } from "./tools/inventory.js";
import type { ArtifactInfo, ArtifactRead } from "./coordination/artifact-access.js";
import type { BackoffPolicy } from "./communication/backoff.js";
import type { CommandReceipt, OutboxEntry } from "./communication/outbox.js";
import { createRuntimeCatalog, type RuntimeCatalog } from "./communication/catalog.js";
import { followDevReleases } from "./app-lifecycle/dev-releases.js";
import type { Transport } from "./communication/transport.js";
import type { AuditVerdict } from "./coordination/audit.js";
import type { MessageHandler, SubscribeOptions } from "./coordination/delivery.js";
import type { AppAction, StartConversationRequest } from "./coordination/inputs.js";
import type { Lifecycle, LifecycleObservable } from "./coordination/lifecycle.js";
import { createAppPort } from "./app-port.js";
import { appPortParts, commitFollowers, createStartedParts, liveAppDirectory, openAppParts, openDelivery, openTimers, runtimeBasics } from "./runtime-parts.js";
import { runtimeObject } from "./runtime-object.js";
import type { Conversation, RuntimeState } from "./coordination/state.js";
import { createHostIntents, type HostIntentOutcome } from "./app-lifecycle/host-intents.js";
import type { DiagnosticsSink, Unsubscribe } from "./core/emitter.js";
import type { Clock, IdSource } from "./core/ports.js";
import type { OrderedMapping } from "./core/persistent-map.js";
import type { AgentTask, AgentTaskControl, AgentTaskEvent, AgentTaskRequest, Result } from "@lineup/protocol";
import type { AppStorageHost } from "./app-storage/host.js";
import type { AppStorageApi } from "./app-storage/service.js";
import type { BackendRunners } from "./backends/service.js";
import type { McpView } from "./backends/mcp-view.js";
import type { ToolCallView } from "./tools/call-view.js";
import type { TraceEntry, WorkflowRun } from "./workflows/run.js";
import type { AgentMessagePage, HistoryRequest } from "./persistence/history.js";
import type { RuntimeStore } from "./persistence/store.js";
import { storeWhenOpen } from "./persistence/opening-store.js";

export interface RuntimeOptions {
  /**
   * A store opened with `RUNTIME_SCHEMA`, or the promise of one still opening: `start()` then connects to the AppServer
   * while it opens, and reads it once it has (a failure to open is `start()`'s). The caller owns it (and closes it after
   * `stop()`).
   */
  readonly store: RuntimeStore | Promise<RuntimeStore>;
  readonly transport: Transport;
  readonly serverUrl: string;
  /** A device token of the AppServer. */
  readonly token: string;
  readonly clock?: Clock;
  readonly ids?: IdSource;
  /** What the host platform does for the capability gateway. Default: nothing (every capability unsupported). */
  readonly host?: HostProvider;
  /** A user or organisation policy over capabilities (denials, confirmation, rate limit, request timeout). */
  readonly capabilityPolicy?: CapabilityPolicy;
  /** Runtime SDK features this host implements. Default: every feature of the protocol. */
  readonly hostFeatures?: readonly string[];
  /** A user or organisation policy over apps and tools. */
  readonly appPolicy?: AppPolicy;
  readonly inventoryPolicy?: InventoryPolicy;
  /** Publisher keys the host ships with (the local dev key): trusted from the first start, removable in settings. */
  readonly trustedPublishers?: readonly { readonly key_id: string; readonly public_key: string; readonly label?: string }[];
  /** The core apps' manifests. Default: chat, app-registry and settings. */
  readonly coreManifests?: readonly AppManifest[];
  readonly diagnostics?: DiagnosticsSink;
  readonly backoff?: BackoffPolicy;
  readonly requestTimeoutMs?: number;
  readonly relistIntervalMs?: number;
  /** Inputs per loop turn (one commit). Default 256. */
  readonly maxInputsPerTurn?: number;
  /**
   * Messages needing an explicit ACK that may wait in one app's inbox per conversation; past it, a new one
   * is refused for that app with `inbox_full` (audited). Default 1,000.
   */
  readonly maxPendingPerApp?: number;
  /**
   * Instances that hold a surface (a mounted frame) at once (spec 4.4): past it the least recently used
   * background instance that no tool call is on is suspended, and restored when brought back. Default 3.
   */
  readonly maxLiveSurfaces?: number;
  /** A background instance idle this long (ms) is suspended too, whatever the bound (spec 4.4). Default: never for idleness alone. */
  readonly suspendIdleMs?: number;
  /**
   * Bytes of a conversation's artifacts read from the AppServer (the agent's files) that the device keeps
   * for offline reads and saves; past it the longest kept are let go (read from the server again when
   * needed). Default 256 MiB.
   */
  readonly keptArtifactBytes?: number;
  readonly clientInfo?: { readonly name: string; readonly version?: string };
  /**
   * Where apps' own storage lives (one store per app, apart from `store`): the Node host's SQLite files, the
   * browser's IndexedDB databases. Without one, apps that declare storage are not offered `app.storage.v1`.
   */
  readonly appStorage?: AppStorageHost;
  /** The back-end runners this host offers, by protocol. Without any, apps that declare back-ends are not offered `app.backend.v1`. */
  readonly backends?: BackendRunners;
  /**
   * How long an app's MCP server may wait for the person to answer its question (`elicitation/create`, asked
   * through `host.elicit`) before it is withdrawn and the server told `expired`. Default 2 minutes.
   */
  readonly elicitationTimeoutMs?: number;
  /**
   * The host's model, for the MCP servers of the apps `appPolicy.mcp_sampling_apps` names
   * (`sampling/createMessage`): resolves with MCP's `CreateMessageResult`. Without it, sampling is `unsupported_on_host`.
   */
  readonly mcpSampler?: (request: { readonly app_scope: string; readonly params: JsonValue }, signal: AbortSignal | undefined) => Promise<JsonValue>;
}

export type ConversationStatus = "starting" | "offline" | "catching_up" | "live" | "unavailable";

export interface ConversationSummary {
  readonly conversation_id: string;
  readonly app_scope: string;
  readonly agent_id: string;
  readonly workspace_id: string;
  readonly title?: string;
  /** When it was started (ISO 8601); absent for a conversation stored before the Runtime kept it. */
  readonly created_at?: string;
  /**
   * When the person or the agent last said something in it (ISO 8601, the AppServer's time: a message, a turn asked
   * for or answered, an action asked for or answered); absent before anything was said, or while its log is not applied.
   */
  readonly active_at?: string;
  readonly status: ConversationStatus;
  readonly unread: number;
  /** Whether the agent is connected to the AppServer now; absent when unknown (offline, not yet followed, an older server). */
  readonly agent_connected?: boolean;
}

export interface FailedAction {
  readonly receipt_id: string;
  readonly app_scope: string;
  readonly conversation_id: string;
  readonly action_type: string;
  readonly code: string;
  readonly message: string;
}

/** What an app may see of the Runtime (spec 6.1 view model), already cut to what apps need. */
export interface RuntimeView {
  readonly lifecycle: Lifecycle;
  readonly connection: "online" | "connecting" | "offline";
  readonly conversations: readonly ConversationSummary[];
  /** Actions the server refused for good; the app that dispatched them shows them. */
  readonly failed_actions: readonly FailedAction[];
  /** Actions stored and not yet applied by the server. */
  readonly queued_actions: number;
  readonly default_app: string;
}

/** The internal port one app's SDK sits on. Every call is on behalf of `app_scope`. */
export interface AppPort {
  readonly app_scope: string;
  readonly record: AppRecord;
  view(): RuntimeView;
  subscribeView(listener: (view: RuntimeView) => void): Unsubscribe;
  listMessages(request?: HistoryRequest): Promise<AgentMessagePage>;
  subscribeMessages(options: SubscribeOptions, handler: MessageHandler): Unsubscribe;
  acknowledge(messageId: string): Promise<void>;
  dispatch(action: AppAction): Promise<CommandReceipt>;
  startConversation(request: StartConversationRequest): Promise<{ conversation_id: string; receipt: CommandReceipt }>;
  /**
   * Stops the agent in a conversation: its running turn (else the one waiting first, even one still in the
   * outbox) is cancelled with `agentSession/turn/cancel`, queued in the outbox like any action (sent in
   * order, after a reconnect or restart too). Resolves once stored; a second call before it was sent
   * resolves with the same receipt. Refused `invalid_state` when no turn runs or waits (nothing is queued),
   * `conversation_unknown` for a conversation this Runtime does not follow. Once the log says the turn was
   * cancelled, the calls the agent made in it that are still open end `cancelled_by_user`.
   *
   * With `instanceId`, the Stop was pressed in that instance of this app (an installed app's surface): it must be
   * a live instance of this app (`not_found`) bound to `conversationId` (`not_owner`; `invalid_state` when it serves
   * none) and in the foreground (`foreground_required`); each of those refusals is audited, and so is the Stop,
   * naming the instance.
   */
  cancelTurn(conversationId: string, instanceId?: string): Promise<CommandReceipt>;
  /** Tool calls for this app (or one of its instances); calls wait here until a handler registers. */
  registerToolHandler(handler: ToolCallHandler, instanceId?: string): Unsubscribe;
  /** Progress, the one result or error of a call delivered to this app; refused (`call_not_active`, `not_owner`) once it is over. */
  reportTool(callId: string, report: ToolReport, instanceId?: string): Promise<void>;
  /**
   * Ends this app's Runtime-owned operations in a conversation (the user stopped the timer, spec 6.3):
   * a running one gets its one `interrupted` result, one still starting `activation_cancelled`.
   */
  interruptOperations(conversationId: string, reason: string): Promise<void>;
  /** The immutable result card of a finished call (spec 6.3 `inline_card`), if its app offers one. */
  resultCard(callId: string): Promise<ResultCard | undefined>;
  /**
   * An agent's call of one of this app's tools (the chat's port: of any app), as stored: its tool, input, status and
   * one result or error, and the MCP Apps view its tool names. Undefined for an unknown call, another app's, or a
   * finished one past its 7 days.
   */
  toolCall(callId: string): Promise<ToolCallView | undefined>;
  /** Session data of one app session of this app (spec 6.3); `app_session_id` defaults to `main`. */
  sessionData(appSessionId?: string): AppSessionData;
  /** Opens an app (navigation, spec 6): enabled state and scope are checked by the Runtime. */
  /**
   * Opens an app (spec 6.2): the Runtime checks the target's enabled state, entrypoint and scope. The
   * instance records this app as its opener (and `from_instance_id`, one of this app's instances, as its
   * parent), so this app may focus and close it later.
   */
  launchApp(request: { app_scope: string; conversation_id?: string; entrypoint?: string; foreground?: boolean; from_instance_id?: string }): Promise<{ instance_id: string }>;
  /** Closes one of this app's instances, or one it opened; any other is `not_owner`. */
  closeInstance(instanceId: string): Promise<void>;
  /** Brings one of this app's instances, or one it opened, to the front; any other is `not_owner`. */
  focusInstance(instanceId: string): Promise<void>;
  /** The enabled apps a person could open (spec 6.2 `listAvailable`): what they are and their entrypoints. */
  listAvailableApps(): readonly AppSummary[];
  /** Opens the default app (spec 6.2 `openDefaultApp`): its running instance comes to the front, else it starts. */
  openDefaultApp(): Promise<{ instance_id: string }>;
  /**
   * One of this app's instances as the Runtime has it now (spec 6.1). An id that is not a live or closing
   * instance of this app — another app's, a finished one, an unknown one — is refused with `not_found`.
   */
  instance(instanceId: string): AppInstance;
  /**
   * Each committed change of one of this app's instances (not its current state): the instance as it is
   * after that commit, then `undefined` once it has left the Runtime (closed or failed), after which the
   * listener is dropped. Changes made and undone within one commit are not seen. Refuses as `instance`.
   */
  subscribeInstance(instanceId: string, listener: (instance: AppInstance | undefined) => void): Unsubscribe;
  /**
   * Every lifecycle step of one of this app's instances, exactly as the Runtime made them and in order,
   * after the commit that made them — two steps in one commit (suspended → restoring → active) are two
   * calls. The listener is dropped after the step to `closed` or `failed`. Refuses as `instance`.
   */
  subscribeInstanceChanges(instanceId: string, listener: (change: { readonly from: InstanceStatus; readonly to: InstanceStatus }) => void): Unsubscribe;
  /**
   * Asks the Capability Gateway for a device capability (spec 6.3). Resolves with a result from the
   * closed set (`completed` or a refusal with its code); it never rejects for a refusal.
   */
  requestCapability(request: AppCapabilityRequest): Promise<CapabilityResult>;
  /**
   * Sends an event the app's manifest declares (spec 8.2) from one of its live instances to the agent of
   * that instance's conversation, as `lineup.app.event` through the outbox. Resolves once it is stored to
   * be sent; refused (`invalid_params` for an undeclared name or data its schema refuses, `not_found`,
   * `invalid_state` for an instance without a conversation, `app_disabled`) with nothing sent.
   */
  emitEvent(request: { readonly instance_id: string; readonly name: string; readonly data: JsonValue }): Promise<void>;
  /** Stores an artifact of this app; with a conversation, it is also shared with it (uploaded through the outbox). */
  createArtifact(request: { readonly name: string; readonly mime_type: string; readonly bytes: Uint8Array; readonly conversation_id?: string }): Promise<ArtifactRef>;
  /**
   * An artifact this app made, or one of a conversation it serves; at most `maxBytes` of it. One this device
   * does not hold (the agent's) is read from the AppServer, checked against its SHA-256, and kept on the
   * device once read whole; `request_cancelled` while offline.
   */
  readArtifact(artifactId: string, options?: { readonly conversation_id?: string; readonly maxBytes?: number }): Promise<ArtifactRead>;
  /** An artifact's metadata (what it is, who made it, whether its bytes are on this device), under the same rule as `readArtifact`. */
  getArtifact(artifactId: string, options?: { readonly conversation_id?: string }): Promise<ArtifactInfo>;
  /**
   * The artifacts of a conversation (shared by its agent or the user's devices), or without one the app's
   * own; oldest first, the newest `limit` (default 200, at most 1000).
   */
  listArtifacts(options?: { readonly conversation_id?: string; readonly limit?: number }): Promise<ArtifactInfo[]>;
  /**
   * Saves an artifact to the user's files through the host (`file.save`, which the manifest must declare),
   * as `instance_id` or the app's instance in front. Resolves with the capability's result; refuses (like
   * `readArtifact`) only when the artifact cannot be read.
   */
  saveArtifact(request: { readonly artifact_id: string; readonly conversation_id?: string; readonly instance_id?: string }): Promise<CapabilityResult>;
  /**
   * Asks the agent for a task (docs/protocol.md "In-app agent tasks"): a durable record created in the same
   * commit as its `agentSession/turn/start` in the outbox. The conversation is `conversation_id` or that of
   * `instance_id` (an installed app's surface names its instance; it must be a live instance of this app
   * bound to a conversation). The same idempotency key and request return the same task; the same key with
   * another request is `idempotency_conflict`. Refused with nothing written: `app_disabled`,
   * `capability_not_declared` (no `app.agent-task.v1` feature or no `agent_tasks` entry of that id),
   * `tool_not_visible` (a requested tool not in the conversation's inventory or not declared for the entry),
   * `message_too_large` (context or output schema over its limit), `manifest_invalid_tool_schema`,
   * `not_found` / `not_owner` (an attachment or knowledge artifact the app may not use), `invalid_params`.
   */
  startTask(request: AgentTaskRequest, options?: { readonly conversation_id?: string; readonly instance_id?: string }): Promise<AgentTask>;
  /** This app's tasks, newest first (kept across restarts). */
  listTasks(): readonly AgentTask[];
  /** One of this app's tasks; `not_found` for another app's or an unknown one. */
  getTask(taskId: string): AgentTask;
  /** Events of one of this app's tasks after `after`, in order, at most `limit` (default 200, at most 500). */
  taskEvents(taskId: string, after: number, limit?: number): Promise<readonly AgentTaskEvent[]>;
  /** Cancels, retries, resubmits, accepts or rejects one of this app's tasks; `invalid_state` when its status does not allow it. */
  controlTask(taskId: string, control: AgentTaskControl): Promise<AgentTask>;
  /** Each new event of this app's tasks, after the commit that made it, with the task as it then is. */
  subscribeTasks(listener: (event: AgentTaskEvent, task: AgentTask) => void): Unsubscribe;
  /**
   * Exports an evidence pack (`evidence/export` on the AppServer) of one of this app's tasks, or of a conversation
   * this app serves; online only (`request_cancelled` offline).
   */
  exportEvidence(request: { readonly task_id: string } | { readonly conversation_id: string }): Promise<EvidenceExport>;
  /**
   * The app's own storage (docs/protocol.md "App storage"): the collections its manifest declares, in a store of its
   * own. Refused `unsupported_on_host` on a host without app storage, `capability_not_declared` for an app that
   * declares none.
   */
  storage(): AppStorageApi;
  /**
   * Calls a method of one of the app's declared back-ends (the host starts it on first use and supervises it).
   * Refused `not_found` / `method_not_found` for what the manifest does not declare, `unsupported_on_host` where the
   * host does not run its protocol; the back-end's failures keep their codes (`operation_expired`, `handler_failed`, …).
   */
  callBackend(backendId: string, method: string, params: JsonValue, options?: { readonly signal?: AbortSignal }): Promise<JsonValue>;
  /**
   * The MCP Apps view of the app's tool `method` (its `view`, read from the tool's MCP back-end): the page's HTML
   * (`text/html;profile=mcp-app`), the MCP tool's name and the CSP domains the server's `_meta.ui.csp` asks for (which the
   * host honours only through a grant the person approves). `not_found` for a tool without a view; a resource that
   * is not an MCP App page is `invalid_result`.
   */
  readMcpView(method: string, options?: { readonly signal?: AbortSignal }): Promise<McpView>;
  /**
   * Starts a durable run of a workflow the manifest declares (docs/protocol.md "Workflows"), in `conversation_id`
   * or the conversation of `instance_id` (agent task and evidence steps need one). The same `idempotency_key` and
   * input return the same run; the same key with another input is `idempotency_conflict`. Refused with nothing
   * written: `app_disabled`, `capability_not_declared` (no `app.workflow.v1`), `not_found` (no such workflow),
   * `invalid_params` (the input fails `input_schema`), `message_too_large`, `conversation_unknown`.
   */
  startWorkflow(workflowId: string, input: JsonValue, options?: { readonly conversation_id?: string; readonly instance_id?: string; readonly idempotency_key?: string }): Promise<WorkflowRun>;
  /** This app's runs, newest first (kept across restarts; the app's newest 100). */
  listWorkflowRuns(): readonly WorkflowRun[];
  /** One of this app's runs; `not_found` for another app's. */
  getWorkflowRun(runId: string): WorkflowRun;
  /** A run's trace entries after `after`, in order, at most `limit` (default 200, at most 500). */
  workflowTrace(runId: string, after: number, limit?: number): Promise<readonly TraceEntry[]>;
  /** Cancels a run, or answers the confirm step it waits on; `invalid_state` when it has ended or waits on nothing. */
  controlWorkflow(runId: string, control: { readonly op: "cancel"; readonly reason?: string } | { readonly op: "confirm"; readonly step_id: string; readonly confirmed: boolean }): Promise<WorkflowRun>;
  /** Each committed change of this app's runs, with the trace entries it added. */
  subscribeWorkflows(listener: (run: WorkflowRun, trace: readonly TraceEntry[]) => void): Unsubscribe;
  /** Stores the run's evidence pack (the run, its whole trace and their SHA-256) as an artifact of the app (and of the run's conversation). */
  exportWorkflowEvidence(runId: string): Promise<{ readonly artifact: ArtifactRef; readonly pack_digest: string; readonly ended: boolean }>;
  /**
   * Each capability the active manifest declares, whether a request could be granted here now (Host Bridge v1's
   * capability summary) — else why not: `unsupported_on_host`, `policy_denied`, `permission_denied` (the person said
   * no, in a remembered decision) — and the ones the person has allowed for good. The gateway still decides each
   * request; this is what an app shows before asking.
   */
  capabilitySummary(): CapabilitySummary;
}

export interface CapabilitySummary {
  readonly capabilities: readonly ({ readonly capability: CapabilityName; readonly available: true } | { readonly capability: CapabilityName; readonly available: false; readonly blocked_reason: "unsupported_on_host" | "policy_denied" | "permission_denied" })[];
  readonly granted_permissions: readonly CapabilityName[];
}

/** An exported evidence pack: stored on the AppServer as an artifact of the conversation. */
export interface EvidenceExport {
  readonly export_id: string;
  readonly conversation_id: string;
  readonly through_seq: number;
  readonly artifact: ArtifactRef;
  readonly pack_digest: string;
}

/** An app a person could open (spec 6.2 `AppSummary`). */
export interface AppSummary {
  readonly app_scope: string;
  readonly name: string;
  readonly kind: "core" | "installed";
  readonly version: string;
  /** The app the shell opens when nothing else is asked for. */
  readonly is_default: boolean;
  readonly entrypoints: readonly { readonly id: string; readonly kind: string; readonly title?: string; readonly display_modes?: readonly string[] }[];
}

/**
 * What a chat shows once an app's work is done (spec 6.3): the app, in its `inline_card` display mode, over a
 * frozen copy of the session data as it was when the call's result was recorded. Written once, never changed.
 */
export interface ResultCard {
  readonly call_id: string;
  readonly app_scope: string;
  readonly app_version: string;
  readonly conversation_id: string;
  readonly entrypoint: string;
  readonly data: SessionDataSnapshot;
  readonly captured_at: string;
}

/** One app session's data, isolated by the context the Runtime issued for it. */
export interface AppSessionData {
  get(): Promise<Result<SessionDataSnapshot, SessionDataError>>;
  replace(request: { readonly data: unknown; readonly expected_revision: unknown }): Promise<Result<{ readonly revision: number }, SessionDataError>>;
  /** The first call is the full snapshot; later ones have strictly greater revisions. */
  subscribe(listener: SessionDataListener): Result<Unsubscribe, SessionDataError>;
}

export interface LineUpRuntime {
  /** Restores from the store and starts connecting; resolves once restored (not once online). */
  start(): Promise<void>;
  /** Closes the connection, drains the loop; resolves in `stopped`. */
  stop(): Promise<void>;
  readonly lifecycle: LifecycleObservable;
  /** Resolves the next time the Runtime is online (at once if it is). */
  whenOnline(): Promise<void>;
  readonly conversations: {
    list(): readonly ConversationSummary[];
    start(request: StartConversationRequest): Promise<{ conversation_id: string; receipt: CommandReceipt }>;
  };
  /** Which apps exist and are enabled (a live view of the App Manager's records). */
  readonly apps: AppDirectory;
  /** Spec 4.3: install, enable, disable, update, rollback, remove, launch. Usable once started. */
  readonly appManager: RuntimeAppManager;
  /** The AppServer's catalog of signed releases: browse, and fetch a bundle to install or update from. */
  readonly catalog: RuntimeCatalog;
  /** What the shell renders: instances and the focus stack. Usable once started. */
  readonly instances: InstancesView;
  readonly settings: RuntimeSettings;
  appPort(appScope: string): AppPort;
  /** The Runtime SDK features this host offers apps (`hostFeatures`, less those whose host part is missing). */
  readonly features: readonly string[];
  /** Checks the hash chain of the audit log. */
  verifyAudit(): Promise<AuditVerdict>;
  /** Ends the current connection as a network failure would; the Runtime reconnects. A host calls it when the device goes offline. */
  dropConnection(): void;
  /** The network is back (a host's hint): a reconnect waiting out its backoff is tried now; otherwise nothing happens. */
  reconnectNow(): void;
  /**
   * The host provider's capabilities changed at run time (a service came or went, a system permission was
   * granted or blocked): the Runtime asks it again (`supports`, `systemPermission`) and, when either differs,
   * republishes each inventory whose content changed (spec 7.2).
   * Resolves once that is committed.
   */
  hostCapabilitiesChanged(): Promise<void>;
  /**
   * Replaces the user's or organisation's inventory policy (`inventoryPolicy`): each inventory whose
   * visible tools change is republished with a new revision, and agent messages to apps it now blocks
   * are refused `policy_denied`. Resolves once committed.
   */
  setInventoryPolicy(policy: InventoryPolicy): Promise<void>;
  /**
   * A host intent (`lineup.host.intent`'s payload: the window hidden or shown, memory pressure, sleep and wake,
   * a deep link or notification to open or close an app): checked, audited, carried out (`app-lifecycle/host-intents.ts`).
   * Rejects with a `LineUpError` (`payload_invalid`, `invalid_params`, …) for a bad one, which changes nothing.
   */
  hostIntent(intent: unknown): Promise<HostIntentOutcome>;
}

/** The options as the Runtime's parts read them: a store they can call, whether or not it has opened yet (`storeWhenOpen`). */
export type OpenedRuntimeOptions = Omit<RuntimeOptions, "store"> & { readonly store: RuntimeStore };

export function createRuntime(given: RuntimeOptions): LineUpRuntime {
  const { store, opened: storeOpened } = storeWhenOpen(given.store);
  const options: OpenedRuntimeOptions = { ...given, store };
  const basics = runtimeBasics(options);
  const { diagnostics } = basics;
  const started = createStartedParts();
  const apps = liveAppDirectory(started, basics.initialApps);
  // Called only once the parts below exist: app services and workflows reach an app through its port.
  const appPort = (appScope: string): AppPort => createAppPort(portParts, appScope);
  const timers = openTimers(options, basics, started);
  const app = openAppParts(options, basics, started, appPort);
  const delivery = openDelivery(options, basics, started, app, appPort);
  const portParts = appPortParts(options, basics, started, app, delivery, apps);
  const hostIntents = createHostIntents({
    post: started.post,
    launch: (request) => app.runtimeApps.manager.launch(request),
    closeInstance: (instanceId) => app.runtimeApps.manager.closeInstance(instanceId, { by: "user" }),
    liveInstances: () => app.runtimeApps.instances.snapshot().instances,
    conversationApp: (conversationId) => started.state().conversations.get(conversationId)?.app_scope,
    pauseIdle: (paused) => timers.idle.pause(paused, started.started()),
    reconnectNow: () => started.driver?.reconnectNow(),
  });
  const catalog = createRuntimeCatalog(async (method, params) => started.requireDriver("the Runtime is not started").catalogRequest(method, params));
  // `lineup dev`'s releases of an app installed from one: updated to as they are published.
  const devReleases = followDevReleases({ manager: app.runtimeApps.manager, catalog });
  const onCatalogRelease = (release: CatalogRelease): void => void devReleases.released(release).catch((error: unknown) => diagnostics(error, "dev release"));
  const followers = commitFollowers(basics, started, app, delivery, timers);
  return runtimeObject({ options, storeOpened, basics, started, apps, app, delivery, timers, followers, catalog, onCatalogRelease, hostIntents, appPort });
}

/** A conversation's status for the views; `online`: the Runtime's lifecycle is online. */
function conversationStatus(conversation: Conversation, online: boolean): ConversationStatus {
  if (conversation.origin === "local") return "starting";
  switch (conversation.following.status) {
    case "unavailable":
      return "unavailable";
    case "live":
      return online ? "live" : "catching_up";
    case "catching_up":
      return "catching_up";
    case "idle":
      return "offline";
  }
}

/**
 * The view of `state`. With `previous` (the view of an earlier state), a conversation whose summary did not change
 * keeps its object, and the list keeps its array when none changed: most commits only move a cursor, and a listener
 * then finds the same `conversations` (compared by reference, not by content, however many there are).
 */
export function toView(state: RuntimeState, previous?: RuntimeView): RuntimeView {
  return viewOn(state, () => previous?.conversations);
}

/**
 * The view of `state`, its `conversations` made when first read, on the list `base()` gives then (`made` is told the
 * list): a commit nobody looks at the conversations of (most commits of a start that follows a thousand conversations,
 * while the chat renders at most every 50 ms) costs no list of a thousand summaries.
 */
function viewOn(state: RuntimeState, base: () => readonly ConversationSummary[] | undefined, made?: (list: readonly ConversationSummary[]) => void): RuntimeView {
  const failed: FailedAction[] = [];
  let queued = 0;
  for (const entry of state.outbox.values() as Iterable<OutboxEntry>) {
    if (entry.status === "pending") queued += 1;
    else if (entry.error !== undefined) failed.push({ receipt_id: entry.receipt_id, app_scope: entry.app_scope, conversation_id: entry.conversation_id, action_type: entry.action_type, code: entry.error.code, message: entry.error.message });
  }
  const status = state.lifecycle.status;
  let conversations: readonly ConversationSummary[] | undefined;
  return {
    lifecycle: state.lifecycle,
    connection: status === "online" ? "online" : status === "authenticating" || status === "synchronizing" ? "connecting" : "offline",
    get conversations() {
      if (conversations === undefined) {
        conversations = conversationSummaries(state, base());
        made?.(conversations);
      }
      return conversations;
    },
    failed_actions: failed,
    queued_actions: queued,
    default_app: appDirectoryOf(state.apps).defaultApp(),
  };
}

/**
 * What each view's list of conversations was made from (the conversations' mapping, and whether the lifecycle was
 * online): the next view's list is made on it.
 */
const summaryMappings = new WeakMap<readonly ConversationSummary[], { readonly mapping: OrderedMapping<ConversationSummary>; readonly online: boolean }>();

/**
 * The conversations' summaries, made on `previous` (an earlier view's list): a conversation whose record is the same
 * object keeps its summary without a look, and one whose record changed keeps it when the summary would say the same.
 * So a commit that changes one of a thousand conversations costs one summary and a copy of the list, not a thousand.
 */
function conversationSummaries(state: RuntimeState, previous: readonly ConversationSummary[] | undefined): readonly ConversationSummary[] {
  const online = state.lifecycle.status === "online";
  const before = previous === undefined ? undefined : summaryMappings.get(previous);
  const mapping = state.conversations.mapInOrder((c: Conversation, was: ConversationSummary | undefined) => summaryOf(c, online, was), before?.mapping, before !== undefined && before.online !== online);
  // Made on the mapping of `previous`, the list is `previous` itself when every summary is the same: a new list says
  // something changed, without a walk of a thousand summaries to find out again.
  const list = before !== undefined ? mapping.items : sameItems(mapping.items, previous);
  // Kept with the list it gave, so that the next view whose summaries are all the same gets this very list back.
  summaryMappings.set(list, { mapping: list === mapping.items ? mapping : { ...mapping, items: list }, online });
  return list;
}

/** `conversation`'s summary: `was` (its summary before) when it says the same. */
function summaryOf(c: Conversation, online: boolean, was: ConversationSummary | undefined): ConversationSummary {
  const status = conversationStatus(c, online);
  if (
    was !== undefined &&
    was.conversation_id === c.conversation_id &&
    was.app_scope === c.app_scope &&
    was.agent_id === c.agent_id &&
    was.workspace_id === c.workspace_id &&
    was.title === c.title &&
    was.created_at === c.created_at &&
    was.active_at === c.active_at &&
    was.status === status &&
    was.unread === c.unread &&
    was.agent_connected === c.agent_connected
  ) {
    return was;
  }
  return {
    conversation_id: c.conversation_id,
    app_scope: c.app_scope,
    agent_id: c.agent_id,
    workspace_id: c.workspace_id,
    ...(c.title === undefined ? {} : { title: c.title }),
    ...(c.created_at === undefined ? {} : { created_at: c.created_at }),
    ...(c.active_at === undefined ? {} : { active_at: c.active_at }),
    status,
    unread: c.unread,
    ...(c.agent_connected === undefined ? {} : { agent_connected: c.agent_connected }),
  };
}

/** `previous` when it holds the same items in the same order as `items`, else `items`. */
function sameItems<T>(items: readonly T[], previous: readonly T[] | undefined): readonly T[] {
  return previous !== undefined && (items === previous || (previous.length === items.length && items.every((item, i) => item === previous[i]))) ? previous : items;
}

/**
 * One Runtime's views: the view of the state asked for last is given again, and each new one's conversations are made
 * on the list made last, whichever view it was read from, so its unchanged conversations are the same objects in the
 * same array (a view is never made on one not read: no chain of views waits to be made, or is kept).
 */
export function viewsOf(): (state: RuntimeState) => RuntimeView {
  let last: { state: RuntimeState; view: RuntimeView } | undefined;
  const read = lastRead();
  return (state) => {
    if (last?.state !== state) last = { state, view: viewOn(state, read.base, read.made) };
    return last.view;
  };
}

/** One installed app's cut views (`appView`), as `viewsOf` gives the full ones: the same full view gives the same cut one, each made on the app's list read last. */
export function appViewsOf(appScope: string): (full: RuntimeView, state: RuntimeState) => RuntimeView {
  let last: { full: RuntimeView; view: RuntimeView } | undefined;
  const read = lastRead();
  return (full, state) => {
    if (last?.full !== full) last = { full, view: appView(full, state, appScope, read.base, read.made) };
    return last.view;
  };
}

/** The list of conversations read last from a run of views (`base`), which each view's list, once made, becomes (`made`). */
function lastRead(): { readonly base: () => readonly ConversationSummary[] | undefined; readonly made: (list: readonly ConversationSummary[]) => void } {
  let list: readonly ConversationSummary[] | undefined;
  return {
    base: () => list,
    made: (conversations) => {
      list = conversations;
    },
  };
}

/**
 * What an installed app reads of the Runtime's state (spec 6.1: a view model cut to its scope, never the
 * whole state): the conversations it serves — started for it, or where it has a live instance — the failed
 * actions it dispatched, and the count of its own actions waiting to be sent. Connection, lifecycle and the
 * default app are the same for everyone. `full` is the view of `state`, as the core apps read it.
 *
 * The conversations and the count are made when first read, as `viewsOf` makes the full view's: a listener that reads
 * only the lifecycle costs no walk of a thousand conversations per commit. The list is made on `base()` (the app's list
 * read last, told to `made`): an unchanged list of conversations is that same array.
 */
export function appView(full: RuntimeView, state: RuntimeState, appScope: string, base?: () => readonly ConversationSummary[] | undefined, made?: (list: readonly ConversationSummary[]) => void): RuntimeView {
  let conversations: readonly ConversationSummary[] | undefined;
  let queued: number | undefined;
  return {
    lifecycle: full.lifecycle,
    connection: full.connection,
    get conversations() {
      if (conversations === undefined) {
        const served = new Set<string>();
        for (const instance of Object.values(state.instances.instances)) {
          if (instance.app_scope === appScope && instance.conversation_id !== undefined && instance.status !== "closed" && instance.status !== "failed") served.add(instance.conversation_id);
        }
        conversations = sameItems(
          full.conversations.filter((c) => c.app_scope === appScope || served.has(c.conversation_id)),
          base?.(),
        );
        made?.(conversations);
      }
      return conversations;
    },
    failed_actions: full.failed_actions.filter((a) => a.app_scope === appScope),
    get queued_actions() {
      if (queued === undefined) {
        queued = 0;
        for (const entry of state.outbox.values() as Iterable<OutboxEntry>) if (entry.status === "pending" && entry.app_scope === appScope) queued += 1;
      }
      return queued;
    },
    default_app: full.default_app,
  };
}

export type { JsonValue };
