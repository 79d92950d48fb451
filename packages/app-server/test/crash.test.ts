/**
 * Crash durability: a child process runs the server while clients write concurrently; it is
 * killed with SIGKILL mid-stream and restarted on the same data dir. Every acknowledged write is in
 * the log exactly once at its acknowledged seq, the log is gapless, retrying the unacknowledged
 * writes with their keys applies each exactly once, and resume after any seq has no gap.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentEnvelope, exited, freshDatabase, START, startServerProcess, stopServerProcesses, tempDir, TestClient, type Frame } from "./helpers.js";

const dir = tempDir("lineup-crash-");
/** The PostgreSQL database both server runs share, when the run's store is PostgreSQL. */
let database: string | undefined;

beforeAll(async () => {
  database = await freshDatabase();
});

afterAll(() => {
  stopServerProcesses();
  dir.remove();
});

interface Attempt {
  readonly key: string;
  readonly envelopeId: string;
  acked?: number;
}

describe("crash and restart", () => {
  it("keeps every acknowledged write exactly once, applies retries once, and resumes without gaps", async () => {
    const first = await startServerProcess({ dataDir: dir.path, db: database });
    const creds = JSON.parse(readFileSync(join(dir.path, "dev-credentials.json"), "utf8")) as { device_token: string; agent_token: string };
    const device = await TestClient.open({ url: first.url }, creds.device_token);
    await device.call("agentSession/start", START("s-crash"));

    const attempts: Attempt[] = [];
    let stop = false;
    const writers = await Promise.all([0, 1, 2, 3].map(() => TestClient.open({ url: first.url }, creds.agent_token)));
    const writing = writers.map(async (client, w) => {
      const inFlight = new Set<Promise<void>>();
      for (let i = 0; !stop; i++) {
        const attempt: Attempt = { key: `k-${w}-${i}`, envelopeId: `e-${w}-${i}` };
        attempts.push(attempt);
        const p = client
          .call("agentSession/envelope/send", { session_id: "s-crash", idempotency_key: attempt.key, envelope: agentEnvelope("s-crash", attempt.envelopeId) }, 5_000)
          .then((r: Frame) => void (attempt.acked = r.seq as number))
          .catch(() => void (stop = true));
        inFlight.add(p);
        void p.then(() => inFlight.delete(p));
        if (inFlight.size >= 6) await Promise.race(inFlight);
      }
      await Promise.allSettled(inFlight);
    });
    while (attempts.filter((a) => a.acked !== undefined).length < 200) await new Promise((r) => setTimeout(r, 5));
    first.child.kill("SIGKILL");
    stop = true;
    await Promise.all(writing);
    await exited(first.child);
    const acked = attempts.filter((a) => a.acked !== undefined);
    expect(acked.length).toBeGreaterThanOrEqual(200);

    const second = await startServerProcess({ dataDir: dir.path, db: database });
    const reader = await TestClient.open({ url: second.url }, creds.device_token);
    const readAll = async () => {
      const events: Frame[] = [];
      for (let more = true; more; ) {
        const page = await reader.call("agentSession/events/read", { session_id: "s-crash", after_seq: events.length });
        events.push(...page.events);
        more = page.has_more;
      }
      return events;
    };
    const before = await readAll();
    expect(before.map((e) => e.seq)).toEqual(before.map((_, i) => i + 1));
    const seqOf = new Map<string, number[]>();
    for (const e of before) if (e.kind === "envelope") seqOf.set(e.data.envelope.id, [...(seqOf.get(e.data.envelope.id) ?? []), e.seq]);
    for (const a of acked) expect(seqOf.get(a.envelopeId), a.envelopeId).toEqual([a.acked]);
    const lostUnacked = attempts.filter((a) => a.acked === undefined && !seqOf.has(a.envelopeId)).length;
    const committedUnacked = attempts.filter((a) => a.acked === undefined && seqOf.has(a.envelopeId)).length;

    // Retry every unacknowledged write with its key: committed ones replay, lost ones apply, each once.
    const agent = await TestClient.open({ url: second.url }, creds.agent_token);
    for (const a of attempts.filter((x) => x.acked === undefined)) {
      const r = await agent.call("agentSession/envelope/send", { session_id: "s-crash", idempotency_key: a.key, envelope: agentEnvelope("s-crash", a.envelopeId) });
      const existing = seqOf.get(a.envelopeId);
      if (existing !== undefined) expect(r.seq).toBe(existing[0]);
    }
    const after = await readAll();
    expect(after.map((e) => e.seq)).toEqual(after.map((_, i) => i + 1));
    const ids = after.filter((e) => e.kind === "envelope").map((e) => e.data.envelope.id as string);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids)).toEqual(new Set(attempts.map((a) => a.envelopeId)));
    expect(after.length).toBe(before.length + lostUnacked);

    // Resume after a random seq: exactly the rest, with the seam.
    const cursor = Math.floor(Math.random() * after.length);
    await reader.call("agentSession/subscribe", { session_id: "s-crash", after_seq: cursor });
    await reader.waitFor((f) => f.method === "agentSession/caughtUp" && f.params.session_id === "s-crash", 10_000);
    expect(reader.events("s-crash").map((e: Frame) => e.seq)).toEqual(after.slice(cursor).map((e) => e.seq));

    await reader.close();
    await agent.close();
    second.child.kill("SIGTERM");
    await exited(second.child);
    if (database === undefined) {
      const db = new Database(join(dir.path, "app-server.sqlite"), { readonly: true });
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
      db.close();
    }
    console.info(`crash test: ${acked.length} acknowledged, ${committedUnacked} committed but unacknowledged, ${lostUnacked} lost before commit and retried`);
  });
});
