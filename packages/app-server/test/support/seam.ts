/**
 * The stored → live seam under a race: subscribers join a session at its head while appends commit.
 * Shared by the one-server test (resume.test.ts, both stores) and the two-server one
 * (multi-process-seam.test.ts, PostgreSQL).
 */
import { expect } from "vitest";
import { seededRandom } from "../../../../test/support/seeded-random.js";
import { agentEnvelope, key, START, TestClient, type Frame, type TestServer } from "../helpers.js";

/** from … to, inclusive (empty when to < from). */
export const range = (from: number, to: number): number[] => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);

/** Notifications of one session for one connection, as (seq | "caughtUp:<seq>") in arrival order. */
export function seamStream(client: TestClient, sessionId: string): Array<number | string> {
  return client.frames
    .filter((f) => (f.method === "agentSession/event" || f.method === "agentSession/caughtUp") && f.params.session_id === sessionId)
    .map((f: Frame) => (f.method === "agentSession/event" ? f.params.seq : `caughtUp:${f.params.seq}`));
}

/**
 * `rounds` rounds, each on a new session started through `writeTo` (head 1): one to three appends
 * there, and six subscribers on `followOn` subscribing at after_seq 1 at seeded moments within 60 ms
 * of them, so some subscribe reads the head before an append commits and starts sending after. Each
 * subscriber must see 2 … final once, in order, with `caughtUp` at the head its subscribe answered —
 * never after a later event. Reads kept in flight on `followOn` queue its store queries behind them,
 * which widens the time between a subscription's read of the head and its first pass over the log.
 */
export async function subscribeAtHeadRounds(options: { readonly writeTo: TestServer; readonly followOn: TestServer; readonly rounds: number; readonly seed: number; readonly prefix: string }): Promise<void> {
  const { writeTo, followOn } = options;
  const random = seededRandom(options.seed);
  const credentials = writeTo.devCredentials!;
  const device = await TestClient.open(writeTo, credentials.device_token);
  const writer = await TestClient.open(writeTo, credentials.agent_token);
  const subscribers = await Promise.all(range(1, 6).map(() => TestClient.open(followOn, credentials.device_token)));
  const reader = await TestClient.open(followOn, credentials.device_token);
  let reading = true;
  const crowd = (async () => {
    while (reading) await Promise.all(range(1, 64).map(() => reader.call("agentSession/list")));
  })();
  try {
    for (let round = 0; round < options.rounds; round++) {
      const sessionId = `${options.prefix}-${round}`;
      await device.call("agentSession/start", START(sessionId));
      const appends = 1 + Math.floor(random() * 3);
      const appending = Promise.all(
        range(1, appends).map((i) => writer.call("agentSession/envelope/send", { session_id: sessionId, idempotency_key: key("seam"), envelope: agentEnvelope(sessionId, `r${round}-${i}`) })),
      );
      const subscribing = subscribers.map(async (sub) => {
        await new Promise((r) => setTimeout(r, Math.floor(random() * 60)));
        return sub.call("agentSession/subscribe", { session_id: sessionId, after_seq: 1 });
      });
      await appending;
      const final = 1 + appends;
      for (const [i, sub] of subscribers.entries()) {
        const result = await subscribing[i]!;
        await sub.waitFor((f) => f.method === "agentSession/event" && f.params.session_id === sessionId && f.params.seq === final, 15_000);
        const expected: Array<number | string> = range(2, final);
        expected.splice(result.head_seq - 1, 0, `caughtUp:${result.head_seq}`);
        expect({ round, subscriber: i, seen: seamStream(sub, sessionId) }).toEqual({ round, subscriber: i, seen: expected });
      }
    }
  } finally {
    reading = false;
    await crowd.catch(() => undefined);
    for (const c of [...subscribers, reader, writer, device]) await c.close();
  }
}
