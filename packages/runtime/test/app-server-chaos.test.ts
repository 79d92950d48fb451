/**
 * The pipelined outbox against the real reference AppServer over a connection that keeps breaking: a
 * WebSocket proxy between the Runtime and the server cuts the connection after a seeded number of frames,
 * over and over, while a burst of texts is pipelined. Whatever was lost on the way — requests, answers,
 * both — every text must be in the server's log exactly once, in the order the app dispatched them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { silentLogger, startAppServer } from "@lineup/app-server";
import type { AgentAppMessage } from "../src/index.js";
import { createNodeRuntime } from "../src/node/index.js";

const dirs: string[] = [];
const temp = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

async function until(predicate: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A small deterministic generator (mulberry32). */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Forwards frames both ways and cuts each connection after a random number of frames while `cutting` is on. */
async function startCuttingProxy(target: string, random: () => number) {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  const state = { cutting: false, cuts: 0 };
  wss.on("connection", (client) => {
    const upstream = new WebSocket(target);
    const early: string[] = [];
    let budget = 3 + Math.floor(random() * 25);
    const cut = () => {
      state.cuts += 1;
      client.terminate();
      upstream.terminate();
    };
    const pass = (): boolean => {
      if (!state.cutting) return true;
      budget -= 1;
      if (budget > 0) return true;
      cut();
      return false;
    };
    upstream.on("open", () => early.splice(0).forEach((frame) => upstream.send(frame)));
    client.on("message", (data) => {
      if (!pass()) return;
      if (upstream.readyState === WebSocket.OPEN) upstream.send(String(data));
      else early.push(String(data));
    });
    upstream.on("message", (data) => {
      if (pass() && client.readyState === WebSocket.OPEN) client.send(String(data));
    });
    client.on("close", () => upstream.close());
    upstream.on("close", () => client.close());
    client.on("error", () => upstream.terminate());
    upstream.on("error", () => client.terminate());
  });
  await new Promise((resolve) => wss.once("listening", resolve));
  return {
    url: `ws://127.0.0.1:${(wss.address() as { port: number }).port}/rpc`,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of wss.clients) socket.terminate();
        wss.close(() => resolve());
      }),
  };
}

describe("pipelined outbox ⇄ reference AppServer over a breaking connection", () => {
  it.each([7, 1234])("every text lands once, in dispatch order (seed %i)", async (seed) => {
    const server = await startAppServer({ dataDir: temp("lineup-chaos-server-"), port: 0, logger: silentLogger });
    const proxy = await startCuttingProxy(server.url, seeded(seed));
    const device = await createNodeRuntime({ serverUrl: proxy.url, token: server.devCredentials!.device_token, dataDir: temp("lineup-chaos-device-"), backoff: { baseMs: 5, capMs: 40 }, requestTimeoutMs: 2_000, relistIntervalMs: 0 });
    // A second device of the same user, straight to the server, reads the log as it is.
    const reader = await createNodeRuntime({ serverUrl: server.url, token: server.admin.createDevice("chaos-reader", "dev-user"), dataDir: temp("lineup-chaos-reader-"), relistIntervalMs: 50 });
    const seen: AgentAppMessage[] = [];
    try {
      await device.start();
      await reader.start();
      reader.appPort("chat").subscribeMessages({ include_pending: true }, (m) => void seen.push(m));
      await Promise.all([device.whenOnline(), reader.whenOnline()]);
      const { conversation_id: id } = await device.conversations.start({ agent_id: "demo-agent", workspace_id: "w-1", title: "Chaos" });
      await until(() => device.appPort("chat").view().queued_actions === 0, 10_000, "the conversation on the server");

      proxy.state.cutting = true;
      const texts = Array.from({ length: 60 }, (_, i) => `text ${i}`);
      // In bursts, so that many are in flight whenever the connection breaks.
      for (let i = 0; i < texts.length; i += 12) {
        await Promise.all(texts.slice(i, i + 12).map((text) => device.appPort("chat").dispatch({ type: "conversation.send_text", conversation_id: id, text })));
        await new Promise((resolve) => setTimeout(resolve, 15));
      }
      await until(() => device.appPort("chat").view().queued_actions === 0 || proxy.state.cuts > 200, 30_000, "the outbox drained through the cuts");
      proxy.state.cutting = false;
      await until(() => device.appPort("chat").view().queued_actions === 0, 20_000, "the outbox drained");

      const userTexts = () => seen.filter((m) => m.conversation_id === id && m.type === "lineup.message" && m.sender.kind === "user").map((m) => (m.payload as { text: string }).text);
      await until(() => userTexts().length >= texts.length, 20_000, "the reader saw every text");
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(proxy.state.cuts).toBeGreaterThan(3);
      expect(userTexts()).toEqual(texts);
      expect(await device.verifyAudit()).toMatchObject({ ok: true });
    } finally {
      await device.stop();
      await reader.stop();
      await proxy.close();
      await server.close();
    }
  }, 90_000);
});
