/**
 * The client's end of the heartbeat, for both Node clients (the Runtime's and the agent SDK's): over a
 * real WebSocket to a server that stops answering — it never pongs and never sends, while its TCP
 * connection stays open — the client closes the connection (1006, "heartbeat timeout"); against a
 * server that answers pings, the connection stays open through six intervals.
 *
 * And the browser's, which cannot send ping frames: the Runtime's browser transport in real Chromium
 * sends `connection/ping` notifications; a silent server is given up on the same way, and the reference
 * AppServer answers each with `connection/pong`, which keeps the connection open and never reaches the
 * Runtime.
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { nodeWebSocketTransport } from "@lineup/agent-sdk/node";
import { silentLogger, startAppServer, type AppServerHandle } from "@lineup/app-server";
import { createWsTransport } from "@lineup/runtime/node";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { serveHarnessPage, type HarnessPage } from "../packages/host-web/test/harness-page.js";
import { launchChromium } from "./support/chromium.js";

const INTERVAL_MS = 100;
/**
 * The interval where the server does answer: long enough that a busy test machine (a full run beside Chromium)
 * does not leave the server's answer a whole interval late, which is the heartbeat's own rule for a dead one.
 */
const ANSWERED_INTERVAL_MS = 500;

/** What both transports give: a close report, and a way to end. */
interface Opened {
  readonly closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

const CLIENTS: Record<string, (url: string, intervalMs: number) => Promise<Opened>> = {
  runtime: async (url, intervalMs) => {
    const connection = await createWsTransport({ heartbeatIntervalMs: intervalMs }).open(url);
    return { closed: new Promise((resolve) => connection.onClose(resolve)), close: () => connection.close(1000, "done") };
  },
  "agent SDK": async (url, intervalMs) => {
    const connection = await nodeWebSocketTransport({ heartbeatIntervalMs: intervalMs }).connect(url);
    return { closed: new Promise((resolve) => connection.onClose(resolve)), close: () => connection.close(1000, "done") };
  },
};

let servers: WebSocketServer[] = [];
afterEach(async () => {
  for (const server of servers) {
    for (const client of server.clients) client.terminate();
    await new Promise((resolve) => server.close(resolve));
  }
  servers = [];
});

async function serve(autoPong: boolean): Promise<string> {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0, autoPong });
  servers.push(server);
  await new Promise((resolve) => server.once("listening", resolve));
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`;
}

const within = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} not within ${ms} ms`)), ms))]);

describe.each(Object.entries(CLIENTS))("the %s client's heartbeat", (_, open) => {
  it("closes a connection whose server stopped answering", async () => {
    const client = await open(await serve(false), INTERVAL_MS);
    expect(await within(client.closed, 10_000, "the close")).toEqual({ code: 1006, reason: "heartbeat timeout" });
  });

  it("keeps a connection whose server answers pings open", async () => {
    const client = await open(await serve(true), ANSWERED_INTERVAL_MS);
    const outcome = await Promise.race([client.closed, new Promise((resolve) => setTimeout(() => resolve("still open"), 6 * ANSWERED_INTERVAL_MS))]);
    expect(outcome).toBe("still open");
    client.close();
    expect((await client.closed).code).toBe(1000);
  });
});

describe("the browser client's heartbeat", () => {
  let browser: Browser;
  let page: Page;
  let server: AppServerHandle;
  let dataDir: string;
  let pageServer: HarnessPage;
  const frames: string[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "lineup-heartbeat-"));
    server = await startAppServer({ dataDir, logger: silentLogger });
    browser = await launchChromium();
    page = await browser.newPage();
    page.on("websocket", (socket) => socket.on("framesent", (frame) => void frames.push(String(frame.payload))));
    // The Runtime's browser transport, bundled into a page that may open WebSockets to loopback alone.
    pageServer = await serveHarnessPage({
      entry: resolve(import.meta.dirname, "fixtures", "browser-transport-entry.ts"),
      csp: "default-src 'self'; connect-src ws://127.0.0.1:*",
      title: "heartbeat",
    });
    await page.goto(`${pageServer.origin}/`);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await pageServer?.close();
    await server?.close();
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  it("gives up on a server that stopped answering: 1006 heartbeat timeout, without waiting for a closing handshake", async () => {
    const url = await serve(false);
    const closed = await page.evaluate(async ({ url, interval }) => {
      const opened = await window.openLineUpTransport(url, interval);
      const started = Date.now();
      while (opened.closed === undefined && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 20));
      return opened.closed;
    }, { url, interval: INTERVAL_MS });
    expect(closed).toEqual({ code: 1006, reason: "heartbeat timeout" });
    expect(frames).toContain(JSON.stringify({ jsonrpc: "2.0", method: "connection/ping", params: {} }));
  });

  it("stays open to the AppServer, which answers every ping with a pong the Runtime never sees", async () => {
    const outcome = await page.evaluate(async ({ url, interval }) => {
      const opened = await window.openLineUpTransport(url, interval);
      await new Promise((r) => setTimeout(r, 6 * interval));
      const closedEarly = opened.closed;
      // A request still gets its answer: the transport passes everything but the pongs.
      opened.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "capability/list", params: {} }));
      const started = Date.now();
      while (opened.messages.length === 0 && Date.now() - started < 5_000) await new Promise((r) => setTimeout(r, 20));
      opened.close();
      return { closedEarly, messages: opened.messages };
    }, { url: server.url, interval: ANSWERED_INTERVAL_MS });
    expect(outcome.closedEarly).toBeUndefined();
    expect(outcome.messages).toHaveLength(1);
    expect(JSON.parse(outcome.messages[0]!)).toMatchObject({ jsonrpc: "2.0", id: 1 });
    expect(outcome.messages.join("")).not.toContain("connection/pong");
  });
});
