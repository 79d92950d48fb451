import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../src/node/index.js";
import { createMemoryStore, createMemoryStoreData, type MemoryStoreData } from "../src/persistence/memory-store.js";
import type { StoreSchema } from "../src/persistence/schema.js";
import type { RuntimeStore } from "../src/persistence/store.js";
import {
  createSessionDataService,
  decideReplace,
  EMPTY_SESSION_DATA,
  SessionContextRegistry,
  type SessionDataService,
  type SessionDataSnapshot,
} from "../src/session-data/index.js";

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

const sqliteDirs: string[] = [];

interface Backend {
  readonly name: string;
  open(): Promise<RuntimeStore>;
  dispose(): void;
}

function memoryBackend(): Backend {
  let data: MemoryStoreData = createMemoryStoreData();
  return { name: "memory store", open: () => createMemoryStore(SCHEMA, { data }), dispose: () => void (data = createMemoryStoreData()) };
}

function sqliteBackend(): Backend {
  const dir = mkdtempSync(join(tmpdir(), "lineup-session-data-"));
  sqliteDirs.push(dir);
  let n = 0;
  let path = join(dir, `s${n}.db`);
  return {
    name: "SQLite store",
    open: () => openSqliteStore({ path, schema: SCHEMA }),
    dispose: () => {
      path = join(dir, `s${++n}.db`);
    },
  };
}

afterAll(() => {
  for (const d of sqliteDirs) rmSync(d, { recursive: true, force: true });
});

function collect(service: SessionDataService, context: Parameters<SessionDataService["get"]>[0]): { frames: SessionDataSnapshot[]; stop: () => void } {
  const frames: SessionDataSnapshot[] = [];
  const sub = service.subscribe(context, (s) => frames.push(s));
  if (!sub.ok) throw new Error(sub.error.message);
  return { frames, stop: sub.value };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe.each([memoryBackend, sqliteBackend])("session data service over %o", (make) => {
  const backend = make();
  const open = async () => {
    const store = await backend.open();
    const contexts = new SessionContextRegistry();
    return { store, contexts, service: createSessionDataService({ store, collection: "session-data", contexts }) };
  };

  it(`isolates sessions by the issued context and refuses forged or revoked ones (${backend.name})`, async () => {
    backend.dispose();
    const { store, contexts, service } = await open();
    const mine = contexts.issue("pomodoro", "s-1");
    const other = contexts.issue("pomodoro", "s-2");
    const otherApp = contexts.issue("whiteboard", "s-1");
    expect(await service.get(mine)).toEqual({ ok: true, value: { data: null, revision: 0 } });
    expect((await service.replace(mine, { data: { left: 25 }, expected_revision: 0 })).ok).toBe(true);
    expect(await service.get(other)).toEqual({ ok: true, value: { data: null, revision: 0 } });
    expect(await service.get(otherApp)).toEqual({ ok: true, value: { data: null, revision: 0 } });
    const forged = { app_scope: "pomodoro", app_session_id: "s-1" };
    expect(await service.get(forged)).toMatchObject({ ok: false, error: { code: "session_context_invalid" } });
    expect(await service.replace(forged, { data: { left: 0 }, expected_revision: 1 })).toMatchObject({ ok: false, error: { code: "session_context_invalid" } });
    contexts.revoke(other);
    expect(await service.get(other)).toMatchObject({ ok: false, error: { code: "session_context_invalid" } });
    expect(service.subscribe(other, () => undefined).ok).toBe(false);
    // Removal with the app: gone from the store, contexts revoked, other apps untouched.
    expect((await service.replace(otherApp, { data: { strokes: 1 }, expected_revision: 0 })).ok).toBe(true);
    expect((await service.removeApp("pomodoro")).ok).toBe(true);
    expect(await store.count("session-data", { prefix: "pomodoro/" })).toBe(0);
    expect(await service.get(mine)).toMatchObject({ ok: false, error: { code: "session_context_invalid" } });
    expect(await service.get(otherApp)).toMatchObject({ ok: true, value: { revision: 1 } });
    await store.close();
  });

  it(`RELIABILITY S2: concurrent stale writers, crash and reload (${backend.name})`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ writers: fc.integer({ min: 1, max: 6 }), staleBy: fc.array(fc.nat(2), { minLength: 6, maxLength: 6 }), crash: fc.boolean() }), { minLength: 1, maxLength: 6 }),
        async (rounds) => {
          backend.dispose();
          let { store, contexts, service } = await open();
          let context = contexts.issue("pomodoro", "s-1");
          let sub = collect(service, context);
          let expectedRevision = 0;
          let lastData: unknown = null;
          for (const [r, round] of rounds.entries()) {
            const base = await service.get(context);
            if (!base.ok) throw new Error(base.error.message);
            expect(base.value.revision).toBe(expectedRevision);
            // Writers that read earlier hold older revisions; all write at once.
            const attempts = Array.from({ length: round.writers }, (_, w) => ({ w, expected: Math.max(0, base.value.revision - round.staleBy[w]!) }));
            const outcomes = await Promise.all(attempts.map((a) => service.replace(context, { data: { round: r, writer: a.w }, expected_revision: a.expected })));
            const winners = outcomes.filter((o) => o.ok);
            const current = attempts.filter((a) => a.expected === base.value.revision);
            // Exactly one write wins per revision (if anyone held the current one); every other gets a conflict.
            expect(winners.length).toBe(current.length > 0 ? 1 : 0);
            for (const o of outcomes) if (!o.ok) expect(o.error.code).toBe("revision_conflict");
            if (winners.length === 1) {
              expectedRevision += 1;
              expect(winners[0]).toEqual({ ok: true, value: { revision: expectedRevision } });
              lastData = { round: r, writer: current[0]!.w };
            }
            if (round.crash) {
              // Crash: the service and its caches are gone; the store is reopened on the same data.
              sub.stop();
              await store.close();
              ({ store, contexts, service } = await open());
              context = contexts.issue("pomodoro", "s-1");
              sub = collect(service, context);
            }
          }
          const final = await service.get(context);
          expect(final).toEqual({ ok: true, value: { data: lastData, revision: expectedRevision } });
          await settle();
          // Subscription frames: the first is the full snapshot at registration, then strictly increasing revisions.
          expect(sub.frames.length).toBeGreaterThan(0);
          for (let i = 1; i < sub.frames.length; i++) expect(sub.frames[i]!.revision).toBeGreaterThan(sub.frames[i - 1]!.revision);
          expect(sub.frames[sub.frames.length - 1]).toEqual({ data: lastData, revision: expectedRevision });
          sub.stop();
          await store.close();
        },
      ),
      { numRuns: backend.name === "SQLite store" ? 40 : 150, seed: 0x52 },
    );
  });

  it(`a write between get() and subscribe() is in the first frame or the next (${backend.name})`, async () => {
    backend.dispose();
    const { store, contexts, service } = await open();
    const context = contexts.issue("pomodoro", "s-9");
    const seen = await service.get(context);
    expect(seen).toEqual({ ok: true, value: { data: null, revision: 0 } });
    const write = service.replace(context, { data: { v: 1 }, expected_revision: 0 });
    const sub = collect(service, context);
    await write;
    await service.replace(context, { data: { v: 2 }, expected_revision: 1 });
    await settle();
    expect(sub.frames).toEqual([{ data: { v: 1 }, revision: 1 }, { data: { v: 2 }, revision: 2 }]);
    const late = collect(service, context);
    await settle();
    expect(late.frames).toEqual([{ data: { v: 2 }, revision: 2 }]);
    sub.stop();
    late.stop();
    // A throwing listener does not break the others.
    const errors: unknown[] = [];
    const guarded = createSessionDataService({ store, collection: "session-data", contexts, onListenerError: (e) => errors.push(e) });
    const bad = guarded.subscribe(context, () => {
      throw new Error("listener bug");
    });
    const good = collect(guarded, context);
    await guarded.replace(context, { data: { v: 3 }, expected_revision: 2 });
    await settle();
    expect(errors.length).toBeGreaterThan(0);
    expect(good.frames.map((f) => f.revision)).toEqual([2, 3]);
    if (bad.ok) bad.value();
    good.stop();
    await store.close();
  });
});
