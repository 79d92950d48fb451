// The web platform globals the SDK uses (AbortController, setTimeout, queueMicrotask, TextEncoder) exist in
// browsers and Node alike; this package's tsconfig lists only ES2023, so the lib is referenced here.
/**
 * The SDK's shapes, as spec 6 names them: context, state, agent messages and actions (the chat
 * subset), and the parts an app with tools needs — `tools`, `apps` (navigation), `sessionData`,
 * `lifecycle` (the Runtime's, and its instance's phase when the SDK is bound to one), `events`,
 * `artifacts`, `capabilities`, `agent` (the app's agent tasks), `evidence` and `diagnostics`.
 */
import type { AgentTask, AgentTaskRequest, ArtifactRef, CapabilityResult, JsonObject, JsonValue } from "@lineup/protocol";
import type { AgentTaskHandle } from "@lineup/protocol";
import type { AgentAppMessage, AgentMessagePage, AppStorageApi, TraceEntry, WorkflowRun, AppSummary, ArtifactInfo, CommandReceipt, HistoryRequest, InteractionAnswer, Lifecycle, RuntimeView, Unsubscribe } from "@lineup/runtime";

export type { AgentAppMessage, AgentMessagePage, CommandReceipt, JsonObject, JsonValue, Lifecycle, RuntimeView, Unsubscribe };
export type { AgentTaskHandle };

export interface AppContext {
  readonly app_scope: string;
  readonly app_version: string;
  readonly instance_id: string;
  readonly kind: "core" | "installed";
  readonly entrypoint: string;
  readonly scope: { readonly conversation_id?: string; readonly operation_id?: string; readonly parent_instance_id?: string };
  readonly granted_permissions: readonly string[];
  /** The app session whose data `sessionData` reads and writes (spec 6.3); fixed when the SDK is created. */
  readonly app_session_id: string;
}

/** What changed between two views, so a listener can skip work. */
export interface AppStateChange {
  readonly lifecycle: boolean;
  readonly conversations: boolean;
  readonly actions: boolean;
}

export interface AppStateAPI<ViewModel = RuntimeView> {
  snapshot(): ViewModel;
  subscribe(listener: (view: ViewModel, change: AppStateChange) => void): Unsubscribe;
}

export type AgentMessageType = string;
export type AgentMessageCursor = string;

export interface AgentMessageAPI {
  /**
   * One page of stored messages, oldest first. Forward from the oldest (default) or `after` a cursor
   * (`next_cursor` when newer ones follow); `before` a cursor or `latest: true` page backward (`prev_cursor`
   * when older ones exist). `after`, `before` and `latest: true` are exclusive: combining them rejects
   * with `invalid_params`.
   */
  list(request?: { conversation_id?: string; after?: AgentMessageCursor; before?: AgentMessageCursor; latest?: boolean; limit?: number }): Promise<AgentMessagePage>;
  subscribe(
    options: { conversation_id?: string; types?: readonly AgentMessageType[]; include_pending?: boolean },
    handler: (message: AgentAppMessage) => Promise<void> | void,
  ): Unsubscribe;
  acknowledge(message_id: string): Promise<void>;
}

/** Declarative actions (spec 6.2): an app never builds envelopes or requests. */
export type AppAction =
  | { readonly type: "conversation.send_text"; readonly conversation_id: string; readonly text: string }
  | { readonly type: "interaction.answer"; readonly conversation_id: string; readonly message_id: string; readonly response: InteractionAnswer }
  | { readonly type: "conversation.start"; readonly agent_id: string; readonly workspace_id: string; readonly title?: string };

export interface AppActionAPI {
  /** Resolves once the action is stored (it will be sent, in order, with its idempotency key); rejects with a LineUpError when refused. */
  dispatch(action: AppAction): Promise<CommandReceipt>;
  /**
   * Stops the agent (core apps: the chat's Stop): the conversation's running turn — else the one waiting
   * first — is cancelled on the AppServer. Like `dispatch`, it resolves once stored (sent in order, after a
   * reconnect or restart too); pressed again before it was sent, it resolves with the same receipt. The
   * conversation is `conversation_id`, else the bound instance's. Rejects with a LineUpError:
   * `invalid_state` when no turn runs or waits (nothing is queued), `conversation_unknown`, or
   * `invalid_params` when no conversation is given and the SDK is bound to none. Once the turn is
   * cancelled, the agent's calls still open in it end `cancelled_by_user` (their apps hear `tool.cancelled`);
   * a timer that already runs on its own (a pomodoro) is not stopped.
   */
  cancelTurn(conversation_id?: string): Promise<CommandReceipt>;
}

// --- tools (spec 6.2, 7.3) ---------------------------------------------------------------------

/** The codes a tool handler may end a call with (spec 7.3); anything else it throws becomes `handler_failed`. */
export type AppToolErrorCode = "cancelled_by_user" | "permission_denied" | "foreground_required" | "handler_failed" | "invalid_arguments" | "operation_expired";

/** A progress report: a replayable protocol fact, never checked against the tool's output schema. */
export interface ToolProgress {
  /** 1 to 64 characters (longer is cut). */
  readonly stage?: string;
  /** 0 … 1 (clamped). */
  readonly progress?: number;
  /** Up to 2,000 characters (longer is cut). */
  readonly message?: string;
  readonly data?: JsonValue;
}

/** What a handler gets besides its arguments. */
export interface ToolCallContext {
  readonly call_id: string;
  readonly method: string;
  readonly conversation_id: string;
  /** The instance the Runtime delivered the call to (an `app_ready` / `foreground_required` tool); absent for a direct call. */
  readonly instance_id?: string;
  /**
   * Aborted when the call is over before the handler finished: the agent cancelled it, its deadline
   * passed, or the app was disabled. After that nothing the handler returns or reports is sent.
   */
  readonly signal: AbortSignal;
  /**
   * Reports progress; resolves once the Runtime recorded it. Reports keep their order and come before
   * the call's result. Never rejects: a report the Runtime refuses (the call ended meanwhile) goes to
   * the diagnostics sink; after `signal` is aborted it is not sent.
   */
  progress(progress: ToolProgress): Promise<void>;
}

/** A call as spec 6.2's `onInvoke` listener gets it (`AppToolInvocation`). */
export interface AppToolInvocation {
  readonly call_id: string;
  readonly method: string;
  readonly arguments: JsonObject;
  readonly conversation_id: string;
  readonly instance_id?: string;
  /** `operation`: a Runtime-owned operation; `completed` must then carry `{ duration_ms }`. */
  readonly mode: "direct" | "operation";
  /** Aborted when the call is over before the app answered (cancelled, expired, the app stopped). */
  readonly signal: AbortSignal;
}

/** The app's answer to a call (spec 6.2 `AppToolOutcome`): done now, or `pending` until `complete` / `fail`. */
export type AppToolOutcome =
  | { readonly outcome: "completed"; readonly result: JsonValue }
  | { readonly outcome: "failed"; readonly code: AppToolErrorCode; readonly message?: string }
  | { readonly outcome: "pending" };

/** The method form makes handler parameters bivariant, so a handler may declare a narrower `args` type. */
type Bivariant<Args, Result> = { handler(args: Args, ctx: ToolCallContext): Promise<Result> | Result }["handler"];

/**
 * Runs one call with arguments that already passed the tool's `input_schema` (the Runtime checked
 * them). Its return value is the call's one result (checked by the Runtime against `output_schema`:
 * a mismatch ends the call with `invalid_result`); a thrown `{ code }` among `AppToolErrorCode` ends
 * it with that code and the error's message; anything else thrown ends it with `handler_failed` and
 * a plain message (the error itself goes to the diagnostics sink, never to the agent).
 */
export type ToolHandler<Args extends JsonObject = JsonObject, Result extends JsonValue = JsonValue> = Bivariant<Args, Result>;

/** What a runtime-owned operation's handler answers: how long the operation runs (the deadline is the Runtime's). */
export interface OperationStart {
  readonly duration_ms: number;
}

/**
 * Starts a runtime-owned operation (`call_model: "operation"`, spec 6.3): the Runtime owns the
 * deadline and the one result; the handler only says how long it runs. Thrown errors map as for
 * `ToolHandler`.
 */
export type OperationHandler<Args extends JsonObject = JsonObject> = Bivariant<Args, OperationStart>;

export interface AppToolAPI {
  /**
   * Serves `method`. Handlers registered in the same synchronous block are all in place before the
   * first call is delivered. A call for a method nobody serves ends with `handler_failed`. Registering
   * a method twice throws. The returned function removes the handler; once no handler is left the SDK
   * stops taking calls (they wait in the Runtime until a handler registers again).
   */
  register<Args extends JsonObject = JsonObject>(method: string, handler: ToolHandler<Args>): Unsubscribe;
  /** `register` for each entry, atomically (nothing is registered if one method is already served). */
  registerAll(handlers: Readonly<Record<string, ToolHandler>>): Unsubscribe;
  /**
   * Serves a runtime-owned operation. The Runtime delivers such calls in `operation` mode; the answer
   * becomes `start_operation` with its `duration_ms`. (A plain `register` handler for an operation
   * call must return `{ duration_ms }` too.)
   */
  registerOperation<Args extends JsonObject = JsonObject>(method: string, handler: OperationHandler<Args>): Unsubscribe;
  /**
   * Ends this app's Runtime-owned operations in a conversation (the user stopped the timer): each call
   * gets its one `interrupted` result from the Runtime. `conversation_id` defaults to the conversation of
   * the instance the SDK is bound to; an unbound SDK must name one (else `invalid_params`).
   */
  interruptOperations(request?: { readonly conversation_id?: string; readonly reason?: string }): Promise<void>;

  // Spec 6.2's shape, beside `register`: one listener answers every call no registered handler serves.
  /** The listener for calls of methods without a handler; one at a time (a second is `invalid_params`). */
  onInvoke(listener: (call: AppToolInvocation) => Promise<AppToolOutcome>): Unsubscribe;
  /** Progress of a call still open here (answered `pending`, or its handler running); `not_found` for any other. */
  progress(request: { readonly call_id: string; readonly progress: ToolProgress }): Promise<void>;
  /** The one result of a call answered `pending`; `not_found` when none is pending here (over, cancelled or unknown). */
  complete(request: { readonly call_id: string; readonly result: JsonValue }): Promise<void>;
  /** The one failure of a call answered `pending`; `not_found` as for `complete`. */
  fail(request: { readonly call_id: string; readonly code: AppToolErrorCode; readonly message?: string }): Promise<void>;
}

// --- navigation (spec 6.2) ---------------------------------------------------------------------

export interface LaunchAppRequest {
  readonly app_scope: string;
  readonly conversation_id?: string;
  readonly entrypoint?: string;
  /** Default true: the app comes to the front. */
  readonly foreground?: boolean;
}

export interface AppInstanceHandle {
  readonly instance_id: string;
}

/** Spec 6.2: opening, focusing and closing apps, always checked by the Runtime. */
export interface AppNavigationAPI {
  /** The enabled apps a person could open, with their entrypoints and which is the default. */
  listAvailable(): readonly AppSummary[];
  /**
   * Opens an app. The Runtime checks the target's enabled state, entrypoint and scope; rejects with a
   * LineUpError (`app_disabled`, …) when refused. This app is recorded as its opener (the bound instance
   * as its parent), so it may focus and close it.
   */
  launch(request: LaunchAppRequest): Promise<AppInstanceHandle>;
  /** Brings one of this app's instances, or one it opened, to the front (`not_owner` for any other). */
  focus(instance_id: string): Promise<void>;
  /** Closes one of this app's instances, or one it opened (`not_owner` for any other). */
  close(instance_id: string): Promise<void>;
  /** Opens the default app: its running instance comes to the front, else it starts. */
  openDefaultApp(): Promise<void>;
}

// --- session data (spec 6.3) -------------------------------------------------------------------

export interface SessionDataSnapshot<Data extends JsonObject = JsonObject> {
  /** `null` (with revision 0) until the first write. */
  readonly data: Data | null;
  readonly revision: number;
}

/**
 * The data of this app's session (`app_scope + app_session_id`, both from the SDK's context, never
 * from an argument). Refusals reject with a `LineUpError` whose `code` is the Runtime's
 * (`revision_conflict` with `data.current_revision`, `quota_exceeded` with usage and limit,
 * `session_context_invalid`, `invalid_params`, `store_*`) and whose `data` carries the detail.
 */
export interface MiniAppSessionDataAPI<Data extends JsonObject = JsonObject> {
  get(): Promise<SessionDataSnapshot<Data>>;
  /** Writes `data` when `expected_revision` is the current revision; resolves with the new one. Nothing is merged. */
  replace(data: Data, expected_revision: number): Promise<{ readonly revision: number }>;
  /** The spec's request form of `replace`. */
  replace(request: { readonly data: Data; readonly expected_revision: number }): Promise<{ readonly revision: number }>;
  /**
   * The first call is the full snapshot at registration; later ones have strictly greater revisions
   * (duplicates and old revisions are dropped). Throws a `LineUpError` (`session_context_invalid`)
   * when the context was revoked (the app was removed).
   */
  subscribe(listener: (snapshot: SessionDataSnapshot<Data>) => void): Unsubscribe;
}

// --- lifecycle (spec 6.1) ----------------------------------------------------------------------

/**
 * The phase of one app instance, in spec 6.1's words. Each is one status of the Runtime's instance
 * lifecycle (`@lineup/runtime`, `app-lifecycle/instances/lifecycle.ts`); nothing is renamed beyond this table:
 *
 * | phase        | Runtime status | what it means for the app |
 * | ------------ | -------------- | ------------------------- |
 * | `start`      | `launching`    | the instance exists; its surface is loading (not ready yet) |
 * | `foreground` | `active`       | ready, top of the focus stack: the user sees it |
 * | `background` | `backgrounded` | ready, behind another app or the shell; it keeps its place |
 * | `suspend`    | `suspended`    | no surface (after a restart); its state comes back through `restore` |
 * | `restore`    | `restoring`    | its surface is coming back; `foreground` or `background` follows |
 * | `closing`    | `closing`      | the Runtime is winding it down: the app, the user, or the Runtime's own disable / remove |
 * | `closed`     | `closed`       | terminal: it closed |
 * | `failed`     | `failed`       | terminal: its start or surface failed, or a restart interrupted its start |
 *
 * The Runtime keeps the final say (disable, remove, forced wind-down): the app observes phases, it
 * does not set them.
 */
export type AppInstancePhase = "start" | "foreground" | "background" | "suspend" | "restore" | "closing" | "closed" | "failed";

/**
 * The lifecycle of the instance an SDK is bound to (`AppSdkOptions.instance_id`), from the Runtime
 * through the app's `AppPort`. A phase the Runtime passed through inside one commit is still reported
 * when the path is unambiguous (`suspend` → `restore` → `foreground` when a surface comes back); when
 * the instance leaves the Runtime the app sees `closed` (after `closing`) or `failed` (from any other
 * phase) once, and nothing after.
 */
export interface AppInstanceLifecycleAPI {
  readonly instance_id: string;
  current(): AppInstancePhase;
  /** Called with each new phase, in order (not with the current one). A throwing listener is reported to diagnostics; the others still run. */
  onChange(listener: (phase: AppInstancePhase) => void): Unsubscribe;
}

/**
 * `current` / `onChange`: the Runtime's own lifecycle as the app's view model carries it (restoring,
 * online, offline_degraded, stopping, …). `instance`: the app instance's lifecycle, present when the SDK
 * is bound to one of this app's instances.
 */
export interface AppLifecycleAPI {
  current(): Lifecycle;
  /** Called with each new lifecycle (not with the current one). */
  onChange(listener: (lifecycle: Lifecycle) => void): Unsubscribe;
  readonly instance?: AppInstanceLifecycleAPI;
}

// --- diagnostics -------------------------------------------------------------------------------

export type DiagnosticLevel = "debug" | "info" | "warn" | "error";

/** One structured diagnostic, as the sink receives it. Never carries a stack trace. */
export interface AppDiagnostic {
  readonly app_scope: string;
  readonly level: DiagnosticLevel;
  readonly message: string;
  /** The code of a `LineUpError`-like error. */
  readonly code?: string;
  readonly data?: JsonValue;
}

/** Where an app's diagnostics go (`AppSdkOptions.diagnostics`). A throwing sink is ignored. */
export type AppDiagnosticsSink = (entry: AppDiagnostic) => void;

export interface DiagnosticsAPI {
  /** Never throws; `data` that is not JSON is dropped. */
  log(level: DiagnosticLevel, message: string, data?: JsonValue): void;
  /** Logs an error at level `error` with its message and code (not its stack). Never throws. */
  error(error: unknown): void;
}

/** Events the app's manifest declares (spec 8.2): what the person did in the app, for the agent. */
export interface AppEventAPI {
  /**
   * Sends a declared event from this instance to the agent of its conversation (through the Runtime's
   * outbox: an event raised offline arrives after reconnect). Rejects with a `LineUpError`: `invalid_params`
   * for an undeclared name or data its `data_schema` refuses, `invalid_state` for the app's global face or an
   * instance without a conversation, `not_found` once the instance is gone, `app_disabled`.
   */
  emit(name: string, data: JsonValue): Promise<void>;
}

/** Artifacts (spec 6.3): files an app makes or the conversation it serves holds. */
export interface AppArtifactAPI {
  /**
   * Stores an artifact of this app. With a conversation (the bound instance's by default, or
   * `conversation_id`), it is shared with that conversation too: uploaded through the Runtime's outbox,
   * so it reaches the agent after a reconnect if made offline.
   */
  create(request: { readonly name: string; readonly mime_type: string; readonly bytes: Uint8Array; readonly conversation_id?: string }): Promise<ArtifactRef>;
  /**
   * An artifact this app made, or one of a conversation it serves (the bound instance's by default, or
   * `conversation_id`): its reference and at most `max_bytes` of its bytes. `not_found` for anything else.
   */
  read(artifactId: string, options?: { readonly conversation_id?: string; readonly max_bytes?: number }): Promise<{ readonly artifact: ArtifactRef; readonly bytes: Uint8Array; readonly truncated: boolean }>;
  /** What an artifact is (reference, who made it, when, whether its bytes are on this device), under the rule of `read`. */
  get(artifactId: string, options?: { readonly conversation_id?: string }): Promise<ArtifactInfo>;
  /**
   * The artifacts of a conversation (the bound instance's by default, or `conversation_id`) — shared by its
   * agent, this app, other apps or the user's other devices — or with `own: true` (or unbound) this app's
   * own. Oldest first, the newest `limit` (default 200, at most 1000).
   */
  list(options?: { readonly conversation_id?: string; readonly own?: boolean; readonly limit?: number }): Promise<ArtifactInfo[]>;
  /**
   * Saves an artifact to the person's files through the host, as the bound instance: the `file.save`
   * capability (declare it in the manifest), so the gateway's checks apply and the host asks where.
   * Resolves with the capability's result; rejects only when the artifact cannot be read (`not_found`).
   */
  save(artifactId: string, options?: { readonly conversation_id?: string }): Promise<CapabilityResult>;
}

/** Device capabilities (spec 6.3), through the Runtime's Capability Gateway: the result is always one of its closed set. */
export interface AppCapabilityAPI {
  /**
   * Asks for `capability` (declared in the manifest) for `purpose`, from the bound instance (else the app's
   * instance in front). Never rejects for a refusal: `permission_denied`, `cancelled_by_user`,
   * `capability_not_declared`, … come back as the result's status.
   */
  request(request: { readonly capability: string; readonly purpose: string; readonly input?: JsonValue }): Promise<CapabilityResult>;
}

// --- agent tasks and evidence (docs/protocol.md "In-app agent tasks", feature app.agent-task.v1) --------

/**
 * The app asks the agent of a conversation for work from its own UI. The conversation is the bound
 * instance's; a core app's global face (bound to none) names it with `conversation_id`, as `cancelTurn` does.
 * Refusals reject with the Runtime's `LineUpError` (`capability_not_declared` for an entry the manifest does
 * not declare, `tool_not_visible`, `idempotency_conflict`, `message_too_large`, `app_disabled`, …), nothing written.
 */
export interface AppAgentAPI {
  /**
   * Starts a task (one turn of the conversation's session per attempt) and returns its handle. The same
   * `idempotency_key` with the same request returns the same task. `invalid_params` when no conversation is
   * given and the SDK is bound to none.
   */
  startTask(request: AgentTaskRequest, options?: { readonly conversation_id?: string }): Promise<AgentTaskHandle>;
  /** This app's tasks, newest first, as stored (they survive a reload and a restart). */
  tasks(): Promise<AgentTask[]>;
  /** Follows one of this app's tasks by id; `not_found` for an unknown task or another app's. */
  task(taskId: string): Promise<AgentTaskHandle>;
}

/** An evidence pack the AppServer made and stored as an artifact of the conversation (`lineup evidence verify` checks it). */
export interface AgentEvidenceExport {
  readonly export_id: string;
  readonly conversation_id: string;
  readonly through_seq: number;
  readonly artifact: ArtifactRef;
  readonly pack_digest: string;
}

export interface AppEvidenceAPI {
  /**
   * Exports the evidence pack of one of this app's tasks, or of a conversation: the bound instance's, else the
   * one `conversation_id` names. Online only: offline it rejects `request_cancelled`; `invalid_params` when
   * no conversation is known.
   */
  export(request: { readonly task_id: string } | { readonly conversation: true; readonly conversation_id?: string }): Promise<AgentEvidenceExport>;
}

/** The app's own storage (feature `app.storage.v1`): the collections its manifest declares, in a store of its own. */
export type AppStorageAPI = AppStorageApi;

/** The app's declared workflows (feature `app.workflow.v1`): durable runs the Runtime carries through restarts. */
export interface AppWorkflowAPI {
  /** Starts a run in the bound instance's conversation (or `conversation_id`). */
  start(workflowId: string, input?: JsonValue, options?: { readonly idempotency_key?: string; readonly conversation_id?: string }): Promise<WorkflowRun>;
  runs(): readonly WorkflowRun[];
  run(runId: string): WorkflowRun;
  trace(runId: string, after?: number, limit?: number): Promise<readonly TraceEntry[]>;
  cancel(runId: string, reason?: string): Promise<WorkflowRun>;
  confirm(runId: string, stepId: string, confirmed: boolean): Promise<WorkflowRun>;
  exportEvidence(runId: string): Promise<{ readonly artifact: ArtifactRef; readonly pack_digest: string; readonly ended: boolean }>;
  onChanged(listener: (run: WorkflowRun, trace: readonly TraceEntry[]) => void): Unsubscribe;
}

/** The app's declared back-ends (feature `app.backend.v1`). */
export interface AppBackendAPI {
  call<T extends JsonValue = JsonValue>(backend: string, method: string, params?: JsonValue, options?: { readonly signal?: AbortSignal }): Promise<T>;
}

export interface LineUpAppRuntimeSDK {
  readonly app: AppContext;
  readonly lifecycle: AppLifecycleAPI;
  readonly state: AppStateAPI<RuntimeView>;
  readonly agentMessages: AgentMessageAPI;
  readonly actions: AppActionAPI;
  readonly tools: AppToolAPI;
  readonly apps: AppNavigationAPI;
  readonly sessionData: MiniAppSessionDataAPI;
  readonly events: AppEventAPI;
  readonly artifacts: AppArtifactAPI;
  readonly capabilities: AppCapabilityAPI;
  readonly agent: AppAgentAPI;
  readonly evidence: AppEvidenceAPI;
  readonly storage: AppStorageAPI;
  readonly backend: AppBackendAPI;
  readonly workflow: AppWorkflowAPI;
  readonly diagnostics: DiagnosticsAPI;
}

/** The SDK of one Runtime instance (`createAppSdk(port, { instance_id })`): its instance lifecycle is always there. */
export interface InstanceAppRuntimeSDK extends LineUpAppRuntimeSDK {
  readonly lifecycle: AppLifecycleAPI & { readonly instance: AppInstanceLifecycleAPI };
}

export type { HistoryRequest };
