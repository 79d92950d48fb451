/**
 * Backpressure: a bounded send queue per connection. A consumer that stops reading saturates it;
 * its new requests get -32001 `overloaded`; if it stays saturated it is disconnected (4008). Either
 * way nothing is lost: it resumes by seq from the log.
 */
import { afterEach, describe, expect, it } from "vitest";
import { key, scrapeMetrics, START, startTestServer, TestClient, type Frame, type TestServer } from "./helpers.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.dispose();
  server = undefined;
});

const BIG = "x".repeat(60_000);
const LIMITS = { send_queue_limit_frames: 64, send_queue_limit_bytes: 64 * 1024 };

function bigMessage(sessionId: string, id: string): Record<string, unknown> {
  return {
    v: 1,
    id,
    type: "lineup.message",
    timestamp: "2026-08-06T10:00:00.000Z",
    sender: { kind: "agent", id: "demo-agent" },
    target: { kind: "app", app_scope: "chat" },
    scope: { app_scope: "chat", conversation_id: sessionId },
    payload: { format: "text", text: BIG },
  };
}

/** Writes `batches` × 10 events of ~60 KB each, one batch frame at a time. */
async function flood(writer: TestClient, sessionId: string, batches: number, tag: string): Promise<void> {
  for (let b = 0; b < batches; b++) {
    const ids = Array.from({ length: 10 }, (_, i) => `${tag}-${b}-${i}`);
    const reply = writer.waitFor((f) => Array.isArray(f) && f[0]?.id === ids[0], 20_000);
    writer.sendRaw(
      JSON.stringify(ids.map((id) => ({ jsonrpc: "2.0", id, method: "agentSession/envelope/send", params: { session_id: sessionId, idempotency_key: key(id), envelope: bigMessage(sessionId, id) } }))),
    );
    const responses = (await reply) as Frame[];
    for (const r of responses) expect(r.error, JSON.stringify(r.error)).toBeUndefined();
  }
}

const pause = (client: TestClient) => (client.ws as unknown as { _socket: { pause(): void } })._socket.pause();
const resume = (client: TestClient) => (client.ws as unknown as { _socket: { resume(): void } })._socket.resume();

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const seqs = (client: TestClient, sessionId: string) => client.events(sessionId).map((e: Frame) => e.seq as number);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("backpressure", () => {
  it("a saturated connection gets -32001 overloaded, then catches up from the log with nothing skipped", async () => {
    server = await startTestServer({ limits: { ...LIMITS, slow_consumer_timeout_ms: 20_000 } });
    const slow = await TestClient.open(server, server.devCredentials!.device_token);
    const writer = await TestClient.open(server, server.devCredentials!.agent_token);
    await slow.call("agentSession/start", START("s-bp"));
    await slow.call("agentSession/subscribe", { session_id: "s-bp", after_seq: 0 });
    await slow.waitFor((f) => f.method === "agentSession/caughtUp");
    pause(slow);
    const slowStats = () => server!.stats().connections.find((c) => c.principal === "device:dev-device");
    let batches = 0;
    while (slowStats()?.saturated !== true && batches < 40) {
      await flood(writer, "s-bp", 1, `b${batches++}`);
    }
    expect(slowStats()?.saturated).toBe(true);
    const refused = slow.request("agentSession/list");
    const retryKey = key("retry");
    const write = slow.request("agentSession/turn/start", { session_id: "s-bp", idempotency_key: retryKey, input: { text: "while saturated" } });
    await new Promise((r) => setTimeout(r, 100));
    resume(slow);
    expect((await refused).error).toMatchObject({ code: -32001, data: { code: "overloaded", retryable: true } });
    expect((await write).error.data.code).toBe("overloaded");
    expect((await scrapeMetrics(server)).value("lineup_overloaded_total")).toBe(2);
    const final = 1 + batches * 10;
    await slow.waitFor((f) => f.method === "agentSession/event" && f.params.seq === final, 20_000);
    expect(seqs(slow, "s-bp")).toEqual(range(1, final));
    // Not executed while refused, so the same key now runs.
    const retried = await slow.call("agentSession/turn/start", { session_id: "s-bp", idempotency_key: retryKey, input: { text: "while saturated" } });
    expect(retried.seq).toBe(final + 1);
    await slow.close();
    await writer.close();
  });

  it("a consumer that never reads is disconnected, then resumes by seq with nothing lost", async () => {
    server = await startTestServer({ limits: { ...LIMITS, slow_consumer_timeout_ms: 300 } });
    const device = await TestClient.open(server, server.devCredentials!.device_token);
    await device.call("agentSession/start", START("s-slow"));
    const slow = await TestClient.open(server, server.devCredentials!.agent_token);
    await slow.call("agentSession/subscribe", { session_id: "s-slow", after_seq: 0 });
    await slow.waitFor((f) => f.method === "agentSession/caughtUp");
    pause(slow);
    const writer = await TestClient.open(server, server.devCredentials!.agent_token);
    const slowId = server.stats().connections.filter((c) => c.principal === "agent:demo-agent").map((c) => c.id)[0]!;
    let batches = 0;
    const slowStats = () => server!.stats().connections.find((c) => c.id === slowId);
    while (slowStats() !== undefined && slowStats()?.saturated !== true && batches < 60) {
      await flood(writer, "s-slow", 1, `c${batches++}`);
    }
    await until(() => !server!.stats().connections.some((c) => c.id === slowId), 5_000, "the slow consumer to be dropped");
    resume(slow);
    const closed = await slow.closed;
    expect([4008, 1006]).toContain(closed.code);
    expect((await scrapeMetrics(server)).value("lineup_slow_consumers_closed_total")).toBe(1);
    // More writes after the disconnect.
    await flood(writer, "s-slow", 2, "after");
    const final = 1 + (batches + 2) * 10;

    const got = seqs(slow, "s-slow");
    expect(got).toEqual(range(1, got.length));
    const again = await TestClient.open(server, server.devCredentials!.agent_token);
    await again.call("agentSession/subscribe", { session_id: "s-slow", after_seq: got.length });
    await again.waitFor((f) => f.method === "agentSession/event" && f.params.seq === final, 20_000);
    expect([...got, ...seqs(again, "s-slow")]).toEqual(range(1, final));
    await again.close();
    await writer.close();
    await device.close();
  });
});
