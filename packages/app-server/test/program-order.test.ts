/**
 * Program order per connection (docs/app-server-protocol.md, "Program order"): pipelined requests of
 * one connection take effect in the order they were sent — a later request sees every earlier write
 * of its connection, a read never sees a later one — while independent pipelined writes still share
 * group commits.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { agentEnvelope, connectDevAndAgent, key, START, type TestClient, type Frame, type TestServer } from "./helpers.js";

let server: TestServer;
let device: TestClient;
let agent: TestClient;
connectDevAndAgent((world) => ({ server, device, agent } = world));

const deviceEnvelope = (sessionId: string, id: string) => ({ ...agentEnvelope(sessionId, id), sender: { kind: "user", id: "dev-user" } });
const TEXT = { content: [{ type: "text", text: "hello" }] };

describe("program order on one connection", () => {
  it("pipelined start → subscribe → turn/start → envelope/send all succeed, in order", async () => {
    const s = "s-order-1";
    // Sent back to back, without waiting for any answer.
    const started = device.request("agentSession/start", START(s));
    const subscribed = device.request("agentSession/subscribe", { session_id: s, after_seq: 0 });
    const turn = device.request("agentSession/turn/start", { session_id: s, idempotency_key: key(), input: TEXT });
    const sent = device.request("agentSession/envelope/send", { session_id: s, idempotency_key: key(), envelope: deviceEnvelope(s, "e-order-1") });
    const read = device.request("agentSession/read", { session_id: s });
    const responses = await Promise.all([started, subscribed, turn, sent, read]);
    for (const r of responses) expect(r.error).toBeUndefined();
    const [a, b, c, d, e] = responses.map((r: Frame) => r.result);
    expect(a.created).toBe(true);
    // The subscription registered after the start committed and before the turn was queued.
    expect(b).toEqual({ session_id: s, after_seq: 0, head_seq: 1 });
    expect(c.seq).toBe(2);
    expect(d.seq).toBe(3);
    // A read sees every earlier write of its connection.
    expect(e.session.last_seq).toBe(3);
    expect(e.open_turns.map((t: Frame) => t.turn_id)).toEqual([c.turn.turn_id]);
    await device.waitFor((f) => f.method === "agentSession/event" && f.params.session_id === s && f.params.seq === 3);
    expect(device.events(s).map((ev) => [ev.seq, ev.kind])).toEqual([
      [1, "session.started"],
      [2, "turn.started"],
      [3, "envelope"],
    ]);
  });

  it("a read never sees a later write of its own connection", async () => {
    const s = "s-order-2";
    await device.call("agentSession/start", START(s));
    const sent = device.request("agentSession/envelope/send", { session_id: s, idempotency_key: key(), envelope: deviceEnvelope(s, "e-order-2") });
    const read = device.request("agentSession/read", { session_id: s });
    const turn = device.request("agentSession/turn/start", { session_id: s, idempotency_key: key(), input: TEXT });
    const [, r, t] = await Promise.all([sent, read, turn]);
    expect(r.result.session.last_seq).toBe(2);
    expect(r.result.open_turns).toEqual([]);
    expect(t.result.seq).toBe(3);
  });

  it("a refused write does not stop the ones behind it, and a later request sees only what committed", async () => {
    const s = "s-order-3";
    const first = device.request("agentSession/turn/start", { session_id: s, idempotency_key: key(), input: TEXT });
    const start = device.request("agentSession/start", START(s));
    const second = device.request("agentSession/turn/start", { session_id: s, idempotency_key: key(), input: TEXT });
    const [f, st, sc] = await Promise.all([first, start, second]);
    expect(f.error.data.code).toBe("session_not_found");
    expect(st.result.created).toBe(true);
    expect(sc.result.seq).toBe(2);
  });

  it("independent pipelined writes still share group commits", async () => {
    const s = "s-order-4";
    await device.call("agentSession/start", START(s));
    const before = server.stats().writes.transactions;
    const sends = Array.from({ length: 16 }, (_, i) =>
      device.call("agentSession/envelope/send", { session_id: s, idempotency_key: key(), envelope: deviceEnvelope(s, `e-order-4-${i}`) }),
    );
    const results = await Promise.all(sends);
    expect(results.map((r: Frame) => r.seq)).toEqual(Array.from({ length: 16 }, (_, i) => i + 2));
    // 16 writes of one frame burst: far fewer transactions than writes.
    expect(server.stats().writes.transactions - before).toBeLessThanOrEqual(4);
  });

  it("another connection's agent sees a pipelined session only once it is acknowledged", async () => {
    const s = "s-order-5";
    const started = device.call("agentSession/start", START(s));
    const turn = device.call("agentSession/turn/start", { session_id: s, idempotency_key: key(), input: TEXT });
    await Promise.all([started, turn]);
    const read = await agent.call("agentSession/read", { session_id: s });
    expect(read.session.last_seq).toBe(2);
  });
});

/** The commands of the model test: each is sent pipelined, and judged against a sequential model. */
type Command =
  | { readonly kind: "start"; readonly s: number }
  | { readonly kind: "subscribe"; readonly s: number }
  | { readonly kind: "turn"; readonly s: number }
  | { readonly kind: "envelope"; readonly s: number }
  | { readonly kind: "read"; readonly s: number }
  | { readonly kind: "events"; readonly s: number };

const commandArb: fc.Arbitrary<Command> = fc.record({
  kind: fc.constantFrom("start", "subscribe", "turn", "envelope", "read", "events"),
  s: fc.integer({ min: 0, max: 2 }),
});

let run = 0;

describe("program order: random pipelined sequences against a model", () => {
  it("every answer equals the answer of the same requests sent one at a time", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(commandArb, { minLength: 1, maxLength: 24 }), async (commands) => {
        run++;
        const sid = (i: number) => `s-model-${run}-${i}`;
        // The model: a session's head seq (undefined = not started) and its open turns.
        const head = new Map<number, number>();
        const openTurns = new Map<number, number>();
        const subscribed = new Set<number>();
        let envelopeCount = 0;
        const pending: Array<{ command: Command; response: Promise<Frame> }> = [];
        for (const c of commands) {
          const session_id = sid(c.s);
          let response: Promise<Frame>;
          switch (c.kind) {
            case "start":
              response = device.request("agentSession/start", START(session_id));
              break;
            case "subscribe":
              response = device.request("agentSession/subscribe", { session_id, after_seq: 0 });
              break;
            case "turn":
              response = device.request("agentSession/turn/start", { session_id, idempotency_key: key(), input: TEXT });
              break;
            case "envelope":
              response = device.request("agentSession/envelope/send", { session_id, idempotency_key: key(), envelope: deviceEnvelope(session_id, `e-model-${run}-${++envelopeCount}`) });
              break;
            case "read":
              response = device.request("agentSession/read", { session_id });
              break;
            case "events":
              response = device.request("agentSession/events/read", { session_id, after_seq: 0 });
              break;
          }
          pending.push({ command: c, response });
        }
        for (const { command: c, response } of pending) {
          const r = await response;
          const h = head.get(c.s);
          const label = `${c.kind} ${c.s} in ${JSON.stringify(commands)}`;
          if (c.kind === "start") {
            expect(r.result?.created, label).toBe(h === undefined);
            if (h === undefined) {
              head.set(c.s, 1);
              openTurns.set(c.s, 0);
            }
            continue;
          }
          if (h === undefined) {
            expect(r.error?.data?.code, label).toBe("session_not_found");
            continue;
          }
          switch (c.kind) {
            case "subscribe":
              expect(r.result?.head_seq, label).toBe(h);
              subscribed.add(c.s);
              break;
            case "turn":
            case "envelope":
              expect(r.result?.seq, label).toBe(h + 1);
              head.set(c.s, h + 1);
              if (c.kind === "turn") openTurns.set(c.s, openTurns.get(c.s)! + 1);
              break;
            case "read":
              expect(r.result?.session.last_seq, label).toBe(h);
              expect(r.result?.open_turns.length, label).toBe(openTurns.get(c.s));
              break;
            case "events":
              expect(r.result?.head_seq, label).toBe(h);
              expect(r.result?.events.map((e: Frame) => e.seq), label).toEqual(Array.from({ length: h }, (_, i) => i + 1));
              break;
          }
        }
        // Subscriptions of this run deliver every seq through the head (a second subscribe restarts from 1).
        for (const [s, h] of head) {
          if (!subscribed.has(s)) continue;
          await device.waitFor((f) => f.method === "agentSession/event" && f.params.session_id === sid(s) && f.params.seq === h, 2_000);
          const seqs = [...new Set(device.events(sid(s)).map((e) => e.seq as number))].sort((x, y) => x - y);
          expect(seqs, `events of ${sid(s)}`).toEqual(Array.from({ length: h }, (_, i) => i + 1));
        }
        for (const s of subscribed) await device.call("agentSession/unsubscribe", { session_id: sid(s) });
      }),
      { numRuns: 40 },
    );
  });
});
