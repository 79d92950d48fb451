/**
 * The `wasm` back-end runner, on either host: the module runs in a worker of its own (a Node worker thread, a
 * browser Worker: `WasmWorkerHost`), speaking the ABI of `wasm-abi.ts`, whose worker side is the same code on both.
 * Calls run one at a time, in order; past `max_concurrent_calls` queued or running, a call is `overloaded`. A call
 * past `call_timeout_ms` is killed with its worker (`operation_expired`); calls queued behind it run on a fresh
 * worker. A trap, an abort or the memory limit fails only that call (`handler_failed`); the module starts afresh for
 * the next one. Restarts follow the back-end's policy: `never` leaves the runner `failed` after the first failure.
 */
import { LineUpError, isErrorCode, type JsonValue } from "@lineup/protocol";
import type { Clock } from "../core/ports.js";
import { type WasmWorkerReply, type WasmWorkerRequest } from "./wasm-abi.js";
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
  readonly signal?: AbortSignal;
  started?: boolean;
}

export function createWasmRunner(spec: BackendStartSpec, host: { readonly spawn: WasmWorkerHost; readonly clock: Clock }): BackendRunner {
  const limits = resolveBackendLimits(spec.declaration);
  const restart = resolveRestartPolicy(spec.declaration);
  const pages = limits.memory_mb * 16;
  let status: BackendStatus = "idle";
  let worker: WasmWorker | undefined;
  let loaded: Promise<void> | undefined;
  let nextId = 1;
  let failures = 0;
  const queue: Pending[] = [];
  let running: Pending | undefined;
  let timer: (() => void) | undefined;
  const waiting = new Map<number, (reply: WasmWorkerReply) => void>();

  const kill = (): void => {
    const dying = worker;
    worker = undefined;
    loaded = undefined;
    for (const [, settle] of waiting) settle({ id: 0, ok: false, code: "handler_failed", reason: "crashed", message: "the back-end's worker ended" });
    waiting.clear();
    dying?.terminate();
  };

  const start = (): Promise<void> => {
    if (loaded !== undefined) return loaded;
    status = "starting";
    let w: WasmWorker | undefined = undefined;
    w = host.spawn(
      {
        onReply: (reply) => {
          const settle = waiting.get(reply.id);
          waiting.delete(reply.id);
          settle?.(reply);
        },
        onLog: (text) => spec.diagnostics?.(new Error(`wasm back-end ${spec.app_scope}/${spec.declaration.id}: ${text}`), "back-end log"),
        onDeath: (error) => {
          if (error !== undefined) spec.diagnostics?.(error, `wasm back-end ${spec.declaration.id}`);
          if (worker === w && w !== undefined) kill();
        },
      },
      { memory_mb: limits.memory_mb },
    );
    worker = w;
    const id = nextId++;
    loaded = new Promise<void>((resolve, reject) => {
      waiting.set(id, (reply) => (reply.ok ? resolve() : reject(new LineUpError("handler_failed", reply.message, { data: { reason: reply.reason } }))));
      w.post({ kind: "load", id, module: spec.entry, memory_pages: pages });
    }).then(() => {
      status = "running";
    });
    loaded.catch(() => {
      status = "failed";
      kill();
    });
    return loaded;
  };

  /** After a failure: the next call gets a fresh worker while the policy allows. */
  const failed = (): void => {
    failures += 1;
    if (restart.policy === "never" || failures > restart.max_restarts) status = "failed";
    else status = "restarting";
  };

  const pump = (): void => {
    if (running !== undefined || queue.length === 0) return;
    const next = queue.shift()!;
    if (next.signal?.aborted === true) {
      next.reject(new LineUpError("request_cancelled", "the call was cancelled"));
      pump();
      return;
    }
    running = next;
    next.started = true;
    const done = (settle: () => void): void => {
      if (running !== next) return;
      running = undefined;
      timer?.();
      timer = undefined;
      settle();
      pump();
    };
    start().then(
      () => {
        if (running !== next) return;
        timer = host.clock.setTimer(limits.call_timeout_ms, () => {
          timer = undefined;
          waiting.delete(next.id);
          kill();
          failed();
          done(() => next.reject(new LineUpError("operation_expired", `back-end ${spec.declaration.id} ran ${next.method} past ${limits.call_timeout_ms} ms and was stopped`)));
        });
        const onAbort = (): void => {
          waiting.delete(next.id);
          kill();
          done(() => next.reject(new LineUpError("request_cancelled", "the call was cancelled")));
        };
        next.signal?.addEventListener("abort", onAbort, { once: true });
        waiting.set(next.id, (reply) => {
          next.signal?.removeEventListener("abort", onAbort);
          if (reply.ok) {
            if (reply.json.length > MAX_BACKEND_MESSAGE_BYTES) return done(() => next.reject(new LineUpError("invalid_result", `back-end ${spec.declaration.id}'s answer is over ${MAX_BACKEND_MESSAGE_BYTES} bytes`)));
            done(() => settleAnswer(next, reply.json));
            return;
          }
          if (reply.reason !== "protocol_violation" || reply.code !== "invalid_result") failed();
          done(() => next.reject(new LineUpError(isErrorCode(reply.code) ? reply.code : "handler_failed", reply.message, { data: { reason: reply.reason } })));
        });
        worker!.post({ kind: "call", id: next.id, method: next.method, params: next.params });
      },
      (error: unknown) => {
        failed();
        done(() => next.reject(error));
      },
    );
  };

  const settleAnswer = (call: Pending, json: string): void => {
    let answer: unknown;
    try {
      answer = JSON.parse(json);
    } catch {
      call.reject(new LineUpError("invalid_result", `back-end ${spec.declaration.id} answered something that is not JSON`));
      return;
    }
    const record = typeof answer === "object" && answer !== null && !Array.isArray(answer) ? (answer as Record<string, unknown>) : undefined;
    if (record !== undefined && "result" in record) call.resolve(record["result"] as JsonValue);
    else if (record !== undefined && typeof record["error"] === "object" && record["error"] !== null) {
      const error = record["error"] as { code?: unknown; message?: unknown };
      call.reject(new LineUpError(typeof error.code === "string" && isErrorCode(error.code) ? error.code : "handler_failed", typeof error.message === "string" ? error.message.slice(0, 500) : "the back-end refused the call"));
    } else call.reject(new LineUpError("invalid_result", `back-end ${spec.declaration.id} answered neither result nor error`));
  };

  return {
    status: () => status,
    call(method, params, options = {}) {
      if (status === "stopped") return Promise.reject(new LineUpError("handler_failed", `back-end ${spec.declaration.id} is stopped`, { data: { reason: "stopped" } }));
      if (status === "failed") return Promise.reject(new LineUpError("handler_failed", `back-end ${spec.declaration.id} failed and is not restarted`, { data: { reason: "restart_limit" } }));
      if (queue.length + (running === undefined ? 0 : 1) >= limits.max_concurrent_calls) return Promise.reject(new LineUpError("overloaded", `back-end ${spec.declaration.id} already has ${limits.max_concurrent_calls} calls`));
      const text = JSON.stringify(params ?? null);
      return new Promise<JsonValue>((resolve, reject) => {
        queue.push({ id: nextId++, method, params: text, resolve, reject, ...(options.signal === undefined ? {} : { signal: options.signal }) });
        pump();
      });
    },
    async stop() {
      status = "stopped";
      const stopped = new LineUpError("handler_failed", `back-end ${spec.declaration.id} was stopped`, { data: { reason: "stopped" } });
      for (const call of queue.splice(0)) call.reject(stopped);
      const current = running;
      running = undefined;
      timer?.();
      timer = undefined;
      current?.reject(stopped);
      kill();
    },
  };
}
