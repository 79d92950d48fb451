/**
 * `connectSurface()`: the SDK of a sandboxed installed app (spec 6, 8.2). The app gets nothing but
 * this bridge — no network, no host objects — and everything it may do is a request over the
 * private port, checked by the Runtime on the other side.
 */
import {
  LineUpError,
  type AgentTask,
  type AgentTaskRequest,
  type AppInstanceID,
  type ArtifactRef,
  type BridgeHostSnapshot,
  type BridgeParams,
  type BridgeResult,
  type BridgeEventData,
  type BridgeTheme,
  type CapabilityResult,
  type JsonObject,
  type JsonValue,
} from "@lineup/protocol";
import { AgentMessages, type AgentMessageAPI } from "./agent-messages.js";
import { observeContentHeight } from "./auto-resize.js";
import { forwardLauncherShortcut } from "./launcher-shortcut.js";
import { BridgeChannel } from "./channel.js";
import { Emitter, listenerThrew, requestFailed, threw, type DiagnosticsSink, type SurfaceDiagnostic, type Unsubscribe } from "./emitter.js";
import { waitForHandover, type HandoverSource } from "./handshake.js";
import { Lifecycle, type AppLifecycleAPI } from "./lifecycle.js";
import type { BridgePort } from "./port.js";
import { SessionDataClient, type MiniAppSessionDataAPI } from "./session-data.js";
import { bridgeTaskSource } from "./agent-tasks.js";
import { TaskFollower, type AgentTaskHandle } from "@lineup/protocol";
import { applyThemeVariables } from "./theme.js";
import type { AgentTools } from "./tools/define.js";
import { ToolDispatcher } from "./tools/dispatch.js";

/**
 * A capability request waits for the person, the system and the host (a recording runs as long as it
 * was asked to): the Runtime's gateway always ends it, by an answer or its own expiry. This is only a
 * backstop, far beyond the bridge's usual request timeout.
 */
const CAPABILITY_REQUEST_TIMEOUT_MS = 2 * 60 * 60 * 1000;

/** An evidence pack is made and stored by the AppServer, which the Runtime asks with its own deadline: a backstop. */
const EVIDENCE_EXPORT_TIMEOUT_MS = 5 * 60 * 1000;

/** Who the app is and where it runs: the host snapshot (spec 003) as the SDK's `AppContext` (spec 6.1). */
export type AppContext = BridgeHostSnapshot & { readonly kind: "installed" };

export interface ConnectOptions {
  /** A port handed over without the window (workers, tests); the first frame on it is the snapshot. */
  readonly port?: BridgePort;
  /** The window to receive the handover on (default: this window). */
  readonly window?: HandoverSource;
  /** Tools to serve from the start, so a call right after `ready()` finds its handler. */
  readonly tools?: AgentTools;
  /** Write the host theme's CSS variables to the document root, now and on every change. Default true. */
  readonly applyTheme?: boolean;
  /** Time to wait for the handover. Default 10 s. */
  readonly handoverTimeoutMs?: number;
  /** Time a request waits for its response. Default 30 s. */
  readonly requestTimeoutMs?: number;
  /** Receives what cannot be thrown to anyone: dropped frames, throwing listeners. */
  readonly diagnostics?: (event: SurfaceDiagnostic) => void;
}

export interface CapabilityRequest {
  readonly capability: string;
  /** Shown to the user when the Runtime asks for confirmation. */
  readonly purpose: string;
  readonly input: JsonValue;
}

export interface Surface {
  /** The current context; theme, locale, time zone and display mode follow the host's change events. */
  readonly app: AppContext;
  readonly lifecycle: AppLifecycleAPI;
  readonly sessionData: MiniAppSessionDataAPI;
  /** Agent messages the manifest subscribes to, and state patches for this instance. */
  readonly agentMessages: AgentMessageAPI;
  readonly events: { emit(name: string, data: JsonValue): Promise<void> };
  /** The agent of this instance's conversation. */
  readonly agent: {
    /**
     * Stops the agent's turn in this instance's conversation — for a Stop the person pressed in the app: the
     * running turn, else the one waiting first. Resolves with the Stop's receipt once it is stored to be sent
     * (a second Stop before it was sent gets the same receipt); the calls the agent made in that turn end
     * `cancelled_by_user`. Rejects with a `LineUpError`: `invalid_state` when no turn runs or waits (or the
     * instance serves no conversation), `foreground_required` when the app is not in front.
     */
    cancelTurn(): Promise<BridgeResult<"agent.cancel_turn">>;
    /**
     * Asks the agent for a task the manifest's `agent_tasks` declares (feature `app.agent-task.v1`), in this
     * instance's conversation, and returns its handle. The same `idempotency_key` with the same request is the
     * same task. Rejects with a `LineUpError`: `capability_not_declared` (no feature, or an undeclared entry),
     * `tool_not_visible`, `idempotency_conflict`, `message_too_large`, `invalid_params`, `app_disabled`, …
     */
    startTask(request: AgentTaskRequest): Promise<AgentTaskHandle>;
    /** This app's tasks, newest first (they survive a reload and a restart). */
    tasks(): Promise<AgentTask[]>;
    /** Follows one of this app's tasks by id; `not_found` for an unknown task or another app's. */
    task(taskId: string): Promise<AgentTaskHandle>;
  };
  /** Evidence packs (online only: offline the export is refused `request_cancelled`). */
  readonly evidence: {
    /** Exports the pack of one of this app's tasks, or of this instance's conversation; the AppServer stores it as an artifact of the conversation. */
    export(request: { readonly task_id: string } | { readonly conversation: true }): Promise<BridgeResult<"evidence.export">>;
  };
  readonly capabilities: {
    request<T extends JsonValue = JsonValue>(request: CapabilityRequest): Promise<CapabilityResult<T>>;
    /** Which declared capabilities are available now (the snapshot's summary, kept current), and which are allowed for good. */
    summary(): Pick<AppContext, "capabilities" | "granted_permissions">;
    /** Called with the new summary whenever it changes (a decision in Settings, the host, policy). */
    onChanged(listener: (summary: Pick<AppContext, "capabilities" | "granted_permissions">) => void): () => void;
  };
  /** The app's own storage: the collections its manifest declares (feature `app.storage.v1`), each record with its provenance. */
  readonly storage: {
    get(collection: string, key: string): Promise<BridgeResult<"storage.get">["record"]>;
    list(collection: string, query?: Omit<BridgeParams<"storage.list">, "collection">): Promise<BridgeResult<"storage.list">["records"]>;
    put(collection: string, key: string, value: JsonValue): Promise<BridgeResult<"storage.put">>;
    delete(collection: string, key: string): Promise<BridgeResult<"storage.delete">>;
    /** Every write or none, in one transaction. */
    batch(writes: BridgeParams<"storage.batch">["writes"]): Promise<BridgeResult<"storage.batch">>;
    usage(): Promise<BridgeResult<"storage.usage">>;
  };
  /** The app's declared workflows (feature `app.workflow.v1`): durable runs the Runtime carries through restarts. */
  readonly workflow: {
    /** Starts a run in this instance's conversation; the same `idempotency_key` and input give the same run. */
    start(workflowId: string, input?: JsonValue, options?: { readonly idempotency_key?: string }): Promise<BridgeResult<"workflow.start">["run"]>;
    runs(): Promise<BridgeResult<"workflow.runs">["runs"]>;
    /** A run as it is now, and its trace entries after `after`. */
    trace(runId: string, after?: number, limit?: number): Promise<BridgeResult<"workflow.trace">>;
    cancel(runId: string, reason?: string): Promise<BridgeResult<"workflow.control">["run"]>;
    /** Answers the confirm step the run waits on. */
    confirm(runId: string, stepId: string, confirmed: boolean): Promise<BridgeResult<"workflow.control">["run"]>;
    /** Stores the run's evidence pack as an artifact. */
    exportEvidence(runId: string): Promise<BridgeResult<"workflow.evidence">>;
    /** Each change of this app's runs, with the trace entries it added. */
    onChanged(listener: (change: BridgeEventData<"workflow.changed">) => void): () => void;
  };
  /** The app's declared back-ends (feature `app.backend.v1`), started and supervised by the host. */
  readonly backend: {
    call<T extends JsonValue = JsonValue>(backend: string, method: string, params?: JsonValue): Promise<T>;
  };
  readonly artifacts: {
    create(request: BridgeParams<"artifact.create">): Promise<ArtifactRef>;
    read(request: BridgeParams<"artifact.read">): Promise<BridgeResult<"artifact.read">>;
    /** What an artifact is, without its bytes. */
    get(artifactId: string): Promise<BridgeResult<"artifact.get">>;
    /** The instance's conversation's artifacts (the app's own without one), oldest first. */
    list(request?: BridgeParams<"artifact.list">): Promise<BridgeResult<"artifact.list">["artifacts"]>;
    /** Saves one to the person's files through the host (`file.save`, declared in the manifest): the capability's result. */
    save(artifactId: string): Promise<CapabilityResult>;
  };
  readonly apps: {
    launch(request: BridgeParams<"app.launch">): Promise<BridgeResult<"app.launch">>;
    /** Brings one of this app's instances, or one it launched, to the front. */
    focus(instanceId: AppInstanceID): Promise<void>;
    /** The enabled apps a person could open (spec 6.2 `listAvailable`). */
    listAvailable(): Promise<BridgeResult<"app.list">["apps"]>;
    /** Opens the default app (spec 6.2 `openDefaultApp`). */
    openDefaultApp(): Promise<void>;
    /** Closes `instance_id`, or this instance when omitted. */
    close(instanceId?: AppInstanceID): Promise<void>;
  };
  readonly surface: {
    resize(height: number): Promise<void>;
    /** Follows the content's height with `ResizeObserver`; returns the stop function. */
    autoResize(element?: Element): Unsubscribe;
  };
  readonly tools: { serve(tools: AgentTools): Unsubscribe };
  /** The app's Runtime-owned operations (a tool handler starts one with `timedOperation`). */
  readonly operations: {
    /** Ends this app's running operations in this instance's conversation: each call gets its one `interrupted` result from the Runtime. */
    interrupt(reason?: string): Promise<void>;
  };
  onThemeChange(listener: (theme: BridgeTheme) => void): Unsubscribe;
  onLocaleChange(listener: (change: { locale: string; timezone: string }) => void): Unsubscribe;
  /** Calls `listener` with the current locale now, then with each new one: what a UI's language state follows (as `followDisplayMode`). */
  followLocale(listener: (locale: string) => void): Unsubscribe;
  onDisplayModeChange(listener: (mode: AppContext["display_mode"]) => void): Unsubscribe;
  /**
   * Calls `listener` with the current display mode now, then on every change. For listeners registered after
   * the first render (a UI framework's effect): a change the host sent as the app said ready is not missed.
   */
  followDisplayMode(listener: (mode: AppContext["display_mode"]) => void): Unsubscribe;
  /** Fires once when the bridge closes (after `closing`, or when the host drops the port). */
  onClosed(listener: (reason: LineUpError) => void): Unsubscribe;
  /** Closes the bridge from the app's side; pending requests are rejected with `request_cancelled`. */
  disconnect(): void;
}

/** Waits for the host's handover, then returns the connected SDK. Rejects if no valid handover arrives in time. */
export async function connectSurface(options: ConnectOptions = {}): Promise<Surface> {
  const diagnostics: DiagnosticsSink = (event) => {
    try {
      options.diagnostics?.(event);
    } catch {
      // The sink itself failing has nowhere left to go.
    }
  };
  const handover = await waitForHandover({
    diagnostics,
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.window === undefined ? {} : { source: options.window }),
    ...(options.handoverTimeoutMs === undefined ? {} : { timeoutMs: options.handoverTimeoutMs }),
  });
  const channel = new BridgeChannel(handover.port, handover.nonce, {
    diagnostics,
    ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
  });
  return createSurface(channel, handover.snapshot, options, diagnostics);
}

function createSurface(channel: BridgeChannel, snapshot: BridgeHostSnapshot, options: ConnectOptions, diagnostics: DiagnosticsSink): Surface {
  let app: AppContext = Object.freeze({ ...snapshot, kind: "installed" as const });
  const themeChanged = new Emitter<BridgeTheme>(listenerThrew("theme.changed", diagnostics));
  const localeChanged = new Emitter<{ locale: string; timezone: string }>(listenerThrew("locale.changed", diagnostics));
  const modeChanged = new Emitter<AppContext["display_mode"]>(listenerThrew("display_mode.changed", diagnostics));
  const applyTheme = options.applyTheme ?? true;
  if (applyTheme) applyThemeVariables(snapshot.theme);

  channel.on("host.snapshot", (fresh) => {
    // A refreshed snapshot (a host may resend it) replaces the context; the identity must not change.
    if (fresh.instance_id !== app.instance_id || fresh.app_scope !== app.app_scope) return;
    app = Object.freeze({ ...fresh, kind: "installed" as const });
    if (applyTheme) applyThemeVariables(fresh.theme);
    themeChanged.fire(fresh.theme);
  });
  channel.on("theme.changed", ({ theme }) => {
    app = Object.freeze({ ...app, theme });
    if (applyTheme) applyThemeVariables(theme);
    themeChanged.fire(theme);
  });
  channel.on("locale.changed", ({ locale, timezone }) => {
    app = Object.freeze({ ...app, locale, timezone });
    localeChanged.fire({ locale, timezone });
  });
  const workflowChanged = new Emitter<BridgeEventData<"workflow.changed">>(listenerThrew("workflow.changed", diagnostics));
  channel.on("workflow.changed", (change) => workflowChanged.fire(change));
  const capabilitiesChanged = new Emitter<Pick<AppContext, "capabilities" | "granted_permissions">>(listenerThrew("capabilities.changed", diagnostics));
  channel.on("capabilities.changed", ({ capabilities, granted_permissions }) => {
    app = Object.freeze({ ...app, capabilities, granted_permissions });
    capabilitiesChanged.fire({ capabilities, granted_permissions });
  });
  channel.on("display_mode.changed", ({ display_mode }) => {
    app = Object.freeze({ ...app, display_mode });
    modeChanged.fire(display_mode);
  });

  const sessionData = new SessionDataClient(channel, diagnostics);
  // A restore may follow a suspended bridge: spec 6.3 treats it as a reconnect and reads again.
  const lifecycle = new Lifecycle(channel, diagnostics, () => sessionData.resync());
  const dispatcher = new ToolDispatcher(channel, diagnostics);
  const agentMessages = new AgentMessages(channel, diagnostics);
  if (options.tools !== undefined) dispatcher.serve(options.tools);
  const resize = async (height: number): Promise<void> => {
    await channel.request("surface.resize", { height: Math.min(16_384, Math.max(0, Math.round(height))) });
  };
  const stopShortcut = forwardLauncherShortcut(() => {
    channel.request("launcher.open", {}).catch((error: unknown) => diagnostics(requestFailed("launcher.open", error)));
  });
  channel.onClosed(() => {
    sessionData.dispose();
    dispatcher.dispose();
    stopShortcut();
  });
  const taskSource = bridgeTaskSource(channel);
  const taskHandle = (task: AgentTask): AgentTaskHandle =>
    new TaskFollower(task, taskSource, ({ kind, error }) =>
      diagnostics(kind === "listener_threw" ? threw("agent.task_event", error) : requestFailed("agent.task_events", error)),
    );

  return {
    get app() {
      return app;
    },
    lifecycle,
    sessionData,
    agentMessages,
    events: {
      emit: async (name, data) => {
        await channel.request("event.emit", { name, data });
      },
    },
    agent: {
      cancelTurn: () => channel.request("agent.cancel_turn", {}),
      startTask: async (request) => taskHandle((await channel.request("agent.start_task", { request })).task),
      tasks: async () => (await channel.request("agent.tasks", {})).tasks,
      // The task as it now is comes with a page of its events; one event is the smallest page.
      task: async (taskId) => taskHandle((await channel.request("agent.task_events", { task_id: taskId, after: 0, limit: 1 })).task),
    },
    evidence: {
      export: (request) => channel.request("evidence.export", "task_id" in request ? { task_id: request.task_id } : {}, { timeoutMs: EVIDENCE_EXPORT_TIMEOUT_MS }),
    },
    capabilities: {
      summary: () => ({ capabilities: app.capabilities, granted_permissions: app.granted_permissions }),
      onChanged: (listener) => capabilitiesChanged.on(listener),
      request: async <T extends JsonValue>(request: CapabilityRequest) =>
        (await channel.request("capability.request", { capability: request.capability, purpose: request.purpose, input: request.input }, { timeoutMs: CAPABILITY_REQUEST_TIMEOUT_MS })) as CapabilityResult<T>,
    },
    storage: {
      get: async (collection, key) => (await channel.request("storage.get", { collection, key })).record,
      list: async (collection, query = {}) => (await channel.request("storage.list", { ...query, collection })).records,
      put: (collection, key, value) => channel.request("storage.put", { collection, key, value }),
      delete: (collection, key) => channel.request("storage.delete", { collection, key }),
      batch: (writes) => channel.request("storage.batch", { writes }),
      usage: () => channel.request("storage.usage", {}),
    },
    workflow: {
      start: async (workflowId, input, startOptions = {}) =>
        (await channel.request("workflow.start", { workflow_id: workflowId, ...(input === undefined ? {} : { input }), ...(startOptions.idempotency_key === undefined ? {} : { idempotency_key: startOptions.idempotency_key }) })).run,
      runs: async () => (await channel.request("workflow.runs", {})).runs,
      trace: (runId, after = 0, limit) => channel.request("workflow.trace", { run_id: runId, after, ...(limit === undefined ? {} : { limit }) }),
      cancel: async (runId, reason) => (await channel.request("workflow.control", { run_id: runId, control: { op: "cancel", ...(reason === undefined ? {} : { reason }) } })).run,
      confirm: async (runId, stepId, confirmed) => (await channel.request("workflow.control", { run_id: runId, control: { op: "confirm", step_id: stepId, confirmed } })).run,
      exportEvidence: (runId) => channel.request("workflow.evidence", { run_id: runId }),
      onChanged: (listener) => workflowChanged.on(listener),
    },
    backend: {
      // A back-end call may run up to its declared wall time: no shorter timeout than a capability's.
      call: async <T extends JsonValue>(backend: string, method: string, params?: JsonValue) =>
        (await channel.request("backend.call", { backend, method, ...(params === undefined ? {} : { params }) }, { timeoutMs: CAPABILITY_REQUEST_TIMEOUT_MS })).result as T,
    },
    artifacts: {
      create: async (request) => (await channel.request("artifact.create", request)).artifact,
      read: (request) => channel.request("artifact.read", request),
      get: (artifactId) => channel.request("artifact.get", { artifact_id: artifactId }),
      list: async (request = {}) => (await channel.request("artifact.list", request)).artifacts,
      // The person chooses where: no timeout shorter than a capability's.
      save: async (artifactId) => (await channel.request("artifact.save", { artifact_id: artifactId }, { timeoutMs: CAPABILITY_REQUEST_TIMEOUT_MS })) as CapabilityResult,
    },
    apps: {
      launch: (request) => channel.request("app.launch", request),
      close: async (instanceId) => {
        await channel.request("app.close", instanceId === undefined ? {} : { instance_id: instanceId });
      },
      focus: async (instanceId) => {
        await channel.request("app.focus", { instance_id: instanceId });
      },
      listAvailable: async () => (await channel.request("app.list", {})).apps,
      openDefaultApp: async () => {
        await channel.request("app.open_default", {});
      },
    },
    operations: {
      async interrupt(reason) {
        await channel.request("operation.interrupt", reason === undefined ? {} : { reason: reason.slice(0, 200) });
      },
    },
    surface: {
      resize,
      autoResize: (element) => observeContentHeight(resize, element),
    },
    tools: { serve: (tools) => dispatcher.serve(tools) },
    onThemeChange: (listener) => themeChanged.on(listener),
    onLocaleChange: (listener) => localeChanged.on(listener),
    followLocale: (listener) => {
      const off = localeChanged.on((change) => listener(change.locale));
      listener(app.locale);
      return off;
    },
    onDisplayModeChange: (listener) => modeChanged.on(listener),
    followDisplayMode: (listener) => {
      const off = modeChanged.on(listener);
      listener(app.display_mode);
      return off;
    },
    onClosed: (listener) => channel.onClosed(listener),
    disconnect: () => channel.close(new LineUpError("request_cancelled", "the app disconnected")),
  };
}

export type { JsonObject };
