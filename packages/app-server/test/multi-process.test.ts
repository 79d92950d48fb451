/**
 * RELIABILITY PG1: two AppServer processes on one PostgreSQL database. Agents write to the same two
 * sessions through both processes at once; devices follow the sessions on both. Any client on any
 * process sees one gapless log per session; a session started on one process is announced
 * (`agentSession/bound`) on the other; an agent's presence is known on the process it is not
 * connected to; process A is killed with SIGKILL mid-stream, and its clients resume on process B:
 * nothing acknowledged is lost, retries apply once, the followers' logs have no gap and no repeat.
 * (PostgreSQL only: the `app-server-postgres` test project.)
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../src/store/database.js";
import { createAgent } from "../src/store/principals.js";
import { agentEnvelope, exited, freshDatabase, START, startServerProcess, stopServerProcesses, tempDir, TestClient, type Frame } from "./helpers.js";

const dirA = tempDir("lineup-pg1-a-");
const dirB = tempDir("lineup-pg1-b-");

afterAll(() => {
  stopServerProcesses();
  dirA.remove();
  dirB.remove();
});

interface Attempt {
  readonly key: string;
  readonly sessionId: string;
  readonly envelopeId: string;
  acked?: number;
}

const SESSIONS = ["s-pg1-1", "s-pg1-2"];
const presenceOf = (client: TestClient, sessionId: string) =>
  client.frames.filter((f) => f.method === "agentSession/presence" && f.params.session_id === sessionId).map((f) => f.params.connected as boolean);

/** Writes envelopes round-robin over the sessions, up to 4 in flight, until `stop()` or the connection fails. */
function writer(client: TestClient, name: string, attempts: Attempt[]) {
  let stopped = false;
  const done = (async () => {
    const inFlight = new Set<Promise<void>>();
    for (let i = 0; !stopped; i++) {
      const sessionId = SESSIONS[i % SESSIONS.length]!;
      const attempt: Attempt = { key: `k-${name}-${i}`, sessionId, envelopeId: `e-${name}-${i}` };
      attempts.push(attempt);
      const p = client
        .call("agentSession/envelope/send", { session_id: sessionId, idempotency_key: attempt.key, envelope: agentEnvelope(sessionId, attempt.envelopeId, "writer") }, 10_000)
        .then((r: Frame) => void (attempt.acked = r.seq as number))
        // A call that failed on a live connection (a timeout or a refusal on a loaded machine) stays unacknowledged
        // and is sent again with its key at the end, as the killed process's are; only a lost connection stops the writer.
        .catch(() => void (stopped ||= client.ws.readyState !== client.ws.OPEN));
      inFlight.add(p);
      void p.then(() => inFlight.delete(p));
      if (inFlight.size >= 4) await Promise.race(inFlight);
    }
    await Promise.allSettled(inFlight);
  })();
  return { done, stop: () => void (stopped = true) };
}

describe("two AppServer processes on one PostgreSQL database", () => {
  it("one gapless log per session across processes, presence across processes, and kill -9 of one loses nothing acknowledged", async () => {
    const db = (await freshDatabase())!;
    const a = await startServerProcess({ dataDir: dirA.path, db });
    const b = await startServerProcess({ dataDir: dirB.path, db });
    // B found the users A provisioned: only A wrote dev credentials.
    const creds = JSON.parse(readFileSync(join(dirA.path, "dev-credentials.json"), "utf8")) as { device_token: string; agent_token: string };
    const probe = await openStore({ dataDir: dirB.path, db });
    const writerToken = await createAgent(probe.writer, "writer");

    const deviceA = await TestClient.open({ url: a.url }, creds.device_token);
    const deviceB = await TestClient.open({ url: b.url }, creds.device_token);
    const writerOnB = await TestClient.open({ url: b.url }, writerToken);
    for (const id of SESSIONS) await deviceA.call("agentSession/start", START(id, { agent_id: "writer" }));
    // Sessions started on A are announced on B: to the bound agent and to the owner's other device.
    for (const client of [writerOnB, deviceB]) {
      for (const id of SESSIONS) await client.waitFor((f) => f.method === "agentSession/bound" && f.params.session.session_id === id, 10_000);
    }
    expect(deviceA.frames.filter((f) => f.method === "agentSession/bound")).toEqual([]);
    await writerOnB.close();
    await deviceB.call("agentSession/start", START("s-pg1-presence"));

    // Presence across processes: the device follows on B, the agent comes and goes on A.
    await deviceB.call("agentSession/subscribe", { session_id: "s-pg1-presence", after_seq: 0 });
    await expect.poll(() => presenceOf(deviceB, "s-pg1-presence"), { timeout: 10_000 }).toEqual([false]);
    const agentOnA = await TestClient.open({ url: a.url }, creds.agent_token);
    await expect.poll(() => presenceOf(deviceB, "s-pg1-presence"), { timeout: 10_000 }).toEqual([false, true]);
    await agentOnA.close();
    await expect.poll(() => presenceOf(deviceB, "s-pg1-presence"), { timeout: 10_000 }).toEqual([false, true, false]);
    const agentStaysOnA = await TestClient.open({ url: a.url }, creds.agent_token);
    await expect.poll(() => presenceOf(deviceB, "s-pg1-presence"), { timeout: 10_000 }).toEqual([false, true, false, true]);
    // More sessions of the agent subscribed on B now are each told it is connected, as the first one was last told.
    const MORE = ["s-pg1-presence-2", "s-pg1-presence-3"];
    for (const id of MORE) await deviceB.call("agentSession/start", START(id));
    for (const id of MORE) await deviceB.call("agentSession/subscribe", { session_id: id, after_seq: 0 });
    for (const id of MORE) await expect.poll(() => presenceOf(deviceB, id), { timeout: 10_000 }).toEqual([true]);

    // Followers: every session on B from the start; the first session on A, to resume on B after the kill.
    for (const id of SESSIONS) await deviceB.call("agentSession/subscribe", { session_id: id, after_seq: 0 });
    await deviceA.call("agentSession/subscribe", { session_id: SESSIONS[0], after_seq: 0 });

    // Writers on both processes, into the same sessions at once.
    const onA: Attempt[] = [];
    const onB: Attempt[] = [];
    const writersA = await Promise.all([0, 1].map(() => TestClient.open({ url: a.url }, writerToken)));
    const writersB = await Promise.all([0, 1].map(() => TestClient.open({ url: b.url }, writerToken)));
    const runsA = writersA.map((c, i) => writer(c, `a${i}`, onA));
    const runsB = writersB.map((c, i) => writer(c, `b${i}`, onB));
    const ackedCount = (list: Attempt[]) => list.filter((x) => x.acked !== undefined).length;
    await expect.poll(() => ackedCount(onA) >= 60 && ackedCount(onB) >= 60, { timeout: 30_000, interval: 20 }).toBe(true);

    a.child.kill("SIGKILL");
    await exited(a.child);
    for (const run of runsA) run.stop();
    await Promise.all(runsA.map((r) => r.done));
    // B's sweep finds A's presence gone: the device on B hears the agent left.
    await expect.poll(() => presenceOf(deviceB, "s-pg1-presence").at(-1), { timeout: 10_000 }).toBe(false);
    for (const id of MORE) await expect.poll(() => presenceOf(deviceB, id), { timeout: 10_000 }).toEqual([true, false]);
    // A subscription made now is told what the others were: not connected.
    await deviceB.call("agentSession/start", START("s-pg1-presence-late"));
    await deviceB.call("agentSession/subscribe", { session_id: "s-pg1-presence-late", after_seq: 0 });
    await expect.poll(() => presenceOf(deviceB, "s-pg1-presence-late"), { timeout: 10_000 }).toEqual([false]);
    expect(agentStaysOnA.ws.readyState).not.toBe(agentStaysOnA.ws.OPEN);

    // A's writers resume on B: every unacknowledged write again, with its key.
    const retry = await TestClient.open({ url: b.url }, writerToken);
    const retried = new Map<string, number>();
    for (const x of onA.filter((y) => y.acked === undefined)) {
      const r = await retry.call("agentSession/envelope/send", { session_id: x.sessionId, idempotency_key: x.key, envelope: agentEnvelope(x.sessionId, x.envelopeId, "writer") });
      retried.set(x.envelopeId, r.seq as number);
    }
    for (const run of runsB) run.stop();
    await Promise.all(runsB.map((r) => r.done));
    for (const x of onB.filter((y) => y.acked === undefined)) {
      const r = await retry.call("agentSession/envelope/send", { session_id: x.sessionId, idempotency_key: x.key, envelope: agentEnvelope(x.sessionId, x.envelopeId, "writer") });
      retried.set(x.envelopeId, r.seq as number);
    }

    // A's follower resumes on B from the last seq it saw.
    const seenOnA = deviceA.events(SESSIONS[0]!).map((e: Frame) => e.seq as number);
    const resumed = await TestClient.open({ url: b.url }, creds.device_token);
    await resumed.call("agentSession/subscribe", { session_id: SESSIONS[0], after_seq: seenOnA.length });

    const all = [...onA, ...onB];
    for (const sessionId of SESSIONS) {
      const log: Frame[] = [];
      for (let more = true; more; ) {
        const page = await retry.call("agentSession/events/read", { session_id: sessionId, after_seq: log.length });
        log.push(...page.events);
        more = page.has_more;
      }
      // One gapless log, every write in it exactly once, each acknowledged one at its acknowledged seq.
      expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
      const seqOf = new Map<string, number[]>();
      for (const e of log) if (e.kind === "envelope") seqOf.set(e.data.envelope.id, [...(seqOf.get(e.data.envelope.id) ?? []), e.seq]);
      const mine = all.filter((x) => x.sessionId === sessionId);
      expect([...seqOf.keys()].sort()).toEqual(mine.map((x) => x.envelopeId).sort());
      for (const x of mine) expect(seqOf.get(x.envelopeId), x.envelopeId).toEqual([x.acked ?? retried.get(x.envelopeId)]);
      // The follower on B got the whole log, in order, once.
      const head = log.length;
      await expect.poll(() => deviceB.events(sessionId).length, { timeout: 15_000 }).toBe(head);
      expect(deviceB.events(sessionId).map((e: Frame) => e.seq)).toEqual(log.map((e) => e.seq));
    }
    // A's follower: what it saw on A, then the rest on B — the whole log once, without a gap.
    const head0 = (await retry.call("agentSession/read", { session_id: SESSIONS[0] })).session.last_seq as number;
    await expect.poll(() => resumed.events(SESSIONS[0]!).length, { timeout: 15_000 }).toBe(head0 - seenOnA.length);
    expect([...seenOnA, ...resumed.events(SESSIONS[0]!).map((e: Frame) => e.seq as number)]).toEqual(Array.from({ length: head0 }, (_, i) => i + 1));

    for (const c of [deviceB, resumed, retry, ...writersB]) await c.close();
    await probe.close();
    b.child.kill("SIGTERM");
    await exited(b.child);
  }, 120_000);
});
