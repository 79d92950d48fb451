/**
 * app-server-pg: the AppServer on PostgreSQL beside SQLite, in the same run, every server in a process
 * of its own (bin.ts) on a throwaway PostgreSQL cluster with its default durability.
 *
 * 1. Append + fan-out: 10 device connections write envelopes into their own sessions (16 in flight
 *    each) while 10 agent connections follow one session each. Three set-ups in alternating rounds:
 *    SQLite, one process; PostgreSQL, one process; PostgreSQL, two processes (writers on one, followers
 *    on the other: every event crosses by LISTEN/NOTIFY). Measured: events delivered per second, and CPU
 *    µs per event of the AppServer processes and of the PostgreSQL cluster. Floors, same run: SQLite
 *    FULL 100-row transactions, and PostgreSQL 100-row transactions of the same bytes (one statement
 *    each) over one connection: reported, with no target (issue 25 replaced the one against a bare store
 *    insert; the app-server suite's row against a minimal durable relay holds it).
 * 2. Load: 200 connections across two processes for a few seconds (60 s with LINEUP_SOAK=1): 100
 *    writers (half on each process) each send an envelope every second into one of 40 sessions; 100
 *    followers (half on each) follow them. Zero lost and zero duplicated deliveries are checked (the
 *    run fails otherwise); p99 append-to-delivery latency is reported beside the floor of a PostgreSQL
 *    relay: one connection commits an insert with pg_notify, another hears it.
 */
import { readFileSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { execFileSync, type ChildProcess } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { spawnAppServer, exited } from "../../test/support/app-server-process.js";
import { SOAK } from "../../test/support/soak.js";
import { startPostgresCluster, type PostgresCluster } from "../../test/support/postgres.js";
import { Client, key, messageEnvelope, type Frame } from "../load/client.js";
import { machine, median, percentile, type BenchResult, type SuiteResult } from "../lib.js";
import { sqliteFloorRound } from "./app-server.js";

const TICK_US = 1e6 / Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim());

/** utime, stime, cutime, cstime of a process (µs), and its parent; undefined when it is gone. */
function procCpu(pid: number): { own: number; children: number; ppid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { own: (Number(f[11]) + Number(f[12])) * TICK_US, children: (Number(f[13]) + Number(f[14])) * TICK_US, ppid: Number(f[1]) };
  } catch {
    return undefined;
  }
}

/** CPU µs of the cluster: the postmaster, the backends that ended (its children's time), and the live ones. */
function clusterCpu(postmaster: number): number {
  const root = procCpu(postmaster);
  if (root === undefined) return 0;
  let total = root.own + root.children;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const p = procCpu(Number(entry));
    if (p?.ppid === postmaster) total += p.own;
  }
  return total;
}

interface Server {
  readonly child: ChildProcess;
  readonly url: string;
  readonly dir: string;
}

async function startServer(db: string | undefined): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), "lineup-bench-pg-"));
  const { child, url } = await spawnAppServer({ dataDir: dir, db });
  return { child, url, dir };
}

async function stopServer(server: Server): Promise<void> {
  server.child.kill("SIGTERM");
  await exited(server.child);
  rmSync(server.dir, { recursive: true, force: true });
}

const credentialsOf = (server: Server) => JSON.parse(readFileSync(join(server.dir, "dev-credentials.json"), "utf8")) as { device_token: string; agent_token: string };

interface SetUp {
  readonly name: string;
  /** Writers connect here, followers to `follow`. */
  readonly write: Server;
  readonly follow: Server;
  readonly credentials: { device_token: string; agent_token: string };
  readonly servers: readonly Server[];
}

interface Measure {
  readonly rate: number;
  readonly serverCpuUs: number;
  readonly pgCpuUs: number;
}

/** One measured window of append + fan-out (clients in this process). */
async function fanOutRound(setUp: SetUp, round: number, windowMs: number, postmaster: number | undefined): Promise<Measure> {
  const writers = 10;
  const inFlight = 16;
  const devices = await Promise.all(Array.from({ length: writers }, () => Client.open(setUp.write.url, setUp.credentials.device_token)));
  const agents = await Promise.all(Array.from({ length: writers }, () => Client.open(setUp.follow.url, setUp.credentials.agent_token)));
  const sessions = devices.map((_, i) => `bench-${setUp.name}-r${round}-s${i}`);
  await Promise.all(devices.map((d, i) => d.call("agentSession/start", { idempotency_key: key(), session_id: sessions[i], app_scope: "chat", workspace_id: "w", agent_id: "demo-agent" })));
  let delivered = 0;
  let counting = false;
  for (const a of agents) a.onNotification = (f) => void (counting && f.method === "agentSession/event" && delivered++);
  await Promise.all(agents.map((a, i) => a.call("agentSession/subscribe", { session_id: sessions[i], after_seq: 1 })));
  let stop = false;
  const running = devices.map(async (device, i) => {
    let n = 0;
    const lane = async () => {
      while (!stop) await device.call("agentSession/envelope/send", { session_id: sessions[i], idempotency_key: key(), envelope: messageEnvelope(sessions[i]!, ++n) });
    };
    await Promise.all(Array.from({ length: inFlight }, lane));
  });
  await new Promise((r) => setTimeout(r, 300)); // warm-up
  const cpu = () => ({ server: setUp.servers.reduce((sum, s) => sum + (procCpu(s.child.pid!)?.own ?? 0), 0), pg: postmaster === undefined ? 0 : clusterCpu(postmaster) });
  const before = cpu();
  counting = true;
  const start = performance.now();
  await new Promise((r) => setTimeout(r, windowMs));
  counting = false;
  const elapsed = performance.now() - start;
  const after = cpu();
  stop = true;
  await Promise.all(running);
  for (const c of [...devices, ...agents]) c.close();
  const events = Math.max(1, delivered);
  return { rate: (delivered * 1000) / elapsed, serverCpuUs: (after.server - before.server) / events, pgCpuUs: (after.pg - before.pg) / events };
}

/** PostgreSQL's floor for the same bytes: 100-row transactions, one statement each, over one connection. */
async function postgresFloorRound(url: string, bytes: string, windowMs: number): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("CREATE TABLE IF NOT EXISTS floor_events (session TEXT, seq INTEGER, body TEXT, PRIMARY KEY (session, seq))");
  const session = `floor-${key()}`;
  const bodies = Array.from({ length: 100 }, () => bytes);
  let seq = 0;
  const start = performance.now();
  while (performance.now() - start < windowMs) {
    const seqs = Array.from({ length: 100 }, () => ++seq);
    await client.query("BEGIN");
    await client.query({ name: "floor", text: "INSERT INTO floor_events SELECT $1, s, b FROM unnest($2::int[], $3::text[]) AS t(s, b)", values: [session, seqs, bodies] });
    await client.query("COMMIT");
  }
  const rate = (seq * 1000) / (performance.now() - start);
  await client.end();
  return rate;
}

/** PostgreSQL's floor for append-to-delivery: commit an insert with pg_notify on one connection, hear it on another. */
async function notifyFloor(url: string, samples: number): Promise<number[]> {
  const writer = new pg.Client({ connectionString: url });
  const listener = new pg.Client({ connectionString: url });
  await writer.connect();
  await listener.connect();
  await writer.query("CREATE TABLE IF NOT EXISTS floor_relay (id INTEGER PRIMARY KEY, body TEXT)");
  await listener.query("LISTEN floor_relay");
  const bytes = JSON.stringify(messageEnvelope("floor", 1));
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const heard = new Promise<void>((r) => listener.once("notification", () => r()));
    const t0 = performance.now();
    await writer.query("BEGIN");
    await writer.query({ name: "relay", text: "INSERT INTO floor_relay VALUES ($1, $2)", values: [i, bytes] });
    await writer.query("SELECT pg_notify('floor_relay', $1)", [String(i)]);
    await writer.query("COMMIT");
    await heard;
    times.push(performance.now() - t0);
  }
  await writer.end();
  await listener.end();
  return times;
}

interface LoadOutcome {
  readonly latencies: number[];
  readonly writes: number;
  readonly acked: number;
  readonly failed: number;
  readonly deliveries: number;
  readonly lost: number;
  readonly duplicated: number;
  /** Followers that got their session's events out of order or with a gap. */
  readonly disordered: number;
  readonly serverCpuUs: number;
  readonly pgCpuUs: number;
}

/** 200 connections across two processes for `durationMs`: paced writers, followers on both, every delivery checked. */
async function loadTest(a: Server, b: Server, credentials: { device_token: string; agent_token: string }, durationMs: number, postmaster: number): Promise<LoadOutcome> {
  const SESSIONS = 40;
  const WRITERS = 100;
  const FOLLOWERS = 100;
  const PERIOD_MS = 1_000;
  const sessions = Array.from({ length: SESSIONS }, (_, i) => `load-${key()}-${i}`);
  const starter = await Client.open(a.url, credentials.device_token);
  for (const s of sessions) await starter.call("agentSession/start", { idempotency_key: key(), session_id: s, app_scope: "chat", workspace_id: "w", agent_id: "demo-agent" });
  starter.close();
  const writers = await Promise.all(Array.from({ length: WRITERS }, (_, i) => Client.open(i % 2 === 0 ? a.url : b.url, credentials.device_token)));
  const followers = await Promise.all(Array.from({ length: FOLLOWERS }, (_, j) => Client.open(j % 2 === 0 ? b.url : a.url, credentials.agent_token)));
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  const received = followers.map(() => [] as number[]);
  followers.forEach((f, j) => {
    f.onNotification = (frame: Frame) => {
      if (frame.method !== "agentSession/event") return;
      received[j]!.push(frame.params.seq as number);
      const sent = sentAt.get(frame.params.data?.envelope?.id as string);
      if (sent !== undefined) latencies.push(performance.now() - sent);
    };
  });
  await Promise.all(followers.map((f, j) => f.call("agentSession/subscribe", { session_id: sessions[j % SESSIONS], after_seq: 1 })));
  const acked = new Map<string, number>(); // envelope id → seq
  let writes = 0;
  let failed = 0;
  let stop = false;
  const cpu = () => ({ server: procCpu(a.child.pid!)!.own + procCpu(b.child.pid!)!.own, pg: clusterCpu(postmaster) });
  const before = cpu();
  const running = writers.map(async (w, i) => {
    const session = sessions[i % SESSIONS]!;
    await new Promise((r) => setTimeout(r, Math.random() * PERIOD_MS));
    const pending: Array<Promise<void>> = [];
    for (let n = 0; !stop; n++) {
      const envelope = { ...messageEnvelope(session, n), id: `w${i}-${n}-${key()}` };
      writes++;
      sentAt.set(envelope.id, performance.now());
      pending.push(
        w.call("agentSession/envelope/send", { session_id: session, idempotency_key: key(), envelope }).then(
          (r: { seq: number }) => void acked.set(envelope.id, r.seq),
          () => void failed++,
        ),
      );
      await new Promise((r) => setTimeout(r, PERIOD_MS));
    }
    await Promise.all(pending);
  });
  await new Promise((r) => setTimeout(r, durationMs));
  stop = true;
  await Promise.all(running);
  // Every follower catches up to its session's head, or the difference is lost.
  const reader = await Client.open(b.url, credentials.device_token);
  const heads = await Promise.all(sessions.map(async (s) => (await reader.call("agentSession/read", { session_id: s })).session.last_seq as number));
  const deadline = performance.now() + 30_000;
  while (performance.now() < deadline && received.some((r, j) => new Set(r).size < heads[j % SESSIONS]! - 1)) await new Promise((r) => setTimeout(r, 50));
  const after = cpu();
  let lost = 0;
  let duplicated = 0;
  let deliveries = 0;
  let disordered = 0;
  received.forEach((r, j) => {
    const distinct = new Set(r);
    deliveries += r.length;
    duplicated += r.length - distinct.size;
    lost += heads[j % SESSIONS]! - 1 - distinct.size;
    // In order, from the subscription's cursor, without a gap.
    if (r.some((seq, k) => seq !== k + 2)) disordered++;
  });
  // Every acknowledged write reached every follower of its session at its acknowledged seq.
  for (const [id, seq] of acked) {
    const session = Number(/^w(\d+)-/.exec(id)![1]) % SESSIONS;
    received.forEach((r, j) => {
      if (j % SESSIONS === session && !r.includes(seq)) lost++;
    });
  }
  for (const c of [reader, ...writers, ...followers]) c.close();
  const events = Math.max(1, deliveries);
  return { latencies, writes, acked: acked.size, failed, deliveries, lost, duplicated, disordered, serverCpuUs: (after.server - before.server) / events, pgCpuUs: (after.pg - before.pg) / events };
}

export async function run(): Promise<SuiteResult> {
  const results: BenchResult[] = [];
  const bytes = JSON.stringify(messageEnvelope("bench-s0", 1));
  const cluster: PostgresCluster = await startPostgresCluster({ durable: true });
  const started: Server[] = [];
  const start = async (db: string | undefined) => {
    const s = await startServer(db);
    started.push(s);
    return s;
  };
  try {
    const postmaster = cluster.postmasterPid();
    const sqlite = await start(undefined);
    const pg1 = await start(await cluster.createDatabase("bench_one"));
    const twoDb = await cluster.createDatabase("bench_two");
    const pgA = await start(twoDb);
    const pgB = await start(twoDb);
    const floorDb = await cluster.createDatabase("bench_floor");
    const setUps: SetUp[] = [
      { name: "sqlite", write: sqlite, follow: sqlite, credentials: credentialsOf(sqlite), servers: [sqlite] },
      { name: "pg1", write: pg1, follow: pg1, credentials: credentialsOf(pg1), servers: [pg1] },
      { name: "pg2", write: pgA, follow: pgB, credentials: credentialsOf(pgA), servers: [pgA, pgB] },
    ];
    const measures = new Map<string, Measure[]>(setUps.map((s) => [s.name, []]));
    const sqliteFloor: number[] = [];
    const pgFloor: number[] = [];
    for (const s of setUps) await fanOutRound(s, 0, 500, cluster.postmasterPid()); // warm-up
    for (let round = 1; round <= 5; round++) {
      for (const s of setUps) measures.get(s.name)!.push(await fanOutRound(s, round, 1_500, s.name === "sqlite" ? undefined : postmaster));
      sqliteFloor.push(sqliteFloorRound(bytes, 1_500));
      pgFloor.push(await postgresFloorRound(floorDb, bytes, 1_500));
    }
    const fanOut = (name: string, metric: string, floorName: string, floor: number[], notes: string) => {
      const m = measures.get(name)!;
      results.push({
        metric,
        unit: "events/s",
        value: Math.round(median(m.map((x) => x.rate))),
        baseline: floorName,
        baseline_value: Math.round(median(floor)),
        ratio: Number(median(m.map((x, i) => x.rate / floor[i]!)).toFixed(3)),
        // No target: no issue sets one, and a bare store insert (no network, no subscribers, no answers) is not a
        // floor a server can reach; the AppServer's fan-out target is append_fanout_10_writers in the app-server suite.
        higher_is_better: true,
        bytes: bytes.length,
        rounds: m.length,
        server_cpu_us_per_event: Number(median(m.map((x) => x.serverCpuUs)).toFixed(1)),
        postgres_cpu_us_per_event: Number(median(m.map((x) => x.pgCpuUs)).toFixed(1)),
        notes,
      });
    };
    const common = "For information, no target (no issue sets one; the AppServer's fan-out target is append_fanout_10_writers in the app-server suite, against a minimal durable relay). 10 writers keep 16 agentSession/envelope/send requests in flight each into their own sessions, 10 followers; clients in the bench process, servers in their own processes; server_cpu_us_per_event: the AppServer processes' CPU time per delivered event, postgres_cpu_us_per_event: the cluster's (postmaster and backends).";
    fanOut("sqlite", "append_fanout_sqlite_1_process", "sqlite_full_batch100_insert", sqliteFloor, `SQLite WAL synchronous=FULL. ${common}`);
    fanOut("pg1", "append_fanout_pg_1_process", "pg_batch100_insert", pgFloor, `PostgreSQL, synchronous_commit on, fsync on. ${common}`);
    fanOut("pg2", "append_fanout_pg_2_processes", "pg_batch100_insert", pgFloor, `Writers on one process, followers on the other: every event reaches its follower by LISTEN/NOTIFY and a read of the rows. ${common}`);

    // 2. Load: 200 connections across two processes, every delivery checked.
    const loadDb = await cluster.createDatabase("bench_load");
    const loadA = await start(loadDb);
    const loadB = await start(loadDb);
    const durationMs = SOAK ? 60_000 : 5_000;
    const load = await loadTest(loadA, loadB, credentialsOf(loadA), durationMs, postmaster);
    const floor = await notifyFloor(floorDb, 300);
    if (load.lost !== 0 || load.duplicated !== 0 || load.disordered !== 0 || load.failed !== 0) {
      throw new Error(`load test: ${load.lost} lost, ${load.duplicated} duplicated, ${load.disordered} followers out of order, ${load.failed} failed writes`);
    }
    const p = (xs: number[], q: number) => Number(percentile(xs, q).toFixed(3));
    results.push({
      metric: "load_200_connections_2_processes_p99",
      unit: "ms",
      value: p(load.latencies, 99),
      baseline: "pg_commit_notify_heard_p99",
      baseline_value: p(floor, 99),
      ratio: Number((percentile(load.latencies, 99) / percentile(floor, 99)).toFixed(3)),
      target_ratio: 10,
      higher_is_better: false,
      p50_ms: p(load.latencies, 50),
      baseline_p50_ms: p(floor, 50),
      duration_s: durationMs / 1000,
      connections: 200,
      writes: load.writes,
      acknowledged: load.acked,
      failed: load.failed,
      deliveries: load.deliveries,
      lost: load.lost,
      duplicated: load.duplicated,
      out_of_order_followers: load.disordered,
      server_cpu_us_per_delivery: Number(load.serverCpuUs.toFixed(1)),
      postgres_cpu_us_per_delivery: Number(load.pgCpuUs.toFixed(1)),
      notes:
        "append-to-delivery: from a writer's send to a follower's receipt of the event; 100 writers (half on each process) send one envelope a second into 40 sessions, 100 followers (half on each process) follow them; lost/duplicated count every follower's deliveries against its session's log. " +
        "Floor: one connection commits an insert with pg_notify, another hears it (no load). 60 s under LINEUP_SOAK=1.",
    });
  } finally {
    for (const s of started) await stopServer(s);
    await cluster.stop();
  }
  return { suite: "app-server-pg", machine: machine(), results };
}
