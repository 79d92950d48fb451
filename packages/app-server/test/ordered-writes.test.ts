/**
 * Ordered writes: `after_key` makes a write wait for an earlier write of the same caller. A write whose
 * predecessor has no stored outcome is refused with `predecessor_pending` (retryable, nothing stored),
 * so a pipelined write can never overtake one that failed and will be sent again. Checked by what a
 * client observes: answers and the session log.
 */
import { describe, expect, it } from "vitest";
import { agentEnvelope, connectDevAndAgent, key, START, TestClient, type Frame, type TestServer } from "./helpers.js";

let server: TestServer;
let device: TestClient;
let agent: TestClient;
connectDevAndAgent((world) => ({ server, device, agent } = world));

async function envelopeIds(sessionId: string): Promise<string[]> {
  const events = (await device.call("agentSession/events/read", { session_id: sessionId, after_seq: 0 })).events as Frame[];
  return events.filter((e) => e.kind === "envelope").map((e) => e.data.envelope.id as string);
}

const send = (sessionId: string, envelopeId: string, idempotencyKey: string, afterKey?: string) => ({
  session_id: sessionId,
  idempotency_key: idempotencyKey,
  ...(afterKey === undefined ? {} : { after_key: afterKey }),
  envelope: agentEnvelope(sessionId, envelopeId),
});

describe("ordered writes (after_key)", () => {
  it("is announced in initialize and capability/list", async () => {
    const fresh = await TestClient.connect(server.url);
    const init = await fresh.call("initialize", { protocol_version: "lineup.app-server.v1", client_info: { name: "test" }, token: server.devCredentials!.device_token });
    expect(init.features).toContain("ordered-writes");
    const capabilities = await fresh.call("capability/list", {});
    expect(capabilities.features.map((f: { name: string }) => f.name)).toEqual(init.features);
    await fresh.close();
  });

  it("a write whose predecessor has no outcome is refused, retryable, with nothing stored; sent again after it, it applies", async () => {
    await device.call("agentSession/start", START("s-ord-1"));
    const first = key("first");
    const second = key("second");
    const early = await agent.request("agentSession/envelope/send", send("s-ord-1", "e-2", second, first));
    expect(early.error).toMatchObject({ code: -32005, data: { code: "predecessor_pending", path: "/after_key" } });
    expect(await envelopeIds("s-ord-1")).toEqual([]);
    await agent.call("agentSession/envelope/send", send("s-ord-1", "e-1", first));
    // The same request again (same key, same predecessor): nothing was stored for it, so it runs now.
    const applied = await agent.call("agentSession/envelope/send", send("s-ord-1", "e-2", second, first));
    expect(applied.envelope_id).toBe("e-2");
    expect(await envelopeIds("s-ord-1")).toEqual(["e-1", "e-2"]);
  });

  it("a pipelined write cannot overtake the one it follows: sent before it in one batch, it is refused and the log keeps the client's order", async () => {
    await device.call("agentSession/start", START("s-ord-2"));
    const a = key("a");
    const b = key("b");
    const reply = agent.waitFor((f) => Array.isArray(f) && f[0]?.id === "b1");
    agent.sendRaw(
      JSON.stringify([
        { jsonrpc: "2.0", id: "b1", method: "agentSession/envelope/send", params: send("s-ord-2", "e-b", b, a) },
        { jsonrpc: "2.0", id: "a1", method: "agentSession/envelope/send", params: send("s-ord-2", "e-a", a) },
      ]),
    );
    const [rb, ra] = (await reply) as Frame[];
    expect(rb.error.data.code).toBe("predecessor_pending");
    expect(ra.result.envelope_id).toBe("e-a");
    await agent.call("agentSession/envelope/send", send("s-ord-2", "e-b", b, a));
    expect(await envelopeIds("s-ord-2")).toEqual(["e-a", "e-b"]);
  });

  it("a write cannot name itself", async () => {
    await device.call("agentSession/start", START("s-ord-7"));
    const self = key("self");
    const refused = await agent.request("agentSession/envelope/send", send("s-ord-7", "e-1", self, self));
    expect(refused.error).toMatchObject({ code: -32602, data: { code: "invalid_params", path: "/after_key" } });
    expect(await envelopeIds("s-ord-7")).toEqual([]);
  });

  it("a stored refusal is an outcome: the write after it applies", async () => {
    await device.call("agentSession/start", START("s-ord-3"));
    await agent.call("agentSession/envelope/send", send("s-ord-3", "e-x", key()));
    const refused = key("dup");
    expect(await agent.refusal("agentSession/envelope/send", send("s-ord-3", "e-x", refused))).toBe("duplicate_message");
    await agent.call("agentSession/envelope/send", send("s-ord-3", "e-y", key(), refused));
    expect(await envelopeIds("s-ord-3")).toEqual(["e-x", "e-y"]);
  });

  it("a refusal that stores nothing leaves its successor refused; sent again without naming it, the successor applies (no conflict)", async () => {
    await device.call("agentSession/start", START("s-ord-4"));
    const invisible = key("invisible");
    expect(await agent.refusal("agentSession/envelope/send", send("s-ord-none", "e-0", invisible))).toBe("session_not_found");
    const next = key("next");
    expect(await agent.refusal("agentSession/envelope/send", send("s-ord-4", "e-1", next, invisible))).toBe("predecessor_pending");
    const applied = await agent.call("agentSession/envelope/send", send("s-ord-4", "e-1", next));
    expect(applied.envelope_id).toBe("e-1");
    expect(await envelopeIds("s-ord-4")).toEqual(["e-1"]);
  });

  it("after_key is not part of the body: an applied write is replayed whatever predecessor a retry names", async () => {
    await device.call("agentSession/start", START("s-ord-5"));
    const first = key("first");
    const second = key("second");
    await agent.call("agentSession/envelope/send", send("s-ord-5", "e-1", first));
    const applied = await agent.call("agentSession/envelope/send", send("s-ord-5", "e-2", second, first));
    expect(await agent.call("agentSession/envelope/send", send("s-ord-5", "e-2", second))).toEqual(applied);
    // Even naming a predecessor that has no outcome: its own outcome is stored, so it is replayed.
    expect(await agent.call("agentSession/envelope/send", send("s-ord-5", "e-2", second, key("never-sent")))).toEqual(applied);
    expect(await envelopeIds("s-ord-5")).toEqual(["e-1", "e-2"]);
  });

  it("predecessors are the caller's own: another principal's key with the same text does not count", async () => {
    await device.call("agentSession/start", START("s-ord-6"));
    const shared = key("shared");
    await device.call("agentSession/turn/start", { session_id: "s-ord-6", idempotency_key: shared, input: { text: "the device's write" } });
    expect(await agent.refusal("agentSession/envelope/send", send("s-ord-6", "e-1", key(), shared))).toBe("predecessor_pending");
    // Every write method takes after_key: the device's own chain works.
    const turn = await device.call("agentSession/turn/start", { session_id: "s-ord-6", idempotency_key: key(), after_key: shared, input: { text: "after it" } });
    expect(turn.turn.state).toBeDefined();
  });
});
