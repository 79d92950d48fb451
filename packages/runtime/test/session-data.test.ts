/**
 * Session data (spec 6.3): the pure revision rule; the service's contexts and subscriptions; and the writes
 * as the Runtime makes them, in its loop — RELIABILITY S2 (concurrent stale writers, restart), and writes
 * racing the app's removal, disabling and a restart, with nothing brought back and nothing lost.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AppSessionData, LineUpRuntime } from "../src/index.js";
import { createMemoryStore, createMemoryStoreData, type MemoryStoreData } from "../src/persistence/memory-store.js";
import { RUNTIME_COLLECTIONS, RUNTIME_SCHEMA } from "../src/persistence/runtime-schema.js";
import type { StoreSchema } from "../src/persistence/schema.js";
import { createSessionDataService, decideReplace, EMPTY_SESSION_DATA, SessionContextRegistry, type SessionDataSnapshot } from "../src/session-data/index.js";
import { whiteboardManifest } from "./apps-fixtures.js";
import { device, signedBundle } from "./helpers/apps-harness.js";
import { FakeAppServer, settle, type Device } from "./helpers/runtime-harness.js";

const SCHEMA: StoreSchema = { collections: ["session-data"], migrations: [{ name: "0001-session-data", run: () => ({ ok: true }) }] };

describe("session data semantics (spec 6.3)", () => {
  it("empty is {data: null, revision: 0}; replace needs the current revision and returns revision + 1", () => {
    expect(EMPTY_SESSION_DATA).toEqual({ data: null, revision: 0 });
    const first = decideReplace(EMPTY_SESSION_DATA, { data: { phase: "focus" }, expected_revision: 0 });
    expect(first).toEqual({ ok: true, value: { data: { phase: "focus" }, revision: 1 } });
    const stale = decideReplace({ data: { a: 1 }, revision: 3 }, { data: { a: 2 }, expected_revision: 2 });
    expect(stale.ok ? "ok" : stale.error).toMatchObject({ code: "revision_conflict", data: { current_revision: 3 } });
    const ahead = decideReplace({ data: { a: 1 }, revision: 3 }, { data: { a: 2 }, expected_revision: 4 });
    expect(ahead.ok ? "ok" : ahead.error.code).toBe("revision_conflict");
  });

  it("accepts only JSON objects, refuses forbidden keys, and names usage and limit when over quota", () => {
    const at = (data: unknown, quota = { maxBytes: 100, maxDepth: 3 }) => {
      const r = decideReplace(EMPTY_SESSION_DATA, { data, expected_revision: 0 }, quota);
      return r.ok ? "ok" : r.error;
    };
    expect(at([1, 2])).toMatchObject({ code: "invalid_params" });
    expect(at(null)).toMatchObject({ code: "invalid_params" });
    expect(at({ d: new Date(0) })).toMatchObject({ code: "json_malformed", path: "/data/d" });
    expect(at({ n: Number.NaN })).toMatchObject({ code: "json_malformed" });
    expect(at(JSON.parse('{"__proto__": {"polluted": true}}'))).toMatchObject({ code: "json_forbidden_key" });
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect(at({ s: "x".repeat(200) })).toMatchObject({ code: "quota_exceeded", data: { usage: 208, limit: 100, unit: "bytes" } });
    expect(at({ a: { b: { c: {} } } })).toMatchObject({ code: "quota_exceeded", data: { usage: 4, limit: 3, unit: "depth" } });
    expect(at({ a: { b: { c: 1 } } })).toBe("ok");
    // Exactly at the byte limit passes, one over fails.
    const exact = { s: "x".repeat(92) }; // {"s":"…"} = 8 + 92 bytes
    expect(at(exact)).toBe("ok");
    expect(at({ s: "x".repeat(93) })).toMatchObject({ code: "quota_exceeded", data: { usage: 101, limit: 100 } });
    // Usage counts UTF-8 bytes, not characters: "é" is two.
    expect(at({ s: "é".repeat(46) })).toBe("ok");
    expect(at({ s: "é".repeat(47) })).toMatchObject({ code: "quota_exceeded", data: { usage: 102, limit: 100 } });
    expect(decideReplace(EMPTY_SESSION_DATA, { data: {}, expected_revision: -1 }).ok).toBe(false);
    expect(decideReplace(EMPTY_SESSION_DATA, { data: {}, expected_revision: "0" }).ok).toBe(false);
  });
});


function collect(data: AppSessionData): { frames: SessionDataSnapshot[]; stop: () => void } {
  const frames: SessionDataSnapshot[] = [];
  const sub = data.subscribe((s) => frames.push(s));
  if (!sub.ok) throw new Error(sub.error.message);
  return { frames, stop: sub.value };
}

describe("session data service: contexts and subscriptions", () => {
  it("refuses forged and revoked contexts without asking the loop; a subscription shows a change committed while its first frame was read after it", async () => {
    const store = await createMemoryStore(SCHEMA, { data: createMemoryStoreData() });
    const contexts = new SessionContextRegistry();
    const posted: unknown[] = [];
    const errors: unknown[] = [];
    const service = createSessionDataService({
      store,
      collection: "session-data",
      contexts,
      post: async (input) => {
        posted.push(input);
        return { revision: 1 };
      },
      onListenerError: (e) => errors.push(e),
    });
    const mine = contexts.issue("pomodoro", "s-1");
    const other = contexts.issue("pomodoro", "s-2");
    const forged = { app_scope: "pomodoro", app_session_id: "s-1" };
    expect(await service.get(forged)).toMatchObject({ ok: false, error: { code: "session_context_invalid" } });
    expect(await service.replace(forged, { data: { left: 0 }, expected_revision: 0 })).toMatchObject({ ok: false, error: { code: "session_context_invalid" } });
    contexts.revoke(other);
    expect(await service.replace(other, { data: { left: 0 }, expected_revision: 0 })).toMatchObject({ ok: false, error: { code: "session_context_invalid" } });
    expect(service.subscribe(other, () => undefined).ok).toBe(false);
    expect(posted).toEqual([]);
    expect(await service.replace(mine, { data: { left: 25 }, expected_revision: 0 })).toEqual({ ok: true, value: { revision: 1 } });
    expect(posted).toEqual([{ kind: "session_data.replace", app_scope: "pomodoro", app_session_id: "s-1", request: { data: { left: 25 }, expected_revision: 0 } }]);

    // The store holds revision 1; revision 2 is committed (and announced) while the subscription reads it.
    await store.commit([{ op: "put", collection: "session-data", key: "pomodoro/s-1", value: { data: { v: 1 }, revision: 1 } }]);
    const frames: SessionDataSnapshot[] = [];
    const bad = service.subscribe(mine, () => {
      throw new Error("listener bug");
    });
    const sub = service.subscribe(mine, (f) => frames.push(f));
    service.changed("pomodoro", "s-1", { data: { v: 2 }, revision: 2 });
    await settle(5);
    service.changed("pomodoro", "s-1", { data: { v: 2 }, revision: 2 }); // a frame already shown is not shown again
    service.changed("pomodoro", "s-1", { data: { v: 3 }, revision: 3 });
    expect(frames).toEqual([
      { data: { v: 1 }, revision: 1 },
      { data: { v: 2 }, revision: 2 },
      { data: { v: 3 }, revision: 3 },
    ]);
    expect(errors.length).toBeGreaterThan(0); // the throwing listener broke nothing
    // Removal revokes the app's contexts and drops its subscribers.
    service.removeApp("pomodoro");
    service.changed("pomodoro", "s-1", { data: { v: 4 }, revision: 4 });
    expect(frames.map((f) => f.revision)).toEqual([1, 2, 3]);
    expect(await service.get(mine)).toMatchObject({ ok: false, error: { code: "session_context_invalid" } });
    if (sub.ok) sub.value();
    if (bad.ok) bad.value();
    await store.close();
  });
});

/** A Runtime on `data`, online to `server` (a new one with session `s-1`), with `bundle` installed if given. */
async function runtimeOn(data: MemoryStoreData, options: { server?: FakeAppServer; run?: string; bundle?: Uint8Array } = {}): Promise<Device & { server: FakeAppServer }> {
  const server = options.server ?? new FakeAppServer();
  if (options.server === undefined) server.createSession({ session_id: "s-1", agent_id: "agent-1" });
  const d = await device(server, data, options.run ?? "r0");
  await d.runtime.whenOnline();
  if (options.bundle !== undefined) await d.runtime.appManager.install(options.bundle, { approved: true });
  return Object.assign(d, { server });
}

const board = (runtime: LineUpRuntime, session = "s-1"): AppSessionData => runtime.appPort("whiteboard").sessionData(session);

describe("session data writes in the Runtime's loop", () => {
  it("RELIABILITY S2: concurrent stale writers, restart and reload", async () => {
    const bundle = await signedBundle(whiteboardManifest());
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ writers: fc.integer({ min: 1, max: 6 }), staleBy: fc.array(fc.nat(2), { minLength: 6, maxLength: 6 }), restart: fc.boolean() }), { minLength: 1, maxLength: 5 }),
        async (rounds) => {
          const data = createMemoryStoreData();
          let d = await runtimeOn(data, { bundle });
          const server = d.server;
          let sub = collect(board(d.runtime));
          let expectedRevision = 0;
          let lastData: unknown = null;
          for (const [r, round] of rounds.entries()) {
            const base = await board(d.runtime).get();
            if (!base.ok) throw new Error(base.error.message);
            expect(base.value.revision).toBe(expectedRevision);
            // Writers that read earlier hold older revisions; all write at once.
            const attempts = Array.from({ length: round.writers }, (_, w) => ({ w, expected: Math.max(0, base.value.revision - round.staleBy[w]!) }));
            const outcomes = await Promise.all(attempts.map((a) => board(d.runtime).replace({ data: { round: r, writer: a.w }, expected_revision: a.expected })));
            const winners = outcomes.filter((o) => o.ok);
            const current = attempts.filter((a) => a.expected === base.value.revision);
            // Exactly one write wins per revision (if anyone held the current one); every other gets a conflict.
            expect(winners.length).toBe(current.length > 0 ? 1 : 0);
            for (const o of outcomes) if (!o.ok) expect(o.error).toMatchObject({ code: "revision_conflict", data: { current_revision: expect.any(Number) } });
            if (winners.length === 1) {
              expectedRevision += 1;
              expect(winners[0]).toEqual({ ok: true, value: { revision: expectedRevision } });
              lastData = { round: r, writer: current[0]!.w };
            }
            if (round.restart) {
              sub.stop();
              await d.stop();
              d = await runtimeOn(data, { server, run: `r${r + 1}` });
              sub = collect(board(d.runtime));
            }
          }
          expect(await board(d.runtime).get()).toEqual({ ok: true, value: { data: lastData, revision: expectedRevision } });
          await settle();
          // Subscription frames: the first is the full snapshot at registration, then strictly increasing revisions.
          expect(sub.frames.length).toBeGreaterThan(0);
          for (let i = 1; i < sub.frames.length; i++) expect(sub.frames[i]!.revision).toBeGreaterThan(sub.frames[i - 1]!.revision);
          expect(sub.frames[sub.frames.length - 1]).toEqual({ data: lastData, revision: expectedRevision });
          sub.stop();
          await d.stop();
        },
      ),
      { numRuns: 30, seed: 0x52 },
    );
  }, 60_000);

  it("a write between get() and subscribe() is in the first frame or the next; a refusal names usage and limit", async () => {
    const d = await runtimeOn(createMemoryStoreData(), { bundle: await signedBundle(whiteboardManifest()) });
    const data = board(d.runtime, "s-9");
    expect(await data.get()).toEqual({ ok: true, value: { data: null, revision: 0 } });
    const write = data.replace({ data: { v: 1 }, expected_revision: 0 });
    const sub = collect(data);
    await write;
    await data.replace({ data: { v: 2 }, expected_revision: 1 });
    await settle();
    // The first frame is the snapshot when the subscription read it: the write's, or the one before it, which
    // the write's frame then follows.
    const first = sub.frames[0]!.revision === 0 ? sub.frames.slice(1) : sub.frames;
    expect(first).toEqual([
      { data: { v: 1 }, revision: 1 },
      { data: { v: 2 }, revision: 2 },
    ]);
    const late = collect(data);
    await settle();
    expect(late.frames).toEqual([{ data: { v: 2 }, revision: 2 }]);
    expect(await data.replace({ data: { s: "x".repeat(300 * 1024) }, expected_revision: 2 })).toMatchObject({ ok: false, error: { code: "quota_exceeded", data: { unit: "bytes", limit: 256 * 1024 } } });
    sub.stop();
    late.stop();
    await d.stop();
  });
  it("writes racing the app's removal, disabling and a restart: nothing comes back, nothing acknowledged is lost", async () => {
    const bundle = await signedBundle(whiteboardManifest());
    const stored = async (data: MemoryStoreData) => {
      const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
      try {
        return (await store.range(RUNTIME_COLLECTIONS.sessionData, { prefix: "whiteboard/" })).map((row) => ({ key: row.key, ...(row.value as unknown as SessionDataSnapshot) }));
      } finally {
        await store.close();
      }
    };
    /** Writes revision 1, 2, … one after another until one is refused or `done()`; the revisions acknowledged. */
    const writeOn = async (data: AppSessionData, label: string, done: () => boolean = () => false): Promise<{ acked: number; refusal?: string }> => {
      for (let i = 0; i < 1_000; i++) {
        if (done()) return { acked: i };
        const r = await data.replace({ data: { i }, expected_revision: i }).catch((e: unknown) => ({ ok: false as const, error: { code: String((e as { code?: unknown }).code) } }));
        if (!r.ok) return { acked: i, refusal: r.error.code };
        // As an app writes, from one event to the next (on a memory store the loop would never yield otherwise).
        await new Promise((resolve) => setImmediate(resolve));
      }
      throw new Error(`the writes were never refused (${label})`);
    };
    for (const delay of [0, 1, 2, 3, 5, 8, 13]) {
      // Removal: every write is before it (and goes with it) or refused after it; a reinstalled app's data stays.
      {
        const data = createMemoryStoreData();
        const d = await runtimeOn(data, { bundle });
        const writing = writeOn(board(d.runtime), `remove ${delay}`);
        await settle(delay);
        // Two more writes in the removal's own turn: one posted just before it, one just after.
        const justBefore = board(d.runtime, "s-2").replace({ data: { x: 1 }, expected_revision: 0 });
        const removal = d.runtime.appManager.remove("whiteboard", { confirmed: true });
        const justAfter = board(d.runtime, "s-3").replace({ data: { x: 1 }, expected_revision: 0 });
        expect((await removal).status).toBe("succeeded");
        expect(await justBefore).toEqual({ ok: true, value: { revision: 1 } });
        expect(await justAfter).toMatchObject({ ok: false, error: { code: "session_context_invalid" } });
        const written = await writing;
        expect(written.refusal, `delay ${delay}`).toBe("session_context_invalid");
        await settle();
        expect(await stored(data), `removed, delay ${delay}`).toEqual([]);
        await d.runtime.appManager.install(bundle, { approved: true });
        expect(await board(d.runtime).replace({ data: { fresh: true }, expected_revision: 0 })).toEqual({ ok: true, value: { revision: 1 } });
        await settle();
        expect(await stored(data), `reinstalled, delay ${delay}`).toEqual([{ key: "whiteboard/s-1", data: { fresh: true }, revision: 1 }]);
        await d.stop();
      }
      // Disabling keeps the data: what was acknowledged is there after enabling again.
      {
        const data = createMemoryStoreData();
        const d = await runtimeOn(data, { bundle });
        let disabled = false;
        const writing = writeOn(board(d.runtime), "disable", () => disabled);
        await settle(delay);
        expect((await d.runtime.appManager.disable("whiteboard")).status).toBe("succeeded");
        disabled = true;
        const written = await writing;
        expect(written.refusal).toBeUndefined();
        expect((await d.runtime.appManager.enable("whiteboard")).status).toBe("succeeded");
        expect(await stored(data), `disabled, delay ${delay}`).toEqual([{ key: "whiteboard/s-1", data: { i: written.acked - 1 }, revision: written.acked }]);
        await d.stop();
      }
      // A restart: every acknowledged write is there after it; one cut off by the stop is there whole or not at all.
      {
        const data = createMemoryStoreData();
        const d = await runtimeOn(data, { bundle });
        const writing = writeOn(board(d.runtime), `restart ${delay}`);
        await settle(delay);
        await d.stop();
        const written = await writing;
        const after = await runtimeOn(data, { server: d.server, run: "r1" });
        const rows = await stored(data);
        expect(rows.length, `restarted, delay ${delay}`).toBe(written.acked === 0 && rows.length === 0 ? 0 : 1);
        const revision = rows[0]?.revision ?? 0;
        expect([written.acked, written.acked + 1], `restarted, delay ${delay}`).toContain(revision);
        if (revision > 0) expect(rows[0]!.data).toEqual({ i: revision - 1 });
        expect(await board(after.runtime).get()).toEqual({ ok: true, value: { data: revision > 0 ? { i: revision - 1 } : null, revision } });
        await after.stop();
      }
    }
  }, 60_000);
});
