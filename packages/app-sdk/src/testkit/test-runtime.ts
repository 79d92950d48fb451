/**
 * `createTestRuntime`: a REAL Runtime (`createRuntime`) in one process, for an app author's tests —
 * a memory store, the `FakeAppServer` with session `s-1` bound to `agent-1`, a fake clock, the given
 * manifests packed and signed with a fresh publisher key and installed through the App Manager. The
 * app's SDK comes from `sdk(appScope)`; the agent's side from `agent`. No network, no disk.
 *
 * Instances the Runtime launches for the installed apps (an `app_ready` tool call) are reported
 * ready as a host would once the surface loaded, unless `autoReady: false`. `restart()` stops the
 * Runtime and starts a new one on the same store, as a device restart would: the instances come back
 * `suspended`, and (with `autoReady`) their surfaces report ready again, so an app bound to one sees
 * `suspend` → `restore` → `foreground`.
 */
import { LineUpError, type AppManifest } from "@lineup/protocol";
import {
  createMemoryStore,
  createMemoryStoreData,
  createRuntime,
  generatePublisherKey,
  packBundle,
  RUNTIME_SCHEMA,
  signBundle,
  type AppOperation,
  type LineUpRuntime,
  type PublisherKey,
  type RuntimeOptions,
  type RuntimeStore,
} from "@lineup/runtime";
import { createFakeClock, createSequentialIds, FakeAppServer, type FakeClock } from "@lineup/runtime/testing";
import { createAppSdk, type AppSdkOptions } from "../create-app-sdk.js";
import type { InstanceAppRuntimeSDK, LineUpAppRuntimeSDK } from "../types.js";
import { createTestAgent, type TestAgent } from "./agent.js";
import { waitFor } from "./wait.js";

export interface TestApp {
  readonly manifest: AppManifest;
  /** The bundle's `index.html`. Default: a one-line page. */
  readonly html?: string;
}

export interface TestRuntimeOptions {
  readonly apps?: readonly TestApp[];
  /** Report launched instances of the installed apps ready (as a host does once the surface loaded). Default true. */
  readonly autoReady?: boolean;
  /** More Runtime options (host, policies, features); the store, transport, clock and ids are the testkit's. */
  readonly runtime?: Omit<Partial<RuntimeOptions>, "store" | "transport" | "serverUrl" | "token" | "clock" | "ids">;
}

export interface TestRuntime {
  /** The Runtime now running (a new one after `restart()`). */
  readonly runtime: LineUpRuntime;
  /** The fake App Server: sessions, the agent's side, every write the device made. */
  readonly server: FakeAppServer;
  /** The SDK an app gets, over the Runtime's port for `appScope`; with `instance_id`, bound to that instance of the app. */
  sdk(appScope: string, options: AppSdkOptions & { readonly instance_id: string }): InstanceAppRuntimeSDK;
  sdk(appScope: string, options?: AppSdkOptions): LineUpAppRuntimeSDK;
  readonly agent: TestAgent;
  /** Moves the Runtime's clock (tool deadlines, runtime-owned operations) and fires what is due. */
  advanceTime(ms: number): void;
  /** Errors the Runtime reported to its diagnostics sink, with their context. */
  readonly runtimeErrors: readonly { readonly error: unknown; readonly context: string }[];
  /**
   * Stops the Runtime and starts a new one on the same store, server and clock; resolves once it is online
   * with its outbox drained. SDKs made before belong to the stopped Runtime: take new ones from `sdk()`.
   */
  restart(): Promise<void>;
  /** Stops the Runtime and closes its store. */
  stop(): Promise<void>;
}

const AGENT_ID = "agent-1";
const SESSION_ID = "s-1";
const DEFAULT_HTML = "<!doctype html><title>app</title><p>test app</p>";

async function signedBundle(app: TestApp, key: PublisherKey): Promise<Uint8Array> {
  const files = new Map<string, Uint8Array>([["index.html", new TextEncoder().encode(app.html ?? DEFAULT_HTML)]]);
  const packed = await packBundle({ manifest: app.manifest, files });
  if (!packed.ok) throw new LineUpError(packed.error.code, `packing ${app.manifest.app_scope}: ${packed.error.message}`);
  const signed = await signBundle(packed.value, key.privateKey);
  if (!signed.ok) throw new LineUpError(signed.error.code, `signing ${app.manifest.app_scope}: ${signed.error.message}`);
  return signed.value;
}

function installed(operation: AppOperation, appScope: string): void {
  if (operation.status === "succeeded") return;
  const error = operation.error;
  throw new LineUpError(error?.code ?? "internal_error", `installing ${appScope}: ${operation.status}${error === undefined ? "" : ` (${error.message})`}`);
}

export async function createTestRuntime(options: TestRuntimeOptions = {}): Promise<TestRuntime> {
  const server = new FakeAppServer({ agents: [AGENT_ID] });
  server.createSession({ session_id: SESSION_ID, agent_id: AGENT_ID });
  const data = createMemoryStoreData();
  const clock: FakeClock = createFakeClock();
  const key = await generatePublisherKey();
  const runtimeErrors: { error: unknown; context: string }[] = [];
  const extra = options.runtime ?? {};
  const testScopes = new Set(options.apps?.map((app) => app.manifest.app_scope as string) ?? []);

  /** One run of the device: a store over the kit's data, a Runtime, and (with autoReady) the host's ready reports. */
  interface Boot {
    readonly runtime: LineUpRuntime;
    readonly store: RuntimeStore;
    offInstances(): void;
  }
  let boots = 0;
  const boot = async (): Promise<Boot> => {
    const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
    const runtime = createRuntime({
      relistIntervalMs: 0,
      ...extra,
      trustedPublishers: [...(extra.trustedPublishers ?? []), key.trustedKey],
      diagnostics: (error, context) => {
        runtimeErrors.push({ error, context });
        extra.diagnostics?.(error, context);
      },
      store,
      transport: server.transport,
      serverUrl: "mem://testkit",
      token: server.deviceToken,
      clock,
      // A new run id per boot, so ids of a restarted Runtime never repeat the previous run's.
      ids: createSequentialIds({ run: boots === 0 ? "t" : `t${boots}` }),
    });
    boots += 1;
    const current: Boot = { runtime, store, offInstances: () => undefined };
    try {
      await runtime.start();
      if (options.autoReady !== false) {
        const readied = new Set<string>();
        const readyAll = (view: ReturnType<LineUpRuntime["instances"]["snapshot"]>): void => {
          for (const instance of view.instances) {
            if (!testScopes.has(instance.app_scope) || readied.has(instance.instance_id)) continue;
            // A host mounts a surface for every live instance; a suspended one (after a restart) comes back when it loads.
            if (instance.status !== "launching" && instance.status !== "restoring" && instance.status !== "suspended") continue;
            readied.add(instance.instance_id);
            runtime.instances.ready(instance.instance_id).catch((error: unknown) => runtimeErrors.push({ error, context: `testkit: ready ${instance.instance_id}` }));
          }
        };
        current.offInstances = runtime.instances.subscribe(readyAll);
        readyAll(runtime.instances.snapshot());
      }
      await runtime.whenOnline();
    } catch (error) {
      await halt(current).catch(() => undefined);
      throw error;
    }
    return current;
  };
  const halt = async (current: Boot): Promise<void> => {
    current.offInstances();
    await current.runtime.stop();
    await current.store.close();
  };

  let running = await boot();
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await halt(running);
  };

  try {
    for (const app of options.apps ?? []) installed(await running.runtime.appManager.install(await signedBundle(app, key), { approved: true }), app.manifest.app_scope);
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }

  // The outbox is empty (chat, a core app, reads the whole view): what the device publishes (the inventory) reached the server.
  const settled = async (timeoutMs: number): Promise<void> => {
    await waitFor(() => {
      const runtime = running.runtime;
      return runtime.lifecycle.snapshot().status === "online" && runtime.appPort("chat").view().queued_actions === 0 ? true : undefined;
    }, timeoutMs, "the device's outbox to drain");
  };
  await settled(5_000);

  const sdk = (appScope: string, sdkOptions?: AppSdkOptions): LineUpAppRuntimeSDK => createAppSdk(running.runtime.appPort(appScope), sdkOptions);
  return {
    get runtime() {
      return running.runtime;
    },
    server,
    sdk: sdk as TestRuntime["sdk"],
    agent: createTestAgent(server, { agent_id: AGENT_ID, settled }),
    advanceTime: (ms) => clock.advance(ms),
    runtimeErrors,
    async restart() {
      if (stopped) throw new LineUpError("invalid_state", "the test runtime was stopped");
      stopped = true;
      await halt(running);
      running = await boot();
      stopped = false;
      await settled(5_000);
    },
    stop,
  };
}
