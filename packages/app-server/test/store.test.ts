/** The store underneath: migrations, pragmas, restart, and the group-commit queue's all-or-nothing rules. */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { LineUpError, type SessionEvent } from "@lineup/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../src/clock.js";
import { silentLogger } from "../src/logger.js";
import { DATABASE_FILE, openDatabase } from "../src/store/database.js";
import { MIGRATIONS, runMigrations } from "../src/store/migrations.js";
import { createAgent, createUser } from "../src/store/principals.js";
import { insertSession } from "../src/store/sessions.js";
import { WriteQueue } from "../src/write-queue.js";
import { startAppServer } from "../src/index.js";
import { START, tempDir, TestClient } from "./helpers.js";

const dirs: Array<{ remove(): void }> = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.remove();
});
function dataDir(): string {
  const d = tempDir();
  dirs.push(d);
  return d.path;
}

describe("migrations", () => {
  it("apply in order once, recorded by name", () => {
    const { db, migrations } = openDatabase(dataDir());
    expect(migrations).toEqual({ ok: true, applied: MIGRATIONS.map((m) => m.name) });
    expect(db.prepare("SELECT step, name FROM schema_migrations ORDER BY step").all()).toEqual(MIGRATIONS.map((m, i) => ({ step: i, name: m.name })));
    expect(runMigrations(db)).toEqual({ ok: true, applied: [] });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("synchronous", { simple: true })).toBe(2);
    db.close();
  });

  it("a file recording an unknown step is refused, not misread", () => {
    const dir = dataDir();
    mkdirSync(dir, { recursive: true });
    const raw = new Database(join(dir, DATABASE_FILE));
    runMigrations(raw);
    raw.prepare("INSERT INTO schema_migrations (step, name, applied_at) VALUES (?, ?, ?)").run(MIGRATIONS.length, "9999_from_the_future", new Date().toISOString());
    raw.close();
    expect(() => openDatabase(dir)).toThrow(/9999_from_the_future/);
  });

  it("0005 moves the log to a rowid table and keeps every event and the (session_id, seq) key", () => {
    const db = new Database(":memory:");
    expect(runMigrations(db, MIGRATIONS.slice(0, 4)).ok).toBe(true);
    const insert = db.prepare("INSERT INTO events (session_id, seq, kind, body, created_at) VALUES (?, ?, 'envelope', ?, 't')");
    for (let seq = 1; seq <= 3; seq++) insert.run("s-1", seq, `{"seq":${seq}}`);
    insert.run("s-2", 1, '{"seq":1}');
    expect(runMigrations(db, MIGRATIONS.slice(0, 5))).toEqual({ ok: true, applied: ["0005_events_rowid_table"] });
    expect(db.prepare("SELECT session_id, seq, body FROM events ORDER BY session_id, seq").all()).toEqual([
      { session_id: "s-1", seq: 1, body: '{"seq":1}' },
      { session_id: "s-1", seq: 2, body: '{"seq":2}' },
      { session_id: "s-1", seq: 3, body: '{"seq":3}' },
      { session_id: "s-2", seq: 1, body: '{"seq":1}' },
    ]);
    expect(() => db.prepare("INSERT INTO events (session_id, seq, kind, body, created_at) VALUES ('s-1', 2, 'x', '{}', 't')").run()).toThrow(/UNIQUE/);
    expect(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'events'").get()).not.toMatchObject({ sql: expect.stringMatching(/WITHOUT ROWID/) });
  });

  it("0006 moves the idempotency records to a rowid table and keeps every record and the (principal, key) uniqueness", () => {
    const db = new Database(":memory:");
    expect(runMigrations(db, MIGRATIONS.slice(0, 5)).ok).toBe(true);
    const insert = db.prepare("INSERT INTO idempotency (principal, idempotency_key, method, body_sha256, outcome, created_at) VALUES (?, ?, 'm', ?, ?, ?)");
    insert.run("device:d", "k-2", "sha-2", '{"ok":true,"result":2}', "t2");
    insert.run("device:d", "k-1", "sha-1", '{"ok":true,"result":1}', "t1");
    insert.run("agent:a", "k-1", "sha-3", '{"ok":false,"error":{"code":"duplicate_message","message":"m"}}', "t3");
    expect(runMigrations(db, MIGRATIONS.slice(0, 6))).toEqual({ ok: true, applied: ["0006_idempotency_rowid_table"] });
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

  it("0007 keeps every artifact, without provenance, and stores provenance from then on", () => {
    const db = new Database(":memory:");
    expect(runMigrations(db, MIGRATIONS.slice(0, 6)).ok).toBe(true);
    db.prepare("INSERT INTO users (user_id, display_name, created_at) VALUES ('u', 'U', 't')").run();
    db.prepare("INSERT INTO agents (agent_id, name, created_at) VALUES ('a', 'A', 't')").run();
    db.prepare("INSERT INTO sessions (session_id, app_scope, workspace_id, owner_user_id, agent_id, state, created_at, last_seq, inventory_revision) VALUES ('s', 'chat', 'w', 'u', 'a', 'active', 't', 0, 0)").run();
    db.prepare("INSERT INTO artifacts (session_id, artifact_id, name, mime_type, size, sha256, received, state, created_at) VALUES ('s', 'a-old', 'n', 'text/plain', 0, 'x', 0, 'complete', 't')").run();
    expect(runMigrations(db)).toEqual({ ok: true, applied: ["0007_artifact_provenance"] });
    expect(db.prepare("SELECT artifact_id, provenance FROM artifacts").all()).toEqual([{ artifact_id: "a-old", provenance: null }]);
  });

  it("a failing step leaves the file at the step before", () => {
    const db = new Database(":memory:");
    const outcome = runMigrations(db, [...MIGRATIONS.slice(0, 2), { name: "0003_broken", up: (d) => d.exec("CREATE TABLE oops (; nonsense") }]);
    expect(outcome.ok).toBe(false);
    expect((db.prepare("SELECT count(*) AS n FROM schema_migrations").get() as { n: number }).n).toBe(2);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'oops'").get()).toBeUndefined();
  });
});

describe("restart", () => {
  it("keeps principals and sessions; provisions dev credentials only on an empty data dir", async () => {
    const dir = dataDir();
    const first = await startAppServer({ dataDir: dir, logger: silentLogger });
    const creds = first.devCredentials!;
    expect(JSON.parse(readFileSync(join(dir, "dev-credentials.json"), "utf8"))).toEqual(creds);
    const client = await TestClient.open(first, creds.device_token);
    await client.call("agentSession/start", START("s-restart"));
    await client.close();
    await first.close();
    const second = await startAppServer({ dataDir: dir, logger: silentLogger });
    expect(second.devCredentials).toBeUndefined();
    const again = await TestClient.open(second, creds.device_token);
    expect((await again.call("agentSession/read", { session_id: "s-restart" })).session.last_seq).toBe(1);
    await again.close();
    await second.close();
  });
});

describe("the group-commit queue", () => {
  function setup() {
    const { db } = openDatabase(dataDir());
    createUser(db, "u");
    createAgent(db, "a");
    insertSession(db, { session_id: "s", app_scope: "chat", workspace_id: "w", owner_user_id: "u", agent_id: "a", state: "active", created_at: systemClock.now(), last_seq: 0, inventory_revision: 0 });
    const published: SessionEvent[][] = [];
    const queue = new WriteQueue(db, systemClock, (events) => published.push([...events]), silentLogger);
    return { db, queue, published };
  }
  const append = (n: string) => (ctx: Parameters<Parameters<WriteQueue["submit"]>[0]>[0]) => ctx.append("s", "turn.activated", { role: "server", id: "x" }, { turn_id: n }).seq;

  it("commits writes queued together in one transaction; a write that throws is undone alone", async () => {
    const { db, queue, published } = setup();
    const results = await Promise.allSettled([
      queue.submit(append("t1")),
      queue.submit((ctx) => {
        append("t-undone")(ctx);
        throw new LineUpError("invalid_state", "refused");
      }),
      queue.submit(append("t2")),
    ]);
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as LineUpError).code))).toEqual([1, "invalid_state", 2]);
    expect(queue.stats()).toMatchObject({ transactions: 1, writes: 3 });
    expect(published).toHaveLength(1);
    expect(published[0]!.map((e) => e.data)).toEqual([{ turn_id: "t1" }, { turn_id: "t2" }]);
    expect(db.prepare("SELECT seq FROM events ORDER BY seq").all()).toEqual([{ seq: 1 }, { seq: 2 }]);
    db.close();
  });

  it("a failed transaction acknowledges and publishes nothing, and the queue works once the fault clears", async () => {
    const { db, queue, published } = setup();
    db.pragma("query_only = ON");
    const failed = await Promise.allSettled([queue.submit(append("t1")), queue.submit(append("t2"))]);
    for (const r of failed) expect(r.status === "rejected" && (r.reason as LineUpError).code).toBe("store_write_failed");
    expect(published).toEqual([]);
    db.pragma("query_only = OFF");
    expect(await queue.submit(append("t3"))).toBe(1);
    expect(published.flat().map((e) => e.data)).toEqual([{ turn_id: "t3" }]);
    db.close();
  });

  it("runs after-commit hooks after the events were published, only for writes that were kept", async () => {
    const { db, queue, published } = setup();
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
      queue.submit((ctx) => {
        try {
          ctx.savepoint(() => {
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
    db.pragma("query_only = ON");
    await expect(queue.submit((ctx) => ctx.afterCommit(hook("failed commit")))).rejects.toMatchObject({ code: "store_write_failed" });
    db.pragma("query_only = OFF");
    expect(ran).toHaveLength(2);
    db.close();
  });
});
