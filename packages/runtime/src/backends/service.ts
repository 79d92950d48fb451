/**
 * The back-end service (spec 003 "App 后端不是绕过宿主的后门"): the one door to an app's back-ends. It checks every
 * call — the app installed and enabled, `app.backend.v1`, the back-end and the method declared, the params and the
 * result against their declared schemas, a host that runs the protocol — then hands it to the runner of that
 * back-end, started on first use from the verified bundle of the active version and stopped when the app is
 * disabled, removed or moves to another version. What a running back-end asks of the host comes back through
 * `hostCalls`, which answers with the same checks a surface gets.
 */
import { LineUpError, MCP_BACKEND_PROTOCOLS, type BackendDeclaration, type BackendProtocol, type JsonValue } from "@lineup/protocol";
import { createToolSchemaValidator, loadToolSchemaEngine } from "../tools/schema-engine.js";
import type { DiagnosticsSink } from "../core/emitter.js";
import type { ActiveAppVersion } from "../app-storage/service.js";
import { createRemoteHttpRunner } from "./remote-http.js";
import { systemClock } from "../core/system.js";
import { MAX_BACKEND_MESSAGE_BYTES, type BackendCallOptions, type BackendHostCalls, type BackendRunner, type BackendStartSpec } from "./runner.js";

export type BackendRunnerFactory = (spec: BackendStartSpec) => BackendRunner;
/** The runners a host offers, by protocol; a protocol without one is not run on this host. */
export type BackendRunners = Partial<Record<BackendProtocol, BackendRunnerFactory>>;

/** The `remote-http` runner as a factory: it calls the endpoint its declaration names. */
export const remoteHttpRunners: BackendRunners = {
  "remote-http": (spec) => {
    if (spec.endpoint_url === undefined) throw new LineUpError("handler_failed", `back-end ${spec.declaration.id} names no endpoint`, { data: { reason: "start_failed" } });
    return createRemoteHttpRunner(spec, { url: spec.endpoint_url, clock: systemClock });
  },
};

export interface BackendServiceOptions {
  readonly runners: BackendRunners;
  readonly active: (appScope: string) => ActiveAppVersion | undefined;
  readonly bundleFile: (appScope: string, path: string) => Promise<Uint8Array>;
  /** Every file of the verified bundle under `folder` (`""`: all), by its path relative to it (an `mcp-stdio` server's code). */
  readonly bundleFolder: (appScope: string, folder: string) => Promise<ReadonlyMap<string, Uint8Array>>;
  /** What a back-end of `appScope` may ask the host (storage, capabilities), checked as the app. */
  readonly hostCalls: (appScope: string, declaration: BackendDeclaration) => BackendHostCalls;
  readonly diagnostics?: DiagnosticsSink;
}

export interface BackendService {
  call(appScope: string, backendId: string, method: string, params: JsonValue, options?: BackendCallOptions): Promise<JsonValue>;
  /**
   * Reads an MCP Apps view of an app's MCP back-end: `uri` must be the `view.resource_uri` of one of the app's tools
   * that back-end serves (`not_found` otherwise). Resolves with the server's `{contents}`.
   */
  readView(appScope: string, backendId: string, uri: string, options?: { readonly signal?: AbortSignal }): Promise<JsonValue>;
  /** Stops every back-end of an app (disabled, removed, another version). */
  stopApp(appScope: string): Promise<void>;
  stop(): Promise<void>;
}

type Check = (value: unknown) => { ok: boolean; error?: { message: string; path?: string } };

export function createBackendService(options: BackendServiceOptions): BackendService {
  const running = new Map<string, { readonly digest: string; readonly runner: Promise<BackendRunner> }>();
  const validators = new Map<string, Check | undefined>();

  const validatorFor = (key: string, schema: object | undefined, code: "invalid_params" | "invalid_result"): Check | undefined => {
    if (schema === undefined) return undefined;
    const id = `${code} ${key}`;
    if (!validators.has(id)) {
      const made = createToolSchemaValidator(schema, { code });
      validators.set(id, made.ok ? made.value : undefined);
    }
    return validators.get(id);
  };

  /** The app (installed, enabled, `app.backend.v1`) and its back-end `backendId`, or the refusal. */
  const declared = (appScope: string, backendId: string): { active: ActiveAppVersion; declaration: BackendDeclaration } => {
    const active = options.active(appScope);
    if (active === undefined) throw new LineUpError("app_not_installed", `no app ${appScope}`);
    if (!active.enabled) throw new LineUpError("app_disabled", `app ${appScope} is disabled`);
    const manifest = active.manifest;
    const features = [...manifest.runtime_sdk.required_features, ...(manifest.runtime_sdk.optional_features ?? [])];
    if (!features.includes("app.backend.v1")) throw new LineUpError("capability_not_declared", `${appScope} does not declare the feature app.backend.v1`);
    const declaration = (manifest.backends ?? []).find((b) => b.id === backendId);
    if (declaration === undefined) throw new LineUpError("not_found", `${appScope} declares no back-end ${JSON.stringify(backendId)}`, { path: "/backend" });
    return { active, declaration };
  };

  const runnerFor = (appScope: string, active: ActiveAppVersion, declaration: BackendDeclaration): Promise<BackendRunner> => {
    const key = `${appScope}/${declaration.id}`;
    const current = running.get(key);
    if (current !== undefined && current.digest === active.bundle_digest) return current.runner;
    if (current !== undefined) void current.runner.then((r) => r.stop()).catch(() => undefined);
    const factory = options.runners[declaration.protocol]!;
    const runner = (async () => {
      const entry = declaration.entry === undefined ? new Uint8Array() : await options.bundleFile(appScope, declaration.entry);
      const folder = declaration.entry === undefined ? "" : declaration.entry.slice(0, Math.max(0, declaration.entry.lastIndexOf("/")));
      const files = declaration.protocol === "mcp-stdio" ? await options.bundleFolder(appScope, folder) : undefined;
      const endpoint = declaration.endpoint === undefined ? undefined : active.manifest.execution?.endpoints?.find((e) => e.id === declaration.endpoint);
      return factory({
        ...(endpoint === undefined ? {} : { endpoint_url: endpoint.url }),
        ...(files === undefined ? {} : { files }),
        app_scope: appScope,
        declaration,
        entry,
        hostCalls: options.hostCalls(appScope, declaration),
        ...(options.diagnostics === undefined ? {} : { diagnostics: options.diagnostics }),
      });
    })();
    running.set(key, { digest: active.bundle_digest, runner });
    runner.catch(() => {
      if (running.get(key)?.runner === runner) running.delete(key);
    });
    return runner;
  };

  return {
    async call(appScope, backendId, method, params, callOptions = {}) {
      const { active, declaration } = declared(appScope, backendId);
      const declaredMethod = declaration.methods.find((m) => m.name === method);
      if (declaredMethod === undefined) throw new LineUpError("method_not_found", `back-end ${backendId} of ${appScope} declares no method ${JSON.stringify(method)}`, { path: "/method" });
      if (options.runners[declaration.protocol] === undefined) throw new LineUpError("unsupported_on_host", `this host does not run ${declaration.protocol} back-ends`);
      const text = JSON.stringify(params ?? null);
      if (text.length > MAX_BACKEND_MESSAGE_BYTES) throw new LineUpError("message_too_large", `a back-end call's params are at most ${MAX_BACKEND_MESSAGE_BYTES} bytes of JSON`, { path: "/params" });
      const key = `${appScope}/${active.bundle_digest}/${backendId}/${method}`;
      await loadToolSchemaEngine();
      const input = validatorFor(key, declaredMethod.params_schema, "invalid_params")?.(params);
      if (input !== undefined && !input.ok) throw new LineUpError("invalid_params", `${backendId}.${method}: ${input.error?.message ?? "the params fail params_schema"}`, { path: `/params${input.error?.path ?? ""}` });
      const runner = await runnerFor(appScope, active, declaration);
      const result = await runner.call(method, params ?? null, callOptions);
      // An MCP tool's result_schema is its outputSchema: what it checks is the result's structuredContent.
      const checked = MCP_BACKEND_PROTOCOLS.includes(declaration.protocol) ? (result as { structuredContent?: JsonValue } | null)?.structuredContent : result;
      const output = validatorFor(key, declaredMethod.result_schema, "invalid_result")?.(checked);
      if (output !== undefined && !output.ok) throw new LineUpError("invalid_result", `${backendId}.${method} answered what its result_schema refuses: ${output.error?.message ?? "invalid"}`, { path: output.error?.path ?? "" });
      return result;
    },
    async readView(appScope, backendId, uri, readOptions = {}) {
      const { active, declaration } = declared(appScope, backendId);
      if (!(active.manifest.tools ?? []).some((t) => t.backend?.id === backendId && t.view?.resource_uri === uri)) {
        throw new LineUpError("not_found", `no tool of ${appScope} shows ${JSON.stringify(uri.slice(0, 200))} from back-end ${backendId}`, { path: "/uri" });
      }
      if (options.runners[declaration.protocol] === undefined) throw new LineUpError("unsupported_on_host", `this host does not run ${declaration.protocol} back-ends`);
      const runner = await runnerFor(appScope, active, declaration);
      if (runner.readResource === undefined) throw new LineUpError("unsupported_on_host", `a ${declaration.protocol} back-end has no resources`);
      return runner.readResource(uri, readOptions);
    },
    async stopApp(appScope) {
      const stopping: Promise<void>[] = [];
      for (const [key, entry] of running) {
        if (!key.startsWith(`${appScope}/`)) continue;
        running.delete(key);
        stopping.push(entry.runner.then((r) => r.stop()).catch(() => undefined));
      }
      await Promise.all(stopping);
    },
    async stop() {
      const all = [...running.values()];
      running.clear();
      await Promise.all(all.map((entry) => entry.runner.then((r) => r.stop()).catch(() => undefined)));
    },
  };
}
