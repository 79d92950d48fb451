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
 * - `app.close` closes the instance; a `closing` instance hears `closing` and may flush before teardown.
 */
import { LineUpError, type AppManifest, type BridgeHostSnapshot, type BridgeMethodName, type BridgeParams, type DisplayMode, type JsonObject, type JsonValue } from "@lineup/protocol";
import type { AppInstance, LineUpRuntime, SessionDataSnapshot, Unsubscribe } from "@lineup/runtime";
import { mountSurface, type MountedSurface } from "../surface-host/mount-surface.js";
import { currentTheme } from "../surface-host/theme-tokens.js";

export interface InstanceBridgeOptions {
  readonly displayMode: DisplayMode;
  /** Where the frame page is served (tests). */
  readonly frameUrl?: string;
  readonly onResize?: (height: number) => void;
  readonly onFailed?: (message: string) => void;
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

function snapshotFor(instance: AppInstance, manifest: AppManifest, mode: DisplayMode, workspaceId?: string): BridgeHostSnapshot {
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
    locale: navigator.language || "en",
    timezone: Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC",
    workspace: workspaceId === undefined ? {} : { workspace_id: workspaceId },
    display_mode: mode,
    capabilities: (manifest.capabilities ?? []).map((c: { name: string }) => ({ capability: c.name, available: false, blocked_reason: "unsupported_on_host" })) as BridgeHostSnapshot["capabilities"],
    granted_permissions: [],
    sdk: { api_version: "1", features: manifest.runtime_sdk.required_features },
  } as unknown) as BridgeHostSnapshot;
}

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

  const surface = (async (): Promise<MountedSurface> => {
    const entry = await runtime.instances.entry(instance.instance_id);
    if (disposed) throw new LineUpError("request_cancelled", "the instance went away while loading");
    const handlers = {
      async request(method: BridgeMethodName, params: unknown): Promise<unknown> {
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
            const p = params as { instance_id?: string };
            await runtime.appManager.closeInstance(p.instance_id ?? instance.instance_id).catch(rethrow);
            return {};
          }
          case "app.launch": {
            const p = params as { app_scope: string; entrypoint?: string };
            const launched = await port
              .launchApp({ app_scope: p.app_scope, ...(instance.conversation_id === undefined ? {} : { conversation_id: instance.conversation_id }), ...(p.entrypoint === undefined ? {} : { entrypoint: p.entrypoint }) })
              .catch(rethrow);
            return { app_scope: p.app_scope, instance_id: launched.instance_id };
          }
          default:
            throw refusal("unsupported_on_host", `${method} is not available to apps on this host yet`);
        }
      },
      onResize: (height: number) => options.onResize?.(height),
    };
    const mountedSurface = mountSurface(container, entry.html, snapshotFor(instance, entry.manifest, displayMode), handlers, {
      ...(options.frameUrl === undefined ? {} : { frameUrl: options.frameUrl }),
      title: entry.manifest.name ?? instance.app_scope,
    });
    mounted = mountedSurface;
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
                if (outcome?.outcome === "completed" && call.mode === "operation") {
                  // A runtime-owned operation: the app says how long; the deadline and the result are the Runtime's.
                  const duration = (outcome.result as { duration_ms?: unknown } | null)?.duration_ms;
                  if (typeof duration === "number") return port.reportTool(call.call_id, { kind: "start_operation", duration_ms: duration }, instance.instance_id);
                  return port.reportTool(call.call_id, { kind: "error", code: "handler_failed", message: "an operation's handler must answer { duration_ms }" }, instance.instance_id);
                }
                if (outcome?.outcome === "completed") return port.reportTool(call.call_id, { kind: "result", result: outcome.result ?? null }, instance.instance_id);
                if (outcome?.outcome === "failed") return port.reportTool(call.call_id, { kind: "error", code: outcome.code ?? "handler_failed", ...(outcome.message === undefined ? {} : { message: outcome.message }) }, instance.instance_id);
                return undefined; // pending: tool.progress / tool.complete / tool.fail follow
              },
            ).catch(() => undefined);
          },
          cancel(callId) {
            mountedSurface.event("tool.cancelled", { call_id: callId } as never);
          },
        },
        instance.instance_id,
      ),
    );
    mountedSurface.ready.then(
      () => runtime.instances.ready(instance.instance_id).catch(() => undefined),
      (error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        options.onFailed?.(message);
        void runtime.instances.failed(instance.instance_id, message).catch(() => undefined);
      },
    );
    return mountedSurface;
  })();
  surface.catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    options.onFailed?.(message);
    void runtime.instances.failed(instance.instance_id, message).catch(() => undefined);
  });

  const teardown = () => {
    disposed = true;
    sessionSubscription?.();
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

function rethrow(error: unknown): never {
  const e = error as { code?: string; message?: string };
  throw { code: typeof e?.code === "string" ? e.code : "internal_error", message: typeof e?.message === "string" ? e.message : "the Runtime refused" };
}
