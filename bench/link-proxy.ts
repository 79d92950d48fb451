/**
 * A slow link for the benches: a WebSocket proxy in front of a server that holds every frame a fixed
 * time each way, in order, as a network round trip would.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket, { WebSocketServer } from "ws";
import { silentLogger, startAppServer, type AppServerHandle } from "@lineup/app-server";

export const LINK_DELAY_MS = 10;

export interface Proxy {
  readonly url: string;
  close(): Promise<void>;
}

/** A WebSocket proxy that delivers each frame `delayMs` after it arrived, in order; optionally hides `features` in `initialize`'s answer. */
export async function startProxy(target: string, delayMs: number, hideFeatures: boolean): Promise<Proxy> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  wss.on("connection", (client) => {
    const upstream = new WebSocket(target);
    const early: string[] = [];
    const later = (fn: () => void) => setTimeout(fn, delayMs);
    upstream.on("open", () => early.splice(0).forEach((frame) => upstream.send(frame)));
    client.on("message", (data) => {
      const frame = String(data);
      later(() => (upstream.readyState === WebSocket.OPEN ? upstream.send(frame) : early.push(frame)));
    });
    upstream.on("message", (data) => {
      let frame = String(data);
      if (hideFeatures && frame.includes('"features"')) {
        const message = JSON.parse(frame) as { result?: { features?: unknown } };
        if (message.result !== undefined) delete message.result.features;
        frame = JSON.stringify(message);
      }
      later(() => client.readyState === WebSocket.OPEN && client.send(frame));
    });
    client.on("close", () => upstream.close());
    upstream.on("close", () => client.close());
    upstream.on("error", () => client.close());
  });
  await new Promise((resolve) => wss.once("listening", resolve));
  const port = (wss.address() as { port: number }).port;
  return {
    url: `ws://127.0.0.1:${port}/rpc`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of wss.clients) socket.terminate();
        wss.close(() => resolve());
      }),
  };
}

export async function until(predicate: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`link bench: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

/** A reference AppServer in a temp directory behind two slow links: one as it is, one hiding the server's features (no ordered writes). */
export interface LinkedServer {
  readonly dir: string;
  readonly server: AppServerHandle;
  readonly link: Proxy;
  readonly oldLink: Proxy;
}

/** Runs `fn` against a LinkedServer, then closes the links and the server and removes the directory. */
export async function withLinkedServer<T>(prefix: string, fn: (linked: LinkedServer) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const server = await startAppServer({ dataDir: join(dir, "server"), port: 0, logger: silentLogger });
  const link = await startProxy(server.url, LINK_DELAY_MS, false);
  const oldLink = await startProxy(server.url, LINK_DELAY_MS, true);
  try {
    return await fn({ dir, server, link, oldLink });
  } finally {
    await link.close();
    await oldLink.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
