/**
 * Spec 10: the host creates the platform adapters and the `LineUpRuntime`, and wires them. It owns no
 * transport, store, sync or outbox logic itself: those are the Runtime's.
 */
import { createRuntime, RUNTIME_SCHEMA, type AppInstance, type DiagnosticsSink, type LineUpRuntime, type RuntimeStore } from "@lineup/runtime";
import { createBrowserWasmRunner, createIndexedDbAppStorageHost, createLocalBackendsClient, createWebSocketTransport, openIndexedDbStore } from "@lineup/runtime/browser";
import { profileName, type HostConfig } from "./config.js";
import { takeProfileDatabase } from "./profile-database.js";
import { takeEarlyConnection } from "./early-connection.js";
import { createBrowserHostProvider, type BrowserHostProvider } from "../host-provider/index.js";
import { watchPageLifecycle } from "./page-lifecycle.js";
import { formatOpenLink } from "../shell/open-link.js";
import { nativeHost } from "./native-host.js";
import { failLiveInstances, takeRecovery, type Recovery } from "./recovery.js";
import { localizedAppName } from "../i18n/app-text.js";

/** How long an app stays loaded in the background, idle, unless the config says otherwise. */
const DEFAULT_SUSPEND_IDLE_SECONDS = 600;

export interface RunningRuntime {
  readonly runtime: LineUpRuntime;
  /** When the desktop host restarted the page after a hang or a crash: why, and the instances that were failed for it. */
  readonly recovered?: { readonly recovery: Recovery; readonly failed: readonly AppInstance[] };
  /** Stops the Runtime (committing what it holds), then closes the store. Safe to call twice. */
  stop(): Promise<void>;
}

export async function startBrowserRuntime(config: HostConfig, diagnostics: DiagnosticsSink): Promise<RunningRuntime> {
  // Every commit of this store is a `durability: "strict"` transaction (see openIndexedDbStore).
  // Its database may be open already: the page started that when it read its config (profile-database.ts).
  // The Runtime is created, and connects, while the store opens: it reads the store once it has.
  const name = profileName(config);
  const store: Promise<RuntimeStore> = openIndexedDbStore({ name, schema: RUNTIME_SCHEMA, database: takeProfileDatabase(name) });
  const closeStore = (): Promise<void> => store.then((opened) => opened.close(), () => undefined);
  const late: { runtime?: LineUpRuntime } = {};
  // The host's Node process runs the back-ends a page cannot (MCP servers, stdio and local-http programs) when it
  // serves a local back-end service; without one they are unsupported_on_host.
  const local = config.local_backends === undefined ? undefined : createLocalBackendsClient({ ...config.local_backends, profile: name });
  let hostProvider: BrowserHostProvider;
  const runtime = createRuntime({
    store,
    // Its first connection may be open already: the page started it when it read its config (early-connection.ts).
    transport: createWebSocketTransport({ early: takeEarlyConnection() }),
    serverUrl: config.server_url,
    token: config.device_token,
    diagnostics,
    clientInfo: { name: "lineup-host-web", version: "0.1.0" },
    trustedPublishers: config.trusted_publishers,
    // Each app's own storage: one IndexedDB database per app, beside the profile's.
    appStorage: createIndexedDbAppStorageHost({ prefix: name }),
    // At most three app frames at once (the Runtime's default bound); one left in the background for ten minutes (or
    // the config's time) is suspended too, and loads again from its session data when brought back (spec 4.4).
    suspendIdleMs: (config.suspend_idle_seconds ?? DEFAULT_SUSPEND_IDLE_SECONDS) * 1_000,
    // Apps' wasm back-ends, each in a Worker of its own (the page's policy allows blob: workers and wasm, nothing else).
    // The others through the host's local back-end service, when the config names one.
    backends: { wasm: createBrowserWasmRunner, ...local?.runners },
    // Clicking an app's notification is an explicit target (spec 4.3), as a deep link is: the shell follows the
    // link and brings the app forward (its live instance, else it opens in the conversation on screen).
    host: (hostProvider = createBrowserHostProvider({
      onNotificationClick: (appScope) => {
        globalThis.focus?.();
        globalThis.location.hash = formatOpenLink({ app_scope: appScope });
      },
      appName: (appScope) => localizedAppName(late.runtime?.appManager.getApp(appScope)?.projection) ?? appScope,
      native: nativeHost(),
    })),
  });
  late.runtime = runtime;
  try {
    await runtime.start();
  } catch (error) {
    local?.close();
    await closeStore();
    throw error;
  }
  // Before the shell restores anything: after a restart for a hang or a crash, nothing that was live comes back.
  const recovery = takeRecovery();
  const recovered = recovery === undefined ? undefined : { recovery, failed: await failLiveInstances(runtime, recovery) };
  // The browser knows before any socket does that the network went or came back: the connection indicator
  // says offline at once (instead of "Online" while nothing gets through), and the reconnect does not wait
  // out its backoff when the network returns.
  const onOffline = (): void => runtime.dropConnection();
  const onOnline = (): void => runtime.reconnectNow();
  globalThis.addEventListener?.("offline", onOffline);
  globalThis.addEventListener?.("online", onOnline);
  const stopWatchingPage = watchPageLifecycle(runtime, hostProvider, diagnostics, nativeHost());
  let stopping: Promise<void> | undefined;
  return {
    runtime,
    ...(recovered === undefined ? {} : { recovered }),
    stop() {
      globalThis.removeEventListener?.("offline", onOffline);
      globalThis.removeEventListener?.("online", onOnline);
      stopWatchingPage();
      stopping ??= (async () => {
        try {
          await runtime.stop();
        } finally {
          local?.close();
          await closeStore();
        }
      })();
      return stopping;
    },
  };
}
