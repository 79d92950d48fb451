/**
 * `agentSession/presence`: a device following a session hears whether the session's bound agent is
 * connected — when its subscription starts, and when the agent's first connection opens or its last one
 * closes. Agents and devices not following the session hear nothing of it.
 */
import { decodeServerNotification } from "@lineup/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { START, startTestServer, TestClient, type Frame, type TestServer } from "./helpers.js";

let server: TestServer;
let device: TestClient;
let bystander: TestClient;

const presence = (client: TestClient, sessionId: string) => client.frames.filter((f: Frame) => f.method === "agentSession/presence" && f.params?.session_id === sessionId).map((f: Frame) => f.params);
const isPresence = (sessionId: string, connected: boolean) => (f: Frame) => f.method === "agentSession/presence" && f.params?.session_id === sessionId && f.params?.connected === connected;

beforeAll(async () => {
  server = await startTestServer();
  [device, bystander] = await Promise.all([TestClient.open(server, server.devCredentials!.device_token), TestClient.open(server, server.devCredentials!.device_token)]);
  await device.call("agentSession/start", START("s-presence"));
});
afterAll(async () => {
  for (const c of [device, bystander]) await c.close();
  await server.dispose();
});

describe("agentSession/presence", () => {
  it("is announced as a feature", async () => {
    const names = (await device.call("capability/list", {})).features.map((f: Frame) => f.name);
    expect(names).toContain("agent.presence");
  });

  it("tells a device's subscription whether the agent is connected: at the start, then on each change, once", async () => {
    await device.call("agentSession/subscribe", { session_id: "s-presence", after_seq: 0 });
    const first = await device.waitFor(isPresence("s-presence", false));
    expect(first.params).toEqual({ session_id: "s-presence", agent_id: "demo-agent", connected: false });
    expect(decodeServerNotification(JSON.stringify(first))).toMatchObject({ ok: true });

    // The agent's first connection: connected. A second one changes nothing.
    const agent = await TestClient.open(server, server.devCredentials!.agent_token);
    await device.waitFor(isPresence("s-presence", true));
    const second = await TestClient.open(server, server.devCredentials!.agent_token);
    // The agent follows the session too: it hears no presence (it is the agent).
    await agent.call("agentSession/subscribe", { session_id: "s-presence", after_seq: 0 });
    await agent.waitFor((f: Frame) => f.method === "agentSession/caughtUp");

    // Closing one of two connections changes nothing; closing the last: not connected.
    await second.close();
    await device.call("agentSession/list", { limit: 1 });
    expect(presence(device, "s-presence").map((p) => p.connected)).toEqual([false, true]);
    await agent.close();
    await device.waitFor((f: Frame) => presence(device, "s-presence").length === 3 && f.method === "agentSession/presence");
    expect(presence(device, "s-presence").map((p) => p.connected)).toEqual([false, true, false]);
    expect(agent.frames.filter((f: Frame) => f.method === "agentSession/presence")).toEqual([]);
  });

  it("reaches only the devices following the session", async () => {
    // The bystander (same user, not subscribed) hears nothing of it.
    const agent = await TestClient.open(server, server.devCredentials!.agent_token);
    await device.waitFor((f: Frame) => presence(device, "s-presence").length === 4 && f.method === "agentSession/presence");
    await bystander.call("agentSession/list", { limit: 1 });
    expect(bystander.frames.filter((f: Frame) => f.method === "agentSession/presence")).toEqual([]);

    // A new subscription starts with how things are now.
    await bystander.call("agentSession/subscribe", { session_id: "s-presence", after_seq: 0 });
    const now = await bystander.waitFor(isPresence("s-presence", true));
    expect(now.params).toEqual({ session_id: "s-presence", agent_id: "demo-agent", connected: true });
    await agent.close();
  });
});
