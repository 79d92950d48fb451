/**
 * The `mcp-stdio` back-end runner on the Node host (docs/manifest.md §8b): an MCP server that ships in the app's
 * bundle, started as a child process in the same sandbox as a `stdio-jsonrpc` program (`stdio-backend.ts`: code
 * and working folders, permission model, scrubbed environment, its own file-system view and network namespace where
 * the host can make them, memory limits, pid record) and
 * spoken to by the MCP SDK's own `Client` (`backends/mcp-client.ts`) over its stdin and stdout. Its code folder
 * holds every file of the bundle in the entry's folder (the server's own `package.json`, pages it reads), and it
 * gets the declaration's `args` after its entry.
 *
 * ## Supervision (shared design RELIABILITY X1)
 * Each of these kills the program; the calls in flight end with the typed error named, and the restart policy
 * (`restart`, as for `stdio-jsonrpc`) decides whether the next call starts it again:
 * - a line that is not UTF-8 JSON, or JSON that is not a JSON-RPC 2.0 message: `handler_failed`
 *   (`data.reason: "protocol_violation"`);
 * - a line over 1 MiB plus 64 KiB (an oversized result): `message_too_large`;
 * - more than 200 messages that answer no call of ours in one burst (refilled at 100 a second): a notification
 *   flood, `handler_failed` (`data.reason: "flood"`);
 * - a call past `call_timeout_ms` (a hang): that call `operation_expired`, the others `handler_failed` (`crashed`);
 * - an exit or a crash: `handler_failed` (`crashed`); resident memory past `memory_mb`: `memory_limit`.
 * A result whose `structuredContent` fails the method's `result_schema` is `invalid_result` (the back-end service
 * checks it) and kills nothing. The first call starts the program; a failed start (`initialize` not answered within
 * `call_timeout_ms`) counts as a failure.
 */
import { isUtf8 } from "node:buffer";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createHash } from "node:crypto";
import { join, posix } from "node:path";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { createTokenBucket, LineUpError } from "@lineup/protocol";
import { connectMcp, type McpConnection } from "../backends/mcp-client.js";
import { systemClock } from "../core/system.js";
import { resolveBackendLimits, resolveRestartPolicy, type BackendRunner, type BackendStartSpec, type BackendStatus } from "../backends/runner.js";
import { forgetProgram, reapStaleProgram, recordProgram } from "./stdio-pid-file.js";
import { LineSplitter, MAX_STDIO_LINE_BYTES, cappedProgram, classifyStdioMessage, prepareProgramFolders, residentBytes, restartDelay, sandboxShortfall, sandboxedArgv, stdioEnvironment } from "./stdio-backend.js";

/** Messages that answer no call of ours (notifications, the server's requests) allowed in one burst, and refilled per second. */
export const MCP_FLOOD_BURST = 200;
export const MCP_FLOOD_PER_SECOND = 100;
const MEMORY_POLL_MS = 100;
const STOP_GRACE_MS = 1_000;
const STDERR_TAIL_BYTES = 16 * 1024;

type Death = LineUpError;

/**
 * The SDK's `Transport` over one child's stdio, newline-delimited JSON both ways. It kills nothing itself: what
 * breaks the protocol goes to `onViolation`, and the runner ends the program.
 */
class ChildStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #lines = new LineSplitter(MAX_STDIO_LINE_BYTES);
  #unsolicited = createTokenBucket({ burst: MCP_FLOOD_BURST, perSecond: MCP_FLOOD_PER_SECOND }, () => Date.now());
  #dead = false;

  constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly onViolation: (death: Death) => void,
  ) {}

  async start(): Promise<void> {
    this.child.stdout.on("data", (chunk: Buffer) => this.#receive(chunk));
    this.child.on("close", () => {
      this.#dead = true;
      this.onclose?.();
    });
    this.child.stdin.on("error", () => undefined);
  }

  #receive(chunk: Buffer): void {
    if (this.#dead) return;
    const lines = this.#lines.push(chunk);
    if (lines === "overflow") return this.#violate(new LineUpError("message_too_large", `the MCP server wrote a message over ${MAX_STDIO_LINE_BYTES} bytes`));
    for (const line of lines) {
      if (this.#dead) return;
      let parsed: unknown;
      try {
        if (!isUtf8(line)) throw new Error("not UTF-8");
        const text = line.toString("utf8");
        if (text.trim() === "") continue;
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      const message = classifyStdioMessage(parsed);
      if (message === undefined) return this.#violate(new LineUpError("handler_failed", "the MCP server wrote something that is not a JSON-RPC 2.0 message", { data: { reason: "protocol_violation" } }));
      if (message.kind === "notification" || message.kind === "request") {
        if (!this.#unsolicited.take()) return this.#violate(new LineUpError("handler_failed", `the MCP server sent more than ${MCP_FLOOD_BURST} messages at once that answer no call`, { data: { reason: "flood" } }));
      }
      this.onmessage?.(parsed as JSONRPCMessage);
    }
  }

  #violate(death: Death): void {
    this.#dead = true;
    this.onViolation(death);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.#dead) this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  async close(): Promise<void> {
    this.#dead = true;
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
  }
}

/** One started server: its process, its MCP session once initialized, and how it ended. */
interface Live {
  readonly child: ChildProcessWithoutNullStreams;
  readonly connection: Promise<McpConnection>;
  /** Settles (rejects) once, with why the program ended. */
  readonly died: Promise<never>;
  readonly kill: (death: Death, failure: boolean) => void;
  readonly closed: Promise<void>;
  ended: boolean;
}

/** The files of the program's code folder: `spec.files` (the bundle's files in the entry's folder), else the entry alone. */
function codeFiles(spec: BackendStartSpec): ReadonlyMap<string, Uint8Array> {
  return spec.files ?? new Map([[posix.basename(spec.declaration.entry ?? "server.js"), spec.entry]]);
}

function digestOf(files: ReadonlyMap<string, Uint8Array>): string {
  const hash = createHash("sha256");
  for (const name of [...files.keys()].sort()) hash.update(`${name}\0${files.get(name)!.length}\0`).update(files.get(name)!);
  return hash.digest("hex");
}

export interface McpStdioRunnerOptions {
  readonly dataDir: string;
}

/** The runner of one `mcp-stdio` back-end of one app (see the top of this file). */
export function createMcpStdioRunner(spec: BackendStartSpec, options: McpStdioRunnerOptions): BackendRunner {
  const limits = resolveBackendLimits(spec.declaration);
  const restart = resolveRestartPolicy(spec.declaration);
  const id = spec.declaration.id;
  const files = codeFiles(spec);
  const digest = digestOf(files);
  const entryName = posix.basename(spec.declaration.entry ?? "server.js");
  const diagnose = (message: string, context: string): void => spec.diagnostics?.(new Error(`mcp back-end ${spec.app_scope}/${id}: ${message}`), context);
  const failed = (reason: string, message: string): LineUpError => new LineUpError("handler_failed", message, { data: { reason } });

  let status: BackendStatus = "idle";
  let final: LineUpError | undefined;
  let current: Live | undefined;
  let failures = 0;
  let notBefore = 0;
  let admitted = 0;
  let warned = false;

  const afterEnd = (failure: boolean, why: string): void => {
    if (status === "stopped" || status === "failed") return;
    if (!failure && restart.policy !== "always") {
      status = "stopped";
      final = failed("stopped", `back-end ${id} ended by itself and its restart policy (${restart.policy}) does not start it again`);
      return;
    }
    failures += 1;
    if (restart.policy === "never" || failures > restart.max_restarts) {
      status = "failed";
      final = failed("restart_limit", `back-end ${id} failed and is not restarted`);
      diagnose(`${why}; not restarted`, "back-end failed");
      return;
    }
    status = "restarting";
    const delay = restartDelay(restart.backoff_ms, failures);
    notBefore = Date.now() + delay;
    diagnose(`${why}; starts again for the next call, not before ${delay} ms`, "back-end restart");
  };

  const start = (): Live => {
    let folders: ReturnType<typeof prepareProgramFolders>;
    try {
      folders = prepareProgramFolders(options.dataDir, spec.app_scope, id, digest, files);
    } catch (error) {
      const message = `back-end ${id} could not be prepared: ${error instanceof Error ? error.message : String(error)}`;
      afterEnd(true, message);
      throw failed("start_failed", message);
    }
    const entryPath = join(folders.codeDir, entryName);
    if (reapStaleProgram(folders.pidFile) === "killed") diagnose("a program a previous host left running was killed", "back-end orphan");
    const { argv, isolation } = sandboxedArgv(cappedProgram({ ...folders, entryPath }, limits.memory_mb, spec.declaration.args ?? []), folders);
    const shortfall = sandboxShortfall(isolation);
    if (shortfall !== undefined && !warned) {
      warned = true;
      diagnose(shortfall, "back-end sandbox");
    }
    const child = spawn(argv[0]!, argv.slice(1), { cwd: folders.workDir, env: stdioEnvironment(folders.workDir), stdio: ["pipe", "pipe", "pipe"] });
    const pid = child.pid;
    if (pid !== undefined) recordProgram(folders.pidFile, pid, entryPath);
    let reject!: (death: Death) => void;
    const died = new Promise<never>((_, r) => (reject = r));
    died.catch(() => undefined);
    let closedResolve!: () => void;
    const closed = new Promise<void>((resolve) => (closedResolve = resolve));
    let stderr = Buffer.alloc(0);
    let memoryTimer: ReturnType<typeof setInterval> | undefined;
    const kill = (death: Death, failure: boolean): void => {
      if (live.ended) return;
      live.ended = true;
      if (current === live) current = undefined;
      if (memoryTimer !== undefined) clearInterval(memoryTimer);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      reject(death);
      if (stderr.length > 0) diagnose(`${death.message}; its stderr ended: ${stderr.toString("utf8")}`, "back-end stderr");
      afterEnd(failure, death.message);
    };
    const transport = new ChildStdioTransport(child, (death) => kill(death, true));
    child.stderr.on("data", (chunk: Buffer) => {
      const joined = Buffer.concat([stderr, chunk]);
      stderr = joined.length > STDERR_TAIL_BYTES ? Buffer.from(joined.subarray(joined.length - STDERR_TAIL_BYTES)) : joined;
    });
    child.on("error", (error) => kill(failed("start_failed", `back-end ${id} could not be started: ${error.message}`), true));
    child.on("close", (code, signal) => {
      closedResolve();
      if (pid !== undefined) forgetProgram(folders.pidFile, pid);
      kill(failed("crashed", `back-end ${id} ended (${signal ?? `exit code ${code}`})`), code !== 0 || signal !== null);
    });
    if (pid !== undefined) {
      const cap = limits.memory_mb * 1024 * 1024;
      memoryTimer = setInterval(() => {
        const rss = residentBytes(pid);
        if (rss !== undefined && rss > cap) kill(failed("memory_limit", `back-end ${id} used ${Math.round(rss / 1048576)} MB, past its ${limits.memory_mb} MB`), true);
      }, MEMORY_POLL_MS);
      memoryTimer.unref();
    }
    const connection = Promise.race([connectMcp(transport, { timeout_ms: limits.call_timeout_ms, clock: systemClock, hostCalls: spec.hostCalls }), died]);
    connection.catch((error: unknown) => kill(error instanceof LineUpError ? error : failed("start_failed", `back-end ${id} did not initialize`), true));
    const live: Live = { child, connection, died, kill, closed, ended: false };
    current = live;
    status = "running";
    return live;
  };

  const refusedNow = (): LineUpError | undefined => (status === "stopped" || status === "failed" ? final : undefined);

  /** Runs `work` on the running (or a newly started) server, within the runner's admission and the call's death. */
  const run = async <T>(what: string, signal: AbortSignal | undefined, work: (connection: McpConnection) => Promise<T>): Promise<T> => {
    const refused = refusedNow();
    if (refused !== undefined) throw refused;
    if (signal?.aborted === true) throw new LineUpError("request_cancelled", "the call was cancelled");
    if (admitted >= limits.max_concurrent_calls) throw new LineUpError("overloaded", `back-end ${id} already has ${admitted} calls in flight`);
    admitted += 1;
    try {
      if (current === undefined) {
        const wait = notBefore - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const again = refusedNow();
        if (again !== undefined) throw again;
      }
      const live = current ?? start();
      const connection = await live.connection;
      try {
        return await Promise.race([work(connection), live.died]);
      } catch (error) {
        // A hang: the call ran past its limit. The program may be spinning: it is killed, the others in flight end with it.
        if (!(error instanceof LineUpError) || error.code !== "operation_expired" || live.ended) throw error;
        live.kill(failed("crashed", `back-end ${id} was killed: ${what} ran past ${limits.call_timeout_ms} ms`), true);
        throw new LineUpError("operation_expired", `back-end ${id} ran ${what} past ${limits.call_timeout_ms} ms and was killed`);
      }
    } finally {
      admitted -= 1;
    }
  };

  return {
    status: () => status,
    call(method, params, callOptions = {}) {
      return run(method, callOptions.signal, (connection) => connection.callTool(method, params, { timeout_ms: limits.call_timeout_ms, ...(callOptions.signal === undefined ? {} : { signal: callOptions.signal }) }));
    },
    readResource(uri, readOptions = {}) {
      return run(uri, readOptions.signal, (connection) => connection.readResource(uri, { timeout_ms: limits.call_timeout_ms, ...(readOptions.signal === undefined ? {} : { signal: readOptions.signal }) }));
    },
    async stop() {
      if (status === "stopped") return;
      status = "stopped";
      final = failed("stopped", `back-end ${id} is stopped`);
      const live = current;
      if (live === undefined) return;
      live.child.kill("SIGTERM");
      live.kill(final, false);
      await Promise.race([live.closed, new Promise<void>((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref())]);
    },
  };
}
