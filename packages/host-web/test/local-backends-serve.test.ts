/**
 * The host server in front of the local back-end service (issue 22, the service's secret): the page's config names the
 * service's URL and no secret; the server passes on a connection only from a socket of its own OS user (read from the
 * kernel's socket table) and adds the secret itself; another user's connection is refused 403, and the service on its
 * own refuses a connection without the secret (local-backend-service.test.ts).
 */
import { copyFileSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { connect as dial, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { loopbackPeerUid } from "../src/node/loopback-peer.js";
import { startHostServer, type HostServer } from "../src/node/serve.js";
import { configInPage } from "../src/serving/site.js";

/** The service's subprotocol (`LOCAL_BACKENDS_SUBPROTOCOL`), as the page offers it. */
const LOCAL_BACKENDS_SUBPROTOCOL = "lineup.local-backends.v1";
const CONFIG = { server_url: "ws://127.0.0.1:9/rpc", device_token: "lu_device-token" };
let dir: string;
let refusals: string[] = [];

beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "lineup-serve-local-")));
  // The server reads only these two pages at start.
  writeFileSync(join(dir, "index.html"), '<!doctype html><html><head><meta http-equiv="Content-Security-Policy" content="default-src \'self\'; connect-src \'self\'"></head><body></body></html>');
  copyFileSync(resolve(import.meta.dirname, "../public/surface-frame.html"), join(dir, "surface-frame.html"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function host(peerUid?: (peerPort: number, serverPort: number) => number | undefined): Promise<HostServer> {
  refusals = [];
  return startHostServer({
    distDir: dir,
    config: CONFIG,
    localBackends: { dataDir: join(dir, "backends"), diagnostics: (error) => refusals.push((error as Error).message), ...(peerUid === undefined ? {} : { peerUid }) },
  });
}

/** Opens the service as the page does: its own origin, the subprotocol, no secret. Resolves "open" or "refused <status>". */
function connect(server: HostServer, protocols: string[] = [LOCAL_BACKENDS_SUBPROTOCOL]): Promise<string> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`ws://127.0.0.1:${server.port}/local-backends?profile=p`, protocols, { origin: `http://127.0.0.1:${server.port}` });
    socket.on("open", () => {
      resolve(`open ${socket.protocol}`);
      socket.close();
    });
    socket.on("unexpected-response", (_req, res) => resolve(`refused ${res.statusCode}`));
    socket.on("error", () => resolve("error"));
  });
}

describe("the host server in front of the local back-end service", () => {
  it("writes the service's URL into the page's config and no secret", async () => {
    const server = await host();
    try {
      const page = await (await fetch(server.url)).text();
      expect(configInPage(page)).toEqual({ ...CONFIG, local_backends: { url: `ws://127.0.0.1:${server.port}/local-backends` } });
      expect(page).not.toMatch(/secret|[0-9a-f]{32}/);
    } finally {
      await server.close();
    }
  });

  it("lets this user's page in without a secret (the server adds it), and refuses another user's socket 403", async () => {
    const own = await host();
    try {
      expect(await connect(own)).toBe(`open ${LOCAL_BACKENDS_SUBPROTOCOL}`);
      // A secret the page made up is dropped, not passed on: the server's own is what the service sees.
      expect(await connect(own, [LOCAL_BACKENDS_SUBPROTOCOL, `secret.${"0".repeat(64)}`])).toBe(`open ${LOCAL_BACKENDS_SUBPROTOCOL}`);
    } finally {
      await own.close();
    }
    const other = await host(() => 4242);
    try {
      expect(await connect(other)).toBe("refused 403");
      expect(refusals).toEqual(["local back-end service: a connection from user 4242 was refused"]);
    } finally {
      await other.close();
    }
    // Where the system cannot say who owns the socket, nobody is let in.
    const unknown = await host(() => undefined);
    try {
      expect(await connect(unknown)).toBe("refused 403");
    } finally {
      await unknown.close();
    }
  });

  it("reads the owner of a loopback connection's peer socket from the kernel's table", async () => {
    const listener: Server = createServer();
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    const serverPort = (listener.address() as { port: number }).port;
    const accepted = new Promise<Socket>((resolve) => listener.once("connection", resolve));
    const client = dial(serverPort, "127.0.0.1");
    await new Promise<void>((resolve) => client.once("connect", resolve));
    const peer = await accepted;
    try {
      expect(loopbackPeerUid(peer.remotePort!, serverPort)).toBe(process.getuid!());
      // No such connection: nobody.
      expect(loopbackPeerUid(1, serverPort)).toBeUndefined();
      expect(loopbackPeerUid(peer.remotePort!, serverPort, [join(dir, "no-such-table")])).toBeUndefined();
    } finally {
      client.destroy();
      peer.destroy();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    }
  });
});
