/**
 * The `remote-http` back-end (the `cloud-remote` plane): calls to the endpoint a server-assisted app declares,
 * made by the Runtime — never by the app's page, whose sandbox reaches no network. One call is one HTTP POST of
 * a JSON-RPC 2.0 request to the endpoint's URL; the answer is its JSON-RPC response. The request names the app
 * (`X-LineUp-App`) and carries nothing else of the device: no token, no cookie (`credentials: "omit"`). A call with an
 * idempotency key (a workflow's `backend.call` step) sends it as the `Idempotency-Key` header and as the request's
 * `idempotency_key` member.
 *
 * Limits hold as for any back-end: `call_timeout_ms` aborts the request (`operation_expired`),
 * `max_concurrent_calls` in flight at once (`overloaded`), answers past the size limit or not JSON-RPC are
 * `invalid_result`; a network failure or an HTTP error status is `handler_failed`.
 */
import { LineUpError, isErrorCode, type JsonValue } from "@lineup/protocol";
import type { Clock } from "../core/ports.js";
import { MAX_BACKEND_MESSAGE_BYTES, resolveBackendLimits, type BackendRunner, type BackendStartSpec, type BackendStatus } from "./runner.js";

export interface RemoteHttpOptions {
  /** The endpoint's URL, from the manifest's `execution.endpoints`. */
  readonly url: string;
  /** Defaults to `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
  /** The call's time limit runs on it. */
  readonly clock: Clock;
}

export function createRemoteHttpRunner(spec: BackendStartSpec, remote: RemoteHttpOptions): BackendRunner {
  const limits = resolveBackendLimits(spec.declaration);
  const doFetch = remote.fetch ?? globalThis.fetch.bind(globalThis);
  let inFlight = 0;
  let nextId = 1;
  let status: BackendStatus = "idle";
  const controllers = new Set<AbortController>();
  // Read through functions: both change while a request is awaited.
  const isAborted = (signal: AbortSignal | undefined): boolean => signal?.aborted === true;
  const isStopped = (): boolean => status === "stopped";

  return {
    status: () => status,
    async call(method, params, options = {}) {
      if (status === "stopped") throw new LineUpError("handler_failed", `back-end ${spec.declaration.id} is stopped`, { data: { reason: "stopped" } });
      if (inFlight >= limits.max_concurrent_calls) throw new LineUpError("overloaded", `back-end ${spec.declaration.id} already has ${inFlight} calls in flight`);
      if (options.signal?.aborted === true) throw new LineUpError("request_cancelled", "the call was cancelled");
      inFlight += 1;
      status = "running";
      const controller = new AbortController();
      controllers.add(controller);
      let expired = false;
      const cancelTimer = remote.clock.setTimer(limits.call_timeout_ms, () => {
        expired = true;
        controller.abort();
      });
      const onAbort = () => controller.abort();
      options.signal?.addEventListener("abort", onAbort, { once: true });
      try {
        const id = nextId++;
        const key = options.idempotency_key;
        let response: Response;
        try {
          response = await doFetch(remote.url, {
            method: "POST",
            headers: { "content-type": "application/json", "x-lineup-app": spec.app_scope, "x-lineup-backend": spec.declaration.id, ...(key === undefined ? {} : { "idempotency-key": key }) },
            body: JSON.stringify({ jsonrpc: "2.0", id, method, params, ...(key === undefined ? {} : { idempotency_key: key }) }),
            credentials: "omit",
            redirect: "error",
            signal: controller.signal,
          });
        } catch (error) {
          if (expired) throw new LineUpError("operation_expired", `back-end ${spec.declaration.id} did not answer ${method} within ${limits.call_timeout_ms} ms`);
          if (isAborted(options.signal)) throw new LineUpError("request_cancelled", "the call was cancelled");
          if (isStopped()) throw new LineUpError("handler_failed", `back-end ${spec.declaration.id} was stopped`, { data: { reason: "stopped" } });
          throw new LineUpError("handler_failed", `back-end ${spec.declaration.id} could not be reached: ${error instanceof Error ? error.message : "network error"}`, { data: { reason: "unreachable" } });
        }
        if (!response.ok) throw new LineUpError("handler_failed", `back-end ${spec.declaration.id} answered HTTP ${response.status}`, { data: { reason: "http_status", status: response.status } });
        const text = await response.text().catch(() => {
          if (expired) throw new LineUpError("operation_expired", `back-end ${spec.declaration.id} did not answer ${method} within ${limits.call_timeout_ms} ms`);
          throw new LineUpError("handler_failed", `back-end ${spec.declaration.id}'s answer was cut off`, { data: { reason: "unreachable" } });
        });
        if (text.length > MAX_BACKEND_MESSAGE_BYTES) throw new LineUpError("invalid_result", `back-end ${spec.declaration.id}'s answer is over ${MAX_BACKEND_MESSAGE_BYTES} bytes`);
        return readResponse(text, id, spec.declaration.id);
      } finally {
        cancelTimer();
        options.signal?.removeEventListener("abort", onAbort);
        controllers.delete(controller);
        inFlight -= 1;
        if (status === "running" && inFlight === 0) status = "idle";
      }
    },
    async stop() {
      status = "stopped";
      for (const controller of controllers) controller.abort();
    },
  };
}

function readResponse(text: string, id: number, backend: string): JsonValue {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    throw new LineUpError("invalid_result", `back-end ${backend} answered something that is not JSON`);
  }
  const record = typeof message === "object" && message !== null && !Array.isArray(message) ? (message as Record<string, unknown>) : undefined;
  if (record === undefined || record["jsonrpc"] !== "2.0" || record["id"] !== id) throw new LineUpError("invalid_result", `back-end ${backend} answered something that is not this call's JSON-RPC response`);
  if ("error" in record) {
    const error = record["error"] as { message?: unknown; data?: { code?: unknown } } | null;
    const code = error?.data?.code;
    const text = typeof error?.message === "string" ? error.message.slice(0, 500) : "the back-end refused the call";
    throw new LineUpError(typeof code === "string" && isErrorCode(code) ? code : "handler_failed", text);
  }
  if (!("result" in record)) throw new LineUpError("invalid_result", `back-end ${backend}'s response has neither result nor error`);
  return record["result"] as JsonValue;
}
