/**
 * The `stdio-jsonrpc` back-end runner on the Node host (docs/manifest.md §8b): the host starts the app's program as
 * a child process and supervises it.
 *
 * **The sandbox.** The program (`runtime: node`) runs under Node's permission model: it may read only its own code
 * directory (`<dataDir>/app-backends/<app>/<id>/<sha256>/`) and read and write only its own working directory
 * (`<dataDir>/app-work/<app>/<id>/`, mode 0700, also its HOME and TMPDIR); it may start no process, worker or addon.
 * Its environment is made afresh (PATH, HOME, TMPDIR, LANG): nothing of the host's — no token, no key — is inherited.
 * Where `unshare -rn` works (a new user and network namespace: probed once), it runs inside a network namespace of
 * its own, where not even the host's loopback answers; where it does not, the program can open sockets, and the
 * host says so in its diagnostics at the first start. Its V8 heap is capped at `memory_mb`, and its resident memory
 * is read from `/proc` while it runs: past `memory_mb` it is killed.
 *
 * **The wire.** JSON-RPC 2.0, one JSON object per line of UTF-8, both ways. The host sends a call as a request
 * `{jsonrpc, id, method, params}`; the program answers `{jsonrpc, id, result}` or `{jsonrpc, id, error: {code,
 * message, data: {code}}}` (`data.code` a LineUp error code). The program may ask the host — a request whose method
 * starts `host.` (`host.storage.put`, `host.capability.request`) — and the host answers it the same way, after the
 * checks a surface gets. A notification `log` `{level, message}` goes to diagnostics. A cancelled call is told with a
 * notification `$/cancel` `{id}`.
 *
 * **Supervision.** A line over 1 MiB or one that is not JSON-RPC kills the program (`handler_failed`,
 * `protocol_violation`); an exit fails the calls in flight (`crashed`); a call past `call_timeout_ms` kills it (that
 * call `operation_expired`, the others `handler_failed`). The program starts again for the next call, after a
 * backoff doubling from `backoff_ms`, while the restart policy allows (`never`: the first failure is final;
 * `max_restarts` in all). Past `max_concurrent_calls` in flight a call is `overloaded`.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { LineUpError, isErrorCode, type JsonValue } from "@lineup/protocol";
import { MAX_BACKEND_MESSAGE_BYTES, resolveBackendLimits, resolveRestartPolicy, type BackendRunner, type BackendStartSpec, type BackendStatus } from "../backends/runner.js";

let unshareWorks: boolean | undefined;
/** Whether this machine lets an unprivileged process make its own network namespace (`unshare -rn`). */
export function networkNamespaceAvailable(): boolean {
  unshareWorks ??= spawnSync("unshare", ["-rn", "true"], { stdio: "ignore", timeout: 5_000 }).status === 0;
  return unshareWorks;
}

const PERMISSION_FLAG = Number(process.versions.node.split(".")[0]) >= 22 ? "--permission" : "--experimental-permission";
const MEMORY_POLL_MS = 100;

interface InFlight {
  readonly resolve: (value: JsonValue) => void;
  readonly reject: (error: unknown) => void;
  readonly timer: ReturnType<typeof setTimeout>;
  readonly method: string;
}

export function createStdioRunner(spec: BackendStartSpec & { readonly dataDir: string }): BackendRunner {
  const limits = resolveBackendLimits(spec.declaration);
  const restart = resolveRestartPolicy(spec.declaration);
  const id = spec.declaration.id;
  const digest = createHash("sha256").update(spec.entry).digest("hex");
  const codeDir = join(spec.dataDir, "app-backends", spec.app_scope, id, digest);
  const workDir = join(spec.dataDir, "app-work", spec.app_scope, id);
  const entryPath = join(codeDir, basename(spec.declaration.entry ?? "main.mjs"));
  let status: BackendStatus = "idle";
  let child: ChildProcessWithoutNullStreams | undefined;
  let failures = 0;
  let notBefore = 0;
  let nextId = 1;
  let warned = false;
  const inFlight = new Map<number, InFlight>();
  let memoryTimer: ReturnType<typeof setInterval> | undefined;
  let stderrTail = "";

  const failAll = (code: "handler_failed", reason: string, message: string): void => {
    for (const [key, call] of inFlight) {
      clearTimeout(call.timer);
      call.reject(new LineUpError(code, message, { data: { reason } }));
      inFlight.delete(key);
    }
  };

  /** Ends the program; the calls in flight end `handler_failed` with `reason`; the next call restarts it if the policy allows. */
  const kill = (reason: string, message: string, countsAsFailure = true): void => {
    const dying = child;
    child = undefined;
    if (memoryTimer !== undefined) clearInterval(memoryTimer);
    memoryTimer = undefined;
    dying?.kill("SIGKILL");
    failAll("handler_failed", reason, message);
    if (!countsAsFailure || status === "stopped") return;
    failures += 1;
    if (restart.policy === "never" || failures > restart.max_restarts) status = "failed";
    else {
      status = "restarting";
      notBefore = Date.now() + Math.min(60_000, restart.backoff_ms * 2 ** (failures - 1));
    }
    if (stderrTail !== "") spec.diagnostics?.(new Error(`back-end ${spec.app_scope}/${id} (${reason}); its last words: ${stderrTail.slice(-2_000)}`), "back-end");
  };

  const send = (message: object): void => {
    child?.stdin.write(`${JSON.stringify(message)}\n`);
  };

  const onLine = (line: string): void => {
    if (line.trim() === "") return;
    let message: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(line);
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed) || (parsed as { jsonrpc?: unknown }).jsonrpc !== "2.0") throw new Error("not JSON-RPC 2.0");
      message = parsed as Record<string, unknown>;
    } catch {
      kill("protocol_violation", `back-end ${id} wrote something that is not a JSON-RPC message`);
      return;
    }
    if (typeof message["method"] === "string") {
      const method = message["method"];
      if (method === "log") {
        const params = message["params"] as { level?: unknown; message?: unknown } | undefined;
        spec.diagnostics?.(new Error(`back-end ${spec.app_scope}/${id}: ${String(params?.message ?? "").slice(0, 2_000)}`), "back-end log");
        return;
      }
      if (!method.startsWith("host.") || message["id"] === undefined) return;
      const requestId = message["id"];
      spec.hostCalls(method.slice("host.".length), (message["params"] ?? null) as JsonValue).then(
        (result) => send({ jsonrpc: "2.0", id: requestId, result }),
        (error: unknown) => {
          const code = error instanceof LineUpError ? error.code : "internal_error";
          send({ jsonrpc: "2.0", id: requestId, error: { code: -32000, message: error instanceof Error ? error.message : "refused", data: { code } } });
        },
      );
      return;
    }
    const call = typeof message["id"] === "number" ? inFlight.get(message["id"]) : undefined;
    if (call === undefined) return;
    inFlight.delete(message["id"] as number);
    clearTimeout(call.timer);
    if ("error" in message) {
      const error = message["error"] as { message?: unknown; data?: { code?: unknown } } | null;
      const code = error?.data?.code;
      call.reject(new LineUpError(typeof code === "string" && isErrorCode(code) ? code : "handler_failed", typeof error?.message === "string" ? error.message.slice(0, 500) : "the back-end refused the call"));
    } else if ("result" in message) call.resolve(message["result"] as JsonValue);
    else call.reject(new LineUpError("invalid_result", `back-end ${id}'s response has neither result nor error`));
  };

  const readRss = (pid: number): number | undefined => {
    try {
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      return match === null ? undefined : Number(match[1]) * 1024;
    } catch {
      return undefined;
    }
  };

  const start = (): void => {
    mkdirSync(codeDir, { recursive: true, mode: 0o700 });
    mkdirSync(workDir, { recursive: true, mode: 0o700 });
    writeFileSync(entryPath, spec.entry, { mode: 0o400, flag: "w" });
    const nodeArgs = [PERMISSION_FLAG, `--allow-fs-read=${codeDir}`, `--allow-fs-read=${workDir}`, `--allow-fs-write=${workDir}`, `--max-old-space-size=${limits.memory_mb}`, "--disable-proto=throw", entryPath];
    const isolated = networkNamespaceAvailable();
    if (!isolated && !warned) {
      warned = true;
      spec.diagnostics?.(new Error(`back-end ${spec.app_scope}/${id} runs without a network namespace of its own (unshare -rn is not available here): it can open sockets`), "back-end sandbox");
    }
    const env = { PATH: "/usr/bin:/bin", HOME: workDir, TMPDIR: workDir, LANG: "C.UTF-8" };
    const proc = isolated ? spawn("unshare", ["-rn", process.execPath, ...nodeArgs], { cwd: workDir, env, stdio: "pipe" }) : spawn(process.execPath, nodeArgs, { cwd: workDir, env, stdio: "pipe" });
    child = proc;
    status = "running";
    stderrTail = "";
    let buffer = "";
    proc.stdout.setEncoding("utf8");
    proc.stdout.on("data", (chunk: string) => {
      if (child !== proc) return;
      buffer += chunk;
      for (let newline = buffer.indexOf("\n"); newline >= 0 && child === proc; newline = buffer.indexOf("\n")) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        onLine(line);
      }
      if (child === proc && buffer.length > MAX_BACKEND_MESSAGE_BYTES) kill("protocol_violation", `back-end ${id} wrote a line over ${MAX_BACKEND_MESSAGE_BYTES} bytes`);
    });
    proc.stderr.setEncoding("utf8");
    proc.stderr.on("data", (chunk: string) => {
      stderrTail = (stderrTail + chunk).slice(-16_384);
    });
    proc.stdin.on("error", () => undefined);
    proc.on("error", (error) => {
      if (child === proc) kill("start_failed", `back-end ${id} could not be started: ${error.message}`);
    });
    proc.on("exit", (code, signal) => {
      if (child !== proc) return;
      kill("crashed", `back-end ${id} ended (${signal ?? `exit code ${code}`})`);
    });
    if (proc.pid !== undefined) {
      const pid = proc.pid;
      memoryTimer = setInterval(() => {
        const rss = readRss(pid);
        if (rss !== undefined && rss > limits.memory_mb * 1024 * 1024 && child === proc) kill("memory_limit", `back-end ${id} used ${Math.round(rss / 1048576)} MB, past its ${limits.memory_mb} MB`);
      }, MEMORY_POLL_MS);
      memoryTimer.unref?.();
    }
  };

  return {
    status: () => status,
    async call(method, params, options = {}) {
      if (status === "stopped") throw new LineUpError("handler_failed", `back-end ${id} is stopped`, { data: { reason: "stopped" } });
      if (status === "failed") throw new LineUpError("handler_failed", `back-end ${id} failed and is not restarted`, { data: { reason: "restart_limit" } });
      if (inFlight.size >= limits.max_concurrent_calls) throw new LineUpError("overloaded", `back-end ${id} already has ${inFlight.size} calls in flight`);
      if (options.signal?.aborted === true) throw new LineUpError("request_cancelled", "the call was cancelled");
      const text = JSON.stringify({ jsonrpc: "2.0", id: 0, method, params: params ?? null });
      if (text.length > MAX_BACKEND_MESSAGE_BYTES) throw new LineUpError("message_too_large", `a call to back-end ${id} is at most ${MAX_BACKEND_MESSAGE_BYTES} bytes`);
      if (child === undefined) {
        const wait = notBefore - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        // Another call may have started it (or the runner been stopped) meanwhile.
        if ((status as BackendStatus) === "stopped") throw new LineUpError("handler_failed", `back-end ${id} is stopped`, { data: { reason: "stopped" } });
        if (child === undefined) start();
      }
      const callId = nextId++;
      return new Promise<JsonValue>((resolve, reject) => {
        const timer = setTimeout(() => {
          const call = inFlight.get(callId);
          if (call === undefined) return;
          inFlight.delete(callId);
          call.reject(new LineUpError("operation_expired", `back-end ${id} ran ${method} past ${limits.call_timeout_ms} ms and was stopped`));
          kill("crashed", `back-end ${id} was stopped: another call ran past its time`);
        }, limits.call_timeout_ms);
        inFlight.set(callId, { resolve, reject, timer, method });
        options.signal?.addEventListener(
          "abort",
          () => {
            const call = inFlight.get(callId);
            if (call === undefined) return;
            inFlight.delete(callId);
            clearTimeout(call.timer);
            send({ jsonrpc: "2.0", method: "$/cancel", params: { id: callId } });
            call.reject(new LineUpError("request_cancelled", "the call was cancelled"));
          },
          { once: true },
        );
        send({ jsonrpc: "2.0", id: callId, method, params: params ?? null });
      });
    },
    async stop() {
      const dying = child;
      status = "stopped";
      child = undefined;
      if (memoryTimer !== undefined) clearInterval(memoryTimer);
      failAll("handler_failed", "stopped", `back-end ${id} was stopped`);
      if (dying === undefined || dying.exitCode !== null) return;
      dying.kill("SIGTERM");
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          dying.kill("SIGKILL");
          resolve();
        }, 1_000);
        dying.once("exit", () => {
          clearTimeout(force);
          resolve();
        });
      });
    },
  };
}
