/**
 * The Runtime's JSON-RPC 2.0 client over one TransportConnection: the protocol's one client core (correlated
 * requests that time out on the injected Clock and can be aborted, every pending request rejected when the
 * connection closes, every inbound frame decoded by the protocol's safe decoder) with inbound notifications
 * dispatched through a handler table. Failures reject with a `LineUpError` carrying the LineUp code.
 */
import {
  createJsonRpcClientCore,
  type AppServerMethod,
  type BatchLimits,
  type JsonObject,
  type RpcRequestOptions,
  type JsonRpcNotification,
  type MethodParams,
  type MethodResult,
} from "@lineup/protocol";
import type { DiagnosticsSink, Unsubscribe } from "../core/emitter.js";
import type { Clock } from "../core/ports.js";
import type { TransportClose, TransportConnection } from "./transport.js";

export type RequestOptions = RpcRequestOptions;

export type NotificationHandlers = Readonly<Record<string, (params: JsonObject) => void>>;

export interface RpcClient {
  /** Sends a request; resolves with its result or rejects with a LineUpError (`request_timeout`, `request_cancelled`, or the peer's code). */
  request<M extends AppServerMethod>(method: M, params: MethodParams<M>, options?: RequestOptions): Promise<MethodResult<M>>;
  notify(method: string, params?: JsonObject): void;
  /** Runs `fn`; what it sends leaves together when it returns, in batches within `limits` (`JsonRpcClientCore.batch`). */
  batch<T>(fn: () => T, limits: BatchLimits): T;
  /** `initialized`, with `receive_batches` where the server announces `batch-frames` (`JsonRpcClientCore.initialized`). */
  initialized(features: readonly string[] | undefined): void;
  /** Rejects every pending request with `request_cancelled` and closes the connection. Idempotent. */
  close(): void;
  readonly closed: boolean;
  onClose(listener: (close: TransportClose) => void): Unsubscribe;
}

export interface RpcClientOptions {
  readonly clock: Clock;
  readonly notifications: NotificationHandlers;
  readonly diagnostics: DiagnosticsSink;
  /** Default 15 000 ms. */
  readonly defaultTimeoutMs?: number;
  /** Inbound frame limit; default 4 MiB (the server's own limit is 1 MiB per frame, plus margin). */
  readonly maxFrameBytes?: number;
}

export function createRpcClient(connection: TransportConnection, options: RpcClientOptions): RpcClient {
  const dispatch = (notification: JsonRpcNotification): void => {
    const handler = Object.prototype.hasOwnProperty.call(options.notifications, notification.method) ? options.notifications[notification.method] : undefined;
    if (handler === undefined) return options.diagnostics(new Error(`unhandled notification ${notification.method}`), "rpc");
    const params = notification.params;
    if (params !== undefined && (typeof params !== "object" || Array.isArray(params))) {
      return options.diagnostics(new Error(`notification ${notification.method} has positional params`), "rpc");
    }
    try {
      handler(params ?? {});
    } catch (error) {
      options.diagnostics(error, `notification ${notification.method}`);
    }
  };

  const core = createJsonRpcClientCore({
    send: (text) => connection.send(text),
    timer: { now: () => options.clock.now(), setTimer: (ms, fn) => options.clock.setTimer(ms, fn) },
    defaultTimeoutMs: options.defaultTimeoutMs ?? 15_000,
    limits: { maxBytes: options.maxFrameBytes ?? 4 * 1024 * 1024, maxBatch: 1024 },
    onNotification: dispatch,
    onTrouble: (message) => options.diagnostics(new Error(message), "rpc inbound"),
  });
  const offMessage = connection.onMessage((text) => core.receive(text));
  connection.onClose((close) => {
    offMessage();
    core.close(close);
  });

  return {
    request: (method, params, requestOptions) => core.request(method, params as unknown as JsonObject, requestOptions) as Promise<MethodResult<typeof method>>,
    notify: (method, params) => core.notify(method, params),
    batch: (fn, limits) => core.batch(fn, limits),
    initialized: (features) => core.initialized(features),
    close() {
      offMessage();
      core.close({ code: 1000, reason: "the client closed the connection" });
      connection.close(1000, "client closing");
    },
    get closed() {
      return core.closed;
    },
    onClose: (listener) => connection.onClose(listener),
  };
}
