/**
 * RELIABILITY R3: the idempotency contract. Same key + same body → the first outcome (a stored
 * failure too); same key + different body → idempotency_conflict; concurrent duplicates → one
 * execution. Checked by what a client observes: results and the session log.
 */
import { describe, expect, it } from "vitest";
import { agentEnvelope, connectDevAndAgent, key, START, TestClient, type Frame, type TestServer } from "./helpers.js";

let server: TestServer;
let device: TestClient;
let agent: TestClient;
connectDevAndAgent((world) => ({ server, device, agent } = world));

async function log(sessionId: string): Promise<Frame[]> {
  return (await device.call("agentSession/events/read", { session_id: sessionId, after_seq: 0 })).events;
}

describe("idempotency", () => {
  it("same key, same body: the first result, executed once", async () => {
    const start = START("s-idem-1");
    const first = await device.call("agentSession/start", start);
    const again = await device.call("agentSession/start", start);
    expect(again).toEqual(first);
    const turn = { session_id: "s-idem-1", idempotency_key: key(), input: { text: "once" } };
    const t1 = await device.call("agentSession/turn/start", turn);
    const t2 = await device.call("agentSession/turn/start", turn);
    expect(t2).toEqual(t1);
    expect((await log("s-idem-1")).map((e) => e.kind)).toEqual(["session.started", "turn.started"]);
  });

  it("a stored failure is replayed even after the state would now allow the write", async () => {
    await device.call("agentSession/start", START("s-idem-2"));
    const cancel = { session_id: "s-idem-2", turn_id: "t-later", idempotency_key: key("cancel") };
    expect(await device.refusal("agentSession/turn/cancel", cancel)).toBe("not_found");
    await device.call("agentSession/turn/start", { session_id: "s-idem-2", turn_id: "t-later", idempotency_key: key(), input: { text: "now it exists" } });
    const replay = await device.request("agentSession/turn/cancel", cancel);
    expect(replay.error).toMatchObject({ code: -32004, data: { code: "not_found", path: "/turn_id" } });
    expect((await log("s-idem-2")).map((e) => e.kind)).toEqual(["session.started", "turn.started"]);
    // A new key executes against the new state.
    const fresh = await device.call("agentSession/turn/cancel", { ...cancel, idempotency_key: key("cancel") });
    expect(fresh.turn.state).toBe("cancelled");
  });

  it("same key, different body: idempotency_conflict, nothing written", async () => {
    await device.call("agentSession/start", START("s-idem-3"));
    const k = key("env");
    await agent.call("agentSession/envelope/send", { session_id: "s-idem-3", idempotency_key: k, envelope: agentEnvelope("s-idem-3", "e-1") });
    const conflict = await agent.request("agentSession/envelope/send", { session_id: "s-idem-3", idempotency_key: k, envelope: agentEnvelope("s-idem-3", "e-2") });
    expect(conflict.error).toMatchObject({ code: -32005, data: { code: "idempotency_conflict" } });
    // The same key on another method is a different body too.
    expect(await agent.refusal("agentSession/turn/update", { session_id: "s-idem-3", turn_id: "t", idempotency_key: k, text_delta: "x" })).toBe("idempotency_conflict");
    expect((await log("s-idem-3")).length).toBe(2);
  });

  it("keys are scoped to the principal", async () => {
    await device.call("agentSession/start", START("s-idem-4"));
    const k = key("shared");
    const byAgent = await agent.call("agentSession/envelope/send", { session_id: "s-idem-4", idempotency_key: k, envelope: agentEnvelope("s-idem-4", "e-a") });
    const turn = await device.call("agentSession/turn/start", { session_id: "s-idem-4", idempotency_key: k, input: { text: "x" } });
    expect(turn.seq).toBe(byAgent.seq + 1);
  });

  it("concurrent duplicates execute once: a batch of the same write, and the same write on two connections", async () => {
    await device.call("agentSession/start", START("s-idem-5"));
    const k = key("dup");
    const params = { session_id: "s-idem-5", idempotency_key: k, envelope: agentEnvelope("s-idem-5", "e-dup") };
    const second = await TestClient.open(server, server.devCredentials!.agent_token);
    const batchReply = agent.waitFor((f) => Array.isArray(f) && f[0]?.id === "d1");
    agent.sendRaw(JSON.stringify(["d1", "d2", "d3"].map((id) => ({ jsonrpc: "2.0", id, method: "agentSession/envelope/send", params }))));
    const [fromBatch, fromOther] = await Promise.all([batchReply, second.call("agentSession/envelope/send", params)]);
    const results = [...(fromBatch as Frame[]).map((r) => r.result), fromOther];
    for (const r of results) expect(r).toEqual(results[0]);
    const envelopes = (await log("s-idem-5")).filter((e) => e.kind === "envelope");
    expect(envelopes.map((e) => e.data.envelope.id)).toEqual(["e-dup"]);
    await second.close();
  });

  it("a concurrent duplicate with a different body conflicts while the first is in flight", async () => {
    await device.call("agentSession/start", START("s-idem-6"));
    const k = key("race");
    const reply = agent.waitFor((f) => Array.isArray(f) && f[0]?.id === "r1");
    agent.sendRaw(
      JSON.stringify([
        { jsonrpc: "2.0", id: "r1", method: "agentSession/envelope/send", params: { session_id: "s-idem-6", idempotency_key: k, envelope: agentEnvelope("s-idem-6", "e-r1") } },
        { jsonrpc: "2.0", id: "r2", method: "agentSession/envelope/send", params: { session_id: "s-idem-6", idempotency_key: k, envelope: agentEnvelope("s-idem-6", "e-r2") } },
      ]),
    );
    const [r1, r2] = (await reply) as Frame[];
    expect(r1.result.envelope_id).toBe("e-r1");
    expect(r2.error.data.code).toBe("idempotency_conflict");
    expect((await log("s-idem-6")).filter((e) => e.kind === "envelope").length).toBe(1);
  });

  it("an envelope id enters a log once, whatever the key (the refusal is replayed for its key)", async () => {
    await device.call("agentSession/start", START("s-idem-7"));
    await agent.call("agentSession/envelope/send", { session_id: "s-idem-7", idempotency_key: key(), envelope: agentEnvelope("s-idem-7", "e-same") });
    const dupKey = key();
    expect(await agent.refusal("agentSession/envelope/send", { session_id: "s-idem-7", idempotency_key: dupKey, envelope: agentEnvelope("s-idem-7", "e-same") })).toBe("duplicate_message");
    expect(await agent.refusal("agentSession/envelope/send", { session_id: "s-idem-7", idempotency_key: dupKey, envelope: agentEnvelope("s-idem-7", "e-same") })).toBe("duplicate_message");
  });

  it("group commit: many writes in flight share transactions", async () => {
    await device.call("agentSession/start", START("s-idem-8"));
    const before = server.stats().writes;
    await Promise.all(
      Array.from({ length: 60 }, (_, i) => agent.call("agentSession/envelope/send", { session_id: "s-idem-8", idempotency_key: key(), envelope: agentEnvelope("s-idem-8", `g-${i}`) })),
    );
    const after = server.stats().writes;
    expect(after.writes - before.writes).toBe(60);
    expect(after.transactions - before.transactions).toBeLessThan(60);
    const seqs = (await log("s-idem-8")).map((e) => e.seq);
    expect(seqs).toEqual(Array.from({ length: 61 }, (_, i) => i + 1));
  });
});
