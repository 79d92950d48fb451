/**
 * The local back-end service's wire (docs/architecture.md "Back-ends", docs/security.md): a page Runtime that runs
 * no processes itself (the web and desktop hosts) has its `mcp-stdio`, `mcp-http`, `stdio-jsonrpc` and `local-http`
 * back-ends run by the host's Node process, over one WebSocket on the loopback server that serves the page.
 * Neutral: both ends (`node/local-backend-service.ts`, `browser/local-backends.ts`) use this file.
 *
 * The socket is opened with two subprotocols: `LOCAL_BACKENDS_SUBPROTOCOL` and `secret.<hex>` (the per-start secret
 * the page got in its config); the service answers the first and refuses the upgrade without the second (401) or
 * from another Origin (403). Then both ends speak JSON-RPC 2.0, one message per text frame, requests both ways:
 *
 * page → service:
 * - `files.missing {hashes}` → `{missing}`: which of these SHA-256 digests the service does not hold yet;
 * - `files.put {hash, data}` (base64): stores one file by its digest, checked (`bundle_hash_mismatch`), at most
 *   `MAX_LOCAL_FILE_BYTES` (`message_too_large`);
 * - `backend.start {runner, app_scope, declaration, entry, files?, endpoint_url?}`: makes the runner `runner` from
 *   files it holds (`entry` and each of `files` a digest);
 * - `backend.call {runner, method, params, idempotency_key?}`, `backend.read {runner, uri}`: the runner's own answer;
 * - `backend.stop {runner}`; `$/cancel {id}` gives up a request of ours in flight (`request_cancelled`).
 *
 * service → page:
 * - `host.call {runner, method, params}`: what the program asks the host (`host.storage.*`, `mcp.elicit`, …),
 *   answered by the page Runtime's own checks; `$/cancel {id}` when the program gives it up;
 * - `backend.diagnostic {runner, message, context}` (notification): the runner's diagnostics.
 *
 * An error is a JSON-RPC error whose `data` is `{code, message, path?, details?}`: the LineUp code and, in `details`,
 * the `LineUpError`'s own `data` (`reason`), so each end rejects with the same error the runner threw.
 */
import { ERROR_CODES, LineUpError, decodeJson, isErrorCode, type JsonObject, type JsonValue } from "@lineup/protocol";

/** The path of the service on the host's loopback server. */
export const LOCAL_BACKENDS_PATH = "/local-backends";
export const LOCAL_BACKENDS_SUBPROTOCOL = "lineup.local-backends.v1";
/** The subprotocol that carries the secret: `secret.<64 hex>`. */
export const LOCAL_BACKENDS_SECRET_PREFIX = "secret.";
/** The largest file a page may send. */
export const MAX_LOCAL_FILE_BYTES = 8 * 1024 * 1024;
/** The most bytes one back-end's files may add up to. */
export const MAX_LOCAL_PROGRAM_BYTES = 64 * 1024 * 1024;
/** The most files one back-end may have. */
export const MAX_LOCAL_PROGRAM_FILES = 4_096;
/** The largest frame either end accepts: a file in base64 and its envelope. */
export const MAX_LOCAL_FRAME_BYTES = Math.ceil(MAX_LOCAL_FILE_BYTES / 3) * 4 + 64 * 1024;
/** The back-end kinds the service runs. */
export const LOCAL_BACKEND_PROTOCOLS = ["mcp-stdio", "mcp-http", "stdio-jsonrpc", "local-http"] as const;

export type WireHandler = (method: string, params: JsonObject, signal: AbortSignal) => Promise<JsonValue>;

export interface WirePeer {
  /** Sends a request; resolves with its result or rejects with the peer's `LineUpError` (or the close's). */
  request(method: string, params: JsonObject, signal?: AbortSignal): Promise<JsonValue>;
  notify(method: string, params: JsonObject): void;
  /** One frame from the other end. A frame that is not a JSON-RPC message is ignored (and reported to `onViolation`). */
  receive(text: string): void;
  /** Rejects every request in flight with `error`, aborts every handler running. Later requests reject with it too. */
  close(error: LineUpError): void;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A `LineUpError` as a JSON-RPC error object (the code's number from the table, the detail in `data`). */
export function wireErrorOf(error: unknown): JsonObject {
  const lineUp = error instanceof LineUpError ? error : new LineUpError("internal_error", "the request failed");
  const details = lineUp.data === undefined ? undefined : (JSON.parse(JSON.stringify(lineUp.data)) as JsonValue);
  return {
    code: ERROR_CODES[lineUp.code].rpc,
    message: lineUp.message,
    data: { code: lineUp.code, message: lineUp.message, ...(lineUp.path === undefined ? {} : { path: lineUp.path }), ...(details === undefined ? {} : { details }) },
  };
}

/** The `LineUpError` a JSON-RPC error object from the other end stands for. */
export function errorOfWire(error: unknown): LineUpError {
  const data = isRecord(error) && isRecord(error["data"]) ? error["data"] : {};
  const code = isErrorCode(data["code"]) ? data["code"] : "internal_error";
  const message = typeof data["message"] === "string" ? data["message"] : "the request failed";
  const path = typeof data["path"] === "string" ? data["path"] : undefined;
  const details = isRecord(data["details"]) ? data["details"] : undefined;
  return new LineUpError(code, message, { ...(path === undefined ? {} : { path }), ...(details === undefined ? {} : { data: details }) });
}

/**
 * One end of the wire over `send`: correlated requests (each settles once: its answer, its signal, or the close),
 * the other end's requests handed to `handle` with a signal that `$/cancel` and the close abort, notifications to
 * `notice`.
 */
export function createWirePeer(options: {
  readonly send: (text: string) => void;
  readonly handle: WireHandler;
  readonly notice?: (method: string, params: JsonObject) => void;
  readonly onViolation?: (message: string) => void;
}): WirePeer {
  let nextId = 1;
  let closed: LineUpError | undefined;
  const pending = new Map<number, { readonly resolve: (value: JsonValue) => void; readonly reject: (error: LineUpError) => void }>();
  const running = new Map<string | number, AbortController>();
  const send = (message: JsonObject): void => {
    if (closed === undefined) options.send(JSON.stringify(message));
  };

  const answer = (id: string | number, method: string, params: JsonObject): void => {
    const controller = new AbortController();
    running.set(id, controller);
    void Promise.resolve()
      .then(() => options.handle(method, params, controller.signal))
      .then(
        (result) => send({ jsonrpc: "2.0", id, result }),
        (error: unknown) => send({ jsonrpc: "2.0", id, error: wireErrorOf(error) }),
      )
      .finally(() => running.delete(id));
  };

  return {
    request(method, params, signal) {
      if (closed !== undefined) return Promise.reject(closed);
      if (signal?.aborted === true) return Promise.reject(new LineUpError("request_cancelled", "the call was cancelled"));
      const id = nextId++;
      return new Promise<JsonValue>((resolve, reject) => {
        const onAbort = (): void => {
          if (!pending.delete(id)) return;
          send({ jsonrpc: "2.0", method: "$/cancel", params: { id } });
          reject(new LineUpError("request_cancelled", "the call was cancelled"));
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        const settle = (): void => signal?.removeEventListener("abort", onAbort);
        pending.set(id, {
          resolve: (value) => (settle(), resolve(value)),
          reject: (error) => (settle(), reject(error)),
        });
        send({ jsonrpc: "2.0", id, method, params });
      });
    },
    notify(method, params) {
      send({ jsonrpc: "2.0", method, params });
    },
    receive(text) {
      if (closed !== undefined) return;
      const decoded = decodeJson(text, { maxBytes: MAX_LOCAL_FRAME_BYTES });
      const message = decoded.ok ? decoded.value : undefined;
      if (!isRecord(message) || message["jsonrpc"] !== "2.0") return options.onViolation?.("a frame that is not a JSON-RPC 2.0 message");
      const id = message["id"];
      const method = message["method"];
      if (typeof method === "string") {
        const params = isRecord(message["params"]) ? (message["params"] as JsonObject) : {};
        if (method === "$/cancel") return void running.get(params["id"] as string | number)?.abort();
        if (typeof id === "string" || typeof id === "number") return answer(id, method, params);
        return options.notice?.(method, params);
      }
      if (typeof id !== "number") return options.onViolation?.("a response to no request");
      const waiting = pending.get(id);
      if (waiting === undefined) return;
      pending.delete(id);
      if ("error" in message) waiting.reject(errorOfWire(message["error"]));
      else waiting.resolve((message["result"] ?? null) as JsonValue);
    },
    close(error) {
      if (closed !== undefined) return;
      closed = error;
      for (const waiting of pending.values()) waiting.reject(error);
      pending.clear();
      for (const controller of running.values()) controller.abort();
      running.clear();
    },
  };
}

