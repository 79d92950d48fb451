/**
 * The write path's shortcuts keep the outcomes of the plain rules: a batch first runs without a
 * savepoint per write and runs again with them when a write throws or undoes itself; remembered
 * session visibility never outlives a rollback; the idempotency fingerprint is the canonical one, and
 * an event that reuses the fingerprint's text of its envelope stores the same value.
 */
import { createHash } from "node:crypto";
import { canonicalJson, LineUpError, type JsonObject, type SessionEvent } from "@lineup/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../src/clock.js";
import { bodyFingerprint } from "../src/idempotency.js";
import { silentLogger } from "../src/logger.js";
import { createAgent, createUser, type Principal } from "../src/store/principals.js";
import { headSeq, readEvents } from "../src/store/log.js";
import { findSession, insertSession, isVisibleSession } from "../src/store/sessions.js";
import { WriteQueue, type WriteContext } from "../src/write-queue.js";
import { openStore } from "../src/store/database.js";
import { openTestStore } from "./helpers.js";

const opened: Array<{ dispose(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.dispose();
});

/** A fresh store of the run's kind with a user, an agent and the session "s". */
async function setupStore() {
  const o = await openTestStore();
  opened.push(o);
  const writer = o.store.writer;
  await createUser(writer, "u");
  await createAgent(writer, "a");
  await insertSession(writer, session("s"));
  return o;
}

/** A queue on a fresh store of the run's kind; `db` reads what it committed. */
async function setup() {
  const o = await setupStore();
  const writer = o.store.writer;
  const published: SessionEvent[][] = [];
  const queue = new WriteQueue(writer, systemClock, (events) => published.push([...events]), silentLogger);
  return { db: o.store.reader, queue, published };
}

function session(id: string) {
  return { session_id: id, app_scope: "chat", workspace_id: "w", owner_user_id: "u", agent_id: "a", state: "active" as const, created_at: systemClock.now(), last_seq: 0, inventory_revision: 0 };
}

const append = async (ctx: WriteContext, n: string) => (await ctx.append("s", "turn.activated", { role: "server", id: "x" }, { turn_id: n })).seq;
const turnIds = (published: SessionEvent[][]) => published.flat().map((e) => [e.seq, (e.data as JsonObject)["turn_id"]]);
const device: Principal = { key: "device:d", role: "device", device_id: "d", user_id: "u" };

describe("fast and safe mode", () => {
  it("a batch where nothing throws commits once, without running again", async () => {
    const { queue, published } = await setup();
    expect(await Promise.all([queue.submit((c) => append(c, "t1")), queue.submit((c) => append(c, "t2"))])).toEqual([1, 2]);
    expect(queue.stats()).toMatchObject({ transactions: 1, writes: 2, safeReruns: 0 });
    expect(turnIds(published)).toEqual([[1, "t1"], [2, "t2"]]);
  });

  it("a write that throws: the batch runs again and only that write is undone; hooks and events of the first run are gone", async () => {
    const { db, queue, published } = await setup();
    const hooks: string[] = [];
    const results = await Promise.allSettled([
      queue.submit((c) => {
        c.afterCommit(() => hooks.push("t1"));
        return append(c, "t1");
      }),
      queue.submit(async (c) => {
        c.afterCommit(() => hooks.push("refused"));
        await append(c, "t-refused");
        throw new LineUpError("invalid_state", "refused");
      }),
      queue.submit((c) => append(c, "t2")),
    ]);
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as LineUpError).code))).toEqual([1, "invalid_state", 2]);
    expect(queue.stats()).toMatchObject({ transactions: 1, writes: 3, safeReruns: 1 });
    expect(published).toHaveLength(1);
    expect(turnIds(published)).toEqual([[1, "t1"], [2, "t2"]]);
    expect(hooks).toEqual(["t1"]);
    expect(await db.all("SELECT seq FROM events ORDER BY seq")).toEqual([{ seq: 1 }, { seq: 2 }]);
  });

  it("after a batch ran again, the next few start with savepoints, then the fast mode is back", async () => {
    const { queue } = await setup();
    await Promise.allSettled([
      queue.submit(async (c) => {
        await append(c, "gone");
        throw new LineUpError("invalid_state", "refused");
      }),
    ]);
    expect(queue.stats().safeReruns).toBe(1);
    for (let i = 0; i < 20; i++) await queue.submit((c) => append(c, `t${i}`));
    expect(queue.stats()).toMatchObject({ transactions: 21, safeReruns: 1 });
    // A refusal in the fast mode again: counted again.
    await queue.submit(() => {
      throw new LineUpError("invalid_state", "refused");
    }).catch(() => undefined);
    expect(queue.stats().safeReruns).toBe(2);
  });

  it("rollback undoes what the write did so far and the write goes on", async () => {
    const { queue, published } = await setup();
    const seq = await queue.submit(async (c) => {
      await append(c, "t-undone");
      c.afterCommit(() => {
        throw new Error("an undone hook must not run");
      });
      await c.rollback();
      return append(c, "t-kept");
    });
    expect(seq).toBe(1);
    expect(turnIds(published)).toEqual([[1, "t-kept"]]);
  });

  it("a write that catches the savepoint request still gets the savepoint's outcome", async () => {
    const { queue, published } = await setup();
    const seq = await queue.submit(async (c) => {
      try {
        await c.savepoint(() => append(c, "inner"));
      } catch {
        // a write may guard its savepoint; the fast mode must not leave it without one
      }
      return append(c, "outer");
    });
    expect(seq).toBe(2);
    expect(turnIds(published)).toEqual([[1, "inner"], [2, "outer"]]);
  });
});

describe("session heads inside the transaction", () => {
  it("later writes of the batch read the head the earlier ones moved; the column holds it after the commit", async () => {
    const { db, queue } = await setup();
    const [, seen] = await Promise.all([
      queue.submit(async (c) => [await append(c, "t1"), await append(c, "t2")]),
      queue.submit(async (c) => ({ head: await headSeq(c.db, "s"), last_seq: (await findSession(c.db, "s"))!.last_seq, next: await append(c, "t3") })),
    ]);
    expect(seen).toEqual({ head: 2, last_seq: 2, next: 3 });
    expect(await db.get("SELECT last_seq FROM sessions WHERE session_id = 's'")).toEqual({ last_seq: 3 });
    expect(await headSeq(db, "s")).toBe(3);
  });

  it("a refused write gives its seqs back, in a batch that commits and across batches", async () => {
    const { db, queue, published } = await setup();
    const refused = async (c: WriteContext) => {
      await append(c, "gone");
      throw new LineUpError("invalid_state", "refused");
    };
    await Promise.allSettled([queue.submit((c) => append(c, "t1")), queue.submit(refused), queue.submit((c) => append(c, "t2"))]);
    await Promise.allSettled([queue.submit(refused), queue.submit((c) => append(c, "t3"))]);
    expect(turnIds(published)).toEqual([[1, "t1"], [2, "t2"], [3, "t3"]]);
    expect(await db.get("SELECT last_seq FROM sessions WHERE session_id = 's'")).toEqual({ last_seq: 3 });
  });
});

describe("two writers on one store", () => {
  it("keep every session's seq gapless while their batches take the same sessions in opposite orders", async () => {
    const { store, db: url, dataDir } = await setupStore();
    const other = await openStore({ dataDir, db: url });
    opened.push({ dispose: () => other.close() });
    await insertSession(store.writer, session("s2"));
    const queues = [store.writer, other.writer].map((w) => new WriteQueue(w, systemClock, () => undefined, silentLogger));
    const to = async (c: WriteContext, sessionId: string, n: string) => (await c.append(sessionId, "turn.activated", { role: "server", id: "x" }, { turn_id: n })).seq;
    const rounds = 6;
    const perRound = 4;
    for (let r = 0; r < rounds; r++) {
      // Queue 0 appends to s then s2, queue 1 to s2 then s, in the same moment: on PostgreSQL the row
      // locks can deadlock, and the aborted batch runs again; on SQLite one transaction waits.
      await Promise.all(
        queues.flatMap((q, i) =>
          Array.from({ length: perRound }, (_, k) =>
            q.submit(async (c) => {
              const order = i === 0 ? ["s", "s2"] : ["s2", "s"];
              return [await to(c, order[0]!, `${r}-${i}-${k}`), await to(c, order[1]!, `${r}-${i}-${k}`)];
            }),
          ),
        ),
      );
    }
    const total = rounds * perRound * queues.length;
    for (const sessionId of ["s", "s2"]) {
      const rows = await store.reader.all<{ seq: number }>("SELECT seq FROM events WHERE session_id = ? ORDER BY seq", [sessionId]);
      expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
      expect(await headSeq(store.reader, sessionId)).toBe(total);
    }
  }, 60_000);
});

describe("remembered session visibility", () => {
  it("a session read inside a write that was undone is not remembered", async () => {
    const { db, queue } = await setup();
    const seen = await queue
      .submit(async (c) => {
        await insertSession(c.db, session("s-undone"));
        const visible = await isVisibleSession(c.db, device, "s-undone");
        throw new LineUpError("invalid_state", `refused after seeing it (${String(visible)})`);
      })
      .catch((e: unknown) => (e as LineUpError).message);
    expect(seen).toContain("(true)");
    expect(await queue.submit((c) => isVisibleSession(c.db, device, "s-undone"))).toBe(false);
    expect(await isVisibleSession(db, device, "s-undone")).toBe(false);
  });

  it("a session started and seen in a committed batch stays visible to its owner only", async () => {
    const { db, queue } = await setup();
    await queue.submit(async (c) => {
      await insertSession(c.db, session("s-new"));
      return isVisibleSession(c.db, device, "s-new");
    });
    expect(await isVisibleSession(db, device, "s-new")).toBe(true);
    expect(await isVisibleSession(db, { ...device, user_id: "someone-else" }, "s-new")).toBe(false);
  });
});

describe("the idempotency fingerprint", () => {
  // The plain definition of canonical JSON (keys sorted at every level), written independently of the code under test.
  const plain = (v: unknown): string => {
    if (v === null || typeof v !== "object") return JSON.stringify(v);
    if (Array.isArray(v)) return `[${v.map(plain).join(",")}]`;
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${plain((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  };
  const reference = (method: string, params: JsonObject) => {
    const { idempotency_key: _k, ...body } = params;
    return createHash("sha256").update(plain({ method, params: body })).digest("hex");
  };
  it.each([
    { idempotency_key: "k", session_id: "s", envelope: { v: 1, id: "e", payload: { text: 'a "quoted" \\ line\n', list: [3, { z: 1, a: null }] } } },
    { session_id: "s", idempotency_key: "k" },
    { "10": "ten", "9": "nine", "-x": true, idempotency_key: "k", "é": "accent", "\u0000": 0.5, emoji: "\u{1F600}" },
    // Already in order (nothing copied), out of order at depth, array indexes and digits as nested keys.
    { envelope: { a: { b: 1, c: [1, 2] }, z: "x" }, idempotency_key: "k", session_id: "s" },
    { session_id: "s", idempotency_key: "k", envelope: { z: [{ y: 1, x: { d: 1, c: 2 } }, { b: null }], a: { "2": 1, "10": 2, "x": 3 }, m: 1e21, n: -0, o: 1.5e-7 } },
    { idempotency_key: "k", envelope: { list: [[{ b: 1, a: 2 }], "z", { "0a": 1, "a0": 2 }], "": "empty", "\u00e9": 1, "\u{1F600}": 2, e: 3 } },
    { idempotency_key: "k", many: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${(i * 7919) % 97}`, { y: i, x: -i }])) },
  ])("equals SHA-256 of the canonical JSON without the key (%#)", (params) => {
    expect(bodyFingerprint("agentSession/envelope/send", params as unknown as { idempotency_key: string })).toBe(reference("agentSession/envelope/send", params as unknown as JsonObject));
  });
});

describe("an appended envelope reuses the fingerprint's text", () => {
  it("stores and reads back the envelope the write was given, byte for byte as canonical JSON", async () => {
    const { db, queue } = await setup();
    const envelope = { v: 1, id: "e-1", type: "lineup.message", payload: { text: 'a "quoted" \\ line\n', list: [3, { z: 1, a: null }], "10": "ten", "\u00e9": "é" }, sender: { kind: "user", id: "u" } };
    const params = { session_id: "s", idempotency_key: "k", envelope };
    bodyFingerprint("agentSession/envelope/send", params);
    const event = await queue.submit((c) => c.append("s", "envelope", { role: "device", id: "d" }, { envelope, note: undefined, n: 2 } as unknown as JsonObject));
    const [stored] = await readEvents(db, "s", event.seq - 1, 1);
    expect(stored).toEqual({ ...event, data: { envelope, n: 2 } });
    const row = await db.get<{ body: string }>("SELECT body FROM events WHERE session_id = ? AND seq = ?", ["s", event.seq]);
    expect(row!.body).toContain(`"data":{"envelope":${canonicalJson(envelope)},"n":2}}`);
  });
});
