/**
 * `sdk.tools` (spec 6.2, 7.3): serves the agent tool calls the Runtime delivers to this app, over the
 * `AppPort` only — one `registerToolHandler` per SDK while any handler is registered, and every
 * outcome through `reportTool`:
 *
 * - the handler's return value → `result` (the Runtime checks it against the output schema);
 * - a thrown `{ code }` among the app tool error codes → `error` with that code and the message;
 *   anything else thrown → `handler_failed` with a plain message (the error itself goes to the
 *   diagnostics sink — never a stack to the agent);
 * - an `operation`-mode call → the handler's `{ duration_ms }` becomes `start_operation`;
 * - a call delivered twice (after a restart) runs its handler once;
 * - the Runtime's cancel aborts `ctx.signal`; nothing more is reported for that call.
 *
 * Spec 6.2's shape works beside it: `onInvoke` answers every call no registered handler serves, now
 * (`completed` / `failed`) or later (`pending`, then `progress`, and one `complete` or `fail`).
 */
import { checkJsonValue, LineUpError, type JsonObject, type JsonValue } from "@lineup/protocol";
import type { AppPort, DeliveredToolCall, ToolReport } from "@lineup/runtime";
import { clip, codeOf, messageOf, type Diagnostics } from "./diagnostics.js";
import type { AppToolAPI, AppToolErrorCode, AppToolInvocation, AppToolOutcome, OperationHandler, OperationStart, ToolCallContext, ToolHandler, ToolProgress, Unsubscribe } from "./types.js";

/** The codes a handler may end a call with (spec 7.3); the Runtime turns any other into `handler_failed` too. */
export const APP_TOOL_ERROR_CODES: readonly AppToolErrorCode[] = ["cancelled_by_user", "permission_denied", "foreground_required", "handler_failed", "invalid_arguments", "operation_expired"];

export function isAppToolErrorCode(value: unknown): value is AppToolErrorCode {
  return typeof value === "string" && (APP_TOOL_ERROR_CODES as readonly string[]).includes(value);
}

/** How many finished call ids are remembered for deduplication. */
const REMEMBERED_CALLS = 1_024;
/** Runtime-owned operations are capped at a day (the Runtime clamps too). */
const MAX_OPERATION_MS = 86_400_000;

type Entry = { readonly kind: "tool"; readonly handler: ToolHandler } | { readonly kind: "operation"; readonly handler: OperationHandler };

/** What one call settles to: a report to send, nothing (the call is over), or PENDING (the app answers later). */
type Settled = ToolReport | undefined | typeof PENDING;
const PENDING = Symbol("pending");

export class ToolServer implements AppToolAPI {
  readonly #port: AppPort;
  readonly #diagnostics: Diagnostics;
  readonly #entries = new Map<string, Entry>();
  /** Calls whose handler is running: aborting one stops it and silences its reports. */
  readonly #running = new Map<string, AbortController>();
  /** The calls of `#running`, for `progress` from outside a handler. */
  readonly #runningCalls = new Map<string, DeliveredToolCall>();
  /** Calls this SDK already ran to the end, oldest first (bounded). */
  readonly #finished = new Set<string>();
  #offPort: Unsubscribe | undefined;
  #attachQueued = false;

  readonly #instanceId: string | undefined;
  /** Spec 6.2's listener: calls of methods no handler serves. */
  #invoke: ((call: AppToolInvocation) => Promise<AppToolOutcome>) | undefined;
  /** Calls answered `pending`, waiting for `complete` / `fail`. */
  readonly #pending = new Map<string, DeliveredToolCall>();

  /** With `instanceId`, the handlers serve that instance's calls (the Runtime routes them there); without, the app's. */
  constructor(port: AppPort, diagnostics: Diagnostics, instanceId?: string) {
    this.#port = port;
    this.#diagnostics = diagnostics;
    this.#instanceId = instanceId;
  }

  register<Args extends JsonObject = JsonObject>(method: string, handler: ToolHandler<Args>): Unsubscribe {
    return this.#add([[method, { kind: "tool", handler: handler as ToolHandler }]]);
  }

  registerAll(handlers: Readonly<Record<string, ToolHandler>>): Unsubscribe {
    return this.#add(Object.entries(handlers).map(([method, handler]) => [method, { kind: "tool", handler }]));
  }

  registerOperation<Args extends JsonObject = JsonObject>(method: string, handler: OperationHandler<Args>): Unsubscribe {
    return this.#add([[method, { kind: "operation", handler: handler as OperationHandler }]]);
  }

  onInvoke(listener: (call: AppToolInvocation) => Promise<AppToolOutcome>): Unsubscribe {
    if (typeof listener !== "function") throw new LineUpError("invalid_params", "onInvoke needs a function");
    if (this.#invoke !== undefined) throw new LineUpError("invalid_params", "an onInvoke listener is already set");
    this.#invoke = listener;
    this.#attachSoon();
    return () => {
      if (this.#invoke !== listener) return;
      this.#invoke = undefined;
      if (!this.#serving()) this.#detach();
    };
  }

  async progress(request: { readonly call_id: string; readonly progress: ToolProgress }): Promise<void> {
    const call = this.#open(request.call_id);
    await this.#port.reportTool(call.call_id, { kind: "progress", progress: this.#progressBody(call, request.progress) }, call.instance_id);
  }

  async complete(request: { readonly call_id: string; readonly result: JsonValue }): Promise<void> {
    const call = this.#pendingCall(request.call_id);
    const settled = call.mode === "operation" ? this.#operationStart(call, request.result) : this.#resultOf(call, request.result);
    await this.#settlePending(call, settled);
  }

  async fail(request: { readonly call_id: string; readonly code: AppToolErrorCode; readonly message?: string }): Promise<void> {
    const call = this.#pendingCall(request.call_id);
    const code = isAppToolErrorCode(request.code) ? request.code : "handler_failed";
    await this.#settlePending(call, { kind: "error", code, message: typeof request.message === "string" && request.message !== "" ? clip(request.message) : `${call.method} failed (${code})` });
  }

  /** A call still open here: answered `pending`, or its handler running. */
  #open(callId: string): DeliveredToolCall {
    const call = this.#pending.get(callId) ?? this.#runningCalls.get(callId);
    if (call === undefined || this.#running.get(callId)?.signal.aborted !== false) throw new LineUpError("not_found", `no call ${callId} is open in this app (it ended, was cancelled, or never came here)`);
    return call;
  }

  #pendingCall(callId: string): DeliveredToolCall {
    const call = this.#pending.get(callId);
    if (call === undefined || this.#running.get(callId)?.signal.aborted !== false) throw new LineUpError("not_found", `no call ${callId} waits for its answer in this app (it ended, was cancelled, or was not answered pending)`);
    return call;
  }

  async #settlePending(call: DeliveredToolCall, settled: ToolReport): Promise<void> {
    this.#pending.delete(call.call_id);
    this.#running.delete(call.call_id);
    this.#runningCalls.delete(call.call_id);
    this.#remember(call.call_id);
    await this.#port.reportTool(call.call_id, settled, call.instance_id);
  }

  #serving(): boolean {
    return this.#entries.size > 0 || this.#invoke !== undefined;
  }

  async interruptOperations(request: { readonly conversation_id?: string; readonly reason?: string } = {}): Promise<void> {
    const conversationId = request.conversation_id ?? (this.#instanceId === undefined ? undefined : this.#port.instance(this.#instanceId).conversation_id);
    if (conversationId === undefined) throw new LineUpError("invalid_params", "name the conversation whose operations to interrupt (this SDK is not bound to an instance of one)");
    await this.#port.interruptOperations(conversationId, request.reason ?? "stopped in the app");
  }

  #add(entries: readonly (readonly [string, Entry])[]): Unsubscribe {
    for (const [method, entry] of entries) {
      if (typeof method !== "string" || method === "") throw new LineUpError("invalid_params", "a tool method must be a non-empty string");
      if (typeof entry.handler !== "function") throw new LineUpError("invalid_params", `the handler of ${method} is not a function`);
      if (this.#entries.has(method)) throw new LineUpError("invalid_params", `tool ${method} is already served`);
    }
    if (new Set(entries.map(([method]) => method)).size !== entries.length) throw new LineUpError("invalid_params", "a tool method is listed twice");
    for (const [method, entry] of entries) this.#entries.set(method, entry);
    this.#attachSoon();
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      for (const [method, entry] of entries) if (this.#entries.get(method) === entry) this.#entries.delete(method);
      if (!this.#serving()) this.#detach();
    };
  }

  /** Registers with the port after the current synchronous block, so handlers added together are all there for the first call. */
  #attachSoon(): void {
    if (this.#offPort !== undefined || this.#attachQueued) return;
    this.#attachQueued = true;
    queueMicrotask(() => {
      this.#attachQueued = false;
      if (this.#offPort !== undefined || !this.#serving()) return;
      try {
        this.#offPort = this.#port.registerToolHandler({ call: (call) => this.#onCall(call), cancel: (callId) => this.#onCancel(callId) }, this.#instanceId);
      } catch (error) {
        this.#diagnostics.report("tools: registering with the Runtime failed", error);
      }
    });
  }

  #detach(): void {
    const off = this.#offPort;
    this.#offPort = undefined;
    off?.();
  }

  #onCancel(callId: string): void {
    this.#running.get(callId)?.abort(new LineUpError("request_cancelled", `call ${callId} is over (cancelled, expired or its app stopped)`));
    // A pending call the Runtime ended has no handler left to finish it: it is over here, and nothing more is reported.
    if (this.#pending.delete(callId)) {
      this.#running.delete(callId);
      this.#runningCalls.delete(callId);
      this.#remember(callId);
    }
  }

  #onCall(call: DeliveredToolCall): void {
    // A redelivery (after a restart) of a call this SDK is running or ran: the handler runs once.
    if (this.#running.has(call.call_id) || this.#finished.has(call.call_id)) return;
    const controller = new AbortController();
    this.#running.set(call.call_id, controller);
    this.#runningCalls.set(call.call_id, call);
    void this.#run(call, controller).then(
      (settled) => this.#finish(call, controller, settled),
      (error: unknown) => this.#finish(call, controller, { kind: "error", code: "handler_failed", message: `${call.method} failed` }, error),
    );
  }

  async #run(call: DeliveredToolCall, controller: AbortController): Promise<Settled> {
    const entry = this.#entries.get(call.method);
    if (entry === undefined) {
      if (this.#invoke !== undefined) return this.#runInvoke(this.#invoke, call, controller);
      return { kind: "error", code: "handler_failed", message: `this app has no handler for ${call.method}` };
    }
    const ctx = this.#context(call, controller);
    let value: unknown;
    try {
      value = await entry.handler(call.arguments, ctx);
    } catch (error) {
      return this.#failure(call, error);
    }
    if (controller.signal.aborted) return undefined;
    if (call.mode === "operation") return this.#operationStart(call, value);
    if (entry.kind === "operation") return { kind: "error", code: "handler_failed", message: `${call.method} is served as an operation, but the Runtime ran it as a plain call` };
    return this.#resultOf(call, value);
  }

  #resultOf(call: DeliveredToolCall, value: unknown): ToolReport {
    const plain = checkJsonValue(value ?? null);
    if (!plain.ok) {
      this.#diagnostics.report(`tool ${call.method} returned a result that is not JSON`, plain.error, "warn");
      return { kind: "error", code: "handler_failed", message: `${call.method} returned a result that is not JSON` };
    }
    return { kind: "result", result: plain.value };
  }

  /** Spec 6.2's listener answers the call: now, or `pending` (then `complete` / `fail` settle it). */
  async #runInvoke(listener: (call: AppToolInvocation) => Promise<AppToolOutcome>, call: DeliveredToolCall, controller: AbortController): Promise<Settled> {
    let outcome: AppToolOutcome;
    try {
      outcome = await listener({
        call_id: call.call_id,
        method: call.method,
        arguments: call.arguments,
        conversation_id: call.conversation_id,
        ...(call.instance_id === undefined ? {} : { instance_id: call.instance_id }),
        mode: call.mode === "operation" ? "operation" : "direct",
        signal: controller.signal,
      });
    } catch (error) {
      return this.#failure(call, error);
    }
    if (controller.signal.aborted) return undefined;
    switch ((outcome as { outcome?: unknown } | null)?.outcome) {
      case "pending":
        this.#pending.set(call.call_id, call);
        return PENDING;
      case "completed": {
        const result = (outcome as Extract<AppToolOutcome, { outcome: "completed" }>).result;
        return call.mode === "operation" ? this.#operationStart(call, result) : this.#resultOf(call, result);
      }
      case "failed": {
        const failed = outcome as Extract<AppToolOutcome, { outcome: "failed" }>;
        const code = isAppToolErrorCode(failed.code) ? failed.code : "handler_failed";
        return { kind: "error", code, message: typeof failed.message === "string" && failed.message !== "" ? clip(failed.message) : `${call.method} failed (${code})` };
      }
      default:
        return { kind: "error", code: "handler_failed", message: `${call.method}: the app answered with no outcome (completed, failed or pending)` };
    }
  }

  #operationStart(call: DeliveredToolCall, value: unknown): ToolReport {
    const duration = typeof value === "object" && value !== null ? (value as Partial<OperationStart>).duration_ms : undefined;
    if (typeof duration !== "number" || !Number.isFinite(duration) || duration < 0) {
      return { kind: "error", code: "handler_failed", message: `${call.method} must answer { duration_ms } (a non-negative number) to start its operation` };
    }
    return { kind: "start_operation", duration_ms: Math.min(Math.round(duration), MAX_OPERATION_MS) };
  }

  #failure(call: DeliveredToolCall, error: unknown): Settled {
    const code = codeOf(error);
    if (isAppToolErrorCode(code)) return { kind: "error", code, message: messageOf(error) || `${call.method} failed (${code})` };
    this.#diagnostics.report(`tool ${call.method} (${call.call_id}) threw`, error);
    return { kind: "error", code: "handler_failed", message: code === undefined ? `${call.method} failed` : `${call.method} failed (${code})` };
  }

  #context(call: DeliveredToolCall, controller: AbortController): ToolCallContext {
    return {
      call_id: call.call_id,
      method: call.method,
      conversation_id: call.conversation_id,
      ...(call.instance_id === undefined ? {} : { instance_id: call.instance_id }),
      signal: controller.signal,
      progress: async (progress: ToolProgress) => {
        if (controller.signal.aborted || !this.#running.has(call.call_id)) return;
        const body = this.#progressBody(call, progress);
        try {
          await this.#port.reportTool(call.call_id, { kind: "progress", progress: body }, call.instance_id);
        } catch (error) {
          this.#diagnostics.report(`tool ${call.method} (${call.call_id}): progress refused`, error, "warn");
        }
      },
    };
  }

  #progressBody(call: DeliveredToolCall, progress: ToolProgress): Extract<ToolReport, { kind: "progress" }>["progress"] {
    const body: { stage?: string; progress?: number; message?: string; data?: JsonValue } = {};
    if (typeof progress.stage === "string" && progress.stage !== "") body.stage = progress.stage.slice(0, 64);
    if (typeof progress.progress === "number" && Number.isFinite(progress.progress)) body.progress = Math.min(1, Math.max(0, progress.progress));
    if (typeof progress.message === "string") body.message = clip(progress.message);
    if (progress.data !== undefined) {
      const data = checkJsonValue(progress.data);
      if (data.ok) body.data = data.value;
      else this.#diagnostics.report(`tool ${call.method} (${call.call_id}): progress data is not JSON, dropped`, data.error, "warn");
    }
    return body;
  }

  #finish(call: DeliveredToolCall, controller: AbortController, settled: Settled, error?: unknown): void {
    if (error !== undefined) this.#diagnostics.report(`tool ${call.method} (${call.call_id})`, error);
    // Answered pending: the call stays open (its signal, its progress) until `complete` / `fail`.
    if (settled === PENDING && !controller.signal.aborted) return;
    this.#pending.delete(call.call_id);
    this.#runningCalls.delete(call.call_id);
    this.#running.delete(call.call_id);
    this.#remember(call.call_id);
    // A call the Runtime already ended (cancel, deadline, disable) gets nothing more.
    if (settled === undefined || settled === PENDING || controller.signal.aborted) return;
    this.#port.reportTool(call.call_id, settled, call.instance_id).catch((reason: unknown) => {
      this.#diagnostics.report(`tool ${call.method} (${call.call_id}): the Runtime refused the ${settled.kind} report`, reason, "warn");
    });
  }

  #remember(callId: string): void {
    this.#finished.add(callId);
    if (this.#finished.size <= REMEMBERED_CALLS) return;
    const oldest = this.#finished.values().next();
    if (oldest.done !== true) this.#finished.delete(oldest.value);
  }
}
