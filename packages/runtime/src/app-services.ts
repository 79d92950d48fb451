/**
 * What an installed app's active version runs beside the loop: its own storage and its back-ends. Both
 * follow the committed state (`follow`, after each commit): a new version's storage is migrated (a failed
 * migration puts the version before back), a disabled or replaced version's back-ends stop, and a removed
 * app's storage goes. A back-end asks the host through `hostCalls`, with the checks a surface gets.
 */
import { LineUpError, isRecord, type BackendDeclaration, type CapabilityName, type CapabilityResult, type JsonValue } from "@lineup/protocol";
import { createToolSchemaValidator, loadToolSchemaEngine } from "./tools/schema-engine.js";
import type { RuntimeApps } from "./app-lifecycle/runtime-apps.js";
import type { ElicitationAnswer, HostProvider } from "./capabilities/host-provider.js";
import type { AppCapabilityRequest } from "./capabilities/shell.js";
import type { ToolReport } from "./coordination/inputs.js";
import type { RuntimeState } from "./coordination/state.js";
import type { DeliveredToolCall, ToolCallHandler } from "./coordination/tool-hub.js";
import type { DiagnosticsSink } from "./core/emitter.js";
import type { IdSource } from "./core/ports.js";
import type { AppStorageHost } from "./app-storage/host.js";
import { createAppStorageService, type ActiveAppVersion, type AppStorageApi } from "./app-storage/service.js";
import { createBackendService, type BackendRunners, type BackendService } from "./backends/service.js";
import { backendToolRoute } from "./backends/tool-handler.js";

export interface AppServicesOptions {
  /** Where apps' own storage lives; without it every storage call is `unsupported_on_host`. */
  readonly appStorageHost: AppStorageHost | undefined;
  readonly runners: BackendRunners | undefined;
  readonly hostProvider: HostProvider;
  readonly elicitationTimeoutMs: number | undefined;
  readonly mcpSampler: ((request: { readonly app_scope: string; readonly params: JsonValue }, signal: AbortSignal | undefined) => Promise<JsonValue>) | undefined;
  /** The apps whose MCP servers may ask for sampling (the current app policy's `mcp_sampling_apps`). */
  readonly samplingApps: () => readonly string[] | undefined;
  /** The loop's state, or undefined before `start()`. */
  readonly started: () => RuntimeState | undefined;
  readonly runtimeApps: Pick<RuntimeApps, "manager" | "installFailed" | "bundleFile" | "bundleFolder">;
  readonly requestCapability: (appScope: string, request: AppCapabilityRequest) => Promise<CapabilityResult>;
  /** Reports a back-end tool call's outcome as the app (`AppPort.reportTool`). */
  readonly reportTool: (appScope: string, callId: string, report: ToolReport, instanceId: string | undefined) => Promise<void>;
  readonly ids: IdSource;
  readonly now: () => number;
  readonly diagnostics: DiagnosticsSink;
}

export interface AppServices {
  /** An installed app's active version, as app storage and back-ends follow it. */
  activeVersion(appScope: string): ActiveAppVersion | undefined;
  /** The app's own storage (every call `unsupported_on_host` on a host that keeps none). */
  storageFor(appScope: string): AppStorageApi;
  readonly backends: BackendService;
  /** The tool hub's route for the tool calls an app's back-end answers. */
  readonly backendTools: (call: DeliveredToolCall) => ToolCallHandler | undefined;
  /** After a commit: storage and back-ends follow each app's active version, and go with a removed app. */
  follow(before: RuntimeState | undefined, next: RuntimeState): void;
  /** Stops every back-end and closes every app's storage. */
  stop(): Promise<void>;
}

export function createAppServices(options: AppServicesOptions): AppServices {
  const { hostProvider, ids, diagnostics, runtimeApps, started } = options;
  /** An installed app's active version, as app storage and back-ends follow it. */
  const activeVersion = (appScope: string): ActiveAppVersion | undefined => {
    const managed = started()?.apps.apps[appScope];
    const version = managed?.retained.find((v) => v.version === managed.record.installed_version);
    if (managed === undefined || version === undefined) return undefined;
    return { manifest: version.manifest, version: version.version, bundle_digest: version.bundle_digest ?? `core:${version.version}`, enabled: managed.record.enabled };
  };
  const appStorage = options.appStorageHost === undefined ? undefined : createAppStorageService({ host: options.appStorageHost, active: activeVersion, now: () => options.now(), diagnostics });
  const storageFor = (appScope: string): AppStorageApi => {
    if (appStorage !== undefined) return appStorage.forApp(appScope);
    const refuse = async (): Promise<never> => {
      throw new LineUpError("unsupported_on_host", "this host keeps no app storage");
    };
    return { get: refuse, list: refuse, put: refuse, delete: refuse, batch: refuse, usage: refuse };
  };
  /** What a running back-end may ask: the app's storage (when it declares `storage: true`) and the capabilities it declares, as the app. */
  const backendHostCalls = (appScope: string, declaration: BackendDeclaration) => async (method: string, params: JsonValue, callOptions: { readonly signal?: AbortSignal } = {}): Promise<JsonValue> => {
    const p = (typeof params === "object" && params !== null && !Array.isArray(params) ? params : {}) as Record<string, JsonValue>;
    if (method.startsWith("storage.")) {
      if (declaration.storage !== true) throw new LineUpError("capability_not_declared", `back-end ${declaration.id} does not declare storage`);
      return storageCall(storageFor(appScope), method.slice("storage.".length), p);
    }
    if (method === "capability.request") {
      const capability = p["capability"];
      if (typeof capability !== "string" || !(declaration.capabilities ?? []).includes(capability as CapabilityName)) throw new LineUpError("capability_not_declared", `back-end ${declaration.id} does not declare ${String(capability)}`);
      return (await options.requestCapability(appScope, { capability: capability as CapabilityName, purpose: typeof p["purpose"] === "string" ? p["purpose"] : `back-end ${declaration.id}`, input: (p["input"] ?? {}) as never })) as unknown as JsonValue;
    }
    if (method === "mcp.elicit") return elicit(appScope, p, callOptions.signal);
    if (method === "mcp.sample") {
      if (!(options.samplingApps() ?? []).includes(appScope)) throw new LineUpError("policy_denied", `no policy lets ${appScope}'s MCP server ask for a model's answer (sampling)`);
      if (options.mcpSampler === undefined) throw new LineUpError("unsupported_on_host", "this host has no model to answer sampling");
      return options.mcpSampler({ app_scope: appScope, params }, callOptions.signal);
    }
    throw new LineUpError("method_not_found", `the host offers back-ends no method ${method}`);
  };
  /**
   * An app's MCP server asks the person (`elicitation/create`): the shell's question (`host.elicit`), withdrawn when
   * the server cancels or after `elicitationTimeoutMs` (`expired`); an accepted answer must fit the requested schema.
   */
  const elicit = async (appScope: string, p: Record<string, JsonValue>, signal: AbortSignal | undefined): Promise<JsonValue> => {
    if (hostProvider.elicit === undefined) throw new LineUpError("unsupported_on_host", "this host cannot ask the person");
    if (p["mode"] !== undefined && p["mode"] !== "form") throw new LineUpError("invalid_params", `this host asks only in form mode, not ${String(p["mode"])}`, { path: "/mode" });
    const schema = p["requestedSchema"];
    if (typeof p["message"] !== "string" || !isRecord(schema)) throw new LineUpError("invalid_params", "an elicitation needs a message and a requestedSchema object");
    await loadToolSchemaEngine();
    const check = createToolSchemaValidator(schema, { code: "invalid_params" });
    if (!check.ok) throw new LineUpError("invalid_params", `the requestedSchema is not a schema: ${check.error.message}`, { path: "/requestedSchema" });
    const timeoutMs = options.elicitationTimeoutMs ?? 120_000;
    const expiry = AbortSignal.timeout(timeoutMs);
    const withdrawn = signal === undefined ? expiry : AbortSignal.any([signal, expiry]);
    const prompt = { request_id: ids.next("ask"), app_scope: appScope, app_name: activeVersion(appScope)?.manifest.name ?? appScope, message: p["message"].slice(0, 2_000), requested_schema: schema };
    const answer = await new Promise<ElicitationAnswer>((resolve, reject) => {
      const stop = (): void => reject(expiry.aborted ? new LineUpError("expired", `the person did not answer ${prompt.app_name} within ${Math.round(timeoutMs / 1000)} s`) : new LineUpError("request_cancelled", "the server withdrew its question"));
      if (withdrawn.aborted) return stop();
      withdrawn.addEventListener("abort", stop, { once: true });
      hostProvider.elicit!(prompt, withdrawn).then(resolve, reject);
    });
    if (answer.action !== "accept") return { action: answer.action === "decline" ? "decline" : "cancel" };
    const checked = check.value(answer.content);
    if (!checked.ok) throw new LineUpError("invalid_params", `the answer does not fit what was asked: ${checked.error.message}`, { path: `/content${checked.error.path ?? ""}` });
    return { action: "accept", content: answer.content };
  };
  const backends = createBackendService({
    runners: options.runners ?? {},
    active: activeVersion,
    bundleFile: (appScope, path) => runtimeApps.bundleFile(appScope, path),
    bundleFolder: (appScope, folder) => runtimeApps.bundleFolder(appScope, folder),
    hostCalls: backendHostCalls,
    diagnostics,
  });
  const backendTools = backendToolRoute({
    backends,
    toolOf: (appScope, method) => activeVersion(appScope)?.manifest.tools?.find((t) => t.method === method),
    report: options.reportTool,
    diagnostics,
  });
  /** After a commit: app storage and back-ends follow each app's active version, and go with a removed app. */
  const followApps = (before: RuntimeState | undefined, next: RuntimeState): void => {
    if (before === undefined || before.apps === next.apps) return;
    for (const [scope, managed] of Object.entries(before.apps.apps)) {
      const after = next.apps.apps[scope];
      if (after === undefined) {
        void backends.stopApp(scope);
        void appStorage?.destroy(scope).catch((error: unknown) => diagnostics(error, "app storage of a removed app"));
        continue;
      }
      const changedVersion = after.record.installed_version !== managed.record.installed_version || activeDigest(after) !== activeDigest(managed);
      if (changedVersion || (managed.record.enabled && !after.record.enabled)) {
        void backends.stopApp(scope);
        void appStorage?.close(scope);
      }
      if (changedVersion && after.record.enabled) syncStorage(scope, managed.record.installed_version);
    }
    for (const scope of Object.keys(next.apps.apps)) if (before.apps.apps[scope] === undefined) syncStorage(scope, undefined);
  };
  /** Brings an app's data to its new version now; a migration that fails puts the version before back (its data already is). */
  const syncStorage = (scope: string, previousVersion: string | undefined): void => {
    if (appStorage === undefined) return;
    appStorage.sync(scope).catch(async (error: unknown) => {
      diagnostics(error, "app storage migration");
      const back = previousVersion === undefined ? undefined : started()?.apps.apps[scope]?.retained.find((v) => v.version === previousVersion);
      if (back !== undefined) await runtimeApps.manager.rollback(scope, { version: back.version, reason: `its storage could not be migrated: ${error instanceof Error ? error.message : "unknown"}`.slice(0, 200) }).catch((e: unknown) => diagnostics(e, "rollback after a failed migration"));
      else {
        const message = `its storage could not be brought to ${started()?.apps.apps[scope]?.record.installed_version ?? "the new version"}: ${error instanceof Error ? error.message : "unknown"}`;
        await runtimeApps.installFailed(scope, previousVersion === undefined ? "install" : "update", "store_migration_failed", message).catch((e: unknown) => diagnostics(e, "marking a failed install"));
      }
    });
  };

  return {
    activeVersion,
    storageFor,
    backends,
    backendTools,
    follow: followApps,
    async stop() {
      await backends.stop();
      await appStorage?.stop();
    },
  };
}

/** The active version's bundle digest of a managed app. */
function activeDigest(managed: { readonly record: { readonly installed_version: string }; readonly retained: readonly { readonly version: string; readonly bundle_digest: string | null }[] }): string | null | undefined {
  return managed.retained.find((v) => v.version === managed.record.installed_version)?.bundle_digest;
}

/** One storage operation by name (`get`, `list`, `put`, `delete`, `batch`, `usage`) with JSON params: how a back-end and the bridge reach storage. */
export async function storageCall(api: AppStorageApi, op: string, p: Record<string, JsonValue>): Promise<JsonValue> {
  const str = (name: string): string => (typeof p[name] === "string" ? (p[name] as string) : "");
  switch (op) {
    case "get":
      return ((await api.get(str("collection"), str("key"))) ?? null) as unknown as JsonValue;
    case "list":
      return { records: (await api.list(str("collection"), (p["query"] ?? {}) as never)) as unknown as JsonValue };
    case "put":
      return (await api.put(str("collection"), str("key"), p["value"] ?? null)) as unknown as JsonValue;
    case "delete":
      return (await api.delete(str("collection"), str("key"))) as unknown as JsonValue;
    case "batch":
      return (await api.batch((p["writes"] ?? []) as never)) as unknown as JsonValue;
    case "usage":
      return (await api.usage()) as unknown as JsonValue;
    default:
      throw new LineUpError("method_not_found", `app storage has no operation ${op}`);
  }
}
