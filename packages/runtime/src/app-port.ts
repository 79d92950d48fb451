/**
 * An app's port (`LineUpRuntime.appPort`): everything an app may ask of the Runtime, cut to its scope. Each
 * method checks what the app may do and posts an input to the loop, or reads the loop's state or the store;
 * the parts it uses are handed in by `createRuntime` (`AppPortParts`), not reached through its closure.
 */
import { CAPABILITIES, LineUpError, type ArtifactRef, type CapabilityName, type JsonValue } from "@lineup/protocol";
import type { AgentTask, AgentTaskEvent } from "@lineup/protocol";
import { getInstance, type AppInstance, type InstanceChange } from "./app-lifecycle/instances/state.js";
import { CHAT_APP_SCOPE, type AppDirectory } from "./app-lifecycle/core-app-registry.js";
import type { RuntimeApps } from "./app-lifecycle/runtime-apps.js";
import { sha256Hex } from "./app-lifecycle/bundle/digest.js";
import type { HostProvider } from "./capabilities/host-provider.js";
import type { CapabilityPolicy } from "./capabilities/gateway.js";
import type { CapabilityShell } from "./capabilities/shell.js";
import type { CommandReceipt } from "./communication/outbox.js";
import { createArtifactAccess, type ArtifactAccessDeps } from "./coordination/artifact-access.js";
import type { DeliveryHub } from "./coordination/delivery.js";
import type { Delivery, RuntimeInput } from "./coordination/inputs.js";
import type { RuntimeState } from "./coordination/state.js";
import { viewGrantKey } from "./coordination/handlers/settings.js";
import type { ToolHub } from "./coordination/tool-hub.js";
import type { Emitter } from "./core/emitter.js";
import type { IdSource } from "./core/ports.js";
import type { AppStorageApi, ActiveAppVersion } from "./app-storage/service.js";
import type { BackendService } from "./backends/service.js";
import { mcpViewOf } from "./backends/mcp-view.js";
import type { CallRecord } from "./tools/call-state.js";
import { toolCallViewOf } from "./tools/call-view.js";
import type { SessionContext } from "./session-data/context.js";
import type { SessionDataService } from "./session-data/service.js";
import { publicTask, taskEventKey, tasksOf } from "./tasks/records.js";
import { workflowEvidence } from "./workflows/steps.js";
import { isRunEnded, traceKey, type TraceEntry, type WorkflowRun } from "./workflows/run.js";
import { RUNTIME_COLLECTIONS } from "./persistence/runtime-schema.js";
import { listHistory } from "./persistence/history.js";
import type { RuntimeStore } from "./persistence/store.js";
import { appViewsOf, type AppPort, type AppSummary, type CapabilitySummary, type EvidenceExport, type ResultCard, type RuntimeView } from "./runtime.js";

/** What an app's port is built from: the Runtime's parts, each named. */
export interface AppPortParts {
  readonly store: RuntimeStore;
  readonly ids: IdSource;
  readonly apps: AppDirectory;
  /** The loop's state; throws `invalid_state` before `start()`. */
  readonly state: () => RuntimeState;
  /** The loop's state, or undefined before `start()`. */
  readonly started: () => RuntimeState | undefined;
  /** Posts an input to the loop (`invalid_state` before `start()`). */
  readonly post: (input: RuntimeInput) => Promise<JsonValue | undefined>;
  readonly view: () => RuntimeView;
  readonly views: Emitter<RuntimeView>;
  readonly hub: DeliveryHub;
  readonly toolHub: ToolHub;
  readonly runtimeApps: RuntimeApps;
  readonly sessionData: SessionDataService;
  /** The one session context of an app's session (the same object for the same pair). */
  readonly contextFor: (appScope: string, appSessionId: string) => SessionContext;
  readonly capabilityShell: CapabilityShell;
  readonly hostProvider: HostProvider;
  readonly capabilityPolicy: () => CapabilityPolicy;
  readonly artifacts: ArtifactAccessDeps;
  readonly instanceChanges: Emitter<InstanceChange>;
  readonly taskEvents: Emitter<Extract<Delivery, { kind: "task.event" }>>;
  readonly workflowEvents: Emitter<Extract<Delivery, { kind: "workflow.changed" }>>;
  readonly storageFor: (appScope: string) => AppStorageApi;
  readonly backends: BackendService;
  readonly activeVersion: (appScope: string) => ActiveAppVersion | undefined;
  /** An app reported a tool call's result (committed): the Runtime may keep a result card of it. */
  readonly onResult: (appScope: string, callId: string) => void;
  /** Asks the AppServer for a conversation's (or task's) evidence pack (`request_cancelled` when not connected). */
  readonly serverEvidence: (conversationId: string, idempotencyKey: string, taskId: string | undefined) => Promise<EvidenceExport>;
}

/** `appScope`'s port (`app_not_installed` when there is no such app). */
export function createAppPort(parts: AppPortParts, appScope: string): AppPort {
  const { store, ids, apps, state, started, post, view, views, hub, toolHub, runtimeApps, sessionData, contextFor, capabilityShell, hostProvider, capabilityPolicy, instanceChanges, taskEvents, workflowEvents, storageFor, backends, activeVersion, onResult, serverEvidence } = parts;
  const record = apps.get(appScope);
  if (record === undefined) throw new LineUpError("app_not_installed", `no app ${appScope}`);
  const artifacts = createArtifactAccess(parts.artifacts, appScope);
  const requireEnabled = (): void => {
    const current = apps.get(appScope);
    if (current === undefined) throw new LineUpError("app_not_installed", `no app ${appScope}`);
    if (!current.enabled) throw new LineUpError("app_disabled", `app ${appScope} is disabled`);
  };
  // Spec 6.1: an installed app reads a view cut to its scope; core apps are the Runtime's own faces.
  const cutView = appViewsOf(appScope);
  const scoped = (full: RuntimeView): RuntimeView => (record.kind === "core" ? full : cutView(full, state()));
  const port: AppPort = {
    app_scope: appScope,
    record,
    view: () => scoped(view()),
    subscribeView: (listener) => views.on((full) => listener(scoped(full))),
    listMessages: (request) => listHistory(store, appScope, request),
    subscribeMessages(subscribeOptions, handler) {
      requireEnabled();
      const cursors = new Map([...(started()?.conversations ?? [])].map(([id, c]) => [id, c.cursor] as const));
      return hub.subscribe(appScope, subscribeOptions, handler, cursors);
    },
    async acknowledge(messageId) {
      requireEnabled();
      await post({ kind: "acknowledge", app_scope: appScope, message_ids: [messageId] });
    },
    async dispatch(action) {
      requireEnabled();
      return (await post({ kind: "dispatch", app_scope: appScope, action })) as unknown as CommandReceipt;
    },
    async startConversation(request) {
      requireEnabled();
      const receipt = (await post({ kind: "conversation.start", app_scope: appScope, request })) as unknown as CommandReceipt;
      return { conversation_id: receipt.conversation_id, receipt };
    },
    async cancelTurn(conversationId, instanceId) {
      requireEnabled();
      return (await post({ kind: "turn.cancel", app_scope: appScope, conversation_id: conversationId, ...(instanceId === undefined ? {} : { instance_id: instanceId }) })) as unknown as CommandReceipt;
    },
    registerToolHandler: (handler, instanceId) => toolHub.register(appScope, instanceId, handler),
    async reportTool(callId, report, instanceId) {
      await post({ kind: "tool.report", app_scope: appScope, call_id: callId, report, ...(instanceId === undefined ? {} : { instance_id: instanceId }) });
      toolHub.reported(callId, report);
      if (report.kind === "result") onResult(appScope, callId);
    },
    async interruptOperations(conversationId, reason) {
      // Not about one call: the report names none.
      await post({ kind: "tool.report", app_scope: appScope, call_id: "", report: { kind: "interrupt_operations", conversation_id: conversationId, reason: reason.slice(0, 200) } });
    },
    async resultCard(callId) {
      return (await store.get(RUNTIME_COLLECTIONS.resultCards, callId)) as unknown as ResultCard | undefined;
    },
    async toolCall(callId) {
      const record = (await store.get(RUNTIME_COLLECTIONS.toolCalls, callId)) as unknown as CallRecord | undefined;
      // A call another device answered is not this device's to show: its record only keeps its call_id from running here.
      if (record === undefined || record.workflow !== undefined || record.answered_elsewhere === true || (appScope !== CHAT_APP_SCOPE && record.app_scope !== appScope)) return undefined;
      return toolCallViewOf(record, activeVersion(record.app_scope)?.manifest.tools?.find((t) => t.method === record.method)?.view);
    },
    sessionData(appSessionId = "main") {
      const context = contextFor(appScope, appSessionId);
      return {
        get: () => sessionData.get(context),
        replace: (request) => sessionData.replace(context, request),
        subscribe: (listener) => sessionData.subscribe(context, listener),
      };
    },
    async launchApp(request) {
      requireEnabled();
      const { from_instance_id: from, ...target } = request;
      if (from !== undefined) ownInstance(state(), appScope, from);
      const instance = await runtimeApps.manager.launch({ ...target, opened_by: appScope, ...(from === undefined ? {} : { parent_instance_id: from }) });
      return { instance_id: instance.instance_id };
    },
    async closeInstance(instanceId) {
      requireEnabled();
      navigable(state(), appScope, instanceId);
      await runtimeApps.manager.closeInstance(instanceId, { by: "app" });
    },
    async focusInstance(instanceId) {
      requireEnabled();
      navigable(state(), appScope, instanceId);
      await runtimeApps.instances.focus(instanceId);
    },
    listAvailableApps() {
      const defaultApp = runtimeApps.manager.defaultApp();
      return runtimeApps.manager.listApps({ enabled: true }).flatMap((app): AppSummary[] => {
        const manifest = runtimeApps.manager.getApp(app.app_scope)?.manifest;
        if (manifest === undefined) return [];
        return [
          {
            app_scope: app.app_scope,
            name: manifest.name ?? app.app_scope,
            kind: app.kind,
            version: app.installed_version,
            is_default: app.app_scope === defaultApp,
            entrypoints: manifest.entrypoints.map((e) => ({ id: e.id, kind: e.kind, ...(e.title === undefined ? {} : { title: e.title }), ...(e.display_modes === undefined ? {} : { display_modes: [...e.display_modes] }) })),
          },
        ];
      });
    },
    async openDefaultApp() {
      requireEnabled();
      const instance = await runtimeApps.manager.launch({ app_scope: runtimeApps.manager.defaultApp(), opened_by: appScope });
      return { instance_id: instance.instance_id };
    },
    instance: (instanceId) => ownInstance(state(), appScope, instanceId),
    subscribeInstanceChanges(instanceId, listener) {
      ownInstance(state(), appScope, instanceId);
      const off = instanceChanges.on((change) => {
        if (change.instance_id !== instanceId || change.from === "not_running") return;
        if (change.to === "closed" || change.to === "failed") off();
        listener({ from: change.from, to: change.to });
      });
      return off;
    },
    subscribeInstance(instanceId, listener) {
      let last: AppInstance | undefined = ownInstance(state(), appScope, instanceId);
      const off = runtimeApps.instances.subscribe((snapshot) => {
        if (last === undefined) return;
        const next = snapshot.instances.find((i) => i.instance_id === instanceId);
        if (next !== undefined && next.status === last.status && next.since === last.since) return;
        last = next;
        if (next === undefined) off();
        listener(next);
      });
      return off;
    },
    requestCapability: (request) => capabilityShell.request(appScope, request),
    async emitEvent(request) {
      requireEnabled();
      await post({ kind: "app.event", app_scope: appScope, instance_id: request.instance_id, name: request.name, data: request.data });
    },
    async createArtifact(request) {
      requireEnabled();
      const sha256 = await sha256Hex(request.bytes);
      return (await post({
        kind: "artifact.create",
        app_scope: appScope,
        name: request.name,
        mime_type: request.mime_type,
        bytes: request.bytes,
        sha256,
        ...(request.conversation_id === undefined ? {} : { conversation_id: request.conversation_id }),
      })) as unknown as ArtifactRef;
    },
    async readArtifact(artifactId, readOptions = {}) {
      requireEnabled();
      return artifacts.read(artifactId, readOptions);
    },
    async getArtifact(artifactId, infoOptions = {}) {
      requireEnabled();
      return artifacts.info(artifactId, infoOptions);
    },
    async listArtifacts(listOptions = {}) {
      requireEnabled();
      return artifacts.list(listOptions);
    },
    async saveArtifact(request) {
      requireEnabled();
      return artifacts.save(request);
    },
    async startTask(request, where = {}) {
      requireEnabled();
      const conversationId = where.instance_id === undefined ? where.conversation_id : getInstance(state().instances, where.instance_id)?.conversation_id;
      // The artifacts it names: ones the app may see, shared with the task's conversation (the agent reads them there).
      const attachments = await resolveTaskArtifacts(artifacts, request?.input?.attachments, conversationId, "/input/attachments");
      const knowledge = await resolveTaskArtifacts(artifacts, request?.knowledge, conversationId, "/knowledge");
      return (await post({ kind: "task.start", app_scope: appScope, request, attachments, knowledge, ...where })) as unknown as AgentTask;
    },
    listTasks: () => tasksOf(state().tasks, appScope).map(publicTask),
    getTask(taskId) {
      const task = state().tasks.tasks.get(taskId);
      if (task === undefined || task.app_scope !== appScope) throw new LineUpError("not_found", `${appScope} has no task ${taskId}`);
      return publicTask(task);
    },
    async taskEvents(taskId, after, limit = 200) {
      const task = state().tasks.tasks.get(taskId);
      if (task === undefined || task.app_scope !== appScope) throw new LineUpError("not_found", `${appScope} has no task ${taskId}`);
      return (await numberedPage(store, RUNTIME_COLLECTIONS.taskEvents, (index) => taskEventKey(taskId, index), task.event_count, after, limit)) as unknown as AgentTaskEvent[];
    },
    async controlTask(taskId, control) {
      requireEnabled();
      const task = state().tasks.tasks.get(taskId);
      const attachments = control?.op === "resubmit" ? await resolveTaskArtifacts(artifacts, control.input?.attachments, task?.app_scope === appScope ? task.conversation_id : undefined, "/control/input/attachments") : undefined;
      return (await post({ kind: "task.control", app_scope: appScope, task_id: taskId, control, ...(attachments === undefined ? {} : { attachments }) })) as unknown as AgentTask;
    },
    subscribeTasks(listener) {
      return taskEvents.on((delivery) => {
        if (delivery.app_scope === appScope) listener(delivery.event, delivery.task);
      });
    },
    storage: () => storageFor(appScope),
    async startWorkflow(workflowId, input, where = {}) {
      requireEnabled();
      return (await post({ kind: "workflow", app_scope: appScope, op: { type: "start", workflow_id: workflowId, input, run_id: ids.next("wfr"), ...where } })) as unknown as WorkflowRun;
    },
    listWorkflowRuns: () =>
      [...state().workflows.values()].filter((r) => r.app_scope === appScope).sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0)),
    getWorkflowRun: (runId) => ownRun(state(), appScope, runId),
    async workflowTrace(runId, after, limit = 200) {
      const run = ownRun(state(), appScope, runId);
      return (await numberedPage(store, RUNTIME_COLLECTIONS.workflowTrace, (index) => traceKey(runId, index), run.trace_count, after, limit)) as unknown as TraceEntry[];
    },
    async controlWorkflow(runId, control) {
      requireEnabled();
      ownRun(state(), appScope, runId);
      const op = control.op === "cancel" ? { type: "cancel" as const, run_id: runId, ...(control.reason === undefined ? {} : { reason: control.reason.slice(0, 500) }) } : { type: "answer" as const, run_id: runId, step_id: control.step_id, confirmed: control.confirmed };
      return (await post({ kind: "workflow", app_scope: appScope, op })) as unknown as WorkflowRun;
    },
    subscribeWorkflows(listener) {
      return workflowEvents.on((delivery) => {
        if (delivery.app_scope === appScope) listener(delivery.run, delivery.trace);
      });
    },
    async exportWorkflowEvidence(runId) {
      requireEnabled();
      const run = ownRun(state(), appScope, runId);
      const { pack, digest } = await workflowEvidence(store, run);
      const bytes = new TextEncoder().encode(JSON.stringify(pack, null, 2));
      const artifact = await port.createArtifact({ name: `${run.workflow_id}-${run.run_id}.evidence.json`, mime_type: "application/json", bytes, ...(run.conversation_id === undefined ? {} : { conversation_id: run.conversation_id }) });
      return { artifact, pack_digest: digest, ended: isRunEnded(run) };
    },
    capabilitySummary() {
      const manifest = runtimeApps.manager.getApp(appScope)?.manifest;
      const policy = capabilityPolicy();
      const grants = (started()?.grants ?? []).filter((g) => g.app_scope === appScope);
      const capabilities = (manifest?.capabilities ?? []).flatMap((declared): CapabilitySummary["capabilities"][number][] => {
        if (!(declared.name in CAPABILITIES)) return [];
        const capability = declared.name as CapabilityName;
        if (!hostProvider.supports(capability)) return [{ capability, available: false, blocked_reason: "unsupported_on_host" }];
        if ((policy.denied_apps ?? []).includes(appScope) || (policy.denied_capabilities ?? []).includes(capability)) return [{ capability, available: false, blocked_reason: "policy_denied" }];
        if (grants.some((g) => g.capability === capability && g.decision === "denied")) return [{ capability, available: false, blocked_reason: "permission_denied" }];
        return [{ capability, available: true }];
      });
      const granted = grants.filter((g) => g.decision === "granted" && capabilities.some((c) => c.capability === g.capability && c.available)).map((g) => g.capability as CapabilityName);
      return { capabilities, granted_permissions: granted };
    },
    async callBackend(backendId, method, params, callOptions) {
      requireEnabled();
      return backends.call(appScope, backendId, method, params, callOptions);
    },
    async readMcpView(method, viewOptions) {
      requireEnabled();
      const tool = activeVersion(appScope)?.manifest.tools?.find((t) => t.method === method);
      if (tool?.backend === undefined || tool.view === undefined) throw new LineUpError("not_found", `${appScope} has no tool ${method} with a view`, { path: "/method" });
      const read = await backends.readView(appScope, tool.backend.id, tool.view.resource_uri, viewOptions);
      return mcpViewOf(tool.backend.method, tool.view.resource_uri, read, tool.view.csp, await store.get(RUNTIME_COLLECTIONS.settings, viewGrantKey(appScope, tool.view.resource_uri)));
    },
    async exportEvidence(request) {
      requireEnabled();
      let conversationId: string;
      let taskId: string | undefined;
      if ("task_id" in request) {
        const task = state().tasks.tasks.get(request.task_id);
        if (task === undefined || task.app_scope !== appScope) throw new LineUpError("not_found", `${appScope} has no task ${request.task_id}`, { path: "/task_id" });
        conversationId = task.conversation_id;
        taskId = task.task_id;
      } else {
        conversationId = request.conversation_id;
        if (!state().conversations.has(conversationId)) throw new LineUpError("conversation_unknown", `no conversation ${conversationId}`, { path: "/conversation_id" });
      }
      return serverEvidence(conversationId, ids.next("idem"), taskId);
    },
  };

  return port;
}

/** Entries `after + 1 …` (at most `limit`, 1–500) of a numbered list of `total` rows, each keyed by `keyOf(index)` (a task's events, a run's trace). */
async function numberedPage(store: RuntimeStore, collection: string, keyOf: (index: number) => string, total: number, after: number, limit: number): Promise<unknown[]> {
  const from = Math.max(0, Math.floor(after));
  const count = Math.max(1, Math.min(500, Math.floor(limit)));
  if (from >= total) return [];
  const rows = await store.range(collection, { gte: keyOf(from + 1), lte: keyOf(Math.min(total, from + count)) });
  return rows.map((row) => row.value);
}

/** An instance `appScope` may focus or close: its own, or one it opened (`not_owner` otherwise, `not_found` when gone). */
function navigable(state: RuntimeState, appScope: string, instanceId: string): AppInstance {
  const instance = getInstance(state.instances, instanceId);
  if (instance === undefined) throw new LineUpError("not_found", `no instance ${instanceId}`);
  if (instance.app_scope !== appScope && instance.opened_by !== appScope) throw new LineUpError("not_owner", `${appScope} neither runs nor opened instance ${instanceId}`);
  return instance;
}

/** An instance of `appScope` (an app never sees another app's instances: those are `not_found` too). */
function ownInstance(state: RuntimeState, appScope: string, instanceId: string): AppInstance {
  const instance = getInstance(state.instances, instanceId);
  if (instance === undefined || instance.app_scope !== appScope) throw new LineUpError("not_found", `no instance ${instanceId} of ${appScope}`);
  return instance;
}

/** A workflow run of `appScope`'s (`not_found` for another app's). */
function ownRun(state: RuntimeState, appScope: string, runId: string): WorkflowRun {
  const run = state.workflows.get(runId);
  if (run === undefined || run.app_scope !== appScope) throw new LineUpError("not_found", `${appScope} has no workflow run ${runId}`, { path: "/run_id" });
  return run;
}

/** The artifacts a task request names, as refs: each must be one the app may see and shared with the task's conversation. */
async function resolveTaskArtifacts(artifacts: ReturnType<typeof createArtifactAccess>, refs: unknown, conversationId: string | undefined, path: string): Promise<ArtifactRef[]> {
  if (!Array.isArray(refs) || conversationId === undefined) return [];
  const resolved: ArtifactRef[] = [];
  for (const [i, ref] of refs.entries()) {
    const id = (ref as { artifact_id?: unknown } | null)?.artifact_id;
    if (typeof id !== "string") throw new LineUpError("invalid_params", `${path}/${i} names no artifact_id`, { path: `${path}/${i}` });
    let info;
    try {
      info = await artifacts.info(id, { conversation_id: conversationId });
    } catch (error) {
      const code = error instanceof LineUpError ? error.code : "not_found";
      throw new LineUpError(code, `the task may not use artifact ${id}: ${error instanceof Error ? error.message : "unknown"}`, { path: `${path}/${i}` });
    }
    if (info.conversation_id !== conversationId) throw new LineUpError("not_owner", `artifact ${id} is not shared with the conversation the task goes to`, { path: `${path}/${i}` });
    resolved.push(info.artifact);
  }
  return resolved;
}
