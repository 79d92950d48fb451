/**
 * One installed app instance on screen: its entry page (from the Runtime's stored, re-verified bundle)
 * in a sandboxed surface, and the bridge between the two. The host adds nothing of its own: every
 * request the app makes is answered by the Runtime through the app's port, each method an entry of the table in
 * `bridge-methods.ts` —
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
 * - `launcher.open` is the person's Ctrl/⌘+K pressed inside the app: the one host action an app may ask for,
 *   honoured only while its frame holds the focus.
 *
 * A surface that fails — it never became ready, or it died later (left its page, stopped responding: the
 * surface host's `dead`) — is reported to the Runtime once as `instances.failed`, which ends the calls the
 * instance still held with `handler_failed`, and to the owner once through `onFailed`.
 */
import { AGENT_TASK_FEATURE, LineUpError, type AppManifest, type BridgeHostSnapshot, type BridgeParams, type DisplayMode, type JsonValue } from "@lineup/protocol";
import type { AppInstance, AppPort, CapabilitySummary, LineUpRuntime, Unsubscribe } from "@lineup/runtime";
import { mountSurface, type MountedSurface, type SurfaceDeath } from "../surface-host/mount-surface.js";
import { answerBridgeMethod, RECENT_DISPLAY_IDS, RecentIds, type BridgeSession } from "./bridge-methods.js";
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
  /** The person pressed the launcher's shortcut (Ctrl/⌘+K) while the focus was in this instance's frame. */
  readonly onLauncher?: () => void;
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

export function connectInstance(container: HTMLElement, runtime: LineUpRuntime, instance: AppInstance, options: InstanceBridgeOptions): InstanceBridge {
  const port = runtime.appPort(instance.app_scope);
  const cleanup: Unsubscribe[] = [];
  let mounted: MountedSurface | undefined;
  let disposed = false;
  // The shell may move the instance (pip → foreground) while its entry is still loading: the latest wins.
  let displayMode: DisplayMode = options.displayMode;
  const session: BridgeSession = {
    instance,
    port,
    sessionData: port.sessionData(instance.conversation_id ?? "main"),
    push: (name, data) => mounted?.event(name, data),
    subscriptions: {},
    delivered: new Set(),
    // Bounded, since nothing acknowledges display messages away.
    shown: new RecentIds(RECENT_DISPLAY_IDS),
    openLauncher: () => {
      // Only the frame that holds the person's focus speaks for their key press; any other asking is ignored.
      if (mounted !== undefined && document.activeElement === mounted.frame) options.onLauncher?.();
    },
  };
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
    const summary = port.capabilitySummary();
    const mountedSurface = mountSurface(
      container,
      entry.html,
      snapshotFor(instance, entry.manifest, displayMode, runtime.features, summary),
      { request: (method, params) => answerBridgeMethod(method, params, session, agentTasks), onResize: (height) => options.onResize?.(height) },
      { ...(options.frameUrl === undefined ? {} : { frameUrl: options.frameUrl }), title: entry.manifest.name ?? instance.app_scope, name: entry.manifest.name ?? instance.app_scope },
    );
    mounted = mountedSurface;
    cleanup.push(followHostChanges(mountedSurface, runtime, port, summary));
    // Each new event of the app's tasks reaches every surface of the app (an SDK drops what it already has).
    if (agentTasks) cleanup.push(port.subscribeTasks((event, task) => mountedSurface.event("agent.task_event", { event, task } as never)));
    // Every live surface of the app hears its runs change (bounded: a change adds a handful of trace entries).
    cleanup.push(port.subscribeWorkflows((run, trace) => mountedSurface.event("workflow.changed", { run, trace: trace.slice(-64) } as never)));
    cleanup.push(forwardToolCalls(mountedSurface, port, instance));
    // A surface that dies before it is ready resolves `dead` before `ready` rejects, so such an instance is
    // reported dead (with its reason), not as a start that failed. One that dies while it is being closed (its
    // flush) is simply closed.
    void mountedSurface.dead.then((death) => {
      if (!disposed) fail({ kind: "dead", reason: death.reason, message: death.message });
    });
    mountedSurface.ready.then(
      // A page replaced on a new app version loads under an instance already live: only a launch or a
      // restore waits for this report.
      () => (waitsForReady(runtime, instance.instance_id) ? runtime.instances.ready(instance.instance_id).catch(() => undefined) : undefined),
      (error: unknown) => fail({ kind: "start", message: error instanceof Error ? error.message : String(error) }),
    );
    return mountedSurface;
  })();
  surface.catch((error: unknown) => fail({ kind: "start", message: error instanceof Error ? error.message : String(error) }));

  const teardown = () => {
    disposed = true;
    session.subscriptions.sessionData?.();
    session.subscriptions.inbox?.();
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

/**
 * Theme, locale and capability changes reach the app as they happen (Settings, the system's dark mode, the
 * browser's language, the language chosen in Settings, a decision about a capability). Returns the unsubscribe.
 */
function followHostChanges(surface: MountedSurface, runtime: LineUpRuntime, port: AppPort, initial: CapabilitySummary): Unsubscribe {
  let summary = initial;
  const offSettings = runtime.settings.subscribe(() => {
    const next = port.capabilitySummary();
    if (JSON.stringify(next) === JSON.stringify(summary)) return;
    summary = next;
    surface.event("capabilities.changed", { capabilities: [...next.capabilities], granted_permissions: [...next.granted_permissions] });
  });
  const pushTheme = () => surface.setTheme(currentTheme());
  const observer = new MutationObserver(pushTheme);
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
  const scheme = globalThis.matchMedia?.("(prefers-color-scheme: dark)");
  scheme?.addEventListener("change", pushTheme);
  const pushLocale = () => surface.setLocale(appLocale(), hostTimeZone());
  globalThis.addEventListener("languagechange", pushLocale);
  const offLanguage = onUiLanguageChange(pushLocale);
  return () => {
    offSettings();
    observer.disconnect();
    scheme?.removeEventListener("change", pushTheme);
    globalThis.removeEventListener("languagechange", pushLocale);
    offLanguage();
  };
}

/**
 * Tool calls for this instance travel to the app as `tool.invoke`; the app's immediate outcome is reported to the
 * Runtime at once, and every call gets its one outcome even when the app never answers. Returns the unsubscribe.
 */
function forwardToolCalls(surface: MountedSurface, port: AppPort, instance: AppInstance): Unsubscribe {
  return port.registerToolHandler(
    {
      call(call) {
        void surface.request("tool.invoke", { call_id: call.call_id, method: call.method, arguments: call.arguments } as unknown as BridgeParams<"tool.invoke">).then(
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
        surface.event("tool.cancelled", { call_id: callId } as never);
      },
    },
    instance.instance_id,
  );
}

/** The instance is launching or restoring: its page's first `ready` moves it on. */
function waitsForReady(runtime: LineUpRuntime, instanceId: string): boolean {
  const status = runtime.instances.snapshot().instances.find((i) => i.instance_id === instanceId)?.status;
  return status === "launching" || status === "restoring";
}
