/**
 * The store underneath: migrations, pragmas, restart, and the group-commit queue's all-or-nothing
 * rules — on the run's store (SQLite, or PostgreSQL in the `app-server-postgres` project); the
 * table-layout steps of SQLite on SQLite.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { LineUpError, type SessionEvent } from "@lineup/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../src/clock.js";
import { silentLogger } from "../src/logger.js";
import { openStore } from "../src/store/database.js";
import { MIGRATIONS, runMigrations, type Migration } from "../src/store/migrations.js";
import { createAgent, createUser } from "../src/store/principals.js";
import { insertSession } from "../src/store/sessions.js";
import { SqliteDb } from "../src/store/sql.js";
import { WriteQueue, type WriteContext } from "../src/write-queue.js";
import { startAppServer } from "../src/index.js";
import { openTestStore, START, storeFault, TEST_STORE, TestClient } from "./helpers.js";

const opened: Array<{ dispose(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.dispose();
});
async function testStore() {
  const o = await openTestStore();
  opened.push(o);
  return o;
}
/** A SQLite database in memory, for SQLite's own table-layout steps. */
const memory = () => new SqliteDb(new Database(":memory:"));

describe("migrations", () => {
  it(`apply in order once, recorded by name (${TEST_STORE})`, async () => {
    const { store } = await testStore();
    expect(store.migrations).toEqual({ ok: true, applied: MIGRATIONS.map((m) => m.name) });
    expect(await store.reader.all("SELECT step, name FROM schema_migrations ORDER BY step")).toEqual(MIGRATIONS.map((m, i) => ({ step: i, name: m.name })));
    expect(await runMigrations(store.writer)).toEqual({ ok: true, applied: [] });
    if (store.writer instanceof SqliteDb) {
      expect(store.writer.raw.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(store.writer.raw.pragma("synchronous", { simple: true })).toBe(2);
    }
  });

  it("a store recording an unknown step is refused, not misread", async () => {
    const { store, db, dataDir } = await testStore();
    await store.writer.run("INSERT INTO schema_migrations (step, name, applied_at) VALUES (?, ?, ?)", [MIGRATIONS.length, "9999_from_the_future", new Date().toISOString()]);
    await expect(openStore({ dataDir, db })).rejects.toThrow(/9999_from_the_future/);
  });

  it("--db that is not a PostgreSQL URL is refused, never taken for the SQLite default", async () => {
    const { dataDir } = await testStore();
    await expect(openStore({ dataDir, db: "mysql://u@127.0.0.1/x" })).rejects.toThrow(/PostgreSQL URL/);
    await expect(openStore({ dataDir, db: "" })).rejects.toThrow(/PostgreSQL URL/);
  });

  it("a failing step leaves the store at the step before", async () => {
    const { store } = await testStore();
    const broken: Migration = { name: "9998_broken", sql: "CREATE TABLE oops (id INTEGER); CREATE TABLE (; nonsense" };
    const outcome = await runMigrations(store.writer, [...MIGRATIONS, broken]);
    expect(outcome.ok).toBe(false);
    expect(Number((await store.reader.get<{ n: number | string }>("SELECT count(*) AS n FROM schema_migrations"))!.n)).toBe(MIGRATIONS.length);
    await expect(Promise.resolve().then(() => store.reader.get("SELECT 1 FROM oops"))).rejects.toThrow(/oops/);
  });

  it("0005 (SQLite layout) moves the log to a rowid table and keeps every event and the (session_id, seq) key", async () => {
    const sqlite = memory();
    const db = sqlite.raw;
    expect((await runMigrations(sqlite, MIGRATIONS.slice(0, 4))).ok).toBe(true);
    const insert = db.prepare("INSERT INTO events (session_id, seq, kind, body, created_at) VALUES (?, ?, 'envelope', ?, 't')");
    for (let seq = 1; seq <= 3; seq++) insert.run("s-1", seq, `{"seq":${seq}}`);
    insert.run("s-2", 1, '{"seq":1}');
    expect(await runMigrations(sqlite, MIGRATIONS.slice(0, 5))).toEqual({ ok: true, applied: ["0005_events_rowid_table"] });
    expect(db.prepare("SELECT session_id, seq, body FROM events ORDER BY session_id, seq").all()).toEqual([
      { session_id: "s-1", seq: 1, body: '{"seq":1}' },
      { session_id: "s-1", seq: 2, body: '{"seq":2}' },
      { session_id: "s-1", seq: 3, body: '{"seq":3}' },
      { session_id: "s-2", seq: 1, body: '{"seq":1}' },
    ]);
    expect(() => db.prepare("INSERT INTO events (session_id, seq, kind, body, created_at) VALUES ('s-1', 2, 'x', '{}', 't')").run()).toThrow(/UNIQUE/);
    expect(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'events'").get()).not.toMatchObject({ sql: expect.stringMatching(/WITHOUT ROWID/) });
  });

  it("0006 moves the idempotency records to a rowid table and keeps every record and the (principal, key) uniqueness", async () => {
    const sqlite = memory();
    const db = sqlite.raw;
    expect((await runMigrations(sqlite, MIGRATIONS.slice(0, 5))).ok).toBe(true);
    const insert = db.prepare("INSERT INTO idempotency (principal, idempotency_key, method, body_sha256, outcome, created_at) VALUES (?, ?, 'm', ?, ?, ?)");
    insert.run("device:d", "k-2", "sha-2", '{"ok":true,"result":2}', "t2");
    insert.run("device:d", "k-1", "sha-1", '{"ok":true,"result":1}', "t1");
    insert.run("agent:a", "k-1", "sha-3", '{"ok":false,"error":{"code":"duplicate_message","message":"m"}}', "t3");
    expect(await runMigrations(sqlite, MIGRATIONS.slice(0, 6))).toEqual({ ok: true, applied: ["0006_idempotency_rowid_table"] });
    expect(db.prepare("SELECT principal, idempotency_key, body_sha256, outcome FROM idempotency ORDER BY principal, idempotency_key").all()).toEqual([
      { principal: "agent:a", idempotency_key: "k-1", body_sha256: "sha-3", outcome: '{"ok":false,"error":{"code":"duplicate_message","message":"m"}}' },
      { principal: "device:d", idempotency_key: "k-1", body_sha256: "sha-1", outcome: '{"ok":true,"result":1}' },
      { principal: "device:d", idempotency_key: "k-2", body_sha256: "sha-2", outcome: '{"ok":true,"result":2}' },
    ]);
    // The key is still unique per principal: the write path's INSERT … ON CONFLICT DO NOTHING is its lookup.
    expect(insert.run("device:d", "k-9", "s", "{}", "t").changes).toBe(1);
    expect(db.prepare("INSERT INTO idempotency (principal, idempotency_key, method, body_sha256, outcome, created_at) VALUES ('device:d', 'k-1', 'm', 'x', '{}', 't') ON CONFLICT DO NOTHING").run().changes).toBe(0);
    expect(() => insert.run("device:d", "k-1", "x", "{}", "t")).toThrow(/UNIQUE/);
    expect(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'idempotency'").get()).not.toMatchObject({ sql: expect.stringMatching(/WITHOUT ROWID/) });
  });

  it("0007 (SQLite) keeps every artifact, without provenance, and stores provenance from then on", async () => {
    const sqlite = memory();
    const db = sqlite.raw;
    expect((await runMigrations(sqlite, MIGRATIONS.slice(0, 6))).ok).toBe(true);
    db.prepare("INSERT INTO users (user_id, display_name, created_at) VALUES ('u', 'U', 't')").run();
    db.prepare("INSERT INTO agents (agent_id, name, created_at) VALUES ('a', 'A', 't')").run();
    db.prepare("INSERT INTO sessions (session_id, app_scope, workspace_id, owner_user_id, agent_id, state, created_at, last_seq, inventory_revision) VALUES ('s', 'chat', 'w', 'u', 'a', 'active', 't', 0, 0)").run();
    db.prepare("INSERT INTO artifacts (session_id, artifact_id, name, mime_type, size, sha256, received, state, created_at) VALUES ('s', 'a-old', 'n', 'text/plain', 0, 'x', 0, 'complete', 't')").run();
    expect(await runMigrations(sqlite, MIGRATIONS.slice(0, 7))).toEqual({ ok: true, applied: ["0007_artifact_provenance"] });
    expect(db.prepare("SELECT artifact_id, provenance FROM artifacts").all()).toEqual([{ artifact_id: "a-old", provenance: null }]);
  });

  it(`0012 reads when something was last said in each session from its log (${TEST_STORE})`, async () => {
    const { store } = await testStore();
    const db = store.writer;
    await db.run("INSERT INTO users (user_id, display_name, created_at) VALUES ('u-12', 'U', 't')");
    await db.run("INSERT INTO agents (agent_id, name, created_at) VALUES ('a-12', 'A', 't')");
    for (const id of ["s-message", "s-turn-then-tools", "s-quiet"]) {
      await db.run("INSERT INTO sessions (session_id, app_scope, workspace_id, owner_user_id, agent_id, state, created_at, last_seq, inventory_revision) VALUES (?, 'chat', 'w', 'u-12', 'a-12', 'active', '2026-12-01T00:00:00.000Z', 0, 0)", [id]);
    }
    const event = (sessionId: string, seq: number, kind: string, at: string, data: Record<string, unknown> = {}) =>
      db.run("INSERT INTO events (session_id, seq, kind, body, created_at) VALUES (?, ?, ?, ?, ?)", [sessionId, seq, kind, JSON.stringify({ session_id: sessionId, seq, kind, created_at: at, actor: { role: "agent", id: "a-12" }, data }), at]);
    const envelope = (type: string) => ({ envelope: { v: 1, id: `e-${type}`, type } });
    await event("s-message", 1, "session.started", "2026-12-01T00:00:00.000Z");
    await event("s-message", 2, "turn.started", "2026-12-01T01:00:00.000Z");
    await event("s-message", 3, "envelope", "2026-12-01T02:00:00.000Z", envelope("lineup.message"));
    await event("s-turn-then-tools", 1, "session.started", "2026-12-01T00:00:00.000Z");
    await event("s-turn-then-tools", 2, "turn.completed", "2026-12-01T03:00:00.000Z");
    await event("s-turn-then-tools", 3, "envelope", "2026-12-01T04:00:00.000Z", envelope("lineup.tool.result"));
    await event("s-turn-then-tools", 4, "inventory.published", "2026-12-01T05:00:00.000Z");
    await event("s-turn-then-tools", 5, "turn.updated", "2026-12-01T06:00:00.000Z");
    await event("s-quiet", 1, "session.started", "2026-12-01T00:00:00.000Z");
    await event("s-quiet", 2, "envelope", "2026-12-01T07:00:00.000Z", envelope("lineup.tool.invoke"));
    // The store as it was before the step.
    await db.run("ALTER TABLE sessions DROP COLUMN active_at");
    await db.run("DELETE FROM schema_migrations WHERE name = '0012_session_active_at'");
    expect(await runMigrations(db)).toEqual({ ok: true, applied: ["0012_session_active_at"] });
    expect(await db.all("SELECT session_id, active_at FROM sessions WHERE owner_user_id = 'u-12' ORDER BY session_id")).toEqual([
      { session_id: "s-message", active_at: "2026-12-01T02:00:00.000Z" },
      { session_id: "s-quiet", active_at: null },
      { session_id: "s-turn-then-tools", active_at: "2026-12-01T03:00:00.000Z" },
    ]);
  });

});

describe("restart", () => {
  it("keeps principals and sessions; provisions dev credentials only on an empty store", async () => {
    const { dataDir: dir, db } = await testStore();
    const options = { dataDir: dir, logger: silentLogger, ...(db === undefined ? {} : { db }) };
    const first = await startAppServer(options);
    const creds = first.devCredentials!;
    expect(JSON.parse(readFileSync(join(dir, "dev-credentials.json"), "utf8"))).toEqual(creds);
    const client = await TestClient.open(first, creds.device_token);
    await client.call("agentSession/start", START("s-restart"));
    await client.close();
    await first.close();
    const second = await startAppServer(options);
    expect(second.devCredentials).toBeUndefined();
    const again = await TestClient.open(second, creds.device_token);
    expect((await again.call("agentSession/read", { session_id: "s-restart" })).session.last_seq).toBe(1);
    await again.close();
    await second.close();
  });
});

describe("restart after the inventories were lost", () => {
  it("a session whose stored inventory is gone reports revision 0 again; one that keeps it is unchanged", async () => {
    const { dataDir: dir, db, store } = await testStore();
    const options = { dataDir: dir, logger: silentLogger, ...(db === undefined ? {} : { db }) };
    const first = await startAppServer(options);
    const creds = first.devCredentials!;
    const device = await TestClient.open(first, creds.device_token);
    for (const id of ["s-kept", "s-wiped"]) {
      await device.call("agentSession/start", START(id));
      await device.call("inventory/publish", { session_id: id, idempotency_key: `inv-${id}`, revision: 3, tools: [] });
    }
    await device.close();
    await first.close();
    await store.writer.run("DELETE FROM inventories WHERE session_id = ?", ["s-wiped"]);

    const second = await startAppServer(options);
    const again = await TestClient.open(second, creds.device_token);
    expect((await again.call("agentSession/read", { session_id: "s-kept" })).session.inventory_revision).toBe(3);
    expect((await again.call("agentSession/read", { session_id: "s-wiped" })).session.inventory_revision).toBe(0);
    expect((await again.call("inventory/read", { session_id: "s-wiped" })).inventory).toBeNull();
    // The device publishes again above its own last revision, and the server takes it.
    expect(await again.call("inventory/publish", { session_id: "s-wiped", idempotency_key: "inv-again", revision: 4, tools: [] })).toMatchObject({ revision: 4 });
    await again.close();
    await second.close();
  });
});

describe("the group-commit queue", () => {
  async function setup() {
    const o = await testStore();
    const db = o.store.writer;
    await createUser(db, "u");
    await createAgent(db, "a");
    await insertSession(db, { session_id: "s", app_scope: "chat", workspace_id: "w", owner_user_id: "u", agent_id: "a", state: "active", created_at: systemClock.now(), last_seq: 0, inventory_revision: 0 });
    const published: SessionEvent[][] = [];
    const queue = new WriteQueue(db, systemClock, (events) => published.push([...events]), silentLogger);
    return { db: o.store.reader, queue, published, fault: storeFault(o) };
  }
  const append = (n: string) => async (ctx: WriteContext) => (await ctx.append("s", "turn.activated", { role: "server", id: "x" }, { turn_id: n })).seq;

  it("commits writes queued together in one transaction; a write that throws is undone alone", async () => {
    const { db, queue, published } = await setup();
    const results = await Promise.allSettled([
      queue.submit(append("t1")),
      queue.submit(async (ctx) => {
        await append("t-undone")(ctx);
        throw new LineUpError("invalid_state", "refused");
      }),
      queue.submit(append("t2")),
    ]);
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as LineUpError).code))).toEqual([1, "invalid_state", 2]);
    expect(queue.stats()).toMatchObject({ transactions: 1, writes: 3 });
    expect(published).toHaveLength(1);
    expect(published[0]!.map((e) => e.data)).toEqual([{ turn_id: "t1" }, { turn_id: "t2" }]);
    expect(await db.all("SELECT seq FROM events ORDER BY seq")).toEqual([{ seq: 1 }, { seq: 2 }]);
  });

  it("a failed transaction acknowledges and publishes nothing, and the queue works once the fault clears", async () => {
    const { queue, published, fault } = await setup();
    await fault.on();
    const failed = await Promise.allSettled([queue.submit(append("t1")), queue.submit(append("t2"))]);
    for (const r of failed) expect(r.status === "rejected" && (r.reason as LineUpError).code).toBe("store_write_failed");
    expect(published).toEqual([]);
    await fault.off();
    expect(await queue.submit(append("t3"))).toBe(1);
    expect(published.flat().map((e) => e.data)).toEqual([{ turn_id: "t3" }]);
  });

  it("runs after-commit hooks after the events were published, only for writes that were kept", async () => {
    const { queue, published, fault } = await setup();
    const ran: string[] = [];
    const hook = (name: string) => () => ran.push(`${name} after ${published.length} publish`);
    const results = await Promise.allSettled([
      queue.submit((ctx) => {
        ctx.afterCommit(hook("kept"));
        return append("t1")(ctx);
      }),
      queue.submit((ctx) => {
        ctx.afterCommit(hook("refused write"));
        throw new LineUpError("invalid_state", "refused");
      }),
      queue.submit(async (ctx) => {
        try {
          await ctx.savepoint(async () => {
            ctx.afterCommit(hook("undone savepoint"));
            throw new LineUpError("invalid_state", "inner refusal");
          });
        } catch {
          // the outer write goes on without the inner one
        }
        ctx.afterCommit(hook("outer"));
        return append("t2")(ctx);
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(ran).toEqual(["kept after 1 publish", "outer after 1 publish"]);
    await fault.on();
    await expect(queue.submit((ctx) => ctx.afterCommit(hook("failed commit")))).rejects.toMatchObject({ code: "store_write_failed" });
    await fault.off();
    expect(ran).toHaveLength(2);
  });
});
