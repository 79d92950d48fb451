/**
 * The browser transport takes a socket the host opened before the Runtime's code had loaded (the web host
 * connects as soon as it has read its config): in real Chromium against a real WebSocket server, the first
 * `open` of that URL uses the early socket whether it is still connecting or open already (the server sees one
 * connection, and the Runtime's frames flow on it); a closed one, or one to another URL, is not used: it is
 * closed, and the transport connects on its own.
 */
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { serveHarnessPage, type HarnessPage } from "../packages/host-web/test/harness-page.js";
import { launchChromium } from "./support/chromium.js";

/** An echo server that counts the connections it accepted and those that closed. */
async function echoServer(): Promise<{ url: string; accepted: () => number; closed: () => number; close: () => Promise<void> }> {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise((done) => server.once("listening", done));
  let accepted = 0;
  let closed = 0;
  server.on("connection", (socket) => {
    accepted++;
    socket.on("message", (data) => socket.send(`echo:${String(data)}`));
    socket.on("close", () => closed++);
  });
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`,
    accepted: () => accepted,
    closed: () => closed,
    close: async () => {
      for (const client of server.clients) client.terminate();
      await new Promise((done) => server.close(done));
    },
  };
}

let browser: Browser;
let page: Page;
let pageServer: HarnessPage;

beforeAll(async () => {
  browser = await launchChromium();
  page = await browser.newPage();
  pageServer = await serveHarnessPage({
    entry: resolve(import.meta.dirname, "fixtures", "browser-transport-entry.ts"),
    csp: "default-src 'self'; connect-src ws://127.0.0.1:*",
    title: "early socket",
  });
  await page.goto(`${pageServer.origin}/`);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await pageServer?.close();
});

/** Opens through the transport with an early socket in `state`, sends one frame and waits for its echo. */
const openAndEcho = (url: string, earlyUrl: string, state: "open" | "connecting" | "closed" | "another-url") =>
  page.evaluate(
    async ({ url, earlyUrl, state }) => {
      const opened = await window.openWithEarlySocket(url, earlyUrl, state);
      opened.send("hello");
      const started = Date.now();
      while (opened.messages.length === 0 && Date.now() - started < 5_000) await new Promise((r) => setTimeout(r, 10));
      const result = { messages: [...opened.messages], earlyClosed: opened.earlyClosed() };
      opened.close();
      return result;
    },
    { url, earlyUrl, state },
  );

describe("the browser transport's early socket (Chromium)", () => {
  it.each(["open", "connecting"] as const)("takes an early socket that is %s: one connection, and the frames flow on it", async (state) => {
    const server = await echoServer();
    try {
      const outcome = await openAndEcho(server.url, server.url, state);
      expect(outcome).toEqual({ messages: ["echo:hello"], earlyClosed: false });
      expect(server.accepted()).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("does not take a closed early socket: it connects on its own", async () => {
    const server = await echoServer();
    try {
      const outcome = await openAndEcho(server.url, server.url, "closed");
      expect(outcome.messages).toEqual(["echo:hello"]);
      expect(server.accepted()).toBe(2);
    } finally {
      await server.close();
    }
  });

  it("closes an early socket to another URL and connects to the one asked for", async () => {
    const asked = await echoServer();
    const other = await echoServer();
    try {
      const outcome = await openAndEcho(asked.url, other.url, "another-url");
      expect(outcome).toEqual({ messages: ["echo:hello"], earlyClosed: true });
      expect(asked.accepted()).toBe(1);
      // The early socket is gone from the other server: closed before it connected, or accepted and then closed.
      await expect.poll(() => other.accepted() - other.closed(), { timeout: 5_000 }).toBe(0);
    } finally {
      await asked.close();
      await other.close();
    }
  });
});
