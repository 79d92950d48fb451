/**
 * A JSON-RPC 2.0 client over one `Connection`: correlated requests that time out and can be
 * cancelled, notifications to listeners, and every pending request rejected when the connection
 * closes (STYLE.md rule 8). Inbound frames go through the protocol's safe decoder.
 *
 * Refusals reject with a `LineUpError` whose `code` is the LineUp code from `error.data.code`;
 * `data.retryable` and `data.rpc` carry the server's retry hint and the JSON-RPC number.
 */
import {
  LineUpError,
  decodeJsonRpc,
  encodeJsonRpc,
  isErrorCode,
  jsonRpcNotification,
  jsonRpcRequest,
  type ErrorCode,
  type JsonObject,
  type JsonRpcFailure,
  type JsonRpcNotification,
  type JsonRpcResponse,
  type JsonValue,
} from "@lineup/protocol";
import { Emitter, silentDiagnostics, type DiagnosticsSink, type Disposable } from "./lifecycle.js";
import { systemClock, type Clock, type TimerHandle } from "./platform.js";
import type { CloseInfo, Connection } from "./transport.js";

export interface RequestOptions {
  /** Rejects with `request_timeout` after this long; default the client's `defaultTimeoutMs`. */
  readonly timeoutMs?: number;
  /** Aborting rejects with `request_cancelled` (the server may still execute a write: retry with its key). */
  readonly signal?: AbortSignal;
}

export interface RpcClientOptions {
  readonly clock?: Clock;
  readonly diagnostics?: DiagnosticsSink;
  readonly defaultTimeoutMs?: number;
  /** Inbound frame limits; events wrap envelopes, so these are looser than the server's inbound ones. */
  readonly maxBytes?: number;
  readonly maxDepth?: number;
}

interface Pending {
  readonly method: string;
  resolve(value: JsonValue): void;
  reject(error: LineUpError): void;
  timer: TimerHandle;
  abort?: () => void;
  signal?: AbortSignal;
}

/**
 * True when the same request may succeed if sent again (with the same idempotency key for a
 * write): the connection went away, the request timed out, or the server said so.
 */
export function isRetryable(error: unknown): boolean {
  if (!(error instanceof LineUpError)) return false;
  if (error.data?.["connection_closed"] === true || error.data?.["retryable"] === true) return true;
  return error.code === "request_timeout" || error.code === "overloaded" || error.code === "internal_error" || error.code === "store_write_failed";
}

/** The LineUpError for a JSON-RPC error response. */
export function errorFromResponse(response: JsonRpcFailure, method: string): LineUpError {
  const raw = response.error.data;
  const data = typeof raw === "object" && raw !== null && !Array.isArray(raw) ? raw : {};
  const code: ErrorCode = isErrorCode(data["code"]) ? data["code"] : fallbackCode(response.error.code);
  const message = typeof data["message"] === "string" ? data["message"] : response.error.message;
  const path = typeof data["path"] === "string" ? data["path"] : undefined;
  return new LineUpError(code, `${method}: ${message}`, {
    ...(path === undefined ? {} : { path }),
    data: { rpc: response.error.code, retryable: data["retryable"] === true },
  });
}

function fallbackCode(rpc: number): ErrorCode {
  switch (rpc) {
    case -32700:
      return "json_malformed";
    case -32600:
      return "invalid_request";
    case -32601:
      return "method_not_found";
    case -32602:
      return "invalid_params";
    case -32001:
      return "overloaded";
    default:
      return "internal_error";
  }
}

export class RpcClient {
  private readonly pending = new Map<number, Pending>();
  private readonly notifications: Emitter<JsonRpcNotification>;
  private readonly clock: Clock;
  private readonly diagnostics: DiagnosticsSink;
  private readonly defaultTimeoutMs: number;
  private readonly subscriptions: Disposable[] = [];
  private nextId = 1;
  private closeInfo: CloseInfo | undefined;
  /** Resolves once, when the connection has closed and every pending request has been rejected. */
  readonly closed: Promise<CloseInfo>;

  constructor(
    private readonly connection: Connection,
    private readonly options: RpcClientOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.diagnostics = options.diagnostics ?? silentDiagnostics;
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? 30_000;
    this.notifications = new Emitter(this.diagnostics);
    let markClosed: (info: CloseInfo) => void = () => undefined;
    this.closed = new Promise((resolve) => (markClosed = resolve));
    this.subscriptions.push(connection.onMessage((text) => this.receive(text)));
    this.subscriptions.push(
      connection.onClose((info) => {
        this.closeInfo = info;
        this.rejectAll(info);
        for (const s of this.subscriptions) s.dispose();
        markClosed(info);
      }),
    );
  }

  get isClosed(): boolean {
    return this.closeInfo !== undefined;
  }

  /** Sends a request and resolves with its result. Never resolves after the connection closed. */
  request(method: string, params: JsonObject, options: RequestOptions = {}): Promise<JsonValue> {
    if (this.closeInfo !== undefined) return Promise.reject(closedError(method, this.closeInfo));
    if (options.signal?.aborted === true) return Promise.reject(new LineUpError("request_cancelled", `${method}: cancelled before it was sent`));
    const id = this.nextId++;
    return new Promise<JsonValue>((resolve, reject) => {
      const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
      const entry: Pending = {
        method,
        resolve,
        reject,
        timer: this.clock.setTimeout(() => this.settle(id)?.reject(new LineUpError("request_timeout", `${method}: no response within ${timeoutMs} ms`, { data: { retryable: true } })), timeoutMs),
      };
      if (options.signal !== undefined) {
        const abort = (): void => this.settle(id)?.reject(new LineUpError("request_cancelled", `${method}: cancelled`));
        options.signal.addEventListener("abort", abort, { once: true });
        entry.abort = abort;
        entry.signal = options.signal;
      }
      this.pending.set(id, entry);
      this.connection.send(encodeJsonRpc(jsonRpcRequest(id, method, params)));
    });
  }

  notify(method: string, params?: JsonObject): void {
    if (this.closeInfo === undefined) this.connection.send(encodeJsonRpc(jsonRpcNotification(method, params)));
  }

  onNotification(listener: (notification: JsonRpcNotification) => void): Disposable {
    return this.notifications.on(listener);
  }

  /** Requests not yet answered (for tests and diagnostics). */
  get pendingCount(): number {
    return this.pending.size;
  }

  close(code = 1000, reason = "client closing"): void {
    this.connection.close(code, reason);
  }

  private settle(id: number): Pending | undefined {
    const entry = this.pending.get(id);
    if (entry === undefined) return undefined;
    this.pending.delete(id);
    this.clock.clearTimeout(entry.timer);
    if (entry.abort !== undefined) entry.signal?.removeEventListener("abort", entry.abort);
    return entry;
  }

  private rejectAll(info: CloseInfo): void {
    for (const id of [...this.pending.keys()]) {
      const entry = this.settle(id);
      entry?.reject(closedError(entry.method, info));
    }
  }

  private receive(text: string): void {
    const decoded = decodeJsonRpc(text, { maxBytes: this.options.maxBytes ?? 32 * 1_048_576, maxDepth: this.options.maxDepth ?? 128, maxBatch: 10_000 });
    if (decoded.kind === "invalid") {
      this.diagnostics({ kind: "frame_invalid", message: `${decoded.error.code}: ${decoded.error.message}` });
      return;
    }
    const items = decoded.kind === "single" ? [decoded.item] : decoded.items;
    for (const item of items) {
      switch (item.kind) {
        case "response":
          this.answer(item.message);
          break;
        case "notification":
          this.notifications.fire(item.message);
          break;
        case "request":
          // The server never sends requests (protocol section 1); answering is not required.
          this.diagnostics({ kind: "frame_invalid", message: `unexpected request ${item.message.method} from the server` });
          break;
        case "invalid":
          this.diagnostics({ kind: "frame_invalid", message: `${item.error.code}: ${item.error.message}` });
          break;
      }
    }
  }

  private answer(response: JsonRpcResponse): void {
    if (typeof response.id !== "number") {
      // id null: the server refused a whole frame it could not attribute; nothing to settle.
      if ("error" in response) this.diagnostics({ kind: "frame_invalid", message: `server refused a frame: ${response.error.message}` });
      return;
    }
    const entry = this.settle(response.id);
    if (entry === undefined) return; // late answer to a request that timed out or was cancelled
    if ("error" in response) entry.reject(errorFromResponse(response, entry.method));
    else entry.resolve(response.result);
  }
}

function closedError(method: string, info: CloseInfo): LineUpError {
  return new LineUpError("request_cancelled", `${method}: the connection closed (${info.code}${info.reason === "" ? "" : ` ${info.reason}`})`, {
    data: { connection_closed: true, close_code: info.code },
  });
}
