/**
 * The Runtime against the real reference AppServer on an ephemeral port: two devices of one user, a raw
 * JSON-RPC agent, messages both ways, and the server restarted mid-conversation; a burst pipelined to the
 * server; and the pipelined outbox over a connection that keeps breaking: a WebSocket proxy between the
 * Runtime and the server cuts the connection after a seeded number of frames, over and over, while bursts
 * of texts are pipelined — whatever was lost on the way, every text must be in the server's log exactly
 * once, in the order the app dispatched them.
 */
import { describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { silentLogger, startAppServer, type AppServerHandle } from "@lineup/app-server";
import type { AgentAppMessage } from "../src/index.js";
import { createNodeRuntime, type NodeRuntime } from "../src/node/index.js";
import { RawAgent } from "./helpers/raw-agent.js";
import { seededRandom } from "./store-test-helpers.js";
import { tempDirs, until } from "../../../test/support/temp-dirs.js";

const temp = tempDirs();

const agentTexts = (messages: readonly AgentAppMessage[]): string[] =>
  messages.filter((m) => m.type === "lineup.message" && m.sender.kind === "agent").map((m) => (m.payload as { text: string }).text);

describe("Runtime ⇄ reference AppServer", () => {
  it("two devices and an agent: messages both ways, across a server restart", async () => {
    const serverDir = temp("lineup-int-server-");
    let server: AppServerHandle = await startAppServer({ dataDir: serverDir, port: 0, logger: silentLogger });
    const port = Number(new URL(server.url).port);
    const credentials = server.devCredentials!;
    const secondDeviceToken = await server.admin.createDevice("dev-device-2", "dev-user");

    const options = { serverUrl: server.url, backoff: { baseMs: 20, capMs: 200 }, relistIntervalMs: 100, requestTimeoutMs: 3_000 };
    const a: NodeRuntime = await createNodeRuntime({ ...options, token: credentials.device_token, dataDir: temp("lineup-int-a-") });
    const b: NodeRuntime = await createNodeRuntime({ ...options, token: secondDeviceToken, dataDir: temp("lineup-int-b-") });
    const receivedA: AgentAppMessage[] = [];
    const receivedB: AgentAppMessage[] = [];
    await a.start();
    await b.start();
    a.appPort("chat").subscribeMessages({ include_pending: true }, (m) => void receivedA.push(m));
    b.appPort("chat").subscribeMessages({ include_pending: true }, (m) => void receivedB.push(m));
    await Promise.all([a.whenOnline(), b.whenOnline()]);

    let agent = await RawAgent.connect(server.url, credentials.agent_token);
    await agent.serve("demo-agent", "k1");

    const { conversation_id: id } = await a.conversations.start({ agent_id: "demo-agent", workspace_id: "w-1", title: "Integration" });
    await a.appPort("chat").dispatch({ type: "conversation.send_text", conversation_id: id, text: "hello from A" });
    await until(() => agentTexts(receivedA).includes("echo: hello from A"), 10_000, "A gets the agent's reply");

    // B follows the conversation started on A (re-list) and sees the same history, then speaks.
    await until(() => agentTexts(receivedB).includes("echo: hello from A"), 10_000, "B follows the conversation");
    await b.appPort("chat").dispatch({ type: "conversation.send_text", conversation_id: id, text: "hello from B" });
    await until(() => agentTexts(receivedA).includes("echo: hello from B"), 10_000, "A sees B's turn answered");

    // The server goes away mid-conversation; A keeps accepting actions, then everything resumes.
    agent.close();
    await server.close();
    await until(() => a.lifecycle.snapshot().status !== "online", 5_000, "A notices");
    await a.appPort("chat").dispatch({ type: "conversation.send_text", conversation_id: id, text: "while the server was down" });
    server = await startAppServer({ dataDir: serverDir, port, logger: silentLogger });
    agent = await RawAgent.connect(server.url, credentials.agent_token);
    await agent.serve("demo-agent", "k1");
    await Promise.all([a.whenOnline(), b.whenOnline()]);
    await until(() => agentTexts(receivedB).includes("echo: while the server was down"), 15_000, "B gets the reply to A's offline message");
    await until(() => agentTexts(receivedA).includes("echo: while the server was down"), 15_000, "A too");

    // Nothing was delivered twice, nothing lost, and the user's turns reached the server once each, in order.
    for (const received of [receivedA, receivedB]) {
      const ids = received.map((m) => m.message_id);
      expect(new Set(ids).size).toBe(ids.length);
    }
    const userTexts = receivedB.filter((m) => m.type === "lineup.message" && m.sender.kind === "user").map((m) => (m.payload as { text: string }).text);
    expect(userTexts).toEqual(["hello from A", "hello from B", "while the server was down"]);
    expect(a.appPort("chat").view().queued_actions).toBe(0);
    expect(await a.verifyAudit()).toMatchObject({ ok: true });
    expect(await a.store.integrityCheck()).toBe(true);

    agent.close();
    await a.stop();
    await b.stop();
    await server.close();
  }, 60_000);

  it("knows whether a conversation's agent is connected, while it follows the conversation", async () => {
    const server = await startAppServer({ dataDir: temp("lineup-int-presence-"), port: 0, logger: silentLogger });
    const credentials = server.devCredentials!;
    const device = await createNodeRuntime({ serverUrl: server.url, token: credentials.device_token, dataDir: temp("lineup-int-presence-a-"), backoff: { baseMs: 20, capMs: 200 }, requestTimeoutMs: 3_000 });
    await device.start();
    await device.whenOnline();
    const { conversation_id: id } = await device.conversations.start({ agent_id: "demo-agent", workspace_id: "w-1", title: "Presence" });
    const agentConnected = () => device.appPort("chat").view().conversations.find((c) => c.conversation_id === id)?.agent_connected;
    await until(() => agentConnected() === false, 10_000, "no agent yet");
    const agent = await RawAgent.connect(server.url, credentials.agent_token);
    await until(() => agentConnected() === true, 10_000, "the agent connected");
    agent.close();
    await until(() => agentConnected() === false, 10_000, "the agent gone");
    // Offline, the device does not know: unknown, not "away".
    await server.close();
    await until(() => device.lifecycle.snapshot().status !== "online", 5_000, "the device notices");
    expect(agentConnected()).toBeUndefined();
    await device.stop();
  }, 30_000);

  it("the person stops the agent's turn: the server cancels it, the agent hears turn.cancelled, the chat hears it too", async () => {
    const server = await startAppServer({ dataDir: temp("lineup-int-cancel-"), port: 0, logger: silentLogger });
    const credentials = server.devCredentials!;
    const device = await createNodeRuntime({ serverUrl: server.url, token: credentials.device_token, dataDir: temp("lineup-int-cancel-a-"), backoff: { baseMs: 20, capMs: 200 }, requestTimeoutMs: 3_000 });
    const received: AgentAppMessage[] = [];
    await device.start();
    device.appPort("chat").subscribeMessages({ include_pending: true }, (m) => void received.push(m));
    await device.whenOnline();
    // An agent that takes the turn up and keeps working on it.
    const agent = await RawAgent.connect(server.url, credentials.agent_token);
    const heard: Record<string, unknown>[] = [];
    agent.onEvent((event) => {
      heard.push(event);
      if (event["kind"] !== "turn.started") return;
      const turn = (event["data"] as { turn: { turn_id: string } }).turn;
      void agent.call("agentSession/turn/update", { session_id: event["session_id"], turn_id: turn.turn_id, idempotency_key: `upd-${turn.turn_id}`, status: "working", label: "Thinking hard" }).catch(() => undefined);
    });
    const { conversation_id: id } = await device.conversations.start({ agent_id: "demo-agent", workspace_id: "w-1", title: "Stop" });
    await until(() => device.appPort("chat").view().queued_actions === 0, 10_000, "the conversation started");
    await agent.call("agentSession/subscribe", { session_id: id, after_seq: 0 });
    await device.appPort("chat").dispatch({ type: "conversation.send_text", conversation_id: id, text: "take your time" });
    await until(() => received.some((m) => m.type === "lineup.turn.update"), 10_000, "the agent works on it");
    const turnId = received.find((m) => m.type === "lineup.turn.update")!.turn_id!;

    await device.appPort("chat").cancelTurn(id);
    await until(() => heard.some((e) => e["kind"] === "turn.cancelled"), 10_000, "the agent hears the cancel");
    await until(() => received.some((m) => m.type === "lineup.turn.cancelled" && m.turn_id === turnId), 10_000, "the chat hears it");
    const read = await agent.call<{ open_turns: unknown[] }>("agentSession/read", { session_id: id });
    expect(read.open_turns).toEqual([]);
    // Whatever the agent still sends for the turn is refused; a second Stop has nothing to stop.
    await expect(agent.call("agentSession/turn/complete", { session_id: id, turn_id: turnId, idempotency_key: "late", outcome: "completed", text: "too late" })).rejects.toThrow(/invalid_state/);
    await expect(device.appPort("chat").cancelTurn(id)).rejects.toMatchObject({ code: "invalid_state" });
    expect(device.appPort("chat").view().failed_actions).toEqual([]);
    agent.close();
    await device.stop();
    await server.close();
  }, 30_000);

  it("a burst of texts is pipelined to the server (ordered writes) and lands once each, in order", async () => {
    const server = await startAppServer({ dataDir: temp("lineup-int-burst-"), port: 0, logger: silentLogger });
    const credentials = server.devCredentials!;
    const device = await createNodeRuntime({ serverUrl: server.url, token: credentials.device_token, dataDir: temp("lineup-int-burst-a-"), backoff: { baseMs: 20, capMs: 200 }, requestTimeoutMs: 3_000 });
    const received: AgentAppMessage[] = [];
    await device.start();
    device.appPort("chat").subscribeMessages({ include_pending: true }, (m) => void received.push(m));
    await device.whenOnline();
    const { conversation_id: id } = await device.conversations.start({ agent_id: "demo-agent", workspace_id: "w-1", title: "Burst" });
    await until(() => device.appPort("chat").view().queued_actions === 0, 10_000, "the conversation started on the server");
    const before = server.stats().writes.largestBatch;
    const texts = Array.from({ length: 40 }, (_, i) => `burst ${i}`);
    await Promise.all(texts.map((text) => device.appPort("chat").dispatch({ type: "conversation.send_text", conversation_id: id, text })));
    const userTexts = () => received.filter((m) => m.type === "lineup.message" && m.sender.kind === "user").map((m) => (m.payload as { text: string }).text);
    await until(() => userTexts().length === texts.length, 15_000, "every text back from the server's log");
    expect(userTexts()).toEqual(texts);
    await until(() => device.appPort("chat").view().queued_actions === 0, 10_000, "the outbox empty");
    // One device alone on the server: several of its writes shared a transaction only because they were in flight together.
    expect(server.stats().writes.largestBatch).toBeGreaterThan(Math.max(before, 1));
    await device.stop();
    await server.close();
  }, 30_000);
});

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
    const proxy = await startCuttingProxy(server.url, seededRandom(seed));
    const device = await createNodeRuntime({ serverUrl: proxy.url, token: server.devCredentials!.device_token, dataDir: temp("lineup-chaos-device-"), backoff: { baseMs: 5, capMs: 40 }, requestTimeoutMs: 2_000, relistIntervalMs: 0 });
    // A second device of the same user, straight to the server, reads the log as it is.
    const reader = await createNodeRuntime({ serverUrl: server.url, token: await server.admin.createDevice("chaos-reader", "dev-user"), dataDir: temp("lineup-chaos-reader-"), relistIntervalMs: 50 });
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
