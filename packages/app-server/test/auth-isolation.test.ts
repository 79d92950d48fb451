/**
 * RELIABILITY B8: authentication and isolation. No token, a wrong token, a device reading another
 * user's session, an agent writing to a session not bound to it: each is refused with a typed error
 * and writes nothing — no event, no session, not even an idempotency record.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../src/store/database.js";
import { agentEnvelope, key, probeStore, START, startTestServer, TestClient, type TestServer } from "./helpers.js";

let server: TestServer;
let deviceA: TestClient;
let deviceB: TestClient;
let agent1: TestClient;
let agent2: TestClient;
let probe: Store;

/** Rows in the tables a write could touch. */
async function footprint() {
  const count = async (table: string) => Number((await probe.reader.get<{ n: number | string }>(`SELECT count(*) AS n FROM ${table}`))!.n);
  return { events: await count("events"), sessions: await count("sessions"), idempotency: await count("idempotency"), turns: await count("turns"), envelopes: await count("envelopes"), artifacts: await count("artifacts") };
}

beforeAll(async () => {
  server = await startTestServer();
  await server.admin.createUser("user-b");
  const deviceBToken = await server.admin.createDevice("device-b", "user-b");
  const agent2Token = await server.admin.createAgent("agent-2");
  deviceA = await TestClient.open(server, server.devCredentials!.device_token);
  deviceB = await TestClient.open(server, deviceBToken);
  agent1 = await TestClient.open(server, server.devCredentials!.agent_token);
  agent2 = await TestClient.open(server, agent2Token);
  await deviceA.call("agentSession/start", START("s-a"));
  await deviceA.call("agentSession/turn/start", { session_id: "s-a", idempotency_key: key(), turn_id: "t-a", input: { text: "hi" } });
  await deviceB.call("agentSession/start", START("s-b", { agent_id: "agent-2" }));
  probe = await probeStore(server);
});

afterAll(async () => {
  await probe.close();
  for (const c of [deviceA, deviceB, agent1, agent2]) await c.close();
  await server.dispose();
});

describe("authentication", () => {
  it("refuses initialize without a token or with an unknown one, and the connection stays uninitialized", async () => {
    const client = await TestClient.connect(server.url);
    const noToken = await client.request("initialize", { protocol_version: "lineup.app-server.v1", client_info: { name: "t" } });
    expect(noToken.error).toMatchObject({ code: -32002, data: { code: "unauthorized" } });
    const wrong = await client.request("initialize", { protocol_version: "lineup.app-server.v1", client_info: { name: "t" }, token: "not-a-token" });
    expect(wrong.error).toMatchObject({ code: -32002, data: { code: "unauthorized" } });
    expect(await client.refusal("agentSession/read", { session_id: "s-a" })).toBe("not_initialized");
    await client.close();
  });

  it("holds a request sent behind initialize until it is answered, then answers it for the role it set, or not_initialized", async () => {
    const init = (token: string) => ({ protocol_version: "lineup.app-server.v1", client_info: { name: "t" }, token });
    const client = await TestClient.connect(server.url);
    // Both sent before either is answered: the read waits for the handshake, then is answered as the device's.
    const [answered, read] = await Promise.all([client.request("initialize", init(server.devCredentials!.device_token)), client.request("agentSession/read", { session_id: "s-a" })]);
    expect(answered.result).toMatchObject({ role: "device" });
    expect(read.error).toBeUndefined();
    expect(read.result).toMatchObject({ session: { session_id: "s-a" } });
    await client.close();
    // Behind a refused initialize, the same read is refused as before any handshake, and reveals nothing.
    const refused = await TestClient.connect(server.url);
    const [wrong, denied] = await Promise.all([refused.request("initialize", init("not-a-token")), refused.request("agentSession/read", { session_id: "s-a" })]);
    expect(wrong.error).toMatchObject({ data: { code: "unauthorized" } });
    expect(denied.error).toMatchObject({ data: { code: "not_initialized" } });
    await refused.close();
  });

  it("stores tokens only as SHA-256", async () => {
    const rows = await probe.reader.all<{ token_sha256: string }>("SELECT token_sha256 FROM tokens");
    expect(rows.length).toBeGreaterThanOrEqual(4);
    for (const r of rows) expect(r.token_sha256).toMatch(/^[0-9a-f]{64}$/);
    const all = JSON.stringify(await probe.reader.all("SELECT * FROM tokens"));
    expect(all).not.toContain(server.devCredentials!.device_token);
  });
});

describe("a device of another user", () => {
  it("cannot read, list, page or follow the session", async () => {
    expect(await deviceB.refusal("agentSession/read", { session_id: "s-a" })).toBe("session_not_found");
    expect(await deviceB.refusal("agentSession/events/read", { session_id: "s-a", after_seq: 0 })).toBe("session_not_found");
    expect(await deviceB.refusal("agentSession/subscribe", { session_id: "s-a", after_seq: 0 })).toBe("session_not_found");
    expect(await deviceB.refusal("inventory/read", { session_id: "s-a" })).toBe("session_not_found");
    expect(await deviceB.refusal("artifact/read", { session_id: "s-a", artifact_id: "x" })).toBe("session_not_found");
    const listed = await deviceB.call("agentSession/list");
    expect(listed.sessions.map((s: { session_id: string }) => s.session_id)).toEqual(["s-b"]);
  });

  it("cannot write to it, and nothing is written", async () => {
    const before = await footprint();
    expect(await deviceB.refusal("agentSession/turn/start", { session_id: "s-a", idempotency_key: key(), input: { text: "x" } })).toBe("session_not_found");
    expect(await deviceB.refusal("agentSession/turn/cancel", { session_id: "s-a", turn_id: "t-a", idempotency_key: key() })).toBe("session_not_found");
    expect(await deviceB.refusal("inventory/publish", { session_id: "s-a", idempotency_key: key(), revision: 5, tools: [] })).toBe("session_not_found");
    expect(await deviceB.refusal("evidence/export", { session_id: "s-a", idempotency_key: key() })).toBe("session_not_found");
    expect(await deviceB.refusal("agentSession/start", START("s-a"))).toBe("forbidden");
    expect(await footprint()).toEqual(before);
    const turns = await deviceA.call("agentSession/read", { session_id: "s-a" });
    expect(turns.open_turns.map((t: { turn_id: string; state: string }) => [t.turn_id, t.state])).toEqual([["t-a", "running"]]);
  });
});

describe("an agent not bound to the session", () => {
  it("cannot see it", async () => {
    expect(await agent2.refusal("agentSession/read", { session_id: "s-a" })).toBe("session_not_found");
    const listed = await agent2.call("agentSession/list");
    expect(listed.sessions.map((s: { session_id: string }) => s.session_id)).toEqual(["s-b"]);
    const listed1 = await agent1.call("agentSession/list");
    expect(listed1.sessions.map((s: { session_id: string }) => s.session_id)).toEqual(["s-a"]);
  });

  it("cannot write to it, and nothing is written", async () => {
    const before = await footprint();
    expect(await agent2.refusal("agentSession/envelope/send", { session_id: "s-a", idempotency_key: key(), envelope: agentEnvelope("s-a", "e-x", "agent-2") })).toBe("session_not_found");
    expect(await agent2.refusal("agentSession/turn/update", { session_id: "s-a", turn_id: "t-a", idempotency_key: key(), text_delta: "x" })).toBe("session_not_found");
    expect(await agent2.refusal("agentSession/turn/complete", { session_id: "s-a", turn_id: "t-a", idempotency_key: key(), outcome: "completed" })).toBe("session_not_found");
    expect(await agent2.refusal("agentSession/action/request", { session_id: "s-a", idempotency_key: key(), kind: "approval", prompt: "ok?" })).toBe("session_not_found");
    expect(await agent2.refusal("artifact/put", { session_id: "s-a", idempotency_key: key(), artifact_id: "a", name: "a", mime_type: "text/plain", size: 1, sha256: "0".repeat(64), offset: 0, data: "YQ==" })).toBe(
      "session_not_found",
    );
    expect(await footprint()).toEqual(before);
  });

  it("the bound agent cannot speak as another agent", async () => {
    const before = await footprint();
    expect(await agent1.refusal("agentSession/envelope/send", { session_id: "s-a", idempotency_key: key(), envelope: agentEnvelope("s-a", "e-y", "agent-2") })).toBe("sender_not_allowed");
    expect(await footprint()).toEqual(before);
    const ok = await agent1.call("agentSession/envelope/send", { session_id: "s-a", idempotency_key: key(), envelope: agentEnvelope("s-a", "e-y") });
    expect(ok.envelope_id).toBe("e-y");
  });
});

describe("roles", () => {
  it("a method of the other face does not exist for the caller", async () => {
    expect(await agent1.refusal("agentSession/start", START("s-z"))).toBe("method_not_found");
    expect(await agent1.refusal("inventory/publish", { session_id: "s-a", idempotency_key: key(), revision: 1, tools: [] })).toBe("method_not_found");
    expect(await deviceA.refusal("agentSession/turn/complete", { session_id: "s-a", turn_id: "t-a", idempotency_key: key(), outcome: "completed" })).toBe("method_not_found");
    expect(await deviceA.refusal("agentSession/action/request", { session_id: "s-a", idempotency_key: key(), kind: "approval", prompt: "x" })).toBe("method_not_found");
  });

  it("a device cannot put an agent-sent envelope in the log", async () => {
    expect(await deviceA.refusal("agentSession/envelope/send", { session_id: "s-a", idempotency_key: key(), envelope: agentEnvelope("s-a", "e-z") })).toBe("sender_not_allowed");
  });

  it("fan-out reaches only connections allowed to see the session", async () => {
    await deviceB.call("agentSession/subscribe", { session_id: "s-b", after_seq: 0 });
    await agent1.call("agentSession/subscribe", { session_id: "s-a", after_seq: 0 });
    const { seq } = await agent1.call("agentSession/envelope/send", { session_id: "s-a", idempotency_key: key(), envelope: agentEnvelope("s-a", "e-fan") });
    await agent1.waitFor((f) => f.method === "agentSession/event" && f.params.seq === seq);
    await deviceB.call("agentSession/list");
    expect(deviceB.frames.some((f) => f.method === "agentSession/event" && f.params.session_id === "s-a")).toBe(false);
    expect(agent2.frames.some((f) => f.method === "agentSession/event")).toBe(false);
  });
});
