/**
 * The one JSON-RPC 2.0 client core of LineUp's clients (STYLE 8), shared by the Runtime's connection to its
 * AppServer and the agent SDK: request ids, the pending map, deadlines on an injected timer, cancellation by
 * `AbortSignal`, wire errors mapped to `LineUpError`s with the LineUp code, and every pending request rejected
 * when the connection closes; each request is an OpenTelemetry `CLIENT` span (a no-op without a provider). It does no I/O: the owner hands it the text to send and each frame received, and
 * dispatches the notifications it reports.
 */
import { ERROR_CODES, LineUpError, isErrorCode, type ErrorCode } from "../errors.js";
import { utf8ByteLength, type JsonObject, type JsonValue } from "../json.js";
import { PendingRequests, type PendingTimer } from "../pending-requests.js";
import { SpanKind, endSpan, rpcSpanAttributes, startSpan } from "../tracing.js";
import { DEFAULT_SERVER_LIMITS, MAX_RECEIVE_BATCH } from "./records.js";
import { decodeJsonRpc, encodeJsonRpc, jsonRpcNotification, jsonRpcRequest, type JsonRpcFailure, type JsonRpcItem, type JsonRpcLimits, type JsonRpcNotification, type JsonRpcResponse } from "./jsonrpc.js";

/** Time for deadlines: `now()` in ms and a one-shot timer that returns its own cancel. */
export type RpcTimer = PendingTimer;

export interface RpcRequestOptions {
  /** Rejects with `request_timeout` after this long; default the client's `defaultTimeoutMs`. */
  readonly timeoutMs?: number;
  /** Aborting rejects with `request_cancelled` (the server may still execute a write: retry with its key). */
  readonly signal?: AbortSignal;
}

/** How a connection ended, as the rejections of its pending requests report it. */
export interface RpcClose {
  readonly code: number;
  readonly reason: string;
}

export interface JsonRpcClientCoreOptions {
  /** Sends one frame to the peer. */
  readonly send: (text: string) => void;
  readonly timer: RpcTimer;
  readonly defaultTimeoutMs: number;
  /** Inbound frame limits. */
  readonly limits: JsonRpcLimits;
  readonly onNotification: (notification: JsonRpcNotification) => void;
  /** What cannot be handed to a caller: an invalid frame, a request from the server, an answer to no pending request. */
  readonly onTrouble: (message: string) => void;
}

/** What one batch frame may hold: the peer's `limits.max_batch` and `limits.max_message_bytes`. */
export interface BatchLimits {
  readonly maxBatch: number;
  readonly maxBytes: number;
}

export interface JsonRpcClientCore {
  /** Resolves with the result or rejects with a LineUpError (`request_timeout`, `request_cancelled`, or the peer's code). */
  request(method: string, params: JsonObject, options?: RpcRequestOptions): Promise<JsonValue>;
  /** Sends a notification unless closed. */
  notify(method: string, params?: JsonObject): void;
  /**
   * Runs `fn`; the requests and notifications it sends leave when it returns, together: as JSON-RPC batches within the
   * peer's limits (at most `maxBatch` messages and `maxBytes` UTF-8 bytes a frame, as its `initialize` says), one frame
   * each, in order (a lone message as itself). The peer answers a batch with one frame once every request in it is
   * answered, so only requests answered alike belong in one.
   */
  batch<T>(fn: () => T, limits: BatchLimits): T;
  /**
   * Completes the handshake with `initialized`. Where the server's `features` name `batch-frames`, it carries
   * `receive_batches` from this client's own decode limits: the server's bursts then come as batch frames.
   */
  initialized(features: readonly string[] | undefined): void;
  /** Hands one received frame to the client. */
  receive(text: string): void;
  /** Rejects every pending request with `request_cancelled` (`data.connection_closed`), and every later one. Idempotent. */
  close(close: RpcClose): void;
  readonly closed: boolean;
  /** Requests not yet answered. */
  readonly pendingCount: number;
}

/**
 * The LineUpError for a JSON-RPC error response: the LineUp code from `error.data.code` (or one for the
 * JSON-RPC number when the peer sent none), the peer's message, `path`; `data.method` is the request's method,
 * `data.rpc` the JSON-RPC number,
 * `data.retryable` the peer's retry hint, and `data.wire_code` a code this version does not know.
 */
export function errorFromRpcResponse(response: JsonRpcFailure, method: string): LineUpError {
  const raw = response.error.data;
  const data = typeof raw === "object" && raw !== null && !Array.isArray(raw) ? raw : {};
  const wire = data["code"];
  const code: ErrorCode = isErrorCode(wire) ? wire : typeof wire === "string" ? "internal_error" : codeForRpcNumber(response.error.code);
  const message = typeof data["message"] === "string" ? data["message"] : response.error.message;
  const path = typeof data["path"] === "string" ? data["path"] : undefined;
  return new LineUpError(code, message, {
    ...(path === undefined ? {} : { path }),
    data: { method, rpc: response.error.code, retryable: data["retryable"] === true, ...(typeof wire === "string" && !isErrorCode(wire) ? { wire_code: wire } : {}) },
  });
}

const RPC_NUMBER_CODES: ReadonlyMap<number, ErrorCode> = new Map([
  [-32700, "json_malformed"],
  [-32600, "invalid_request"],
  [-32601, "method_not_found"],
  [-32602, "invalid_params"],
  [ERROR_CODES.overloaded.rpc, "overloaded"],
]);

function codeForRpcNumber(rpc: number): ErrorCode {
  return RPC_NUMBER_CODES.get(rpc) ?? "internal_error";
}

export function createJsonRpcClientCore(options: JsonRpcClientCoreOptions): JsonRpcClientCore {
  const pending = new PendingRequests<JsonValue>(options.timer);
  let closedBy: RpcClose | undefined;
  /** Inside `batch`: the frames held until it returns. */
  let held: string[] | undefined;
  const send = (text: string): void => {
    if (held !== undefined) held.push(text);
    else options.send(text);
  };

  const notify = (method: string, params?: JsonObject): void => {
    if (closedBy === undefined) send(encodeJsonRpc(jsonRpcNotification(method, params)));
  };

  const answer = (response: JsonRpcResponse): void => {
    if (typeof response.id !== "number") {
      // id null: the peer refused a frame it could not attribute; nothing to settle.
      if ("error" in response) options.onTrouble(`the peer refused a frame: ${response.error.message}`);
      return;
    }
    const entry = pending.take(response.id);
    if (entry === undefined) return options.onTrouble(`a response to no pending request (id ${response.id}): it timed out or was cancelled`);
    if ("error" in response) entry.reject(errorFromRpcResponse(response, entry.method));
    else entry.resolve(response.result);
  };

  const onItem = (item: JsonRpcItem): void => {
    switch (item.kind) {
      case "response":
        return answer(item.message);
      case "notification":
        return options.onNotification(item.message);
      case "request":
        // A client serves no methods; answering keeps the peer from waiting.
        options.send(encodeJsonRpc({ jsonrpc: "2.0", id: item.message.id, error: { code: -32601, message: "Method not found", data: { code: "method_not_found", message: "this client serves no methods", retryable: false } } }));
        return options.onTrouble(`the peer sent a request (${item.message.method}); a client serves none`);
      case "invalid":
        return options.onTrouble(`${item.error.code}: ${item.error.message}`);
    }
  };

  return {
    request(method, params, requestOptions = {}) {
      if (closedBy !== undefined) return Promise.reject(closedError(method, closedBy));
      const signal = requestOptions.signal;
      if (signal?.aborted === true) return Promise.reject(new LineUpError("request_cancelled", `${method}: cancelled before it was sent`));
      const timeoutMs = requestOptions.timeoutMs ?? options.defaultTimeoutMs;
      return new Promise<JsonValue>((resolve, reject) => {
        // The span needs the id, and the request settles only after both exist (never during `open`).
        const id = pending.open({
          method,
          timeoutMs,
          resolve: (value) => {
            endSpan(span);
            resolve(value);
          },
          reject: (error) => {
            endSpan(span, { code: error.code, message: error.message, ...(typeof error.data?.["rpc"] === "number" ? { rpc: error.data["rpc"] } : {}) });
            reject(error);
          },
          signal,
        });
        const span = startSpan(method, { kind: SpanKind.CLIENT, attributes: () => rpcSpanAttributes(method, id, params) });
        send(encodeJsonRpc(jsonRpcRequest(id, method, params)));
      });
    },
    notify,
    batch(fn, limits) {
      if (held !== undefined) return fn();
      const messages: string[] = (held = []);
      try {
        return fn();
      } finally {
        held = undefined;
        // Each message's text is already JSON: a batch is their array, "[a,b]", filled while the limits allow.
        let chunk: string[] = [];
        let bytes = 1;
        const flush = () => {
          if (chunk.length > 0 && closedBy === undefined) options.send(chunk.length === 1 ? chunk[0]! : `[${chunk.join(",")}]`);
          chunk = [];
          bytes = 1;
        };
        for (const message of messages) {
          const size = utf8ByteLength(message) + 1;
          if (chunk.length > 0 && (chunk.length >= limits.maxBatch || bytes + size > limits.maxBytes)) flush();
          chunk.push(message);
          bytes += size;
        }
        flush();
      }
    },
    initialized(features) {
      const receive_batches = {
        max_batch: Math.min(MAX_RECEIVE_BATCH, options.limits.maxBatch ?? DEFAULT_SERVER_LIMITS.max_batch),
        max_message_bytes: options.limits.maxBytes ?? DEFAULT_SERVER_LIMITS.max_message_bytes,
      };
      notify("initialized", features?.includes("batch-frames") === true ? { receive_batches } : {});
    },
    receive(text) {
      if (closedBy !== undefined) return;
      const decoded = decodeJsonRpc(text, options.limits);
      if (decoded.kind === "invalid") return options.onTrouble(`${decoded.error.code}: ${decoded.error.message}`);
      if (decoded.kind === "single") onItem(decoded.item);
      else decoded.items.forEach(onItem);
    },
    close(close) {
      if (closedBy !== undefined) return;
      closedBy = close;
      pending.rejectAll((request) => closedError(request.method, close));
    },
    get closed() {
      return closedBy !== undefined;
    },
    get pendingCount() {
      return pending.size;
    },
  };
}

function closedError(method: string, close: RpcClose): LineUpError {
  return new LineUpError("request_cancelled", `${method}: the connection closed (${close.code}${close.reason === "" ? "" : ` ${close.reason}`})`, {
    data: { connection_closed: true, close_code: close.code },
  });
}
