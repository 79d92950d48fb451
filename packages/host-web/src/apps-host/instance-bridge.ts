/**
 * One installed app instance on screen: its entry page (from the Runtime's stored, re-verified bundle)
 * in a sandboxed surface, and the bridge between the two. The host adds nothing of its own: every
 * request the app makes is answered by the Runtime through the app's port —
 *
 * - `tool.invoke` is how the Runtime's tool calls for this instance reach the app; the app's outcome
 *   (`completed` / `failed` now, or `pending` then `tool.progress` / `tool.complete` / `tool.fail`)
 *   goes back as the call's report, and the Runtime checks it;
 * - session data is the Runtime's, keyed by the context it issued for this app and conversation;
 * - `lifecycle.ready` tells the Runtime the instance finished launching (calls waiting for it run);
 * - `app.close` closes the instance; a `closing` instance hears `closing` and may flush before teardown;
 * - `event.emit` is the app's declared event, which the Runtime checks and sends to the agent;
 * - `agent.cancel_turn` is the person's Stop pressed in the app: the agent's turn in this instance's
 *   conversation, which the Runtime stops only while the instance is in front;
 * - `agent_message.*` is the instance's view of the app inbox (`inbox-bridge.ts`): state patches and the
 *   agent messages the manifest subscribes to, acknowledged by the app.
 * - `agent.start_task`, `agent.tasks`, `agent.task_events`, `agent.task_control` and `evidence.export` are the
 *   app's agent tasks (feature `app.agent-task.v1`, which the manifest must list, else `capability_not_declared`):
 *   a task starts in this instance's conversation, the others see only this app's tasks (the port is the app's),
 *   and every new event of the app's tasks is pushed to each of its surfaces as `agent.task_event`.
 *
 * A surface that fails — it never became ready, or it died later (left its page, stopped responding: the
 * surface host's `dead`) — is reported to the Runtime once as `instances.failed`, which ends the calls the
 * instance still held with `handler_failed`, and to the owner once through `onFailed`.
 */
import { AGENT_TASK_FEATURE, base64ToBytes, bytesToBase64, LineUpError, type AgentTaskControl, type AgentTaskRequest, type AppManifest, type BridgeHostSnapshot, type BridgeMethodName, type BridgeParams, type DisplayMode, type JsonObject, type JsonValue } from "@lineup/protocol";
import type { AppInstance, AppStorageWrite, CapabilitySummary, LineUpRuntime, SessionDataSnapshot, Unsubscribe } from "@lineup/runtime";
import { mountSurface, type MountedSurface, type SurfaceDeath } from "../surface-host/mount-surface.js";
import { agentMessageDataOf, surfaceFrameOf } from "./inbox-bridge.js";
import { currentTheme } from "../surface-host/theme-tokens.js";
import { appLocale, hostTimeZone } from "./locale.js";
import { onUiLanguageChange } from "../i18n/index.js";

/**
 * Why an instance's surface failed, for its owner: `start` — it did not become ready (its entry did not
 * load, it stalled); `dead` — it died after it was mounted (the surface host's reason), ready or not.
 * `message` is a sentence for people.
 */
export type InstanceFailure =
  | { readonly kind: "start"; readonly message: string }
  | { readonly kind: "dead"; readonly reason: SurfaceDeath["reason"]; readonly message: string };

export interface InstanceBridgeOptions {
  readonly displayMode: DisplayMode;
  /** Where the frame page is served (tests). */
  readonly frameUrl?: string;
  readonly onResize?: (height: number) => void;
  /** Called at most once, when the instance's surface fails; the Runtime has been told `instances.failed`. */
  readonly onFailed?: (failure: InstanceFailure) => void;
}

export interface InstanceBridge {
  readonly surface: Promise<MountedSurface>;
  setDisplayMode(mode: DisplayMode): void;
  /** Tells the app it came to the front or went behind (the `lifecycle` event). */
  setForeground(foreground: boolean): void;
  /** `closing` → flush → torn down; then the Runtime hears `closed`. */
  close(): Promise<void>;
  /** Tears down at once (the instance is gone from the Runtime). */
  dispose(): void;
}

const FLUSH_DEADLINE_MS = 2_000;

function snapshotFor(instance: AppInstance, manifest: AppManifest, mode: DisplayMode, offered: readonly string[], summary: CapabilitySummary, workspaceId?: string): BridgeHostSnapshot {
  // Ids come from the Runtime's records (already checked); the snapshot's schema checks them again on the wire.
  return ({
    app_scope: instance.app_scope,
    app_version: manifest.version,
    instance_id: instance.instance_id,
    entrypoint: instance.entrypoint ?? manifest.entrypoints.find((e: AppManifest["entrypoints"][number]) => e.kind === "primary")?.id ?? manifest.entrypoints[0]!.id,
    route: "/",
    runtime_origin: "null",
    scope: instance.conversation_id === undefined ? {} : { conversation_id: instance.conversation_id },
    theme: currentTheme(),
    locale: appLocale(),
    timezone: hostTimeZone(),
    workspace: workspaceId === undefined ? {} : { workspace_id: workspaceId },
    display_mode: mode,
    // Whether each declared capability could be granted now, and why not; the gateway still decides each request.
    capabilities: summary.capabilities,
    granted_permissions: summary.granted_permissions,
    sdk: { api_version: "1", features: negotiatedFeatures(manifest, offered) },
  } as unknown) as BridgeHostSnapshot;
}

/**
 * The features the app gets here: what it requires (it would not run otherwise) and the optional ones this host
 * offers, so an app can tell whether, say, agent tasks or workflows are available.
 */
function negotiatedFeatures(manifest: AppManifest, offered: readonly string[]): string[] {
  const optional = (manifest.runtime_sdk.optional_features ?? []).filter((feature) => offered.includes(feature) && !manifest.runtime_sdk.required_features.includes(feature));
  return [...manifest.runtime_sdk.required_features, ...optional];
}

/** Whether the manifest lists the agent task feature, required or optional: only then may the app use its methods. */
function declaresAgentTasks(manifest: AppManifest): boolean {
  return manifest.runtime_sdk.required_features.includes(AGENT_TASK_FEATURE) || (manifest.runtime_sdk.optional_features ?? []).includes(AGENT_TASK_FEATURE);
}

const AGENT_TASK_METHODS: ReadonlySet<BridgeMethodName> = new Set(["agent.start_task", "agent.tasks", "agent.task_events", "agent.task_control", "evidence.export"]);

/** The most tasks `agent.tasks` answers with (the result's schema bound): the newest. */
const LISTED_TASKS = 500;

/** A refusal the bridge sends back as `{ code, message }`. */
function refusal(code: ConstructorParameters<typeof LineUpError>[0], message: string): { code: string; message: string } {
  return { code, message };
}

export function connectInstance(container: HTMLElement, runtime: LineUpRuntime, instance: AppInstance, options: InstanceBridgeOptions): InstanceBridge {
  const port = runtime.appPort(instance.app_scope);
  const sessionData = port.sessionData(instance.conversation_id ?? "main");
  const cleanup: Unsubscribe[] = [];
  let mounted: MountedSurface | undefined;
  let disposed = false;
  // The shell may move the instance (pip → foreground) while its entry is still loading: the latest wins.
  let displayMode: DisplayMode = options.displayMode;
  let sessionSubscription: Unsubscribe | undefined;
  let inboxSubscription: Unsubscribe | undefined;
  /**
   * Messages delivered to this surface that wait for its acknowledgement (`explicit_ack`, state patches
   * included): the only ones it may acknowledge (another instance's stay its own). Each leaves when acknowledged.
   */
  const delivered = new Set<string>();
  /**
   * Display messages delivered here lately (the Runtime marks them seen itself): a replacing subscription's
   * backlog may hold one again before that mark is committed, and an app may acknowledge one, a no-op.
   * Bounded, since nothing acknowledges them away.
   */
  const shown = new RecentIds(RECENT_DISPLAY_IDS);
  let failed = false;
  const fail = (failure: InstanceFailure): void => {
    if (failed) return;
    failed = true;
    void runtime.instances.failed(instance.instance_id, failure.message).catch(() => undefined);
    options.onFailed?.(failure);
  };

  const surface = (async (): Promise<MountedSurface> => {
    const entry = await runtime.instances.entry(instance.instance_id);
    if (disposed) throw new LineUpError("request_cancelled", "the instance went away while loading");
    const agentTasks = declaresAgentTasks(entry.manifest);
    const handlers = {
      async request(method: BridgeMethodName, params: unknown): Promise<unknown> {
        if (AGENT_TASK_METHODS.has(method) && !agentTasks) throw refusal("capability_not_declared", `${instance.app_scope} does not list ${AGENT_TASK_FEATURE} in its manifest's runtime_sdk features, so it may not ask the agent for tasks`);
        switch (method) {
          case "session_data.get":
            return unwrap(await sessionData.get());
          case "session_data.replace": {
            const p = params as { data: JsonObject; expected_revision: number };
            return unwrap(await sessionData.replace({ data: p.data, expected_revision: p.expected_revision }));
          }
          case "session_data.subscribe": {
            sessionSubscription?.();
            let first: SessionDataSnapshot | undefined;
            const firstFrame = new Promise<SessionDataSnapshot>((resolve) => {
              const subscribed = sessionData.subscribe((snapshot) => {
                if (first === undefined) {
                  first = snapshot;
                  resolve(snapshot);
                } else mounted?.event("session_data.changed", snapshot as never);
              });
              if (!subscribed.ok) throw refusal(subscribed.error.code, subscribed.error.message);
              sessionSubscription = subscribed.value;
            });
            return firstFrame;
          }
          case "session_data.unsubscribe":
            sessionSubscription?.();
            sessionSubscription = undefined;
            return {};
          case "tool.progress": {
            const p = params as { call_id: string; progress: JsonObject };
            await port.reportTool(p.call_id, { kind: "progress", progress: p.progress as never }, instance.instance_id).catch(rethrow);
            return {};
          }
          case "tool.complete": {
            const p = params as { call_id: string; result: JsonValue };
            await port.reportTool(p.call_id, { kind: "result", result: p.result }, instance.instance_id).catch(rethrow);
            return {};
          }
          case "tool.fail": {
            const p = params as { call_id: string; code: string; message?: string };
            await port.reportTool(p.call_id, { kind: "error", code: p.code, ...(p.message === undefined ? {} : { message: p.message }) }, instance.instance_id).catch(rethrow);
            return {};
          }
          case "app.close": {
            // Through the app's port: this instance, or one this app opened; any other is not_owner.
            const p = params as { instance_id?: string };
            await port.closeInstance(p.instance_id ?? instance.instance_id).catch(rethrow);
            return {};
          }
          case "app.focus": {
            const p = params as { instance_id: string };
            await port.focusInstance(p.instance_id).catch(rethrow);
            return {};
          }
          case "app.list":
            return { apps: port.listAvailableApps() };
          case "app.open_default":
            return port.openDefaultApp().catch(rethrow);
          case "operation.interrupt": {
            const p = params as { reason?: string };
            if (instance.conversation_id === undefined) throw refusal("invalid_state", "this instance serves no conversation, so it runs no operations");
            await port.interruptOperations(instance.conversation_id, p.reason ?? "stopped in the app").catch(rethrow);
            return {};
          }
          case "agent.cancel_turn": {
            // Always this instance's conversation, never one the app names; the Runtime checks the instance is in front.
            if (instance.conversation_id === undefined) throw refusal("invalid_state", "this instance serves no conversation, so it has no agent turn to stop");
            const receipt = await port.cancelTurn(instance.conversation_id, instance.instance_id).catch(rethrow);
            // The receipt without the key of the device's own write to the AppServer: that is not the app's.
            return { receipt_id: receipt.receipt_id, conversation_id: receipt.conversation_id, accepted_at: receipt.accepted_at, status: receipt.status };
          }
          case "agent.start_task": {
            // Always in this instance's conversation; the Runtime checks the entry, the tools and the limits.
            const p = params as { request: AgentTaskRequest };
            return { task: await port.startTask(p.request, { instance_id: instance.instance_id }).catch(rethrow) };
          }
          case "agent.tasks":
            return { tasks: (await settle(() => port.listTasks())).slice(0, LISTED_TASKS) };
          case "agent.task_events": {
            const p = params as { task_id: string; after: number; limit?: number };
            // The task is read before its events: every event it counts is then in the page (the SDK relies on it).
            const task = await settle(() => port.getTask(p.task_id));
            return { task, events: await settle(() => port.taskEvents(p.task_id, p.after, p.limit)) };
          }
          case "agent.task_control": {
            const p = params as { task_id: string; control: AgentTaskControl };
            return { task: await port.controlTask(p.task_id, p.control).catch(rethrow) };
          }
          case "evidence.export": {
            // One of the app's tasks, or this instance's conversation (never one the app names).
            const p = params as { task_id?: string };
            if (p.task_id === undefined && instance.conversation_id === undefined) throw refusal("invalid_state", "this instance serves no conversation, so it has no evidence to export");
            const exported = await port.exportEvidence(p.task_id !== undefined ? { task_id: p.task_id } : { conversation_id: instance.conversation_id! }).catch(rethrow);
            return { export_id: exported.export_id, conversation_id: exported.conversation_id, through_seq: exported.through_seq, artifact: exported.artifact, pack_digest: exported.pack_digest };
          }
          case "app.launch": {
            const p = params as { app_scope: string; entrypoint?: string };
            const launched = await port
              .launchApp({
                app_scope: p.app_scope,
                from_instance_id: instance.instance_id,
                ...(instance.conversation_id === undefined ? {} : { conversation_id: instance.conversation_id }),
                ...(p.entrypoint === undefined ? {} : { entrypoint: p.entrypoint }),
              })
              .catch(rethrow);
            return { app_scope: p.app_scope, instance_id: launched.instance_id };
          }
          case "event.emit": {
            const p = params as { name: string; data: JsonValue };
            await port.emitEvent({ instance_id: instance.instance_id, name: p.name, data: p.data }).catch(rethrow);
            return {};
          }
          case "agent_message.subscribe": {
            // One subscription per surface: a new one replaces the last (the app's SDK asks again with the union it needs).
            const p = params as { types?: string[]; include_pending?: boolean };
            if (instance.conversation_id === undefined) throw refusal("invalid_state", "this instance serves no conversation, so no agent writes to it");
            inboxSubscription?.();
            inboxSubscription = port.subscribeMessages(
              { conversation_id: instance.conversation_id, instance_id: instance.instance_id, ...(p.types === undefined ? {} : { types: p.types }), ...(p.include_pending === undefined ? {} : { include_pending: p.include_pending }) },
              (message) => {
                const frame = surfaceFrameOf(message);
                // Already given to this surface and not yet acknowledged: a subscription that replaced the last one
                // flushes the backlog again, and the app would see the same patch twice.
                if (frame === undefined || delivered.has(message.message_id) || shown.has(message.message_id)) return;
                if (message.delivery === "explicit_ack") delivered.add(message.message_id);
                else shown.add(message.message_id);
                mounted?.event(frame.event, frame.data as never);
              },
            );
            return {};
          }
          case "agent_message.list": {
            const p = params as { after?: string; before?: string; latest?: boolean; limit?: number };
            if (instance.conversation_id === undefined) throw refusal("invalid_state", "this instance serves no conversation, so no agent writes to it");
            const page = await port.listMessages({ conversation_id: instance.conversation_id, ...p }).catch(rethrow);
            // The instance's view of the inbox, as `agent_message.subscribe` delivers it: addressed to it or to none.
            const messages = page.messages.filter((m) => m.instance_id === undefined || m.instance_id === instance.instance_id).flatMap((m) => agentMessageDataOf(m) ?? []);
            return { messages, ...(page.next_cursor === undefined ? {} : { next_cursor: page.next_cursor }), ...(page.prev_cursor === undefined ? {} : { prev_cursor: page.prev_cursor }) };
          }
          case "agent_message.unsubscribe":
            inboxSubscription?.();
            inboxSubscription = undefined;
            return {};
          case "agent_message.ack": {
            const p = params as { message_id: string };
            if (shown.has(p.message_id)) return {};
            if (!delivered.has(p.message_id)) throw refusal("not_found", `message ${p.message_id} was not delivered to this instance`);
            await port.acknowledge(p.message_id).catch(rethrow);
            delivered.delete(p.message_id);
            return {};
          }
          case "capability.request": {
            // The Runtime's Capability Gateway decides (declared, enabled, host, foreground, user, policy, rate);
            // the result is always one of the closed set, never an exception.
            const p = params as { capability: string; purpose: string; input: JsonValue };
            return port.requestCapability({ capability: p.capability, purpose: p.purpose, input: p.input, instance_id: instance.instance_id });
          }
          case "artifact.create": {
            const p = params as { name: string; mime_type: string; content: { encoding: "utf8" | "base64"; data: string } };
            const bytes = p.content.encoding === "utf8" ? new TextEncoder().encode(p.content.data) : base64ToBytes(p.content.data);
            if (bytes === undefined) throw refusal("invalid_params", "the artifact's content is not valid base64");
            const artifact = await port
              .createArtifact({ name: p.name, mime_type: p.mime_type, bytes, ...(instance.conversation_id === undefined ? {} : { conversation_id: instance.conversation_id }) })
              .catch(rethrow);
            return { artifact };
          }
          case "artifact.read": {
            const p = params as { artifact_id: string; max_bytes?: number };
            const read = await port
              .readArtifact(p.artifact_id, { ...(instance.conversation_id === undefined ? {} : { conversation_id: instance.conversation_id }), ...(p.max_bytes === undefined ? {} : { maxBytes: p.max_bytes }) })
              .catch(rethrow);
            return { artifact: read.artifact, content: { encoding: "base64", data: bytesToBase64(read.bytes) }, truncated: read.truncated };
          }
          case "artifact.get": {
            const p = params as { artifact_id: string };
            return port.getArtifact(p.artifact_id, instance.conversation_id === undefined ? {} : { conversation_id: instance.conversation_id }).catch(rethrow);
          }
          case "artifact.list": {
            const p = params as { limit?: number };
            const artifacts = await port
              .listArtifacts({ ...(instance.conversation_id === undefined ? {} : { conversation_id: instance.conversation_id }), ...(p.limit === undefined ? {} : { limit: p.limit }) })
              .catch(rethrow);
            return { artifacts };
          }
          case "artifact.save": {
            // Through the Capability Gateway as this instance (`file.save`): a refusal is a result, not an error.
            const p = params as { artifact_id: string };
            return port
              .saveArtifact({ artifact_id: p.artifact_id, instance_id: instance.instance_id, ...(instance.conversation_id === undefined ? {} : { conversation_id: instance.conversation_id }) })
              .catch(rethrow);
          }
          case "storage.get": {
            const p = params as { collection: string; key: string };
            return { record: (await port.storage().get(p.collection, p.key).catch(rethrow)) ?? null };
          }
          case "storage.list": {
            const { collection, ...query } = params as { collection: string } & Record<string, unknown>;
            return { records: await port.storage().list(collection, query).catch(rethrow) };
          }
          case "storage.put": {
            const p = params as { collection: string; key: string; value: JsonValue };
            return port.storage().put(p.collection, p.key, p.value).catch(rethrow);
          }
          case "storage.delete": {
            const p = params as { collection: string; key: string };
            return port.storage().delete(p.collection, p.key).catch(rethrow);
          }
          case "storage.batch": {
            const p = params as { writes: AppStorageWrite[] };
            return port.storage().batch(p.writes).catch(rethrow);
          }
          case "storage.usage":
            return port.storage().usage().catch(rethrow);
          case "workflow.start": {
            const p = params as { workflow_id: string; input?: JsonValue; idempotency_key?: string };
            const run = await port
              .startWorkflow(p.workflow_id, p.input ?? null, { instance_id: instance.instance_id, ...(p.idempotency_key === undefined ? {} : { idempotency_key: p.idempotency_key }) })
              .catch(rethrow);
            return { run };
          }
          case "workflow.runs":
            return { runs: port.listWorkflowRuns().slice(0, 100) };
          case "workflow.trace": {
            const p = params as { run_id: string; after: number; limit?: number };
            try {
              const run = port.getWorkflowRun(p.run_id);
              return { run, trace: await port.workflowTrace(p.run_id, p.after, p.limit) };
            } catch (error) {
              return rethrow(error);
            }
          }
          case "workflow.control": {
            const p = params as { run_id: string; control: { op: "cancel"; reason?: string } | { op: "confirm"; step_id: string; confirmed: boolean } };
            return { run: await port.controlWorkflow(p.run_id, p.control).catch(rethrow) };
          }
          case "workflow.evidence": {
            const p = params as { run_id: string };
            return port.exportWorkflowEvidence(p.run_id).catch(rethrow);
          }
          case "backend.call": {
            const p = params as { backend: string; method: string; params?: JsonValue };
            return { result: await port.callBackend(p.backend, p.method, p.params ?? null).catch(rethrow) };
          }
          default:
            throw refusal("unsupported_on_host", `${method} is not available to apps on this host yet`);
        }
      },
      onResize: (height: number) => options.onResize?.(height),
    };
    let summary = port.capabilitySummary();
    const mountedSurface = mountSurface(container, entry.html, snapshotFor(instance, entry.manifest, displayMode, runtime.features, summary), handlers, {
      ...(options.frameUrl === undefined ? {} : { frameUrl: options.frameUrl }),
      title: entry.manifest.name ?? instance.app_scope,
      name: entry.manifest.name ?? instance.app_scope,
    });
    mounted = mountedSurface;
    // Theme and locale changes reach the app as they happen (Settings, the system's dark mode, the browser's language, the language chosen in Settings).
    const pushTheme = () => mountedSurface.setTheme(currentTheme());
    // A decision in Settings (or a change of the app) can change what the snapshot said about capabilities.
    cleanup.push(
      runtime.settings.subscribe(() => {
        const next = port.capabilitySummary();
        if (JSON.stringify(next) === JSON.stringify(summary)) return;
        summary = next;
        mountedSurface.event("capabilities.changed", { capabilities: [...next.capabilities], granted_permissions: [...next.granted_permissions] });
      }),
    );
    const observer = new MutationObserver(pushTheme);
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
    const scheme = globalThis.matchMedia?.("(prefers-color-scheme: dark)");
    scheme?.addEventListener("change", pushTheme);
    const pushLocale = () => mountedSurface.setLocale(appLocale(), hostTimeZone());
    globalThis.addEventListener("languagechange", pushLocale);
    const offLanguage = onUiLanguageChange(pushLocale);
    cleanup.push(() => {
      observer.disconnect();
      scheme?.removeEventListener("change", pushTheme);
      globalThis.removeEventListener("languagechange", pushLocale);
      offLanguage();
    });
    // Each new event of the app's tasks reaches every surface of the app (an SDK drops what it already has).
    if (agentTasks) cleanup.push(port.subscribeTasks((event, task) => mountedSurface.event("agent.task_event", { event, task } as never)));
    // Every live surface of the app hears its runs change (bounded: a change adds a handful of trace entries).
    cleanup.push(port.subscribeWorkflows((run, trace) => mountedSurface.event("workflow.changed", { run, trace: trace.slice(-64) } as never)));
    // Tool calls for this instance travel as `tool.invoke`; the app's immediate outcome is reported at once.
    cleanup.push(
      port.registerToolHandler(
        {
          call(call) {
            void mountedSurface.request("tool.invoke", { call_id: call.call_id, method: call.method, arguments: call.arguments } as unknown as BridgeParams<"tool.invoke">).then(
              (response) => {
                const r = response as { result?: { outcome: string; result?: JsonValue; code?: string; message?: string }; error?: { code: string; message: string } };
                if (r.error !== undefined) return port.reportTool(call.call_id, { kind: "error", code: "handler_failed", message: r.error.message }, instance.instance_id);
                const outcome = r.result;
                if (call.mode === "operation" && outcome?.outcome !== "failed") {
                  // A runtime-owned operation. `{ duration_ms }` alone asks for a timed one (expiry and result are the
                  // Runtime's); any other answer means the app runs it and reports its own result by the deadline.
                  const answer = outcome?.result as Record<string, unknown> | null | undefined;
                  const timed = outcome?.outcome === "completed" && answer !== null && typeof answer === "object" && Object.keys(answer).length === 1 && typeof answer["duration_ms"] === "number";
                  if (timed) return port.reportTool(call.call_id, { kind: "start_operation", duration_ms: answer["duration_ms"] as number }, instance.instance_id);
                  const started = port.reportTool(call.call_id, { kind: "start_operation" }, instance.instance_id);
                  if (outcome?.outcome !== "completed") return started; // pending: progress and the result follow
                  return started.then(() => port.reportTool(call.call_id, { kind: "result", result: outcome.result ?? null }, instance.instance_id));
                }
                if (outcome?.outcome === "completed") return port.reportTool(call.call_id, { kind: "result", result: outcome.result ?? null }, instance.instance_id);
                if (outcome?.outcome === "failed") return port.reportTool(call.call_id, { kind: "error", code: outcome.code ?? "handler_failed", ...(outcome.message === undefined ? {} : { message: outcome.message }) }, instance.instance_id);
                return undefined; // pending: tool.progress / tool.complete / tool.fail follow
              },
              // The app never answered (no reply in time, or its surface went away): the call still gets its one
              // outcome, never silence.
              (error: unknown) => port.reportTool(call.call_id, { kind: "error", code: "handler_failed", message: `${instance.app_scope} did not take the call: ${error instanceof Error ? error.message : String(error)}` }, instance.instance_id),
            ).catch(() => undefined); // the Runtime refused the report: the call already had its outcome (cancelled, expired)
          },
          cancel(callId) {
            mountedSurface.event("tool.cancelled", { call_id: callId } as never);
          },
        },
        instance.instance_id,
      ),
    );
    // A surface that dies before it is ready resolves `dead` before `ready` rejects, so such an instance is
    // reported dead (with its reason), not as a start that failed. One that dies while it is being closed (its
    // flush) is simply closed.
    void mountedSurface.dead.then((death) => {
      if (!disposed) fail({ kind: "dead", reason: death.reason, message: death.message });
    });
    mountedSurface.ready.then(
      () => runtime.instances.ready(instance.instance_id).catch(() => undefined),
      (error: unknown) => fail({ kind: "start", message: error instanceof Error ? error.message : String(error) }),
    );
    return mountedSurface;
  })();
  surface.catch((error: unknown) => fail({ kind: "start", message: error instanceof Error ? error.message : String(error) }));

  const teardown = () => {
    disposed = true;
    sessionSubscription?.();
    inboxSubscription?.();
    for (const off of cleanup.splice(0)) off();
  };

  return {
    surface,
    setDisplayMode(mode) {
      displayMode = mode;
      mounted?.setDisplayMode(mode);
    },
    setForeground(foreground) {
      // Spec 4.4: the app hears it is in front or behind (it may flush what it holds when it goes behind).
      mounted?.event("lifecycle", { state: foreground ? "foreground" : "background" } as never);
    },
    async close() {
      const s = mounted;
      teardown();
      if (s !== undefined) await s.close(FLUSH_DEADLINE_MS);
      await runtime.instances.closed(instance.instance_id).catch(() => undefined);
    },
    dispose() {
      teardown();
      void mounted?.close(1).catch(() => undefined);
    },
  };
}

function unwrap<T>(result: { ok: true; value: T } | { ok: false; error: { code: string; message: string } }): T {
  if (result.ok) return result.value;
  throw { code: result.error.code, message: result.error.message };
}

/** Runs a port call (which may throw at once or reject), refusals in the bridge's shape. */
async function settle<T>(call: () => T | Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    rethrow(error);
  }
}

function rethrow(error: unknown): never {
  const e = error as { code?: string; message?: string };
  throw { code: typeof e?.code === "string" ? e.code : "internal_error", message: typeof e?.message === "string" ? e.message : "the Runtime refused" };
}

/** How many display message ids a surface's bridge remembers (`RecentIds`). */
const RECENT_DISPLAY_IDS = 256;

/** The last `limit` ids added, oldest forgotten first. */
class RecentIds {
  readonly #ids = new Set<string>();
  constructor(private readonly limit: number) {}
  has(id: string): boolean {
    return this.#ids.has(id);
  }
  add(id: string): void {
    this.#ids.add(id);
    if (this.#ids.size > this.limit) this.#ids.delete(this.#ids.values().next().value!);
  }
}
