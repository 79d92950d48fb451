/**
 * The Runtime against the real reference AppServer on an ephemeral port: two devices of one user, a raw
 * JSON-RPC agent, messages both ways, and the server restarted mid-conversation.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { silentLogger, startAppServer, type AppServerHandle } from "@lineup/app-server";
import type { AgentAppMessage } from "../src/index.js";
import { createNodeRuntime, type NodeRuntime } from "../src/node/index.js";
import { RawAgent } from "./helpers/raw-agent.js";

const dirs: string[] = [];
const temp = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

async function until(predicate: () => boolean, ms = 10_000, what = "condition"): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const agentTexts = (messages: readonly AgentAppMessage[]): string[] =>
  messages.filter((m) => m.type === "lineup.message" && m.sender.kind === "agent").map((m) => (m.payload as { text: string }).text);

describe("Runtime ⇄ reference AppServer", () => {
  it("two devices and an agent: messages both ways, across a server restart", async () => {
    const serverDir = temp("lineup-int-server-");
    let server: AppServerHandle = await startAppServer({ dataDir: serverDir, port: 0, logger: silentLogger });
    const port = Number(new URL(server.url).port);
    const credentials = server.devCredentials!;
    const secondDeviceToken = server.admin.createDevice("dev-device-2", "dev-user");

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
