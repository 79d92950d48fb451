/**
 * Resume by seq: subscribers join at random cursors while several writers commit concurrently;
 * each must receive exactly after_seq+1 … head, in order, with one caughtUp at its head_seq, no gap
 * and no duplicate at the stored → live seam. A subscriber that drops and resumes from its last seq
 * ends with the same exact sequence.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentEnvelope, key, START, startTestServer, TestClient, type Frame, type TestServer } from "./helpers.js";
import { range, seamStream as stream, subscribeAtHeadRounds } from "./support/seam.js";

let server: TestServer;

beforeAll(async () => {
  // Small pages force the catch-up to interleave with live commits.
  server = await startTestServer({ limits: { max_page_events: 7 } });
});
afterAll(async () => server.dispose());

async function writer(client: TestClient, sessionId: string, name: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await client.call("agentSession/envelope/send", { session_id: sessionId, idempotency_key: key(name), envelope: agentEnvelope(sessionId, `${name}-${i}`) });
  }
}

describe("resume", () => {
  it("subscribers joining at random cursors during concurrent writes see every seq once, in order, with the seam marked", async () => {
    const device = await TestClient.open(server, server.devCredentials!.device_token);
    await device.call("agentSession/start", START("s-resume"));
    const writers = await Promise.all([1, 2, 3].map(() => TestClient.open(server, server.devCredentials!.agent_token)));
    const writing = Promise.all(writers.map((w, i) => writer(w, "s-resume", `w${i}`, 120)));

    const subscribers: Array<{ client: TestClient; after: number; head: number }> = [];
    for (let round = 0; round < 8; round++) {
      await new Promise((r) => setTimeout(r, 15));
      const head = (await device.call("agentSession/read", { session_id: "s-resume" })).session.last_seq as number;
      const after = Math.floor(Math.random() * (head + 1));
      const client = await TestClient.open(server, round % 2 === 0 ? server.devCredentials!.agent_token : server.devCredentials!.device_token);
      const result = await client.call("agentSession/subscribe", { session_id: "s-resume", after_seq: after });
      expect(result.after_seq).toBe(after);
      expect(result.head_seq).toBeGreaterThanOrEqual(head);
      subscribers.push({ client, after, head: result.head_seq });
    }
    await writing;
    const final = (await device.call("agentSession/read", { session_id: "s-resume" })).session.last_seq as number;
    expect(final).toBe(1 + 3 * 120);

    const stored: Frame[] = [];
    for (let more = true; more; ) {
      const page = await device.call("agentSession/events/read", { session_id: "s-resume", after_seq: stored.length });
      stored.push(...page.events);
      more = page.has_more;
    }
    expect(stored.map((e) => e.seq)).toEqual(range(1, final));
    for (const { client, after, head } of subscribers) {
      await client.waitFor((f) => f.method === "agentSession/event" && f.params.session_id === "s-resume" && f.params.seq === final, 15_000);
      const seen = stream(client, "s-resume");
      const expected: Array<number | string> = range(after + 1, final);
      expected.splice(head - after, 0, `caughtUp:${head}`);
      expect(seen).toEqual(expected);
      // The pushed events are the stored ones, byte for byte.
      expect(client.events("s-resume")).toEqual(stored.slice(after));
      await client.close();
    }
    for (const w of writers) await w.close();
    await device.close();
  });

  it("subscribers joining at the head hear caughtUp before the events committed while they subscribe", async () => {
    await subscribeAtHeadRounds({ writeTo: server, followOn: server, rounds: 12, seed: 0x5ea3, prefix: "s-seam" });
  }, 60_000);

  it("a subscriber that drops mid-stream resumes from its last seq with nothing lost or repeated", async () => {
    const device = await TestClient.open(server, server.devCredentials!.device_token);
    await device.call("agentSession/start", START("s-drop"));
    const w = await TestClient.open(server, server.devCredentials!.agent_token);
    await writer(w, "s-drop", "pre", 40);
    const writing = writer(w, "s-drop", "live", 80);

    const first = await TestClient.open(server, server.devCredentials!.agent_token);
    await first.call("agentSession/subscribe", { session_id: "s-drop", after_seq: 0 });
    await first.waitFor((f) => f.method === "agentSession/event" && f.params.seq >= 30);
    await first.close();
    const got1 = first.events("s-drop").map((e: Frame) => e.seq as number);
    const last = got1[got1.length - 1]!;

    const second = await TestClient.open(server, server.devCredentials!.agent_token);
    await second.call("agentSession/subscribe", { session_id: "s-drop", after_seq: last });
    await writing;
    const final = 1 + 40 + 80;
    await second.waitFor((f) => f.method === "agentSession/event" && f.params.seq === final, 15_000);
    const got2 = second.events("s-drop").map((e: Frame) => e.seq as number);
    expect([...got1, ...got2]).toEqual(range(1, final));
    await second.close();
    await w.close();
    await device.close();
  });

  it("refuses a cursor beyond the head; after_seq = head gives caughtUp at once; unsubscribe stops the stream", async () => {
    const device = await TestClient.open(server, server.devCredentials!.device_token);
    await device.call("agentSession/start", START("s-edge"));
    expect(await device.refusal("agentSession/subscribe", { session_id: "s-edge", after_seq: 2 })).toBe("cursor_invalid");
    expect(await device.refusal("agentSession/events/read", { session_id: "s-edge", after_seq: 5 })).toBe("cursor_invalid");
    const result = await device.call("agentSession/subscribe", { session_id: "s-edge", after_seq: 1 });
    expect(result.head_seq).toBe(1);
    await device.waitFor((f) => f.method === "agentSession/caughtUp" && f.params.session_id === "s-edge");
    expect(stream(device, "s-edge")).toEqual(["caughtUp:1"]);
    expect((await device.call("agentSession/unsubscribe", { session_id: "s-edge" })).was_subscribed).toBe(true);
    await device.call("agentSession/turn/start", { session_id: "s-edge", idempotency_key: key(), input: { text: "x" } });
    await device.call("agentSession/list");
    expect(stream(device, "s-edge")).toEqual(["caughtUp:1"]);
    // Paged reads walk the whole log.
    const page = await device.call("agentSession/events/read", { session_id: "s-edge", after_seq: 0, limit: 1 });
    expect(page).toMatchObject({ head_seq: 2, has_more: true });
    expect(page.events.map((e: Frame) => e.seq)).toEqual([1]);
    await device.close();
  });
});
