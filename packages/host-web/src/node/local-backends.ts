/**
 * The local back-end service (`@lineup/runtime/node`'s `createLocalBackendService`) on a loopback port of its own,
 * for a host whose page is not served over HTTP by this process: the desktop host serves its page over `lineup://app/`
 * from the GJS program, and its Node side runs the page's `mcp-stdio`, `mcp-http`, `stdio-jsonrpc` and `local-http`
 * back-ends here. Only an upgrade on `LOCAL_BACKENDS_PATH` with a loopback `Host`, one of `origins` and this start's
 * secret is taken; every other request is refused.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { LOCAL_BACKENDS_PATH, createLocalBackendService } from "@lineup/runtime/node";

export interface LocalBackendServer {
  /** What the page's config names (`local_backends`): the service's `ws://127.0.0.1:<port>/…` URL and this start's secret. */
  readonly config: { readonly url: string; readonly secret: string };
  /** Stops every program and closes the port. */
  close(): Promise<void>;
}

export async function startLocalBackendServer(options: { readonly dataDir: string; readonly origins: readonly string[]; readonly diagnostics?: (error: unknown, context: string) => void }): Promise<LocalBackendServer> {
  const service = createLocalBackendService({ dataDir: options.dataDir, origins: options.origins, ...(options.diagnostics === undefined ? {} : { diagnostics: options.diagnostics }) });
  let port = 0;
  const server = createServer((_req, res) => res.writeHead(404, { "content-type": "text/plain", "content-length": 9 }).end("not found"));
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const loopback = req.headers.host === `127.0.0.1:${port}` || req.headers.host === `localhost:${port}`;
    if (loopback && service.handleUpgrade(req, socket, head)) return;
    socket.end("HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolveListen());
  });
  port = (server.address() as AddressInfo).port;
  return {
    config: { url: `ws://127.0.0.1:${port}${LOCAL_BACKENDS_PATH}`, secret: service.secret },
    async close() {
      await service.close();
      await new Promise<void>((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      });
    },
  };
}
