/**
 * The local back-end service (`backends/local-service-wire.ts` for the wire): the host's Node process runs the
 * `mcp-stdio`, `mcp-http`, `stdio-jsonrpc` and `local-http` back-ends of a page Runtime that cannot (the web and
 * desktop hosts), with the Node host's own runners and sandbox. It is a dumb executor under the page Runtime's
 * control: the page's back-end service has already checked the app, the back-end, the method and the params, and
 * checks the result; what a program asks of the host goes back to the page (`host.call`), which answers with the
 * same checks as for the Node host.
 *
 * - **Who may drive it.** An upgrade on `LOCAL_BACKENDS_PATH` whose `Origin` is not one of `origins` is refused 403;
 *   one without the subprotocol `secret.<secret>` 401 (compared in constant time). Nothing else is answered.
 * - **Files.** Content-addressed under `<dataDir>/<profile>/files/<sha256>`: a page sends each file of a back-end
 *   once (the service says which it lacks), checked against its digest, each at most `MAX_LOCAL_FILE_BYTES`, a
 *   back-end's together at most `MAX_LOCAL_PROGRAM_BYTES`. Programs run in `<dataDir>/<profile>/`, as the Node host's
 *   do in its data folder: one folder per profile (`profile`, a digest of the page's profile name).
 * - **Lifetime.** Runners belong to their connection: a closed connection stops them (their programs are killed) and
 *   the page fails its calls in flight and starts them again on its next connection.
 */
import { timingSafeEqual, createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync, statSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { join } from "node:path";
import { WebSocketServer, type WebSocket } from "ws";
import { BUNDLE_FILE_PATTERN, LineUpError, base64ToBytes, PART_ID_PATTERN, isAppScope, type BackendDeclaration, type JsonObject } from "@lineup/protocol";
import { SHA256_HEX, sha256Hex } from "../app-lifecycle/bundle/digest.js";
import type { BackendRunner, BackendStartSpec } from "../backends/runner.js";
import type { BackendRunners } from "../backends/service.js";
import {
  LOCAL_BACKENDS_PATH,
  LOCAL_BACKENDS_SECRET_PREFIX,
  LOCAL_BACKENDS_SUBPROTOCOL,
  LOCAL_BACKEND_PROTOCOLS,
  MAX_LOCAL_FILE_BYTES,
  MAX_LOCAL_FRAME_BYTES,
  MAX_LOCAL_PROGRAM_BYTES,
  MAX_LOCAL_PROGRAM_FILES,
  createWirePeer,
} from "../backends/local-service-wire.js";
import { createStdioRunner } from "./stdio-backend.js";
import { createMcpStdioRunner } from "./mcp-backend.js";
import { createMcpHttpRunner } from "../backends/mcp-http.js";

export interface LocalBackendServiceOptions {
  /** Each profile's files and programs go under `<dataDir>/<profile digest>/`. Created if missing. */
  readonly dataDir: string;
  /** The `Origin`s a page may connect from (the loopback server's own: `http://127.0.0.1:<port>`, `http://localhost:<port>`). */
  readonly origins: readonly string[];
  /** Default: 32 random bytes, in hex. The page gets it in its config. */
  readonly secret?: string;
  /** The runners by kind; default the Node host's. */
  readonly runners?: BackendRunners;
  /** Refusals and runner diagnostics of the service itself. */
  readonly diagnostics?: (error: unknown, context: string) => void;
}

export interface LocalBackendService {
  readonly secret: string;
  /** Takes an HTTP upgrade on `LOCAL_BACKENDS_PATH` (answers it, refused or accepted) and returns true; false for any other path. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Stops every runner and closes every connection. */
  close(): Promise<void>;
}

/** The Node host's runners for the kinds the service runs, with their programs under `dataDir`. */
export function nodeLocalRunners(dataDir: string): BackendRunners {
  return {
    "stdio-jsonrpc": (spec) => createStdioRunner({ ...spec, dataDir }),
    "local-http": (spec) => createStdioRunner({ ...spec, dataDir }),
    "mcp-stdio": (spec) => createMcpStdioRunner(spec, { dataDir }),
    "mcp-http": createMcpHttpRunner,
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const partId = new RegExp(PART_ID_PATTERN);
const bundleFile = new RegExp(BUNDLE_FILE_PATTERN);
const RUNNER_ID = /^[A-Za-z0-9._:/-]{1,200}$/;
/** Back-ends one connection may have started (a stopped one counts until the connection closes). */
const MAX_LOCAL_RUNNERS = 256;
const PROFILE = /^[\x20-\x7e]{1,256}$/;

const invalid = (message: string, path: string): LineUpError => new LineUpError("invalid_params", message, { path });

function text(params: JsonObject, name: string, pattern: RegExp): string {
  const value = params[name];
  if (typeof value !== "string" || !pattern.test(value)) throw invalid(`${name} is missing or malformed`, `/${name}`);
  return value;
}

/** The declaration's fields the runners read, checked where they reach a path or a process. */
function declarationOf(value: unknown): BackendDeclaration {
  if (!isRecord(value)) throw invalid("declaration must be an object", "/declaration");
  if (typeof value["id"] !== "string" || !partId.test(value["id"]) || value["id"].length > 64) throw invalid("declaration.id is not a part id", "/declaration/id");
  if (!(LOCAL_BACKEND_PROTOCOLS as readonly unknown[]).includes(value["protocol"])) throw new LineUpError("unsupported_on_host", `the local back-end service does not run ${JSON.stringify(value["protocol"])} back-ends`, { path: "/declaration/protocol" });
  if (value["entry"] !== undefined && (typeof value["entry"] !== "string" || !bundleFile.test(value["entry"]))) throw invalid("declaration.entry is not a bundle path", "/declaration/entry");
  const args = value["args"];
  if (args !== undefined && (!Array.isArray(args) || args.length > 32 || !args.every((a) => typeof a === "string" && a.length <= 256))) throw invalid("declaration.args must be at most 32 strings", "/declaration/args");
  if (!Array.isArray(value["methods"])) throw invalid("declaration.methods must be a list", "/declaration/methods");
  for (const field of ["limits", "restart"] as const) {
    const part = value[field];
    if (part !== undefined && (!isRecord(part) || Object.values(part).some((v) => typeof v !== "number" && typeof v !== "string"))) throw invalid(`declaration.${field} is malformed`, `/declaration/${field}`);
  }
  return value as unknown as BackendDeclaration;
}

/** Compares two secrets in constant time (their digests, so a length says nothing either). */
function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string): Buffer => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

const STATUS_TEXT = { 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden" } as const;

function refuseUpgrade(socket: Duplex, status: keyof typeof STATUS_TEXT, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nconnection: close\r\ncontent-type: text/plain\r\ncontent-length: ${reason.length}\r\n\r\n${reason}`);
}

export function createLocalBackendService(options: LocalBackendServiceOptions): LocalBackendService {
  const secret = options.secret ?? randomBytes(32).toString("hex");
  const origins = new Set(options.origins);
  const diagnose = (message: string, context: string): void => options.diagnostics?.(new Error(`local back-end service: ${message}`), context);
  const server = new WebSocketServer({ noServer: true, maxPayload: MAX_LOCAL_FRAME_BYTES, handleProtocols: (protocols) => (protocols.has(LOCAL_BACKENDS_SUBPROTOCOL) ? LOCAL_BACKENDS_SUBPROTOCOL : false) });
  const connections = new Set<() => Promise<void>>();

  const serve = (socket: WebSocket, profile: string): void => {
    const profileDir = join(options.dataDir, createHash("sha256").update(profile).digest("hex").slice(0, 32));
    const filesDir = join(profileDir, "files");
    mkdirSync(filesDir, { recursive: true, mode: 0o700 });
    const runners = options.runners ?? nodeLocalRunners(profileDir);
    const live = new Map<string, BackendRunner>();
    const fileOf = (hash: string): Uint8Array => {
      try {
        return new Uint8Array(readFileSync(join(filesDir, hash)));
      } catch {
        throw new LineUpError("not_found", `the service holds no file ${hash}: send it first (files.put)`, { path: "/files" });
      }
    };
    const runnerOf = (params: JsonObject): BackendRunner => {
      const runner = live.get(text(params, "runner", RUNNER_ID));
      if (runner === undefined) throw new LineUpError("not_found", "no such runner on this connection: start it first", { path: "/runner" });
      return runner;
    };

    const peer = createWirePeer({
      send: (frame) => socket.send(frame),
      onViolation: (message) => diagnose(message, "local back-end wire"),
      async handle(method, params, signal) {
        switch (method) {
          case "files.missing": {
            const hashes = params["hashes"];
            if (!Array.isArray(hashes) || hashes.length > MAX_LOCAL_PROGRAM_FILES || !hashes.every((h) => typeof h === "string" && SHA256_HEX.test(h))) throw invalid(`hashes must be at most ${MAX_LOCAL_PROGRAM_FILES} SHA-256 digests in hex`, "/hashes");
            return { missing: (hashes as string[]).filter((h) => !existsSync(join(filesDir, h))) };
          }
          case "files.put": {
            const hash = text(params, "hash", SHA256_HEX);
            const data = params["data"];
            if (typeof data !== "string") throw invalid("data must be base64", "/data");
            const bytes = base64ToBytes(data);
            if (bytes === undefined) throw invalid("data must be base64", "/data");
            if (bytes.byteLength > MAX_LOCAL_FILE_BYTES) throw new LineUpError("message_too_large", `a file is at most ${MAX_LOCAL_FILE_BYTES} bytes`, { path: "/data" });
            if ((await sha256Hex(bytes)) !== hash) throw new LineUpError("bundle_hash_mismatch", "the file's SHA-256 is not the digest it was sent under", { path: "/hash" });
            const path = join(filesDir, hash);
            if (!existsSync(path)) {
              const partial = `${path}.${process.pid}.partial`;
              writeFileSync(partial, bytes, { mode: 0o400 });
              renameSync(partial, path);
            }
            return {};
          }
          case "backend.start": {
            const runnerId = text(params, "runner", RUNNER_ID);
            if (live.has(runnerId)) throw new LineUpError("invalid_state", `runner ${runnerId} is already started on this connection`, { path: "/runner" });
            if (live.size >= MAX_LOCAL_RUNNERS) throw new LineUpError("overloaded", `a connection runs at most ${MAX_LOCAL_RUNNERS} back-ends`, { path: "/runner" });
            const appScope = params["app_scope"];
            if (!isAppScope(appScope)) throw invalid("app_scope is not an app scope", "/app_scope");
            const declaration = declarationOf(params["declaration"]);
            const factory = runners[declaration.protocol];
            if (factory === undefined) throw new LineUpError("unsupported_on_host", `this host does not run ${declaration.protocol} back-ends`, { path: "/declaration/protocol" });
            const digests = params["files"];
            if (digests !== undefined && (!isRecord(digests) || Object.keys(digests).length > MAX_LOCAL_PROGRAM_FILES)) throw invalid(`files must map at most ${MAX_LOCAL_PROGRAM_FILES} paths to digests`, "/files");
            const wanted: [string, string][] = [["", text(params, "entry", SHA256_HEX)], ...Object.entries(digests ?? {}).map(([p, h]) => [p, h] as [string, string])];
            let total = 0;
            for (const [path, hash] of wanted) {
              if (path !== "" && !bundleFile.test(path)) throw invalid(`${JSON.stringify(path.slice(0, 100))} is not a bundle path`, "/files");
              if (typeof hash !== "string" || !SHA256_HEX.test(hash)) throw invalid("a file's digest is not a SHA-256 in hex", "/files");
              const size = existsSync(join(filesDir, hash)) ? statSync(join(filesDir, hash)).size : 0;
              total += size;
            }
            if (total > MAX_LOCAL_PROGRAM_BYTES) throw new LineUpError("bundle_unpacked_too_large", `a back-end's files are at most ${MAX_LOCAL_PROGRAM_BYTES} bytes together`, { path: "/files" });
            const entry = fileOf(wanted[0]![1]);
            const files = digests === undefined ? undefined : new Map(wanted.slice(1).map(([path, hash]) => [path, fileOf(hash)]));
            const endpoint = params["endpoint_url"];
            if (endpoint !== undefined && typeof endpoint !== "string") throw invalid("endpoint_url must be a URL", "/endpoint_url");
            const spec: BackendStartSpec = {
              app_scope: appScope,
              declaration,
              entry,
              ...(files === undefined ? {} : { files }),
              ...(endpoint === undefined ? {} : { endpoint_url: endpoint }),
              hostCalls: (hostMethod, hostParams, callOptions) => peer.request("host.call", { runner: runnerId, method: hostMethod, params: hostParams }, callOptions?.signal),
              diagnostics: (error, context) => peer.notify("backend.diagnostic", { runner: runnerId, message: error instanceof Error ? error.message : String(error), context }),
            };
            live.set(runnerId, factory(spec));
            return {};
          }
          case "backend.call": {
            const runner = runnerOf(params);
            const name = params["method"];
            if (typeof name !== "string") throw invalid("method must be a string", "/method");
            const key = params["idempotency_key"];
            return runner.call(name, params["params"] ?? null, { signal, ...(typeof key === "string" ? { idempotency_key: key } : {}) });
          }
          case "backend.read": {
            const runner = runnerOf(params);
            const uri = params["uri"];
            if (typeof uri !== "string") throw invalid("uri must be a string", "/uri");
            if (runner.readResource === undefined) throw new LineUpError("unsupported_on_host", "this back-end has no resources");
            return runner.readResource(uri, { signal });
          }
          case "backend.stop": {
            await runnerOf(params).stop();
            return {};
          }
          default:
            throw new LineUpError("method_not_found", `the local back-end service has no method ${JSON.stringify(method.slice(0, 64))}`);
        }
      },
    });

    let closing: Promise<void> | undefined;
    const end = (): Promise<void> => {
      closing ??= (async () => {
        connections.delete(end);
        peer.close(new LineUpError("handler_failed", "the page's connection to the local back-end service closed", { data: { reason: "disconnected" } }));
        await Promise.all([...live.values()].map((runner) => runner.stop().catch(() => undefined)));
        live.clear();
        if (socket.readyState === socket.OPEN) socket.close(1001, "closing");
      })();
      return closing;
    };
    connections.add(end);
    socket.on("message", (data: Buffer, isBinary: boolean) => (isBinary ? diagnose("a binary frame", "local back-end wire") : peer.receive(data.toString("utf8"))));
    socket.on("close", () => void end());
    socket.on("error", () => void end());
  };

  return {
    secret,
    handleUpgrade(request, socket, head) {
      const url = new URL(request.url ?? "/", "http://127.0.0.1");
      if (url.pathname !== LOCAL_BACKENDS_PATH) return false;
      const origin = request.headers.origin;
      if (origin === undefined || !origins.has(origin)) {
        diagnose(`a connection from the origin ${JSON.stringify(origin ?? "(none)")} was refused`, "local back-end refused");
        refuseUpgrade(socket, 403, "wrong origin");
        return true;
      }
      const offered = (request.headers["sec-websocket-protocol"] ?? "").split(",").map((p) => p.trim());
      const given = offered.find((p) => p.startsWith(LOCAL_BACKENDS_SECRET_PREFIX))?.slice(LOCAL_BACKENDS_SECRET_PREFIX.length);
      if (given === undefined || !sameSecret(given, secret) || !offered.includes(LOCAL_BACKENDS_SUBPROTOCOL)) {
        diagnose("a connection without the secret was refused", "local back-end refused");
        refuseUpgrade(socket, 401, "unauthorized");
        return true;
      }
      const profile = url.searchParams.get("profile") ?? "";
      if (!PROFILE.test(profile)) {
        refuseUpgrade(socket, 400, "no profile");
        return true;
      }
      server.handleUpgrade(request, socket, head, (ws) => serve(ws, profile));
      return true;
    },
    async close() {
      await Promise.all([...connections].map((end) => end()));
      server.close();
    },
  };
}
