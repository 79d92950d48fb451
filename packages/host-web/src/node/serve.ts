/**
 * The host's static server for `npm start` and the browser tests: serves the built `dist/` on 127.0.0.1
 * through the host's site (`serving/site.ts`: the page's CSP cut to the configured AppServer, the frame
 * page's headers, the sign-in config written into the page, the built-in bundles). Only GET and HEAD; only the loopback Host
 * header (a DNS-rebinding page cannot read the token). With `localBackends` it also runs the local back-end service
 * (`@lineup/runtime/node`'s `createLocalBackendService`) on the same port, and the served config names its URL. The
 * service's secret stays in this process: the server passes on an upgrade only from this server's own origin and from
 * a socket owned by this server's own OS user (`loopback-peer.ts`), and adds the secret itself. So a page or a process
 * that reads the page's config learns no secret, and another account on the machine cannot drive the service.
 */
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { join, normalize, resolve, sep } from "node:path";
import { LOCAL_BACKENDS_PATH, LOCAL_BACKENDS_SECRET_PREFIX, createLocalBackendService, type LocalBackendService } from "@lineup/runtime/node";
import { createSite, type ServedConfig } from "../serving/site.js";
import { loopbackPeerUid } from "./loopback-peer.js";

export { grantedFramePage, policyFor, surfaceFrameHeaders, type ServedConfig } from "../serving/site.js";

export interface HostServerOptions {
  /** The built host (`packages/host-web/dist`). */
  readonly distDir: string;
  /** Written into the page (`serving/site.ts`); without it the page shows its sign-in form. */
  readonly config?: ServedConfig;
  /** Default 0 (any free port). */
  readonly port?: number;
  /** Signed bundles served at `/apps/<file>` (the built-in apps the App Registry offers). */
  readonly bundles?: ReadonlyMap<string, Uint8Array>;
  /**
   * Runs the local back-end service: the page's `mcp-stdio`, `mcp-http`, `stdio-jsonrpc` and `local-http` back-ends
   * run in this process, their files and programs under `dataDir`. Needs `config` (the page learns of it there).
   */
  readonly localBackends?: {
    readonly dataDir: string;
    readonly diagnostics?: (error: unknown, context: string) => void;
    /** Who owns the peer's socket (default `loopbackPeerUid`); an upgrade from another user's is refused 403. */
    readonly peerUid?: (peerPort: number, serverPort: number) => number | undefined;
  };
}

export interface HostServer {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function startHostServer(options: HostServerOptions): Promise<HostServer> {
  const root = resolve(options.distDir);
  const [indexHtml, frameHtml] = await Promise.all([readFile(join(root, "index.html"), "utf8"), readFile(join(root, "surface-frame.html"), "utf8")]);
  let port = 0;
  // Made once the port is known: the config names the local back-end service by its URL.
  let site: ReturnType<typeof createSite> | undefined = undefined;
  let service: LocalBackendService | undefined;

  const send = (res: ServerResponse, status: number, headers: Readonly<Record<string, string>>, body: Uint8Array) => {
    res.writeHead(status, { ...headers, "content-length": body.byteLength });
    res.end(res.req.method === "HEAD" ? undefined : body);
  };
  const plain = (text: string, extra: Record<string, string> = {}) => ({ "content-type": "text/plain", "x-content-type-options": "nosniff", ...extra, body: Buffer.from(text) });
  const loopbackHost = (req: IncomingMessage): boolean => req.headers.host === `127.0.0.1:${port}` || req.headers.host === `localhost:${port}`;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      const { body, ...headers } = plain("method not allowed", { allow: "GET, HEAD" });
      return send(res, 405, headers, body);
    }
    if (!loopbackHost(req) || site === undefined) {
      const { body, ...headers } = plain("wrong host");
      return send(res, 421, headers, body);
    }
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://127.0.0.1").pathname);
    const response = await site(path);
    return send(res, response.status, response.headers, response.body);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (res.headersSent) return void res.destroy();
      const { body, ...headers } = plain("internal error");
      send(res, 500, headers, body);
    });
  });
  const ownUid = typeof process.getuid === "function" ? process.getuid() : undefined;
  const peerUid = options.localBackends?.peerUid ?? loopbackPeerUid;
  /** The page's upgrade to the service: only from a socket of this server's own user; then with the secret added. */
  const toService = (req: IncomingMessage, socket: Duplex, head: Buffer): boolean => {
    if (service === undefined || new URL(req.url ?? "/", "http://127.0.0.1").pathname !== LOCAL_BACKENDS_PATH) return false;
    const owner = ownUid === undefined ? undefined : peerUid((socket as Duplex & { remotePort?: number }).remotePort ?? 0, port);
    if (owner === undefined || owner !== ownUid) {
      options.localBackends?.diagnostics?.(new Error(`local back-end service: a connection from ${owner === undefined ? "a socket whose owner this system cannot tell" : `user ${owner}`} was refused`), "local back-end refused");
      socket.end("HTTP/1.1 403 Forbidden\r\nconnection: close\r\ncontent-type: text/plain\r\ncontent-length: 10\r\n\r\nwrong user");
      return true;
    }
    const offered = (req.headers["sec-websocket-protocol"] ?? "").split(",").map((p) => p.trim()).filter((p) => p !== "" && !p.startsWith(LOCAL_BACKENDS_SECRET_PREFIX));
    req.headers["sec-websocket-protocol"] = [...offered, `${LOCAL_BACKENDS_SECRET_PREFIX}${service.secret}`].join(", ");
    return service.handleUpgrade(req, socket, head);
  };
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (loopbackHost(req) && toService(req, socket, head)) return;
    socket.end("HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolveListen());
  });
  port = (server.address() as AddressInfo).port;
  let config = options.config;
  if (options.localBackends !== undefined && config !== undefined) {
    service = createLocalBackendService({
      dataDir: options.localBackends.dataDir,
      origins: [`http://127.0.0.1:${port}`, `http://localhost:${port}`],
      ...(options.localBackends.diagnostics === undefined ? {} : { diagnostics: options.localBackends.diagnostics }),
    });
    config = { ...config, local_backends: { url: `ws://127.0.0.1:${port}${LOCAL_BACKENDS_PATH}` } };
  }
  site = createSite({
    indexHtml,
    frameHtml,
    readFile: async (path) => {
      const file = normalize(join(root, path));
      if (!file.startsWith(root + sep)) return undefined;
      return readFile(file).catch(() => undefined);
    },
    ...(config === undefined ? {} : { config }),
    ...(options.bundles === undefined ? {} : { bundles: options.bundles }),
  });
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    async close() {
      await service?.close();
      await new Promise<void>((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      });
    },
  };
}
