/**
 * The `stdio-jsonrpc` back-end runner on the Node host (docs/manifest.md §8b, issue 20): the host starts the app's
 * program as a child process of its own Node (`process.execPath`) and supervises it under the declaration's limits
 * and restart policy. It implements the runner contract of `backends/runner.ts`. It runs `local-http` back-ends
 * too: the same program, sandbox and supervision, with calls over HTTP instead of stdin (see "local-http" below).
 *
 * ## The sandbox
 * - **Files.** The entry is written to a code folder named by its digest,
 *   `<dataDir>/app-backends/<app>/<id>/<sha256>/<entry basename>` (with a `package.json` of `{"type": "commonjs"}`
 *   beside it, so a `.js` entry means the same wherever `dataDir` lies; use `.mjs` for an ES module). The program
 *   gets a working folder of its own, `<dataDir>/app-work/<app>/<id>/` (mode 0700), also its `HOME` and `TMPDIR`
 *   and its current directory. It runs under Node's permission model (`--experimental-permission` on Node 20,
 *   `--permission` where Node has it): it reads only its code folder and its working folder and writes only its
 *   working folder (anything else is `ERR_ACCESS_DENIED`: the Runtime's database, another app's folders,
 *   `/etc/passwd`, `/proc`); it may start no child process, worker thread, addon or WASI instance.
 * - **Environment.** Made afresh: `PATH=/usr/bin:/bin`, `HOME`, `TMPDIR`, `LANG=C.UTF-8` and nothing else — no
 *   token, no key, no `LINEUP_*` of the host's (a `local-http` program gets its own `LINEUP_HTTP_SOCKET`), no
 *   `NODE_OPTIONS`.
 * - **Network and the file system's view.** Where `unshare -rnm`, `mount` and `chroot` work (a user, network and
 *   mount namespace of its own; probed once per host process by making the whole view once: `fileSystemViewAvailable`),
 *   the program runs inside them, in a root of its own (`ROOT_SCRIPT`): the system's code read-only, four devices, its
 *   code folder (read-only) and its working folder at their host paths, and nothing else. It has no network interface
 *   up, not even a loopback that reaches the host's (`connect` fails `ENETUNREACH`), and no socket file of the host's
 *   exists in its view (`/run/docker.sock`, a D-Bus bus, an ssh-agent socket, another program's socket in the
 *   Runtime's data: `ENOENT`) — the channel Node 20's permission model leaves open, since it checks no socket. Its own
 *   `local-http` socket is in its working folder, the same file on both sides. Where only `unshare -rn` works, it has
 *   the network namespace alone: the host's Unix sockets stay reachable by their paths. Where neither works (no
 *   unprivileged user namespaces: some containers, hardened kernels, macOS), it can open sockets to any address, the
 *   host's loopback included: the file, process and environment closures above still hold. In both reduced cases the
 *   runner says so in its diagnostics at the first start (docs/security.md). Each wrapper execs the next, so the
 *   child's pid is the program's own — the memory reading and the kill reach the program, not a wrapper (the test
 *   checks it).
 * - **Lifetime.** `stop()` sends SIGTERM, then SIGKILL after 1 s. The program can start no process, so killing its
 *   pid kills all of it. A host that dies abruptly (SIGKILL) closes the program's stdin, which a program reading it
 *   sees as its end; one that ignores it lives on (no parent-death signal: `setpriv --pdeathsig` was not delivered on
 *   the machine this was written on, so it is not relied on) until the next host starts that back-end: each start
 *   records the program's pid outside its folders, and the next start kills the program a record names when it is
 *   still that program (`stdio-pid-file.ts`).
 * - **Memory.** Its V8 heap is capped at `memory_mb` (`--max-old-space-size`), and its resident memory
 *   (`/proc/<pid>/status` VmRSS) is read every 100 ms while it runs: past `memory_mb` it is killed (SIGKILL). Between
 *   two readings a fast allocator could overshoot, so where `prlimit` works its writable memory also has a hard
 *   ceiling (`RLIMIT_DATA`, `2 × memory_mb + 128` MB: Node maps ~48 MB it does not touch): past it an allocation
 *   fails and Node aborts. Each wrapper (`unshare`, `prlimit`) execs the next, so the child's pid is the
 *   program's own.
 *   `--disallow-code-generation-from-strings` is not set: the program attacking itself is not a host concern, and
 *   libraries that compile validators (`new Function`) would break.
 *
 * ## The wire
 * JSON-RPC 2.0, one JSON object per line (`\n`-delimited UTF-8), both ways, on the program's stdin and stdout;
 * stderr is free text (its last 16 KiB reach the diagnostics when the program ends). No batches.
 * - **A call** (host → program): a request `{"jsonrpc":"2.0","id":<number>,"method":<the declared method>,"params"}`,
 *   with `"idempotency_key"` beside them when the caller has one (a workflow's `backend.call` step: the same key
 *   when the step's attempt runs again after a crash, so the program can answer it without doing the work twice).
 *   The program answers `{"jsonrpc":"2.0","id","result"}` or `{"jsonrpc":"2.0","id","error":{"code":<integer>,
 *   "message","data":{"code":<a LineUp error code>}}}`; the caller sees that `data.code` (`invalid_params`,
 *   `not_found`, …), or `handler_failed` when it is not a code of the table. Answers may come in any order.
 * - **A cancelled call** (host → program): a notification `{"jsonrpc":"2.0","method":"$/cancel","params":{"id"}}`.
 *   The caller already has `request_cancelled`; the program may stop the work, and any answer it still sends for
 *   that id is ignored.
 * - **A request to the host** (program → host): a request whose method starts `host.` (`host.storage.put`,
 *   `host.capability.request`), with ids of the program's own (numbers or strings). The host answers it with
 *   `result`, or with `error` (`data.code` the LineUp code: `capability_not_declared`, `quota_exceeded`, …) after
 *   the checks a surface gets. At most 16 are answered at once; more are refused `overloaded`. A request with any
 *   other method is answered `method_not_found`.
 * - **A log line** (program → host): a notification `{"jsonrpc":"2.0","method":"log","params":{"level","message"}}`,
 *   to the host's diagnostics (each cut to 2,000 characters; about 10 a second, bursts of 50; the rest dropped and
 *   counted). Other notifications are ignored.
 * - **Health** is "the process is alive and answers its calls": there is no `$/ping`. A program that stops
 *   answering is killed by the first call that runs past `call_timeout_ms`.
 *
 * ## local-http
 * The program's environment names `LINEUP_HTTP_SOCKET`, `<working folder>/http.sock` (removed before each start; a
 * working folder whose socket path would pass 107 bytes cannot start: `start_failed`), and it serves HTTP there —
 * a Unix socket: inside its network namespace no TCP port of its would reach the host. A call is one `POST /` whose
 * body is the request above (with `idempotency_key` when there is one); the body of a `200` answer must be this
 * call's JSON-RPC response, else the program is killed (`protocol_violation`, as a bad line is); another status fails
 * that call only (`handler_failed`, `data.reason: "http_status"`). A request that finds no socket or no listener yet
 * (the program is starting) is tried again every 10 ms, within the call's `call_timeout_ms`. A cancelled call's request
 * is given up (no `$/cancel`). Requests to the host and log lines travel over the program's stdio as above.
 *
 * ## Supervision
 * - A line over 1 MiB (plus 64 KiB for the envelope), text that is not UTF-8 JSON, or JSON that is not a JSON-RPC
 *   2.0 message kills the program: the calls in flight end `handler_failed` (`data.reason: "protocol_violation"`).
 *   A well-formed answer whose `result` is over 1 MiB fails only that call (`invalid_result`).
 * - An exit with calls in flight, or a non-zero exit or a signal at any time, is a crash: the calls in flight end
 *   `handler_failed` (`crashed`; `memory_limit` when V8 ran out of heap).
 * - Resident memory past `memory_mb`: killed, the calls in flight `handler_failed` (`memory_limit`).
 * - A call past `call_timeout_ms` kills the program (it may be spinning): that call ends `operation_expired`, the
 *   others in flight `handler_failed` (`crashed`).
 * - Past `max_concurrent_calls` admitted calls (in flight, or waiting for a start), a call is `overloaded`.
 * - **Restarts.** Each of those is a failure. Under `never` the first failure leaves the runner `failed`; under
 *   `on-failure` and `always` the next call starts the program again, not before a backoff of `backoff_ms` doubled
 *   at each failure (capped at 60 s), at most `max_restarts` times in the runner's life; then it is `failed` and every
 *   call ends `handler_failed` (`restart_limit`). A clean exit (code 0, nothing in flight) is not a failure: under
 *   `always` it is restarted the same way (it counts towards `max_restarts`); under `never` and `on-failure` the
 *   program is done, and later calls end `handler_failed` (`stopped`). Programs start on demand: the first call
 *   starts one, and so does the first call after a failure.
 * - `stop()` ends the calls in flight and later ones `handler_failed` (`stopped`); it is idempotent.
 */
import { isUtf8 } from "node:buffer";
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { request as httpRequest } from "node:http";
import { basename, dirname, extname, join } from "node:path";
import { ERROR_CODES, LineUpError, isErrorCode, type JsonValue, isRecord } from "@lineup/protocol";
import { forgetProgram, reapStaleProgram, recordProgram, stdioPidFilePath } from "./stdio-pid-file.js";
import { MAX_BACKEND_MESSAGE_BYTES, resolveBackendLimits, resolveRestartPolicy, type BackendCallOptions, type BackendRunner, type BackendStartSpec, type BackendStatus } from "../backends/runner.js";

/** The longest line the program may write: a message of `MAX_BACKEND_MESSAGE_BYTES` and its envelope. */
export const MAX_STDIO_LINE_BYTES = MAX_BACKEND_MESSAGE_BYTES + 64 * 1024;
const MEMORY_POLL_MS = 100;
const STDERR_TAIL_BYTES = 16 * 1024;
const STOP_GRACE_MS = 1_000;
const MAX_BACKOFF_MS = 60_000;
const MAX_HOST_CALLS_IN_FLIGHT = 16;
const LOG_BURST = 50;
const LOG_PER_SECOND = 10;
const LOG_MESSAGE_CHARS = 2_000;
/** The program's whole environment's `PATH`; the wrappers (`unshare`, `prlimit`) are looked up in it too. */
const SANDBOX_PATH = "/usr/bin:/bin";
const SAFE_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const ENTRY_EXTENSIONS = new Set([".js", ".mjs", ".cjs"]);
/** `local-http`: the socket's name in the program's working folder (`LINEUP_HTTP_SOCKET` has its whole path). */
const HTTP_SOCKET_NAME = "http.sock";
/** The longest path a Unix socket may have (`sun_path`, 108 bytes with its NUL). */
const MAX_SOCKET_PATH_BYTES = 107;

const probes = new Map<string, boolean>();
/** Runs `command args` once per host process (cached): whether it exits 0. */
function probe(command: string, args: readonly string[]): boolean {
  const key = [command, ...args].join(" ");
  let works = probes.get(key);
  if (works === undefined) {
    works = spawnSync(command, args, { stdio: "ignore", timeout: 5_000, env: { PATH: SANDBOX_PATH } }).status === 0;
    probes.set(key, works);
  }
  return works;
}

/** Whether this machine lets an unprivileged process make its own network namespace (`unshare -rn`). Probed once. */
export function networkNamespaceAvailable(): boolean {
  return probe("unshare", ["-rn", "true"]);
}

/**
 * The program's view of the file system, made inside its own mount namespace (`unshare -rnm`) before it starts: an
 * empty tmpfs as its root holding the system's code read-only (`/usr`, and `/bin`, `/lib*`, `/sbin` as the host has
 * them: symlinks or bound folders), `/dev/null`, `/dev/zero`, `/dev/random`, `/dev/urandom`, the `/etc/localtime`
 * link, its Node when that lies outside `/usr`, its code folder (read-only) and its working folder, each at the path
 * it has on the host. Nothing else exists there: no `/run`, `/tmp`, `/home`, no other folder of the Runtime's data,
 * so no socket file of the host's can be named. Then `chroot` to that root, a `cd` into its working folder and an
 * `exec` of the program: every step execs the next, so the child's pid stays the program's own.
 *
 * Arguments: the mount point (an empty folder of the host's), the code folder, the working folder, Node's path, the
 * `chroot` binary, then the program's argv.
 */
const ROOT_SCRIPT = `set -eu
root=$1 code=$2 work=$3 node=$4 chroot=$5
shift 5
mount -t tmpfs -o mode=0755,size=1m lineup-backend "$root"
for top in bin sbin lib lib32 lib64 libx32 usr; do
  if [ -L "/$top" ]; then ln -s "$(readlink "/$top")" "$root/$top"
  elif [ -d "/$top" ]; then mkdir "$root/$top"; mount --rbind "/$top" "$root/$top"; mount -o remount,bind,ro "$root/$top"; fi
done
mkdir "$root/dev" "$root/etc"
for device in null zero random urandom; do touch "$root/dev/$device"; mount --bind "/dev/$device" "$root/dev/$device"; done
if [ -L /etc/localtime ]; then ln -s "$(readlink /etc/localtime)" "$root/etc/localtime"; fi
case "$node" in
  /usr/*) ;;
  *) mkdir -p "$root$(dirname "$node")"; touch "$root$node"; mount --bind "$node" "$root$node" ;;
esac
mkdir -p "$root$code" "$root$work"
mount --bind "$code" "$root$code"
mount -o remount,bind,ro "$root$code"
mount --bind "$work" "$root$work"
exec "$chroot" "$root" /bin/sh -c 'cd "$1"; unset PWD OLDPWD; shift; exec "$@"' sh "$work" "$@"`;

/** Where `chroot` is (it is an administrator's command: not on the program's `PATH`). */
function chrootBinary(): string | undefined {
  return ["/usr/sbin/chroot", "/sbin/chroot", "/usr/bin/chroot"].find((path) => existsSync(path));
}

let rootProbe: boolean | undefined;
/**
 * Whether the program's own file-system view (`ROOT_SCRIPT`) can be made here: the script run once, in full, on
 * throwaway folders with `true` as the program. Probed once per host process.
 */
export function fileSystemViewAvailable(): boolean {
  if (rootProbe !== undefined) return rootProbe;
  const chroot = chrootBinary();
  if (chroot === undefined || !networkNamespaceAvailable()) return (rootProbe = false);
  const scratch = mkdtempSync(join(tmpdir(), "lineup-root-probe-"));
  try {
    for (const name of ["root", "code", "work"]) mkdirSync(join(scratch, name));
    const args = ["-rnm", "sh", "-c", ROOT_SCRIPT, "sh", join(scratch, "root"), join(scratch, "code"), join(scratch, "work"), realpathSync(process.execPath), chroot, "/bin/true"];
    rootProbe = spawnSync("unshare", args, { stdio: "ignore", timeout: 5_000, env: { PATH: SANDBOX_PATH } }).status === 0;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return rootProbe;
}

/**
 * The argv that starts `program` in the sandbox this host can make: its own file-system view and network namespace
 * (`ROOT_SCRIPT`) where that works, else a network namespace alone (`unshare -rn`), else nothing around it.
 * `rootMount` is an empty folder of the host's the view is mounted on (in the program's namespace only).
 */
export function sandboxedArgv(program: readonly string[], paths: { readonly codeDir: string; readonly workDir: string; readonly rootMount: string }): { readonly argv: string[]; readonly isolation: "file-system view" | "network namespace" | "none" } {
  if (fileSystemViewAvailable()) {
    return { argv: ["unshare", "-rnm", "sh", "-c", ROOT_SCRIPT, "sh", paths.rootMount, paths.codeDir, paths.workDir, realpathSync(process.execPath), chrootBinary()!, ...program], isolation: "file-system view" };
  }
  if (networkNamespaceAvailable()) return { argv: ["unshare", "-rn", ...program], isolation: "network namespace" };
  return { argv: [...program], isolation: "none" };
}

/** What a program started with `isolation` can reach that it should not, for the diagnostics at its first start; `undefined` in the full sandbox. */
export function sandboxShortfall(isolation: ReturnType<typeof sandboxedArgv>["isolation"]): string | undefined {
  if (isolation === "file-system view") return undefined;
  return isolation === "none"
    ? "runs without a network namespace of its own (unshare -rn does not work here): it can open sockets, the host's loopback included, and the host's Unix sockets by their paths"
    : "runs without a file-system view of its own (unshare -rnm, mount or chroot does not work here): it can reach the host's Unix sockets by their paths";
}

/** Whether `prlimit --data` works here (a hard ceiling on the program's writable memory). Probed once. */
function dataLimitAvailable(): boolean {
  return probe("prlimit", [`--data=${256 * 1024 * 1024}`, "true"]);
}

/**
 * The hard ceiling on the program's writable private memory (`RLIMIT_DATA`): a backstop for the 100 ms between two
 * readings of its resident memory, roomy enough for what Node maps but does not touch (about 48 MB at start).
 */
export function stdioDataLimitBytes(memoryMb: number): number {
  return (memoryMb * 2 + 128) * 1024 * 1024;
}

const NODE_FLAGS = process.allowedNodeEnvironmentFlags;
const PERMISSION_FLAG = NODE_FLAGS.has("--permission") || Number(process.versions.node.split(".")[0]) >= 23 ? "--permission" : "--experimental-permission";

/** The argv of the program's Node: the permission model over its two folders, the heap cap, no addons. */
export function stdioNodeArgs(paths: { readonly codeDir: string; readonly workDir: string; readonly entryPath: string }, memoryMb: number): string[] {
  return [
    PERMISSION_FLAG,
    `--allow-fs-read=${paths.codeDir}`,
    `--allow-fs-read=${paths.workDir}`,
    `--allow-fs-write=${paths.workDir}`,
    `--max-old-space-size=${memoryMb}`,
    "--no-addons",
    ...(NODE_FLAGS.has("--disable-warning") ? ["--disable-warning=ExperimentalWarning"] : []),
    paths.entryPath,
  ];
}

/** The program's whole environment: nothing of the host's. */
export function stdioEnvironment(workDir: string): Record<string, string> {
  return { PATH: SANDBOX_PATH, HOME: workDir, TMPDIR: workDir, LANG: "C.UTF-8" };
}

/** The backoff before restart number `failures` (1-based): `backoff_ms` doubled each time, at most a minute. */
export function restartDelay(backoffMs: number, failures: number): number {
  return Math.min(MAX_BACKOFF_MS, backoffMs * 2 ** Math.max(0, Math.min(30, failures - 1)));
}

/** Where a program runs: its code folder (named by the code's digest), its working folder, the empty folder its own root is mounted on, the record of its pid. */
export interface ProgramFolders {
  readonly codeDir: string;
  readonly workDir: string;
  readonly rootMount: string;
  readonly pidFile: string;
}

/**
 * Writes a program's code folder `<dataDir>/app-backends/<app>/<id>/<digest>/` (once per digest: the files, by their
 * paths relative to it, each written aside and renamed so a crash leaves no half; a `package.json` of
 * `{"type": "commonjs"}` unless the files bring their own) and its working folder; returns their real paths.
 */
export function prepareProgramFolders(dataDir: string, appScope: string, id: string, digest: string, files: ReadonlyMap<string, Uint8Array>): ProgramFolders {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const root = realpathSync(dataDir);
  const codeDir = join(root, "app-backends", appScope, id, digest);
  const workDir = join(root, "app-work", appScope, id);
  mkdirSync(codeDir, { recursive: true, mode: 0o700 });
  mkdirSync(workDir, { recursive: true, mode: 0o700 });
  // Empty on the host: the program's own root is mounted on it, in its namespace only.
  const rootMount = join(root, "app-backends", ".root");
  mkdirSync(rootMount, { recursive: true, mode: 0o700 });
  const marker = join(codeDir, "package.json");
  if (!files.has("package.json") && !existsSync(marker)) writeFileSync(marker, '{"type":"commonjs"}\n', { mode: 0o400 });
  for (const [name, bytes] of files) {
    const path = join(codeDir, name);
    if (existsSync(path)) continue;
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const partial = `${path}.${process.pid}.partial`;
    writeFileSync(partial, bytes, { mode: 0o400 });
    renameSync(partial, path);
  }
  return { codeDir, workDir, rootMount, pidFile: stdioPidFilePath(root, appScope, id) };
}

/** The program's Node under the permission model over its folders, with `args` after its entry, inside `prlimit` where that works. */
export function cappedProgram(paths: { readonly codeDir: string; readonly workDir: string; readonly entryPath: string }, memoryMb: number, args: readonly string[] = []): string[] {
  const program = [process.execPath, ...stdioNodeArgs(paths, memoryMb), ...args];
  return dataLimitAvailable() ? ["prlimit", `--data=${stdioDataLimitBytes(memoryMb)}`, ...program] : program;
}

type JsonRpcId = string | number;

/** One message from the program, once checked to be JSON-RPC 2.0. */
export type StdioIncoming =
  | { readonly kind: "request"; readonly id: JsonRpcId; readonly method: string; readonly params: JsonValue }
  | { readonly kind: "notification"; readonly method: string; readonly params: JsonValue }
  | { readonly kind: "result"; readonly id: JsonRpcId | null; readonly result: JsonValue }
  | { readonly kind: "error"; readonly id: JsonRpcId | null; readonly error: { readonly code: number; readonly message: string; readonly data?: unknown } };

const isId = (value: unknown): value is JsonRpcId => typeof value === "string" || (typeof value === "number" && Number.isFinite(value));

/** Checks a parsed line: a JSON-RPC 2.0 request, notification or response — or `undefined` (a protocol violation). */
export function classifyStdioMessage(value: unknown): StdioIncoming | undefined {
  if (!isRecord(value) || value["jsonrpc"] !== "2.0") return undefined;
  const params = (value["params"] ?? null) as JsonValue;
  if ("method" in value) {
    if (typeof value["method"] !== "string" || "result" in value || "error" in value) return undefined;
    if (!("id" in value)) return { kind: "notification", method: value["method"], params };
    return isId(value["id"]) ? { kind: "request", id: value["id"], method: value["method"], params } : undefined;
  }
  const id = value["id"];
  if (!isId(id) && id !== null) return undefined;
  if (("result" in value) === ("error" in value)) return undefined;
  if ("result" in value) return { kind: "result", id, result: value["result"] as JsonValue };
  const error = value["error"];
  if (!isRecord(error) || !Number.isInteger(error["code"]) || typeof error["message"] !== "string") return undefined;
  return { kind: "error", id, error: { code: error["code"] as number, message: error["message"], ...("data" in error ? { data: error["data"] } : {}) } };
}

/**
 * Cuts a byte stream into `\n`-delimited lines without decoding partial characters; a line (or an unfinished
 * one) past `limit` bytes is reported as `overflow`.
 */
export class LineSplitter {
  #parts: Buffer[] = [];
  #pending = 0;
  constructor(private readonly limit: number) {}

  /** The complete lines in `chunk` (with what came before it), or `"overflow"`. */
  push(chunk: Buffer): Buffer[] | "overflow" {
    const lines: Buffer[] = [];
    let from = 0;
    for (let newline = chunk.indexOf(10); newline >= 0; newline = chunk.indexOf(10, from)) {
      const piece = chunk.subarray(from, newline);
      if (this.#pending + piece.length > this.limit) return "overflow";
      lines.push(this.#parts.length === 0 ? piece : Buffer.concat([...this.#parts, piece]));
      this.#parts = [];
      this.#pending = 0;
      from = newline + 1;
    }
    if (from < chunk.length) {
      const rest = chunk.subarray(from);
      this.#pending += rest.length;
      if (this.#pending > this.limit) return "overflow";
      this.#parts.push(rest);
    }
    return lines;
  }
}

/** The program's resident memory in bytes, from `/proc/<pid>/status`; `undefined` where there is no `/proc` or it ended. */
export function residentBytes(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match === null ? undefined : Number(match[1]) * 1024;
  } catch {
    return undefined;
  }
}

/** Read through a call so that a check after an `await` is not narrowed away. */
const aborted = (signal: AbortSignal | undefined): boolean => signal?.aborted === true;
const HEAP_EXHAUSTED = /JavaScript heap out of memory|Reached heap limit|Allocation failed - process out of memory/;

interface InFlight {
  readonly method: string;
  readonly resolve: (value: JsonValue) => void;
  readonly reject: (error: unknown) => void;
  readonly timer: ReturnType<typeof setTimeout>;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

/** One started program. */
interface Live {
  readonly child: ChildProcessWithoutNullStreams;
  readonly calls: Map<number, InFlight>;
  readonly closed: Promise<void>;
  ended: boolean;
  hostCalls: number;
  stderr: Buffer;
  logTokens: number;
  logStamp: number;
  logsDropped: number;
  memoryTimer?: ReturnType<typeof setInterval>;
  /** `local-http`: the Unix socket the program serves its calls on, and how to give up each call's request. */
  readonly socketPath?: string;
  readonly requests: Map<number, () => void>;
}

/** How a program ended, for the restart policy. */
type Ending = "failure" | "clean" | "stopped";

/**
 * The `stdio-jsonrpc` runner for one back-end of one app (see the top of this file for the sandbox, the wire and
 * the supervision). The program starts at the first call.
 */
export function createStdioRunner(spec: BackendStartSpec & { readonly dataDir: string }): BackendRunner {
  const limits = resolveBackendLimits(spec.declaration);
  const restart = resolveRestartPolicy(spec.declaration);
  const id = spec.declaration.id;
  const label = `stdio back-end ${spec.app_scope}/${id}`;
  const entryName = basename(spec.declaration.entry ?? "");
  const digest = createHash("sha256").update(spec.entry).digest("hex");
  const http = spec.declaration.protocol === "local-http";

  const diagnose = (message: string, context: string): void => spec.diagnostics?.(new Error(`${label}: ${message}`), context);
  const refusal = (reason: string, message: string): LineUpError => new LineUpError("handler_failed", message, { data: { reason } });
  const stoppedError = (): LineUpError => refusal("stopped", `back-end ${id} is stopped`);

  /** Why the program can never start (a declaration this host cannot run safely): every call ends with it. */
  /** Why the runner is done (`failed`, `stopped`) — from the start when the declaration cannot run here. */
  let final: LineUpError | undefined = unrunnable();
  let status: BackendStatus = final === undefined ? "idle" : "failed";
  let current: Live | undefined;
  let failures = 0;
  let notBefore = 0;
  let nextId = 1;
  let admitted = 0;
  let warned = false;
  let stopping: Promise<void> | undefined;
  const stopSignal = new AbortController();

  function unrunnable(): LineUpError | undefined {
    const problem =
      spec.declaration.runtime !== undefined && spec.declaration.runtime !== "node"
        ? `runtime ${String(spec.declaration.runtime)} is not one this host runs`
        : !SAFE_SEGMENT.test(spec.app_scope) || !SAFE_SEGMENT.test(id)
          ? "its app or id cannot name a folder"
          : !SAFE_SEGMENT.test(entryName) || !ENTRY_EXTENSIONS.has(extname(entryName))
            ? `its entry ${JSON.stringify(spec.declaration.entry ?? "")} is not a .js, .mjs or .cjs file`
            : /[,*]/.test(spec.dataDir)
              ? "the host's data folder has a comma or a star in its path, which Node's permission flags cannot say"
              : undefined;
    return problem === undefined ? undefined : refusal("start_failed", `back-end ${id} cannot be started: ${problem}`);
  }

  /** Writes the code folder (once per digest) and the working folder; returns their real paths. */
  const prepare = (): ProgramFolders & { entryPath: string } => {
    const folders = prepareProgramFolders(spec.dataDir, spec.app_scope, id, digest, new Map([[entryName, spec.entry]]));
    return { ...folders, entryPath: join(folders.codeDir, entryName) };
  };

  /** After a failure or an exit: the runner is `failed`, `stopped`, or may start the program again after its backoff. */
  const afterEnd = (ending: Ending, why: string): void => {
    if (status === "stopped" || status === "failed" || ending === "stopped") return;
    if (ending === "clean" && restart.policy !== "always") {
      status = "stopped";
      final = refusal("stopped", `back-end ${id} ended by itself and its restart policy (${restart.policy}) does not start it again`);
      diagnose(`${why}; not restarted (restart: ${restart.policy})`, "back-end ended");
      return;
    }
    failures += 1;
    if (restart.policy === "never" || failures > restart.max_restarts) {
      status = "failed";
      final = refusal("restart_limit", `back-end ${id} failed and is not restarted`);
      diagnose(`${why}; not restarted (${restart.policy === "never" ? "restart: never" : `after ${restart.max_restarts} restarts`})`, "back-end failed");
      return;
    }
    status = "restarting";
    const delay = restartDelay(restart.backoff_ms, failures);
    notBefore = Date.now() + delay;
    diagnose(`${why}; starts again for the next call, not before ${delay} ms`, "back-end restart");
  };

  /**
   * Ends `live` once: kills it, ends its calls in flight `handler_failed` with `reason`, says its last words and
   * applies the restart policy.
   */
  const end = (live: Live, reason: string, message: string, ending: Ending): void => {
    if (live.ended) return;
    live.ended = true;
    if (current === live) current = undefined;
    if (live.memoryTimer !== undefined) clearInterval(live.memoryTimer);
    if (live.child.exitCode === null && live.child.signalCode === null) live.child.kill("SIGKILL");
    for (const giveUp of live.requests.values()) giveUp();
    live.requests.clear();
    for (const [key, call] of live.calls) {
      live.calls.delete(key);
      settle(call, () => call.reject(refusal(reason, message)));
    }
    if (live.stderr.length > 0) diagnose(`${message}; its stderr ended: ${live.stderr.toString("utf8")}`, "back-end stderr");
    afterEnd(ending, message);
  };

  const settle = (call: InFlight, how: () => void): void => {
    clearTimeout(call.timer);
    call.signal?.removeEventListener("abort", call.onAbort);
    how();
  };

  const write = (live: Live, text: string): void => {
    if (!live.ended) live.child.stdin.write(text);
  };

  const log = (live: Live, params: JsonValue): void => {
    const now = Date.now();
    live.logTokens = Math.min(LOG_BURST, live.logTokens + ((now - live.logStamp) / 1000) * LOG_PER_SECOND);
    live.logStamp = now;
    if (live.logTokens < 1) {
      live.logsDropped += 1;
      return;
    }
    live.logTokens -= 1;
    const level = isRecord(params) && typeof params["level"] === "string" ? params["level"].slice(0, 16) : "info";
    const text = isRecord(params) && typeof params["message"] === "string" ? params["message"] : JSON.stringify(params);
    const dropped = live.logsDropped > 0 ? ` (${live.logsDropped} lines dropped before this one)` : "";
    live.logsDropped = 0;
    diagnose(`[${level}] ${text.slice(0, LOG_MESSAGE_CHARS)}${dropped}`, "back-end log");
  };

  const answerError = (live: Live, requestId: JsonRpcId, code: keyof typeof ERROR_CODES, message: string): void => {
    write(live, `${JSON.stringify({ jsonrpc: "2.0", id: requestId, error: { code: ERROR_CODES[code].rpc, message, data: { code } } })}\n`);
  };

  /** A `host.*` request: relayed to `spec.hostCalls` and answered, while this program lives. */
  const relay = (live: Live, requestId: JsonRpcId, method: string, params: JsonValue): void => {
    if (live.hostCalls >= MAX_HOST_CALLS_IN_FLIGHT) {
      answerError(live, requestId, "overloaded", `at most ${MAX_HOST_CALLS_IN_FLIGHT} requests to the host at once`);
      return;
    }
    live.hostCalls += 1;
    Promise.resolve()
      .then(() => spec.hostCalls(method.slice("host.".length), params))
      .then(
        (result) => {
          const text = JSON.stringify(result ?? null);
          if (Buffer.byteLength(text) > MAX_BACKEND_MESSAGE_BYTES) answerError(live, requestId, "message_too_large", `the host's answer is over ${MAX_BACKEND_MESSAGE_BYTES} bytes`);
          else write(live, `{"jsonrpc":"2.0","id":${JSON.stringify(requestId)},"result":${text}}\n`);
        },
        (error: unknown) => {
          if (error instanceof LineUpError) answerError(live, requestId, error.code, error.message);
          else {
            spec.diagnostics?.(error, `${label}: ${method}`);
            answerError(live, requestId, "internal_error", "the host could not answer");
          }
        },
      )
      .finally(() => {
        live.hostCalls -= 1;
      });
  };

  const onLine = (live: Live, bytes: Buffer): void => {
    let message: StdioIncoming | undefined;
    try {
      if (!isUtf8(bytes)) throw new Error("not UTF-8");
      const text = bytes.toString("utf8");
      if (text.trim() === "") return;
      message = classifyStdioMessage(JSON.parse(text));
    } catch {
      message = undefined;
    }
    if (message === undefined) {
      end(live, "protocol_violation", `back-end ${id} wrote something that is not a JSON-RPC 2.0 message`, "failure");
      return;
    }
    switch (message.kind) {
      case "notification":
        if (message.method === "log") log(live, message.params);
        return;
      case "request":
        if (message.method.startsWith("host.")) relay(live, message.id, message.method, message.params);
        else answerError(live, message.id, "method_not_found", `the host has no method ${message.method.slice(0, 100)}`);
        return;
      default:
        settleAnswer(live, message, bytes);
    }
  };

  /** An answer: to a call in flight, or a late one (cancelled, expired), which is dropped. */
  const settleAnswer = (live: Live, message: Extract<StdioIncoming, { kind: "result" | "error" }>, bytes: Buffer): void => {
    const call = typeof message.id === "number" ? live.calls.get(message.id) : undefined;
    if (call === undefined) return;
    live.calls.delete(message.id as number);
    if (message.kind === "error") {
      const code = isRecord(message.error.data) ? message.error.data["code"] : undefined;
      const lineupCode = typeof code === "string" && isErrorCode(code) ? code : "handler_failed";
      settle(call, () => call.reject(new LineUpError(lineupCode, message.error.message.slice(0, 500) || `back-end ${id} refused ${call.method}`)));
    } else if (bytes.length > MAX_BACKEND_MESSAGE_BYTES && Buffer.byteLength(JSON.stringify(message.result ?? null)) > MAX_BACKEND_MESSAGE_BYTES) {
      settle(call, () => call.reject(new LineUpError("invalid_result", `back-end ${id}'s answer to ${call.method} is over ${MAX_BACKEND_MESSAGE_BYTES} bytes`)));
    } else {
      const result = message.result ?? null;
      settle(call, () => call.resolve(result));
    }
  };

  /**
   * `local-http`: one call is one `POST /` of its JSON-RPC request to the program's socket; the body of a 200 is this
   * call's JSON-RPC response. Until the program listens (it is starting) the request is tried again every 10 ms; the
   * call's time limit bounds that as any wait.
   */
  const post = (live: Live, callId: number, text: string): void => {
    const socketPath = live.socketPath!;
    const failCall = (error: LineUpError): void => {
      const call = live.calls.get(callId);
      if (call === undefined) return;
      live.calls.delete(callId);
      settle(call, () => call.reject(error));
    };
    const attempt = (): void => {
      if (live.ended || !live.calls.has(callId)) return;
      // A connection per call (no agent): a kept-alive one may be closed by the program as it is reused (ECONNRESET),
      // or outlive the program it was made to.
      const request = httpRequest({ socketPath, agent: false, method: "POST", path: "/", headers: { "content-type": "application/json", "content-length": Buffer.byteLength(text) } }, (response) => {
        const parts: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_STDIO_LINE_BYTES) {
            response.destroy();
            end(live, "protocol_violation", `back-end ${id} answered over ${MAX_STDIO_LINE_BYTES} bytes`, "failure");
          } else parts.push(chunk);
        });
        response.on("end", () => {
          live.requests.delete(callId);
          if (live.ended || !live.calls.has(callId)) return;
          if (response.statusCode !== 200) {
            failCall(new LineUpError("handler_failed", `back-end ${id} answered HTTP ${response.statusCode ?? 0}`, { data: { reason: "http_status", status: response.statusCode ?? 0 } }));
            return;
          }
          const bytes = Buffer.concat(parts);
          let message: StdioIncoming | undefined;
          try {
            message = isUtf8(bytes) ? classifyStdioMessage(JSON.parse(bytes.toString("utf8"))) : undefined;
          } catch {
            message = undefined;
          }
          if (message === undefined || (message.kind !== "result" && message.kind !== "error") || message.id !== callId) {
            end(live, "protocol_violation", `back-end ${id} answered a call with something that is not its JSON-RPC 2.0 response`, "failure");
            return;
          }
          settleAnswer(live, message, bytes);
        });
      });
      live.requests.set(callId, () => request.destroy());
      request.on("error", (error: NodeJS.ErrnoException) => {
        live.requests.delete(callId);
        if (live.ended || !live.calls.has(callId)) return;
        if (error.code === "ENOENT" || error.code === "ECONNREFUSED") {
          const retry = setTimeout(attempt, 10);
          live.requests.set(callId, () => clearTimeout(retry));
          return;
        }
        failCall(refusal("crashed", `back-end ${id}'s socket failed: ${error.message}`));
      });
      request.end(text);
    };
    attempt();
  };

  const start = (): Live => {
    let paths: ProgramFolders & { entryPath: string };
    try {
      paths = prepare();
      if (http && Buffer.byteLength(join(paths.workDir, HTTP_SOCKET_NAME)) > MAX_SOCKET_PATH_BYTES) throw new Error(`the path of its socket in its working folder is over ${MAX_SOCKET_PATH_BYTES} bytes (a shorter data folder fixes it)`);
      // A program of this back-end that a host killed outright left running: ended before its successor starts.
      if (reapStaleProgram(paths.pidFile) === "killed") diagnose("a program a previous host left running was killed", "back-end orphan");
    } catch (error) {
      const message = `back-end ${id} could not be prepared: ${error instanceof Error ? error.message : String(error)}`;
      afterEnd("failure", message);
      throw refusal("start_failed", message);
    }
    const { argv, isolation } = sandboxedArgv(cappedProgram(paths, limits.memory_mb), paths);
    const shortfall = sandboxShortfall(isolation);
    if (shortfall !== undefined && !warned) {
      warned = true;
      diagnose(shortfall, "back-end sandbox");
    }
    // local-http: a socket in its working folder, the only place it may write; an old one (a crash) goes first.
    const socketPath = http ? join(paths.workDir, HTTP_SOCKET_NAME) : undefined;
    if (socketPath !== undefined) rmSync(socketPath, { force: true });
    const env = socketPath === undefined ? stdioEnvironment(paths.workDir) : { ...stdioEnvironment(paths.workDir), LINEUP_HTTP_SOCKET: socketPath };
    const child = spawn(argv[0]!, argv.slice(1), { cwd: paths.workDir, env, stdio: ["pipe", "pipe", "pipe"], detached: false });
    const pid = child.pid;
    if (pid !== undefined) {
      try {
        recordProgram(paths.pidFile, pid, paths.entryPath);
      } catch (error) {
        spec.diagnostics?.(error, `${label}: its pid could not be recorded`);
      }
    }
    let closed!: () => void;
    const live: Live = {
      child,
      calls: new Map(),
      closed: new Promise<void>((resolve) => (closed = resolve)),
      ended: false,
      hostCalls: 0,
      stderr: Buffer.alloc(0),
      logTokens: LOG_BURST,
      logStamp: Date.now(),
      logsDropped: 0,
      requests: new Map(),
      ...(socketPath === undefined ? {} : { socketPath }),
    };
    current = live;
    status = "running";
    const lines = new LineSplitter(MAX_STDIO_LINE_BYTES);
    child.stdout.on("data", (chunk: Buffer) => {
      if (live.ended) return;
      const complete = lines.push(chunk);
      if (complete === "overflow") {
        end(live, "protocol_violation", `back-end ${id} wrote a line over ${MAX_STDIO_LINE_BYTES} bytes`, "failure");
        return;
      }
      for (const line of complete) {
        if (live.ended) return;
        onLine(live, line);
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      const joined = Buffer.concat([live.stderr, chunk]);
      live.stderr = joined.length > STDERR_TAIL_BYTES ? Buffer.from(joined.subarray(joined.length - STDERR_TAIL_BYTES)) : joined;
    });
    child.stdin.on("error", () => undefined);
    child.on("error", (error) => {
      end(live, "start_failed", `back-end ${id} could not be started: ${error.message}`, "failure");
      closed();
    });
    // `close`, not `exit`: an answer written just before the exit is read first.
    child.on("close", (code, signal) => {
      closed();
      if (pid !== undefined) forgetProgram(paths.pidFile, pid);
      if (live.ended) return;
      const heap = HEAP_EXHAUSTED.test(live.stderr.toString("utf8"));
      const how = signal ?? `exit code ${code}`;
      if (code === 0 && live.calls.size === 0) end(live, "crashed", `back-end ${id} ended (${how})`, "clean");
      else end(live, heap ? "memory_limit" : "crashed", heap ? `back-end ${id} ran out of its ${limits.memory_mb} MB heap` : `back-end ${id} ended (${how})`, "failure");
    });
    if (pid !== undefined) {
      const cap = limits.memory_mb * 1024 * 1024;
      live.memoryTimer = setInterval(() => {
        const rss = residentBytes(pid);
        if (rss !== undefined && rss > cap) end(live, "memory_limit", `back-end ${id} used ${Math.round(rss / 1048576)} MB, past its ${limits.memory_mb} MB`, "failure");
      }, MEMORY_POLL_MS);
      live.memoryTimer.unref();
    }
    return live;
  };

  /** Waits `ms`, or less when the runner stops or the caller cancels. */
  const pause = (ms: number, signal: AbortSignal | undefined): Promise<void> =>
    new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        stopSignal.signal.removeEventListener("abort", done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      stopSignal.signal.addEventListener("abort", done, { once: true });
      signal?.addEventListener("abort", done, { once: true });
    });

  const refusedNow = (): LineUpError | undefined => (status === "stopped" ? (final ?? stoppedError()) : status === "failed" ? (final ?? refusal("restart_limit", `back-end ${id} failed`)) : undefined);

  /** Sends one call to `live`; `release` runs once, when it settles. */
  const send = (live: Live, method: string, paramsText: string, options: BackendCallOptions, release: () => void): Promise<JsonValue> =>
    new Promise<JsonValue>((resolveCall, rejectCall) => {
      const resolve = (value: JsonValue): void => {
        release();
        resolveCall(value);
      };
      const reject = (error: unknown): void => {
        release();
        rejectCall(error);
      };
      const signal = options.signal;
      const callId = nextId++;
      const onAbort = (): void => {
        const call = live.calls.get(callId);
        if (call === undefined) return;
        live.calls.delete(callId);
        if (live.socketPath !== undefined) live.requests.get(callId)?.();
        else write(live, `{"jsonrpc":"2.0","method":"$/cancel","params":{"id":${callId}}}\n`);
        settle(call, () => call.reject(new LineUpError("request_cancelled", "the call was cancelled")));
      };
      const timer = setTimeout(() => {
        const call = live.calls.get(callId);
        if (call === undefined) return;
        live.calls.delete(callId);
        settle(call, () => call.reject(new LineUpError("operation_expired", `back-end ${id} ran ${method} past ${limits.call_timeout_ms} ms and was killed`)));
        end(live, "crashed", `back-end ${id} was killed: a call (${method}) ran past ${limits.call_timeout_ms} ms`, "failure");
      }, limits.call_timeout_ms);
      live.calls.set(callId, { method, resolve, reject, timer, signal, onAbort });
      signal?.addEventListener("abort", onAbort, { once: true });
      const key = options.idempotency_key === undefined ? "" : `,"idempotency_key":${JSON.stringify(options.idempotency_key)}`;
      const request = `{"jsonrpc":"2.0","id":${callId},"method":${JSON.stringify(method)},"params":${paramsText}${key}}`;
      if (live.socketPath !== undefined) post(live, callId, request);
      else write(live, `${request}\n`);
    });

  return {
    status: () => status,
    call(method, params, options = {}) {
      const signal = options.signal;
      let paramsText: string;
      try {
        const refused = refusedNow();
        if (refused !== undefined) throw refused;
        if (aborted(signal)) throw new LineUpError("request_cancelled", "the call was cancelled");
        if (admitted >= limits.max_concurrent_calls) throw new LineUpError("overloaded", `back-end ${id} already has ${admitted} calls in flight`);
        paramsText = JSON.stringify(params ?? null);
        if (Buffer.byteLength(paramsText) > MAX_BACKEND_MESSAGE_BYTES) throw new LineUpError("message_too_large", `a call to back-end ${id} is at most ${MAX_BACKEND_MESSAGE_BYTES} bytes`);
      } catch (error) {
        return Promise.reject(error instanceof LineUpError ? error : new LineUpError("invalid_params", `the params of a call to back-end ${id} are not JSON`));
      }
      admitted += 1;
      const release = (): void => {
        admitted -= 1;
      };
      // The common case, a program running: no extra turn of the event loop.
      if (current !== undefined) return send(current, method, paramsText, options, release);
      return (async () => {
        let live: Live;
        try {
          const wait = notBefore - Date.now();
          if (wait > 0) await pause(wait, signal);
          const refused = refusedNow();
          if (refused !== undefined) throw refused;
          if (aborted(signal)) throw new LineUpError("request_cancelled", "the call was cancelled");
          // Another call may have started it while this one waited.
          live = current ?? start();
        } catch (error) {
          release();
          throw error;
        }
        return send(live, method, paramsText, options, release);
      })();
    },
    stop() {
      stopping ??= (async () => {
        status = "stopped";
        final = stoppedError();
        stopSignal.abort();
        const live = current;
        if (live === undefined) return;
        const exited = live.child.exitCode !== null || live.child.signalCode !== null;
        if (!exited) live.child.kill("SIGTERM");
        // `end` sends SIGKILL at once; give the program its second first.
        live.ended = true;
        current = undefined;
        if (live.memoryTimer !== undefined) clearInterval(live.memoryTimer);
        for (const [key, call] of live.calls) {
          live.calls.delete(key);
          settle(call, () => call.reject(stoppedError()));
        }
        if (exited) return;
        let force: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([live.closed, new Promise<void>((resolve) => (force = setTimeout(resolve, STOP_GRACE_MS)))]);
        clearTimeout(force);
        if (live.child.exitCode === null && live.child.signalCode === null) {
          live.child.kill("SIGKILL");
          await Promise.race([live.closed, new Promise<void>((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref())]);
        }
      })();
      return stopping;
    },
  };
}
