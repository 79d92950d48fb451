/**
 * The `wasm` back-end runner, on either host: the module runs in a worker of its own (a Node worker thread, a
 * browser Worker: `WasmWorkerHost`), speaking the ABI of `wasm-abi.ts`, whose worker side is the same code on both.
 * Calls run one at a time, in order; past `max_concurrent_calls` queued or running, a call is `overloaded`. A call
 * past `call_timeout_ms` is killed with its worker (`operation_expired`); calls queued behind it (they had not
 * started) run on a fresh worker. A trap, an abort or the memory limit fails only that call (`handler_failed`); the
 * module starts afresh for the next one.
 *
 * Each of those is a failure under the restart policy: `never` leaves the runner `failed` after the first (the calls
 * queued then, and later ones, end `handler_failed` with `data.reason: "restart_limit"`); `on-failure` and `always`
 * (the same here: a module never ends by itself) start it afresh up to `max_restarts` times, the next call waiting
 * `backoff_ms`, doubled at each failure. A module that cannot start — refused by the ABI's check, a start function
 * that traps or runs past `call_timeout_ms`, a host that cannot make the worker — is `failed` at once: it is
 * deterministic, so it would fail the same way again, and every call ends with that `start_failed` error. A cancelled
 * call ends `request_cancelled` at once, queued or running (a running one's worker is killed; not a failure).
 */
import { LineUpError, isErrorCode, type JsonValue } from "@lineup/protocol";
import type { Clock } from "../core/ports.js";
import { wasmMemoryPages, type WasmWorkerReply, type WasmWorkerRequest } from "./wasm-abi.js";
import { MAX_BACKEND_MESSAGE_BYTES, resolveBackendLimits, resolveRestartPolicy, type BackendRunner, type BackendStartSpec, type BackendStatus } from "./runner.js";

/** One worker as the runner drives it. */
export interface WasmWorker {
  post(request: WasmWorkerRequest): void;
  terminate(): void;
}

/** How a host starts a worker running `wasmWorkerMain`: its replies and logs, its death (an error, an exit). */
export type WasmWorkerHost = (handlers: { readonly onReply: (reply: WasmWorkerReply) => void; readonly onLog: (text: string) => void; readonly onDeath: (error?: unknown) => void }, limits: { readonly memory_mb: number }) => WasmWorker;

interface Pending {
  readonly id: number;
  readonly method: string;
  readonly params: string;
  readonly resolve: (value: JsonValue) => void;
  readonly reject: (error: unknown) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
  /** Posted to the worker: cancelling it now means killing the worker. */
  sent: boolean;
  cancelTimer?: () => void;
}

interface Live {
  worker?: WasmWorker;
  ready?: Promise<void>;
  loaded: boolean;
}

export function createWasmRunner(spec: BackendStartSpec, host: { readonly spawn: WasmWorkerHost; readonly clock: Clock }): BackendRunner {
  const id = spec.declaration.id;
  const limits = resolveBackendLimits(spec.declaration);
  const restart = resolveRestartPolicy(spec.declaration);
  const pages = wasmMemoryPages(limits);
  let status: BackendStatus = "idle";
  let live: Live | undefined;
  let nextId = 1;
  let failures = 0;
  let notBefore = 0;
  /** Why the module can never start: every later call ends with it. */
  let fatal: LineUpError | undefined;
  const queue: Pending[] = [];
  let running: Pending | undefined;
  const waiting = new Map<number, (reply: WasmWorkerReply) => void>();

  const diagnose = (message: string, context: string): void => spec.diagnostics?.(new Error(`wasm back-end ${spec.app_scope}/${id}: ${message}`), context);
  const stoppedError = (): LineUpError => new LineUpError("handler_failed", `back-end ${id} was stopped`, { data: { reason: "stopped" } });
  const failedError = (): LineUpError => fatal ?? new LineUpError("handler_failed", `back-end ${id} failed and is not restarted`, { data: { reason: "restart_limit" } });
  const cancelled = (): LineUpError => new LineUpError("request_cancelled", "the call was cancelled");

  /** Ends the worker; whatever waited on it ends `handler_failed` with `reason`. */
  const kill = (reason = "crashed", message = `back-end ${id}'s worker ended`): void => {
    const dying = live;
    live = undefined;
    const settles = [...waiting.values()];
    waiting.clear();
    for (const settle of settles) settle({ id: 0, ok: false, code: "handler_failed", reason, message });
    dying?.worker?.terminate();
  };

  /** Ends every queued call with `error`. */
  const dropQueued = (error: LineUpError): void => {
    for (const call of queue.splice(0)) {
      call.signal?.removeEventListener("abort", call.onAbort);
      call.reject(error);
    }
  };

  /** After a failure: the runner is `failed`, or starts afresh after its backoff, as the policy says. */
  const failed = (message: string): void => {
    if (status === "stopped" || status === "failed") return;
    failures += 1;
    if (restart.policy === "never" || failures > restart.max_restarts) {
      status = "failed";
      diagnose(`${message}; not restarted (${restart.policy === "never" ? "restart: never" : `after ${restart.max_restarts} restarts`})`, "back-end failed");
      kill("restart_limit", `back-end ${id} failed and is not restarted`);
      dropQueued(failedError());
    } else {
      status = "restarting";
      notBefore = host.clock.now() + Math.min(60_000, restart.backoff_ms * 2 ** (failures - 1));
      diagnose(`${message}; starts afresh for the next call`, "back-end restart");
    }
  };

  /** A module that cannot start: `failed` for good. */
  const unstartable = (error: LineUpError): void => {
    if (status === "stopped") return;
    fatal = error;
    status = "failed";
    diagnose(error.message, "back-end start");
    kill("start_failed", error.message);
    dropQueued(error);
  };

  const start = (): Promise<void> => {
    if (live?.ready !== undefined) return live.ready;
    const mine: Live = { loaded: false };
    live = mine;
    if (status !== "restarting") status = "starting";
    try {
      mine.worker = host.spawn(
        {
          onReply: (reply) => {
            if (live !== mine) return;
            const settle = waiting.get(reply.id);
            waiting.delete(reply.id);
            settle?.(reply);
          },
          onLog: (text) => {
            if (live === mine) diagnose(text, "back-end log");
          },
          onDeath: (error) => {
            if (live !== mine) return;
            const message = error instanceof Error ? error.message : `back-end ${id}'s worker ended`;
            if (error !== undefined) spec.diagnostics?.(error, `wasm back-end ${spec.app_scope}/${id}`);
            // A worker that ends before its module is loaded could not start at all (a page's policy, say).
            kill(mine.loaded ? "crashed" : "start_failed", mine.loaded ? message : `back-end ${id}'s worker ended before its module was loaded: ${message}`);
          },
        },
        { memory_mb: limits.memory_mb },
      );
    } catch (error) {
      live = undefined;
      return Promise.reject(new LineUpError("handler_failed", `back-end ${id}'s worker could not be started: ${error instanceof Error ? error.message : String(error)}`, { data: { reason: "start_failed" } }));
    }
    const loadId = nextId++;
    mine.ready = new Promise<void>((resolve, reject) => {
      const cancelTimer = host.clock.setTimer(limits.call_timeout_ms, () => {
        waiting.delete(loadId);
        reject(new LineUpError("handler_failed", `back-end ${id} did not start within ${limits.call_timeout_ms} ms`, { data: { reason: "start_failed" } }));
        if (live === mine) kill();
      });
      waiting.set(loadId, (reply) => {
        cancelTimer();
        if (reply.ok) {
          mine.loaded = true;
          resolve();
        } else reject(new LineUpError("handler_failed", reply.message, { data: { reason: reply.reason } }));
      });
      mine.worker!.post({ kind: "load", id: loadId, module: spec.entry, memory_pages: pages });
    });
    return mine.ready;
  };

  /** Ends `call` once — running or queued — then runs the next. */
  const settle = (call: Pending, how: () => void): void => {
    call.cancelTimer?.();
    call.signal?.removeEventListener("abort", call.onAbort);
    const queued = queue.indexOf(call);
    if (queued >= 0) queue.splice(queued, 1);
    else if (running === call) running = undefined;
    else return;
    how();
    pump();
  };

  const run = async (call: Pending): Promise<void> => {
    try {
      const wait = notBefore - host.clock.now();
      if (wait > 0) await new Promise<void>((resolve) => host.clock.setTimer(wait, resolve));
      if (running !== call) return;
      await start();
    } catch (error) {
      if (running !== call) return;
      const failure = error instanceof LineUpError ? error : new LineUpError("handler_failed", String(error), { data: { reason: "crashed" } });
      if (failure.data?.["reason"] === "start_failed") unstartable(failure);
      else failed(failure.message);
      settle(call, () => call.reject(failure));
      return;
    }
    if (running !== call) return;
    const worker = live?.worker;
    if (worker === undefined) {
      failed(`back-end ${id}'s worker ended`);
      settle(call, () => call.reject(new LineUpError("handler_failed", `back-end ${id}'s worker ended`, { data: { reason: "crashed" } })));
      return;
    }
    status = "running";
    call.sent = true;
    call.cancelTimer = host.clock.setTimer(limits.call_timeout_ms, () => {
      if (running !== call) return;
      waiting.delete(call.id);
      kill();
      failed(`${call.method} ran past ${limits.call_timeout_ms} ms and was killed`);
      settle(call, () => call.reject(new LineUpError("operation_expired", `back-end ${id} ran ${call.method} past ${limits.call_timeout_ms} ms and was stopped`)));
    });
    waiting.set(call.id, (reply) => {
      if (running !== call) return;
      if (reply.ok) {
        if (reply.json.length > MAX_BACKEND_MESSAGE_BYTES) return settle(call, () => call.reject(new LineUpError("invalid_result", `back-end ${id}'s answer is over ${MAX_BACKEND_MESSAGE_BYTES} bytes`)));
        return settle(call, () => settleAnswer(call, reply.json));
      }
      if (reply.code === "handler_failed") failed(reply.message);
      settle(call, () => call.reject(new LineUpError(isErrorCode(reply.code) ? reply.code : "handler_failed", reply.message, { data: { reason: reply.reason } })));
    });
    worker.post({ kind: "call", id: call.id, method: call.method, params: call.params });
  };

  const pump = (): void => {
    if (running !== undefined || queue.length === 0 || status === "stopped" || status === "failed") return;
    running = queue.shift()!;
    void run(running);
  };

  const settleAnswer = (call: Pending, json: string): void => {
    let answer: unknown;
    try {
      answer = JSON.parse(json);
    } catch {
      call.reject(new LineUpError("invalid_result", `back-end ${id} answered something that is not JSON`));
      return;
    }
    const record = typeof answer === "object" && answer !== null && !Array.isArray(answer) ? (answer as Record<string, unknown>) : undefined;
    if (record !== undefined && "result" in record) call.resolve(record["result"] as JsonValue);
    else if (record !== undefined && typeof record["error"] === "object" && record["error"] !== null) {
      const error = record["error"] as { code?: unknown; message?: unknown };
      call.reject(new LineUpError(typeof error.code === "string" && isErrorCode(error.code) ? error.code : "handler_failed", typeof error.message === "string" ? error.message.slice(0, 500) : "the back-end refused the call"));
    } else call.reject(new LineUpError("invalid_result", `back-end ${id} answered neither result nor error`));
  };

  return {
    status: () => status,
    call(method, params, options = {}) {
      if (status === "stopped") return Promise.reject(stoppedError());
      if (status === "failed") return Promise.reject(failedError());
      if (options.signal?.aborted === true) return Promise.reject(cancelled());
      if (queue.length + (running === undefined ? 0 : 1) >= limits.max_concurrent_calls) return Promise.reject(new LineUpError("overloaded", `back-end ${id} already has ${limits.max_concurrent_calls} calls`));
      const text = JSON.stringify(params ?? null);
      if (text.length > MAX_BACKEND_MESSAGE_BYTES || (text.length * 3 > MAX_BACKEND_MESSAGE_BYTES && new TextEncoder().encode(text).length > MAX_BACKEND_MESSAGE_BYTES)) {
        return Promise.reject(new LineUpError("message_too_large", `a call to back-end ${id} is at most ${MAX_BACKEND_MESSAGE_BYTES} bytes`));
      }
      return new Promise<JsonValue>((resolve, reject) => {
        const call: Pending = {
          id: nextId++,
          method,
          params: text,
          resolve,
          reject,
          signal: options.signal,
          sent: false,
          onAbort: () => {
            if (running === call && call.sent) {
              // The module is in the middle of it: the only way to stop it is to end its worker (not a failure).
              waiting.delete(call.id);
              kill();
            }
            settle(call, () => reject(cancelled()));
          },
        };
        options.signal?.addEventListener("abort", call.onAbort, { once: true });
        queue.push(call);
        pump();
      });
    },
    async stop() {
      if (status === "stopped") return;
      status = "stopped";
      const stopped = stoppedError();
      dropQueued(stopped);
      const current = running;
      running = undefined;
      if (current !== undefined) {
        current.cancelTimer?.();
        current.signal?.removeEventListener("abort", current.onAbort);
        waiting.delete(current.id);
        current.reject(stopped);
      }
      kill("stopped", `back-end ${id} was stopped`);
    },
  };
}
