/**
 * The page's end of the local back-end service (`backends/local-service-wire.ts`): runners for the `mcp-stdio`,
 * `mcp-http`, `stdio-jsonrpc` and `local-http` back-ends that the host's Node process runs for this page. Each is
 * an ordinary `BackendRunner` to the page's back-end service, which keeps every check it makes (the app, the
 * declaration, the method, the params and the result schemas); the service only runs the program.
 *
 * One WebSocket for all of them, opened at the first call. A runner sends its files on its first call of each
 * connection: the service says which digests it lacks and only those travel (once per app version, as the service
 * keeps them on disk), then it is started there. What the program asks of the host arrives as `host.call` and is
 * answered by the runner's own `hostCalls` (the page Runtime's checks). When the connection drops, every call in
 * flight ends `handler_failed` (`data.reason: "disconnected"`) and the next call opens a new connection and starts
 * its back-end again there.
 */
import { LineUpError, bytesToBase64, type JsonObject, type JsonValue } from "@lineup/protocol";
import { sha256Hex } from "../app-lifecycle/bundle/digest.js";
import type { BackendRunner, BackendStartSpec, BackendStatus } from "../backends/runner.js";
import type { BackendRunners } from "../backends/service.js";
import { LOCAL_BACKENDS_SECRET_PREFIX, LOCAL_BACKENDS_SUBPROTOCOL, LOCAL_BACKEND_PROTOCOLS, createWirePeer, type WirePeer } from "../backends/local-service-wire.js";

/** The part of a WebSocket the client uses (the browser's own, or `ws`'s in Node). */
export interface LocalBackendSocket {
  readonly readyState: number;
  send(text: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: "open" | "close" | "error" | "message", listener: (event: { readonly data?: unknown }) => void): void;
}

export interface LocalBackendsOptions {
  /** The service's `ws://` URL (the config's `local_backends.url`). */
  readonly url: string;
  /**
   * The service's per-start secret, for a client that holds it (a host in the service's own process). A page has none:
   * the host server in front of the service adds it to the page's connection after its own checks.
   */
  readonly secret?: string;
  /** The page's profile: the service keeps each profile's files and programs apart. */
  readonly profile: string;
  /** Default: the global `WebSocket`. */
  readonly socket?: (url: string, protocols: string[]) => LocalBackendSocket;
  /** Default 10 000 ms. */
  readonly connectTimeoutMs?: number;
}

export interface LocalBackendsClient {
  /** A runner factory for each kind the service runs, for `RuntimeOptions.backends`. */
  readonly runners: BackendRunners;
  /** Closes the connection; calls in flight end `handler_failed` (`disconnected`). */
  close(): void;
}

interface Connection {
  readonly peer: WirePeer;
  readonly socket: LocalBackendSocket;
  /** Runners started on this connection (their start, once). */
  readonly started: Map<string, Promise<void>>;
}

const OPEN = 1;
const disconnected = (message: string): LineUpError => new LineUpError("handler_failed", message, { data: { reason: "disconnected" } });

export function createLocalBackendsClient(options: LocalBackendsOptions): LocalBackendsClient {
  const specs = new Map<string, BackendStartSpec>();
  let current: Promise<Connection> | undefined;
  let nextRunner = 1;
  let closed = false;

  const open = (): Promise<Connection> => {
    if (closed) return Promise.reject(disconnected("the local back-end service's client is closed"));
    if (current !== undefined) return current;
    const attempt = new Promise<Connection>((resolve, reject) => {
      const url = `${options.url}${options.url.includes("?") ? "&" : "?"}profile=${encodeURIComponent(options.profile)}`;
      const protocols = [LOCAL_BACKENDS_SUBPROTOCOL, ...(options.secret === undefined ? [] : [`${LOCAL_BACKENDS_SECRET_PREFIX}${options.secret}`])];
      const socket = options.socket?.(url, protocols) ?? (new WebSocket(url, protocols) as unknown as LocalBackendSocket);
      let opened = false;
      const timer = setTimeout(() => {
        if (opened) return;
        socket.close();
        fail("the local back-end service did not answer");
      }, options.connectTimeoutMs ?? 10_000);
      const peer = createWirePeer({
        send: (text) => {
          if (socket.readyState === OPEN) socket.send(text);
        },
        async handle(method, params, signal) {
          if (method !== "host.call") throw new LineUpError("method_not_found", `the page answers no ${JSON.stringify(method.slice(0, 64))}`);
          const spec = specs.get(String(params["runner"]));
          if (spec === undefined) throw new LineUpError("not_found", "no such runner in this page");
          if (typeof params["method"] !== "string") throw new LineUpError("invalid_params", "method must be a string", { path: "/method" });
          return spec.hostCalls(params["method"], params["params"] ?? null, { signal });
        },
        notice(method, params) {
          if (method !== "backend.diagnostic") return;
          specs.get(String(params["runner"]))?.diagnostics?.(new Error(String(params["message"])), String(params["context"]));
        },
      });
      const connection: Connection = { peer, socket, started: new Map() };
      const fail = (message: string): void => {
        clearTimeout(timer);
        if (current === attempt) current = undefined;
        peer.close(disconnected(message));
        if (!opened) reject(disconnected(message));
      };
      socket.addEventListener("open", () => {
        opened = true;
        clearTimeout(timer);
        resolve(connection);
      });
      socket.addEventListener("message", (event) => {
        if (typeof event.data === "string") peer.receive(event.data);
      });
      socket.addEventListener("close", () => fail(opened ? "the connection to the local back-end service closed" : "the local back-end service refused the connection or could not be reached"));
      socket.addEventListener("error", () => undefined);
    });
    current = attempt;
    attempt.catch(() => undefined);
    return attempt;
  };

  const factory = (spec: BackendStartSpec): BackendRunner => {
    const runnerId = `${spec.app_scope}/${spec.declaration.id}/${nextRunner++}`;
    specs.set(runnerId, spec);
    let status: BackendStatus = "idle";
    let digests: Promise<{ readonly entry: string; readonly files?: Record<string, string>; readonly bytes: Map<string, Uint8Array> }> | undefined;
    const stopped = (): LineUpError => new LineUpError("handler_failed", `back-end ${spec.declaration.id} is stopped`, { data: { reason: "stopped" } });

    const hashed = () =>
      (digests ??= (async () => {
        const bytes = new Map<string, Uint8Array>();
        const entry = await sha256Hex(spec.entry);
        bytes.set(entry, spec.entry);
        let files: Record<string, string> | undefined;
        if (spec.files !== undefined) {
          files = {};
          for (const [path, content] of spec.files) {
            const hash = await sha256Hex(content);
            files[path] = hash;
            bytes.set(hash, content);
          }
        }
        return { entry, bytes, ...(files === undefined ? {} : { files }) };
      })());

    /** Sends what the service lacks and starts the runner there, once per connection. */
    const startOn = (connection: Connection): Promise<void> => {
      let starting = connection.started.get(runnerId);
      if (starting === undefined) {
        starting = (async () => {
          const { entry, files, bytes } = await hashed();
          const { missing } = (await connection.peer.request("files.missing", { hashes: [...bytes.keys()] })) as { missing: string[] };
          for (const hash of missing) await connection.peer.request("files.put", { hash, data: bytesToBase64(bytes.get(hash)!) });
          await connection.peer.request("backend.start", {
            runner: runnerId,
            app_scope: spec.app_scope,
            declaration: spec.declaration as unknown as JsonObject,
            entry,
            ...(files === undefined ? {} : { files }),
            ...(spec.endpoint_url === undefined ? {} : { endpoint_url: spec.endpoint_url }),
          });
          status = "running";
        })();
        connection.started.set(runnerId, starting);
        starting.catch(() => connection.started.delete(runnerId));
      }
      return starting;
    };

    const run = async (method: "backend.call" | "backend.read", params: JsonObject, signal: AbortSignal | undefined): Promise<JsonValue> => {
      if (status === "stopped") throw stopped();
      if (signal?.aborted === true) throw new LineUpError("request_cancelled", "the call was cancelled");
      const connection = await open();
      await startOn(connection);
      return connection.peer.request(method, { runner: runnerId, ...params }, signal);
    };

    const runner: BackendRunner = {
      status: () => status,
      call: (method, params, callOptions = {}) => run("backend.call", { method, params, ...(callOptions.idempotency_key === undefined ? {} : { idempotency_key: callOptions.idempotency_key }) }, callOptions.signal),
      async stop() {
        if (status === "stopped") return;
        status = "stopped";
        specs.delete(runnerId);
        const connection = await current?.catch(() => undefined);
        if (connection?.started.has(runnerId) === true) await connection.peer.request("backend.stop", { runner: runnerId }).catch(() => undefined);
      },
    };
    return spec.declaration.protocol === "mcp-stdio" || spec.declaration.protocol === "mcp-http" ? { ...runner, readResource: (uri, readOptions = {}) => run("backend.read", { uri }, readOptions.signal) } : runner;
  };

  return {
    runners: Object.fromEntries(LOCAL_BACKEND_PROTOCOLS.map((protocol) => [protocol, factory])),
    close() {
      closed = true;
      void current?.then((connection) => connection.socket.close(1000, "closing")).catch(() => undefined);
      current = undefined;
    },
  };
}
