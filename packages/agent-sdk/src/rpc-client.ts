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
  createJsonRpcClientCore,
  errorFromRpcResponse,
  type JsonObject,
  type RpcRequestOptions,
  type JsonRpcClientCore,
  type JsonRpcFailure,
  type JsonRpcNotification,
  type JsonValue,
} from "@lineup/protocol";
import { Emitter, silentDiagnostics, type DiagnosticsSink, type Disposable } from "./lifecycle.js";
import { systemClock, type Clock } from "./platform.js";
import type { CloseInfo, Connection } from "./transport.js";

export type RequestOptions = RpcRequestOptions;

export interface RpcClientOptions {
  readonly clock?: Clock;
  readonly diagnostics?: DiagnosticsSink;
  readonly defaultTimeoutMs?: number;
  /** Inbound frame limits; events wrap envelopes, so these are looser than the server's inbound ones. */
  readonly maxBytes?: number;
  readonly maxDepth?: number;
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

/** The LineUpError for a JSON-RPC error response (the protocol's one mapping; `data.method` names the request). */
export const errorFromResponse: (response: JsonRpcFailure, method: string) => LineUpError = errorFromRpcResponse;

export class RpcClient {
  private readonly core: JsonRpcClientCore;
  private readonly notifications: Emitter<JsonRpcNotification>;
  private readonly subscriptions: Disposable[] = [];
  private closeInfo: CloseInfo | undefined;
  /** Resolves once, when the connection has closed and every pending request has been rejected. */
  readonly closed: Promise<CloseInfo>;

  constructor(
    private readonly connection: Connection,
    options: RpcClientOptions = {},
  ) {
    const clock = options.clock ?? systemClock;
    const diagnostics = options.diagnostics ?? silentDiagnostics;
    this.notifications = new Emitter(diagnostics);
    this.core = createJsonRpcClientCore({
      send: (text) => connection.send(text),
      timer: {
        now: () => clock.now(),
        setTimer: (ms, fn) => {
          const handle = clock.setTimeout(fn, ms);
          return () => clock.clearTimeout(handle);
        },
      },
      defaultTimeoutMs: options.defaultTimeoutMs ?? 30_000,
      limits: { maxBytes: options.maxBytes ?? 32 * 1_048_576, maxDepth: options.maxDepth ?? 128, maxBatch: 10_000 },
      onNotification: (notification) => this.notifications.fire(notification),
      onTrouble: (message) => diagnostics({ kind: "frame_invalid", message }),
    });
    let markClosed: (info: CloseInfo) => void = () => undefined;
    this.closed = new Promise((resolve) => (markClosed = resolve));
    this.subscriptions.push(connection.onMessage((text) => this.core.receive(text)));
    this.subscriptions.push(
      connection.onClose((info) => {
        this.closeInfo = info;
        this.core.close(info);
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
    return this.core.request(method, params, options);
  }

  notify(method: string, params?: JsonObject): void {
    this.core.notify(method, params);
  }

  /** `initialized`, with `receive_batches` where the server announces `batch-frames` (`JsonRpcClientCore.initialized`). */
  initialized(features: readonly string[] | undefined): void {
    this.core.initialized(features);
  }

  onNotification(listener: (notification: JsonRpcNotification) => void): Disposable {
    return this.notifications.on(listener);
  }

  /** Requests not yet answered (for tests and diagnostics). */
  get pendingCount(): number {
    return this.core.pendingCount;
  }

  close(code = 1000, reason = "client closing"): void {
    this.connection.close(code, reason);
  }
}
