/**
 * A JSON-RPC 2.0 client over one TransportConnection (STYLE 8): correlated requests that time out (on the
 * injected Clock) and can be aborted, every pending request rejected when the connection closes, inbound
 * notifications dispatched through a handler table, every inbound frame decoded by the protocol's safe
 * decoder. Failures reject with a `LineUpError` carrying the LineUp code (`error.data.code` on the wire).
 */
import {
  LineUpError,
  decodeJsonRpc,
  encodeJsonRpc,
  errorDataCode,
  isErrorCode,
  jsonRpcNotification,
  jsonRpcRequest,
  type AppServerMethod,
  type JsonObject,
  type JsonRpcItem,
  type JsonRpcNotification,
  type JsonRpcResponse,
  type JsonValue,
  type MethodParams,
  type MethodResult,
} from "@lineup/protocol";
import type { DiagnosticsSink, Unsubscribe } from "../core/emitter.js";
import type { Clock } from "../core/ports.js";
import type { TransportClose, TransportConnection } from "./transport.js";

export interface RequestOptions {
  /** Default: the client's `defaultTimeoutMs`. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

export type NotificationHandlers = Readonly<Record<string, (params: JsonObject) => void>>;

export interface RpcClient {
  /** Sends a request; resolves with its result or rejects with a LineUpError (`request_timeout`, `request_cancelled`, or the peer's code). */
  request<M extends AppServerMethod>(method: M, params: MethodParams<M>, options?: RequestOptions): Promise<MethodResult<M>>;
  notify(method: string, params?: JsonObject): void;
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

interface Pending {
  readonly method: string;
  readonly timeoutMs: number;
  /** When it times out (the Clock's ms). */
  readonly deadline: number;
  readonly resolve: (value: JsonValue) => void;
  readonly reject: (error: LineUpError) => void;
  /** Its abort signal and listener, removed when it settles. */
  readonly signal?: AbortSignal;
  readonly onAbort?: () => void;
}

/** Turns a wire error into a LineUpError with the LineUp code when there is a known one. */
export function wireError(response: Extract<JsonRpcResponse, { error: unknown }>): LineUpError {
  const code = errorDataCode(response);
  const data = response.error.data;
  const detail = typeof data === "object" && data !== null && !Array.isArray(data) && typeof data["message"] === "string" ? data["message"] : response.error.message;
  const path = typeof data === "object" && data !== null && !Array.isArray(data) && typeof data["path"] === "string" ? data["path"] : undefined;
  return new LineUpError(isErrorCode(code) ? code : "internal_error", detail, {
    ...(path === undefined ? {} : { path }),
    data: { rpc_code: response.error.code, ...(code !== undefined && !isErrorCode(code) ? { wire_code: code } : {}) },
  });
}

export function createRpcClient(connection: TransportConnection, options: RpcClientOptions): RpcClient {
  const pending = new Map<number, Pending>();
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 15_000;
  const maxBytes = options.maxFrameBytes ?? 4 * 1024 * 1024;
  let nextId = 1;
  let closed = false;

  const settle = (id: number): Pending | undefined => {
    const entry = pending.get(id);
    if (entry === undefined) return undefined;
    pending.delete(id);
    if (entry.onAbort !== undefined) entry.signal?.removeEventListener("abort", entry.onAbort);
    return entry;
  };

  // One timer for every pending request, armed for the earliest deadline (not a timer per request).
  let timer: { readonly at: number; readonly cancel: () => void } | undefined;
  const arm = (deadline: number): void => {
    if (timer !== undefined && timer.at <= deadline) return;
    timer?.cancel();
    timer = { at: deadline, cancel: options.clock.setTimer(Math.max(0, deadline - options.clock.now()), expire) };
  };
  const expire = (): void => {
    timer = undefined;
    const now = options.clock.now();
    let next: number | undefined;
    for (const [id, entry] of [...pending]) {
      if (entry.deadline > now) {
        next = next === undefined ? entry.deadline : Math.min(next, entry.deadline);
        continue;
      }
      settle(id);
      entry.reject(new LineUpError("request_timeout", `${entry.method} got no response in ${entry.timeoutMs} ms`));
    }
    if (next !== undefined) arm(next);
  };

  const onItem = (item: JsonRpcItem): void => {
    switch (item.kind) {
      case "response": {
        const response = item.message;
        const entry = typeof response.id === "number" ? settle(response.id) : undefined;
        if (entry === undefined) return options.diagnostics(new Error(`response to unknown request id ${String(response.id)}`), "rpc");
        if ("error" in response) entry.reject(wireError(response));
        else entry.resolve(response.result);
        return;
      }
      case "notification":
        return dispatch(item.message);
      case "request":
        // The server never sends requests; answering keeps the peer from waiting.
        connection.send(encodeJsonRpc({ jsonrpc: "2.0", id: item.message.id, error: { code: -32601, message: "Method not found", data: { code: "method_not_found", message: "this client serves no methods" } } }));
        return;
      case "invalid":
        return options.diagnostics(new LineUpError(item.error.code, item.error.message), "rpc inbound");
    }
  };

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

  const offMessage = connection.onMessage((text) => {
    const decoded = decodeJsonRpc(text, { maxBytes, maxBatch: 1024 });
    if (decoded.kind === "invalid") return options.diagnostics(new LineUpError(decoded.error.code, decoded.error.message), "rpc inbound frame");
    if (decoded.kind === "single") onItem(decoded.item);
    else decoded.items.forEach(onItem);
  });

  const failAll = (reason: string): void => {
    closed = true;
    offMessage();
    timer?.cancel();
    timer = undefined;
    for (const [id, entry] of [...pending]) {
      settle(id);
      entry.reject(new LineUpError("request_cancelled", reason));
    }
  };
  connection.onClose((close) => failAll(`connection closed (${close.code}${close.reason ? ` ${close.reason}` : ""})`));

  return {
    request(method, params, requestOptions = {}) {
      if (closed) return Promise.reject(new LineUpError("request_cancelled", "the connection is closed"));
      const signal = requestOptions.signal;
      if (signal?.aborted === true) return Promise.reject(new LineUpError("request_cancelled", "aborted before it was sent"));
      const id = nextId++;
      const timeoutMs = requestOptions.timeoutMs ?? defaultTimeoutMs;
      return new Promise((resolve, reject) => {
        const deadline = options.clock.now() + timeoutMs;
        const onAbort =
          signal === undefined
            ? undefined
            : (): void => {
                if (settle(id) !== undefined) reject(new LineUpError("request_cancelled", `${method} was aborted`));
              };
        pending.set(id, { method, timeoutMs, deadline, resolve: resolve as (value: JsonValue) => void, reject, ...(onAbort === undefined ? {} : { signal, onAbort }) });
        arm(deadline);
        if (onAbort !== undefined) signal?.addEventListener("abort", onAbort, { once: true });
        connection.send(encodeJsonRpc(jsonRpcRequest(id, method, params as unknown as JsonObject)));
      });
    },
    notify(method, params) {
      if (!closed) connection.send(encodeJsonRpc(jsonRpcNotification(method, params)));
    },
    close() {
      if (!closed) failAll("the client closed the connection");
      connection.close(1000, "client closing");
    },
    get closed() {
      return closed;
    },
    onClose: (listener) => connection.onClose(listener),
  };
}
