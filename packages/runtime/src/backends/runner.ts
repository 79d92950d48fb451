/**
 * The one shape every back-end runner has (spec 003 "App 后端"): the host starts an app's declared back-end,
 * supervises it under its limits and restart policy, and hands it calls. A runner never decides who may call
 * it — the back-end service (`backends/service.ts`) checks the app, the declaration and the method first —
 * it only runs calls and keeps the program inside its limits.
 *
 * Every refusal is a `LineUpError` with a code from the protocol's table:
 * - `operation_expired` — the call ran past `call_timeout_ms`; the program was killed (and restarts per policy);
 * - `handler_failed` — the program crashed, trapped, broke its memory limit, wrote something that is not the
 *   protocol, or could not be started; `data.reason` says which (`crashed`, `trap`, `memory_limit`,
 *   `protocol_violation`, `start_failed`, `stopped`, `restart_limit`);
 * - `overloaded` — `max_concurrent_calls` calls are already in flight;
 * - `request_cancelled` — the caller's signal aborted the call;
 * - `invalid_result` — the program answered, but not with JSON (or over the size limit);
 * - `method_not_found`, `invalid_params`, or any code the program itself answers with (its JSON-RPC error's
 *   `data.code`, when that is a code of the table; otherwise `handler_failed`).
 */
import type { BackendDeclaration, JsonValue } from "@lineup/protocol";

export type BackendStatus = "idle" | "starting" | "running" | "restarting" | "stopped" | "failed";

/** Limits with every default applied (`resolveBackendLimits`). */
export interface ResolvedBackendLimits {
  readonly memory_mb: number;
  readonly call_timeout_ms: number;
  readonly max_concurrent_calls: number;
}

export interface ResolvedRestartPolicy {
  readonly policy: "never" | "on-failure" | "always";
  readonly max_restarts: number;
  readonly backoff_ms: number;
}

export const DEFAULT_BACKEND_LIMITS: ResolvedBackendLimits = { memory_mb: 64, call_timeout_ms: 10_000, max_concurrent_calls: 4 };
export const DEFAULT_RESTART_POLICY: ResolvedRestartPolicy = { policy: "on-failure", max_restarts: 5, backoff_ms: 500 };
/** The largest params or result a back-end call carries, as JSON text. */
export const MAX_BACKEND_MESSAGE_BYTES = 1024 * 1024;

export function resolveBackendLimits(declaration: Pick<BackendDeclaration, "limits">): ResolvedBackendLimits {
  return { ...DEFAULT_BACKEND_LIMITS, ...(declaration.limits ?? {}) };
}

export function resolveRestartPolicy(declaration: Pick<BackendDeclaration, "restart">): ResolvedRestartPolicy {
  return { ...DEFAULT_RESTART_POLICY, ...(declaration.restart ?? {}) };
}

/**
 * What a back-end may ask the host while it runs (a `stdio-jsonrpc` program's requests to the host): storage,
 * artifacts, capabilities, tools. The service answers each through the same checks and audit as a surface's;
 * a runner only relays (an MCP back-end's `elicitation/create` and `sampling/createMessage` as `mcp.elicit` and
 * `mcp.sample`, with the signal that ends when the server cancels its request). Rejects with a `LineUpError`, which the runner passes back to the program as a JSON-RPC
 * error (`data.code`).
 */
export type BackendHostCalls = (method: string, params: JsonValue, options?: { readonly signal?: AbortSignal }) => Promise<JsonValue>;

/** What a caller may add to a back-end call besides its method and params. */
export interface BackendCallOptions {
  readonly signal?: AbortSignal;
  /**
   * The same key for the same effect (a workflow step's attempt, `workflow:<run_id>:<step_id>~<attempt>`): a call
   * made again with it after a crash is the same call, which the back-end can recognise and answer without doing
   * the work twice. A runner hands it to the program with the call (`stdio-jsonrpc`, `local-http`: the
   * request's `idempotency_key`; `remote-http`: that and the `Idempotency-Key` header). `wasm` modules get no key: they can
   * have no effect outside their own instance.
   */
  readonly idempotency_key?: string;
}

export interface BackendRunner {
  /** Runs one call. Starts the program first when it is not running. */
  call(method: string, params: JsonValue, options?: BackendCallOptions): Promise<JsonValue>;
  /** Kills the program, ends calls in flight `handler_failed` (`data.reason: "stopped"`) and refuses later ones the same way. Idempotent. */
  stop(): Promise<void>;
  status(): BackendStatus;
  /** MCP back-ends: reads one of the server's resources (an MCP Apps view's `ui://` page): `{contents}`. */
  readResource?(uri: string, options?: { readonly signal?: AbortSignal }): Promise<JsonValue>;
}

/** What a runner factory is given: the declaration, the entry file's bytes, and (`stdio-jsonrpc`) the app's working directory. */
export interface BackendStartSpec {
  readonly app_scope: string;
  readonly declaration: BackendDeclaration;
  /** The bytes of `declaration.entry`, read from the verified bundle. */
  readonly entry: Uint8Array;
  /** `mcp-stdio`: every file of the verified bundle in the entry's folder, by its path relative to that folder. */
  readonly files?: ReadonlyMap<string, Uint8Array>;
  readonly hostCalls: BackendHostCalls;
  /** `remote-http`: the URL of the declared endpoint it names (`execution.endpoints`). */
  readonly endpoint_url?: string;
  /** A diagnostics sink for the program's stderr, restarts and kills. */
  readonly diagnostics?: (error: unknown, context: string) => void;
}
