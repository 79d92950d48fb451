/**
 * `agentSession/bound`: an agent (every connection of it) and the owner's other devices learn about a
 * new session without polling; nobody else does; it follows the commit and is not repeated for a
 * resume or a replay.
 */
import { decodeServerNotification } from "@lineup/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { key, START, startTestServer, TestClient, type Frame, type TestServer } from "./helpers.js";

let server: TestServer;
let starter: TestClient;
let sibling: TestClient;
let stranger: TestClient;
let agent1: TestClient;
let agent2: TestClient;
let otherAgent: TestClient;

const isBound = (sessionId: string) => (f: Frame) => f.method === "agentSession/bound" && f.params?.session?.session_id === sessionId;
const boundFrames = (client: TestClient) => client.frames.filter((f) => f.method === "agentSession/bound");

beforeAll(async () => {
  server = await startTestServer();
  const creds = server.devCredentials!;
  const siblingToken = await server.admin.createDevice("dev-tablet", "dev-user");
  await server.admin.createUser("other-user");
  const strangerToken = await server.admin.createDevice("other-phone", "other-user");
  const otherAgentToken = await server.admin.createAgent("other-agent");
  [starter, sibling, stranger, agent1, agent2, otherAgent] = await Promise.all([
    TestClient.open(server, creds.device_token),
    TestClient.open(server, siblingToken),
    TestClient.open(server, strangerToken),
    TestClient.open(server, creds.agent_token),
    TestClient.open(server, creds.agent_token),
    TestClient.open(server, otherAgentToken),
  ]);
});
afterAll(async () => {
  for (const c of [starter, sibling, stranger, agent1, agent2, otherAgent]) await c.close();
  await server.dispose();
});

describe("agentSession/bound", () => {
  it("is announced as a feature, with program order", async () => {
    const names = (await agent1.call("capability/list", {})).features.map((f: Frame) => f.name);
    expect(names).toEqual(expect.arrayContaining(["sessions.bound", "program-order"]));
  });

  it("reaches every connection of the bound agent and the user's other devices, after the commit", async () => {
    const started = await starter.call("agentSession/start", START("s-bound-1", { title: "Plans" }));
    const [a1, a2, sib] = await Promise.all([agent1.waitFor(isBound("s-bound-1")), agent2.waitFor(isBound("s-bound-1")), sibling.waitFor(isBound("s-bound-1"))]);
    for (const frame of [a1, a2, sib]) {
      expect(frame.params).toEqual({ session: started.session });
      expect(frame.id).toBeUndefined();
      // The frame is a valid server notification by the catalogue.
      expect(decodeServerNotification(JSON.stringify(frame))).toMatchObject({ ok: true });
    }
    expect(started.session).toMatchObject({ session_id: "s-bound-1", agent_id: "demo-agent", last_seq: 1, title: "Plans" });
    // What the hint names is committed: the agent can read it at once.
    expect((await agent1.call("agentSession/read", { session_id: "s-bound-1" })).session.session_id).toBe("s-bound-1");
  });

  it("is not sent to the starting connection, another user, or another agent", async () => {
    await starter.call("agentSession/start", START("s-bound-2"));
    await agent1.waitFor(isBound("s-bound-2"));
    await sibling.waitFor(isBound("s-bound-2"));
    // A later frame on each connection proves the earlier hint would already have arrived.
    await Promise.all([starter, stranger, otherAgent].map((c) => c.call("agentSession/list", { limit: 1 })));
    for (const c of [starter, stranger, otherAgent]) expect(boundFrames(c).filter(isBound("s-bound-2"))).toEqual([]);
  });

  it("is sent once per new session: not for a resume, an idempotent replay or a refused start", async () => {
    const params = START("s-bound-3");
    await starter.call("agentSession/start", params);
    await agent1.waitFor(isBound("s-bound-3"));
    await starter.call("agentSession/start", params); // replay of the same key
    await starter.call("agentSession/start", START("s-bound-3")); // resume with a new key: created false
    expect(await starter.refusal("agentSession/start", START("s-bound-4", { agent_id: "nobody" }))).toBe("not_found");
    await agent1.call("agentSession/list", { limit: 1 });
    await sibling.call("agentSession/list", { limit: 1 });
    expect(boundFrames(agent1).filter(isBound("s-bound-3"))).toHaveLength(1);
    expect(boundFrames(sibling).filter(isBound("s-bound-3"))).toHaveLength(1);
    expect(boundFrames(agent1).filter(isBound("s-bound-4"))).toEqual([]);
  });

  it("tells a session bound to another agent only to that agent", async () => {
    await starter.call("agentSession/start", { ...START("s-bound-5"), agent_id: "other-agent" });
    await otherAgent.waitFor(isBound("s-bound-5"));
    await agent1.call("agentSession/list", { limit: 1 });
    expect(boundFrames(agent1).filter(isBound("s-bound-5"))).toEqual([]);
  });

  it("is a hint: a connection opened later learns of the session from agentSession/list", async () => {
    await starter.call("agentSession/start", { ...START("s-bound-6"), idempotency_key: key() });
    const late = await TestClient.open(server, server.devCredentials!.agent_token);
    try {
      const listed = await late.call("agentSession/list", { limit: 200 });
      expect(listed.sessions.map((s: Frame) => s.session_id)).toContain("s-bound-6");
      expect(boundFrames(late)).toEqual([]);
    } finally {
      await late.close();
    }
  });
});
