/**
 * `createAppSdk`: the Runtime SDK (spec 6) an app receives, over the Runtime's internal `AppPort` for
 * its `app_scope` and nothing else. The app sees projections only: its view model, its inbox, the
 * actions it may dispatch, the tool calls meant for it, navigation, its own session data, the events it
 * declares, its artifacts, the Capability Gateway, its agent tasks and evidence packs, and a diagnostics sink. Parts are created lazily where they touch the Runtime (tools register with the
 * port at the first handler, session data asks for its context at first use), so a chat host that
 * uses only state and messages changes nothing in the Runtime.
 *
 * Given an `instance_id`, the SDK is bound to that Runtime instance of its app (checked at once:
 * another app's instance is `not_found`): its context carries the instance's id, entrypoint and
 * conversation, `lifecycle.instance` follows the instance's phase (spec 6.1), its tool handlers serve
 * that instance's calls, and its session data is the conversation's app session. Without one it is the
 * app's global face (`<app_scope>:main`, as core apps like chat run) with the Runtime's lifecycle only.
 */
import { LineUpError, type JsonValue } from "@lineup/protocol";
import type { AppPort, RuntimeView } from "@lineup/runtime";
import { createAgentTasks, createEvidence } from "./agent-tasks.js";
import { createDiagnostics } from "./diagnostics.js";
import { createInstanceLifecycle } from "./instance-lifecycle.js";
import { createSessionData } from "./session-data.js";
import { ToolServer } from "./tools.js";
import type { AppContext, AppDiagnosticsSink, AppStateChange, InstanceAppRuntimeSDK, Lifecycle, LineUpAppRuntimeSDK } from "./types.js";

export interface AppSdkOptions {
  /**
   * The Runtime instance of this app the SDK is bound to (the id `apps.launch` or the Runtime's instances
   * give); needs a started Runtime, and throws a `LineUpError` (`not_found`) for an id that is not a live
   * or closing instance of this app. Without it: `<app_scope>:main` — core apps run as one global
   * instance (spec 4.4) — and no `lifecycle.instance`.
   */
  readonly instance_id?: string;
  /** Default: the bound instance's entrypoint, else `main`. */
  readonly entrypoint?: string;
  /** The app session `sessionData` belongs to (spec 6.3). Default: the bound instance's conversation, else `main`. */
  readonly app_session_id?: string;
  /** Where `sdk.diagnostics` and the SDK's own trouble go. Default: dropped (nothing goes to the console). */
  readonly diagnostics?: AppDiagnosticsSink;
}

export function createAppSdk(port: AppPort, options: AppSdkOptions & { readonly instance_id: string }): InstanceAppRuntimeSDK;
export function createAppSdk(port: AppPort, options?: AppSdkOptions): LineUpAppRuntimeSDK;
export function createAppSdk(port: AppPort, options: AppSdkOptions = {}): LineUpAppRuntimeSDK {
  const diagnostics = createDiagnostics(port.app_scope, options.diagnostics);
  const instance = options.instance_id === undefined ? undefined : port.instance(options.instance_id);
  // An instance's app session is its conversation, as the web host's surfaces have it; else `main`.
  const appSessionId = options.app_session_id ?? instance?.conversation_id ?? "main";
  const fixed = {
    app_scope: port.app_scope,
    app_version: port.record.installed_version,
    instance_id: instance?.instance_id ?? `${port.app_scope}:main`,
    kind: port.record.kind,
    entrypoint: options.entrypoint ?? instance?.entrypoint ?? "main",
    scope: Object.freeze({
      ...(instance?.conversation_id === undefined ? {} : { conversation_id: instance.conversation_id }),
      ...(instance?.parent_instance_id === undefined ? {} : { parent_instance_id: instance.parent_instance_id }),
    }),
    app_session_id: appSessionId,
  };
  // The capabilities the person allowed for good, as they are now: a new context only when they change. Before the
  // Runtime has started, nothing is granted yet (the grants live in its store).
  const grantedNow = (): readonly string[] => {
    try {
      return port.capabilitySummary().granted_permissions;
    } catch (error) {
      if (error instanceof LineUpError && error.code === "invalid_state") return [];
      throw error;
    }
  };
  let context: AppContext | undefined;
  const currentContext = (): AppContext => {
    const granted = grantedNow();
    if (context === undefined || context.granted_permissions.join() !== granted.join()) context = Object.freeze({ ...fixed, granted_permissions: Object.freeze([...granted]) });
    return context;
  };
  return {
    get app() {
      return currentContext();
    },
    lifecycle: {
      ...(instance === undefined ? {} : { instance: createInstanceLifecycle(port, instance, diagnostics) }),
      current: () => port.view().lifecycle,
      onChange(listener) {
        let previous: Lifecycle | undefined = safeLifecycle(port);
        return port.subscribeView((view) => {
          if (view.lifecycle === previous) return;
          previous = view.lifecycle;
          try {
            listener(view.lifecycle);
          } catch (error) {
            diagnostics.report("lifecycle listener threw", error);
          }
        });
      },
    },
    state: {
      snapshot: () => port.view(),
      subscribe(listener) {
        let previous = port.view();
        return port.subscribeView((view) => {
          const change = diff(previous, view);
          previous = view;
          listener(view, change);
        });
      },
    },
    agentMessages: {
      list: (request) => port.listMessages(request ?? {}),
      subscribe: (subscribeOptions, handler) => port.subscribeMessages(subscribeOptions, handler),
      acknowledge: (messageId) => port.acknowledge(messageId),
    },
    actions: {
      async dispatch(action) {
        if (action.type === "conversation.start") {
          const { agent_id, workspace_id, title } = action;
          return (await port.startConversation({ agent_id, workspace_id, ...(title === undefined ? {} : { title }) })).receipt;
        }
        return port.dispatch(action);
      },
      cancelTurn(conversationId) {
        const conversation = conversationId ?? instance?.conversation_id;
        if (conversation === undefined) return Promise.reject(new LineUpError("invalid_params", `${port.app_scope}'s SDK is bound to no conversation: name the conversation whose turn to stop`, { path: "/conversation_id" }));
        return port.cancelTurn(conversation);
      },
    },
    tools: new ToolServer(port, diagnostics, instance?.instance_id),
    apps: {
      async launch(request) {
        const { instance_id } = await port.launchApp({
          app_scope: request.app_scope,
          ...(request.conversation_id === undefined ? {} : { conversation_id: request.conversation_id }),
          ...(request.entrypoint === undefined ? {} : { entrypoint: request.entrypoint }),
          ...(request.foreground === undefined ? {} : { foreground: request.foreground }),
          ...(instance === undefined ? {} : { from_instance_id: instance.instance_id }),
        });
        return { instance_id };
      },
      listAvailable: () => port.listAvailableApps(),
      focus: (instanceId) => port.focusInstance(instanceId),
      close: (instanceId) => port.closeInstance(instanceId),
      async openDefaultApp() {
        await port.openDefaultApp();
      },
    },
    sessionData: createSessionData(port, appSessionId, diagnostics),
    events: {
      emit(name, data) {
        // Only an instance speaks: the global face (`<app_scope>:main`) has no conversation of its own.
        if (instance === undefined) return Promise.reject(new LineUpError("invalid_state", `${port.app_scope}'s SDK is not bound to an instance: events come from an instance (createAppSdk(port, { instance_id }))`));
        return port.emitEvent({ instance_id: instance.instance_id, name, data });
      },
    },
    // Each call asks the port: an app that never uses storage never touches it.
    storage: {
      get: (collection, key) => port.storage().get(collection, key),
      list: (collection, query) => port.storage().list(collection, query),
      put: (collection, key, value) => port.storage().put(collection, key, value),
      delete: (collection, key) => port.storage().delete(collection, key),
      batch: (writes) => port.storage().batch(writes),
      usage: () => port.storage().usage(),
    },
    workflow: {
      start(workflowId, input, startOptions = {}) {
        const conversationId = startOptions.conversation_id ?? instance?.conversation_id;
        return port.startWorkflow(workflowId, input ?? null, { ...(conversationId === undefined ? {} : { conversation_id: conversationId }), ...(startOptions.idempotency_key === undefined ? {} : { idempotency_key: startOptions.idempotency_key }) });
      },
      runs: () => port.listWorkflowRuns(),
      run: (runId) => port.getWorkflowRun(runId),
      trace: (runId, after = 0, limit) => port.workflowTrace(runId, after, limit),
      cancel: (runId, reason) => port.controlWorkflow(runId, { op: "cancel", ...(reason === undefined ? {} : { reason }) }),
      confirm: (runId, stepId, confirmed) => port.controlWorkflow(runId, { op: "confirm", step_id: stepId, confirmed }),
      exportEvidence: (runId) => port.exportWorkflowEvidence(runId),
      onChanged: (listener) => port.subscribeWorkflows(listener),
    },
    backend: {
      call: async <T extends JsonValue>(backend: string, method: string, params?: JsonValue, callOptions?: { readonly signal?: AbortSignal }) =>
        (await port.callBackend(backend, method, params ?? null, callOptions)) as T,
    },
    artifacts: {
      create(request) {
        const conversationId = request.conversation_id ?? instance?.conversation_id;
        return port.createArtifact({ name: request.name, mime_type: request.mime_type, bytes: request.bytes, ...(conversationId === undefined ? {} : { conversation_id: conversationId }) });
      },
      async read(artifactId, readOptions = {}) {
        const conversationId = readOptions.conversation_id ?? instance?.conversation_id;
        return port.readArtifact(artifactId, { ...(conversationId === undefined ? {} : { conversation_id: conversationId }), ...(readOptions.max_bytes === undefined ? {} : { maxBytes: readOptions.max_bytes }) });
      },
      get(artifactId, getOptions = {}) {
        const conversationId = getOptions.conversation_id ?? instance?.conversation_id;
        return port.getArtifact(artifactId, conversationId === undefined ? {} : { conversation_id: conversationId });
      },
      list(listOptions = {}) {
        const conversationId = listOptions.own === true ? undefined : (listOptions.conversation_id ?? instance?.conversation_id);
        return port.listArtifacts({ ...(conversationId === undefined ? {} : { conversation_id: conversationId }), ...(listOptions.limit === undefined ? {} : { limit: listOptions.limit }) });
      },
      save(artifactId, saveOptions = {}) {
        const conversationId = saveOptions.conversation_id ?? instance?.conversation_id;
        return port.saveArtifact({ artifact_id: artifactId, ...(conversationId === undefined ? {} : { conversation_id: conversationId }), ...(instance === undefined ? {} : { instance_id: instance.instance_id }) });
      },
    },
    capabilities: {
      request: (request) =>
        port.requestCapability({ capability: request.capability, purpose: request.purpose, input: request.input ?? null, ...(instance === undefined ? {} : { instance_id: instance.instance_id }) }),
    },
    agent: createAgentTasks(port, instance, diagnostics),
    evidence: createEvidence(port, instance),
    diagnostics: { log: (level, message, data) => diagnostics.log(level, message, data), error: (error) => diagnostics.error(error) },
  };
}

/** The lifecycle now, or `undefined` before the Runtime started (the first change is then delivered). */
function safeLifecycle(port: AppPort): Lifecycle | undefined {
  try {
    return port.view().lifecycle;
  } catch {
    return undefined;
  }
}

/**
 * Whether two lists of conversation summaries say the same. The Runtime gives the same list again when no summary
 * changed (most commits move a cursor only), and keeps each unchanged summary's object in a new list; only the
 * summaries that are new objects are compared by their JSON, so a person with a thousand conversations does not cost
 * two serializations of all of them per change.
 */
function sameSummaries(before: RuntimeView["conversations"], after: RuntimeView["conversations"]): boolean {
  if (before === after) return true;
  if (before.length !== after.length) return false;
  for (let i = 0; i < before.length; i++) {
    if (before[i] !== after[i] && JSON.stringify(before[i]) !== JSON.stringify(after[i])) return false;
  }
  return true;
}

function diff(before: RuntimeView, after: RuntimeView): AppStateChange {
  let conversations: boolean | undefined;
  return {
    lifecycle: before.lifecycle !== after.lifecycle,
    // Compared when read, once: a listener that waits out a burst of changes (the chat renders at most every 50 ms)
    // does not pay a comparison of a thousand summaries for each change it lets pass.
    get conversations() {
      return (conversations ??= !sameSummaries(before.conversations, after.conversations));
    },
    actions: before.queued_actions !== after.queued_actions || before.failed_actions.length !== after.failed_actions.length,
  };
}
