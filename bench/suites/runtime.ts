/**
 * runtime: the Runtime's durable paths beside their floors, measured in the same run.
 *
 * - durable_ingest: `agentSession/event` frames → safe JSON-RPC decode → event schema → filter chain
 *   (envelope validation, identity, dedup, app, subscription) → inbox rows + log chunks + cursor
 *   committed on SQLite (WAL, synchronous=FULL, group commit, on a worker thread as the Node host runs
 *   it) → delivered to a subscribed chat app (and auto-acknowledged), beside SQLite FULL 100-row-batch
 *   inserts of the same frame bytes on the bench's own thread. Target ≥ 0.5×.
 * - restore: a store holding 100,000 messages, 1,000 of them unacknowledged → start → online → first
 *   delivery to the app, beside a raw read of the same 100,000 rows. Target ≥ 0.3×; peak heap reported
 *   (< 150 MB), each round starting from a full collection so earlier rounds' garbage is not counted.
 * - outbox_burst_over_link: 20 texts dispatched at once over a link with 10 ms each way, until the
 *   AppServer applied them all, beside a raw client pipelining the same requests over the same link.
 *   Target ≤ 1.5× the time (outbox-link.ts); the stop-and-wait time of the old outbox is reported beside.
 *
 * The server side is an in-memory peer that answers the handshake and pushes pre-encoded frames, so the
 * figures are the Runtime's own cost, not a server's. Ingest frames arrive as a socket delivers them to a
 * Node `ws` client: one read of at most 64 KB (about 55 frames) per event-loop turn, the next read as soon
 * as the loop is free. (Pushed all at once, the whole 5,000-frame backlog was decoded before the first
 * turn could start, which no socket does.)
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { CHUNK_SEQS, chunkKey, chunkOf, createRuntime, RUNTIME_SCHEMA, type RuntimeStore, type StoreWrite } from "@lineup/runtime";
import { openSqliteStore } from "@lineup/runtime/node";
import { benchPeer, eventFrame, type PushMode } from "../ingest-frames.js";
import { collectGarbage, machine, median, type BenchResult, type SuiteResult } from "../lib.js";
import { BURST, LINK_DELAY_MS, measureOutboxOverLink } from "../outbox-link.js";

const INGEST_EVENTS = Number(process.env["LINEUP_BENCH_INGEST"] ?? 5_000);
const RESTORE_MESSAGES = 100_000;
/** What one socket read hands a Node `ws` client at most (libuv reads up to 64 KB at a time). */
const SOCKET_READ_BYTES = 64 * 1024;
const RESTORE_PENDING = 1_000;
const RESTORE_CONVERSATIONS = 10;

const trace = (text: string): void => {
  if (process.env["LINEUP_BENCH_TRACE"] === "1") console.error(`[runtime bench] ${text}`);
};

async function ingestRound(dir: string, round: number, frames: readonly string[], mode: PushMode): Promise<number> {
  trace(`ingest round ${round}`);
  // As the Node host opens it (createNodeRuntime): SQLite on a worker thread.
  const store = await openSqliteStore({ path: join(dir, `ingest-${round}.db`), schema: RUNTIME_SCHEMA, thread: "worker" });
  const peer = benchPeer({ "s-bench": 0 });
  const runtime = createRuntime({ store, transport: peer.transport, serverUrl: "mem://bench", token: "t", relistIntervalMs: 0 });
  runtime.lifecycle.subscribe((l) => trace(`lifecycle ${l.status}`));
  await runtime.start();
  await runtime.whenOnline();
  trace("online");
  let delivered = 0;
  let resolveDone: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  runtime.appPort("chat").subscribeMessages({}, () => {
    if (++delivered === frames.length) resolveDone();
  });
  const start = performance.now();
  peer.push(frames, mode);
  await done;
  const seconds = (performance.now() - start) / 1000;
  await runtime.stop();
  await store.close();
  return frames.length / seconds;
}

function sqliteBatchRound(dir: string, round: number, frames: readonly string[]): number {
  const db = new Database(join(dir, `floor-${round}.db`));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.exec("CREATE TABLE rows (k TEXT PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID");
  const insert = db.prepare("INSERT INTO rows (k, v) VALUES (?, ?)");
  const batch = db.transaction((slice: readonly string[], offset: number) => slice.forEach((text, i) => insert.run(`k${String(offset + i).padStart(8, "0")}`, text)));
  const start = performance.now();
  for (let i = 0; i < frames.length; i += 100) batch.immediate(frames.slice(i, i + 100), i);
  const seconds = (performance.now() - start) / 1000;
  db.close();
  return frames.length / seconds;
}

/** Writes 100,000 inbox messages (1,000 pending) in the Runtime's layout, as a long-used device would hold them. */
async function seedRestoreStore(path: string): Promise<void> {
  const store: RuntimeStore = await openSqliteStore({ path, schema: RUNTIME_SCHEMA });
  const perConversation = RESTORE_MESSAGES / RESTORE_CONVERSATIONS;
  const pendingFrom = perConversation - RESTORE_PENDING / RESTORE_CONVERSATIONS;
  await store.commit([{ op: "put", collection: "meta", key: "runtime", value: { runtime_id: "rt-bench" } }]);
  for (let c = 0; c < RESTORE_CONVERSATIONS; c++) {
    const sid = `s-${c}`;
    await store.commit([
      { op: "put", collection: "sessions", key: sid, value: { conversation_id: sid, app_scope: "chat", agent_id: "agent-1", workspace_id: "w-1", origin: "server" } },
      { op: "put", collection: "cursors", key: sid, value: { seq: perConversation } },
    ]);
    const chunks = new Map<number, { envelopes: (string | null)[]; unseen: { chat: number[] } }>();
    for (let start = 1; start <= perConversation; start += 1_000) {
      const writes: StoreWrite[] = [];
      for (let seq = start; seq < start + 1_000; seq++) {
        const key = `chat/${sid}/${String(seq).padStart(16, "0")}`;
        const text = `## Update ${seq}\n\n` + "- **Review** the whiteboard sketch and the notes.\n".repeat(6);
        writes.push({
          op: "put", collection: "inbox", key,
          value: { message_id: `${sid}:${seq}`, cursor: `${sid}/${String(seq).padStart(16, "0")}`, app_scope: "chat", conversation_id: sid, seq, type: "lineup.message", delivery: "display", sender: { kind: "agent", id: "agent-1" }, created_at: "2026-11-30T06:00:00.000Z", payload: { format: "markdown", text }, envelope_id: `env-${seq}` },
        });
        // The envelope id goes into the message's log chunk; the newest ones' pending marks into its unseen marks.
        const chunk = chunks.get(chunkOf(seq)) ?? { envelopes: new Array<string | null>(CHUNK_SEQS).fill(null), unseen: { chat: [] } };
        chunk.envelopes[seq % CHUNK_SEQS] = `env-${seq}`;
        if (seq > pendingFrom) chunk.unseen.chat.push(seq);
        chunks.set(chunkOf(seq), chunk);
      }
      await store.commit(writes);
    }
    await store.commit(
      [...chunks].flatMap(([n, { envelopes, unseen }]): StoreWrite[] => [
        { op: "put", collection: "log-chunks", key: chunkKey(sid, n), value: { envelopes } },
        ...(unseen.chat.length === 0 ? [] : [{ op: "put", collection: "inbox-unseen", key: chunkKey(sid, n), value: unseen } as const]),
      ]),
    );
  }
  await store.close();
  trace("seeded");
}

let restoreCopies = 0;


/** Each round restores a fresh copy of the seeded store: a round's auto-acknowledgements must not shrink the next round's backlog. */
async function restoreRound(seeded: string, heap: { peak: number; start: number }): Promise<number> {
  const path = `${seeded}.${restoreCopies++}`;
  copyFileSync(seeded, path);
  const sessions = Object.fromEntries(Array.from({ length: RESTORE_CONVERSATIONS }, (_, c) => [`s-${c}`, RESTORE_MESSAGES / RESTORE_CONVERSATIONS]));
  // A full collection, so a restore's peak heap counts what that restore holds, not the garbage the rounds
  // before it left (the ingest rounds allocate hundreds of MB that no GC has reclaimed yet).
  collectGarbage();
  heap.start = Math.max(heap.start, process.memoryUsage().heapUsed);
  const sampler = setInterval(() => (heap.peak = Math.max(heap.peak, process.memoryUsage().heapUsed)), 1);
  const start = performance.now();
  const store = await openSqliteStore({ path, schema: RUNTIME_SCHEMA, thread: "worker" });
  const peer = benchPeer(sessions);
  const runtime = createRuntime({ store, transport: peer.transport, serverUrl: "mem://bench", token: "t", relistIntervalMs: 0 });
  const first = new Promise<void>((resolve) => runtime.appPort("chat").subscribeMessages({ include_pending: true }, () => resolve()));
  runtime.lifecycle.subscribe((l) => trace(`restore lifecycle ${l.status}`));
  await runtime.start();
  await runtime.whenOnline();
  await first;
  trace("first delivery");
  const seconds = (performance.now() - start) / 1000;
  heap.peak = Math.max(heap.peak, process.memoryUsage().heapUsed);
  clearInterval(sampler);
  await runtime.stop();
  await store.close();
  rmSync(path, { force: true });
  return 1 / seconds;
}

function rawReadRound(path: string): number {
  const start = performance.now();
  const db = new Database(path, { readonly: true });
  let bytes = 0;
  for (const row of db.prepare("SELECT key, value FROM entries WHERE collection = 'inbox' ORDER BY key").iterate() as Iterable<{ key: string; value: string }>) bytes += row.value.length;
  db.close();
  if (bytes === 0) throw new Error("raw read found no rows");
  return 1 / ((performance.now() - start) / 1000);
}

async function paired(ours: () => Promise<number>, floor: () => Promise<number> | number, rounds: number): Promise<{ ours: number; floor: number; ratio: number }> {
  await ours();
  await floor();
  const a: number[] = [];
  const b: number[] = [];
  const r: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const [x, y] = i % 2 === 0 ? [await ours(), await floor()] : [await floor(), await ours()].reverse() as [number, number];
    a.push(x);
    b.push(y);
    r.push(x / y);
  }
  return { ours: median(a), floor: median(b), ratio: median(r) };
}

export async function run(): Promise<SuiteResult> {
  const dir = mkdtempSync(join(tmpdir(), "lineup-bench-runtime-"));
  const results: BenchResult[] = [];
  try {
    const frames = Array.from({ length: INGEST_EVENTS }, (_, i) => eventFrame("s-bench", i + 1));
    let round = 0;
    // The frames arrive as a Node `ws` client receives them: one 64 KB socket read per event-loop turn.
    const reads: PushMode = { kind: "reads", readBytes: SOCKET_READ_BYTES };
    const ingest = await paired(() => ingestRound(dir, round++, frames, reads), () => sqliteBatchRound(dir, round++, frames), 7);
    // The same with every frame handed over at once (reported, not the target's figure).
    const burst = await paired(() => ingestRound(dir, round++, frames, { kind: "burst" }), () => sqliteBatchRound(dir, round++, frames), 5);
    results.push({
      metric: "durable_ingest",
      unit: "events/s",
      value: Math.round(ingest.ours),
      baseline: "sqlite_full_batch100_insert_same_bytes",
      baseline_value: Math.round(ingest.floor),
      ratio: Number(ingest.ratio.toFixed(3)),
      target_ratio: 0.5,
      higher_is_better: true,
      events_per_round: INGEST_EVENTS,
      frame_bytes: frames[0]!.length,
      socket_read_bytes: SOCKET_READ_BYTES,
      burst_ratio: Number(burst.ratio.toFixed(3)),
      notes:
        "Frames reach the Runtime as a socket delivers them to a Node ws client: one read of at most socket_read_bytes (about 55 frames) per event-loop turn, the next as soon as the loop is free. " +
        "burst_ratio: the same run with all 5,000 frames handed over at once, so that all of them are decoded before the first turn starts and the SQLite worker waits meanwhile.",
    });

    const path = join(dir, "restore.db");
    await seedRestoreStore(path);
    const heap = { peak: 0, start: 0 };
    const restore = await paired(() => restoreRound(path, heap), () => rawReadRound(path), 5);
    results.push({
      metric: "restore_to_first_delivery",
      unit: "restores/s",
      value: Number(restore.ours.toFixed(2)),
      baseline: "raw_read_same_100k_rows",
      baseline_value: Number(restore.floor.toFixed(2)),
      ratio: Number(restore.ratio.toFixed(3)),
      target_ratio: 0.3,
      higher_is_better: true,
      restore_ms: Number((1000 / restore.ours).toFixed(1)),
      raw_read_ms: Number((1000 / restore.floor).toFixed(1)),
      stored_messages: RESTORE_MESSAGES,
      unacknowledged: RESTORE_PENDING,
      peak_heap_mb: Number((heap.peak / 1024 / 1024).toFixed(1)),
      heap_before_restore_mb: Number((heap.start / 1024 / 1024).toFixed(1)),
      heap_target_mb: 150,
      notes: "peak_heap_mb: the highest heapUsed sampled every millisecond from start to first delivery, over all rounds, each round starting from a full collection (heap_before_restore_mb: the largest heap at such a start).",
    });

    const link = await measureOutboxOverLink(7);
    results.push({
      metric: "outbox_burst_over_link",
      unit: "ms",
      value: Number(link.ours_ms.toFixed(1)),
      baseline: "raw_pipelined_jsonrpc_same_link",
      baseline_value: Number(link.floor_ms.toFixed(1)),
      ratio: Number(link.ratio.toFixed(3)),
      target_ratio: 1.5,
      higher_is_better: false,
      burst: BURST,
      link_delay_ms_each_way: LINK_DELAY_MS,
      stop_and_wait_ms: Number(link.stop_and_wait_ms.toFixed(1)),
      speedup_over_stop_and_wait: Number((link.stop_and_wait_ms / link.ours_ms).toFixed(1)),
      new_conversation_first_text_ms: Number(link.first_text_ms.toFixed(1)),
      new_conversation_first_text_stop_and_wait_ms: Number(link.first_text_stop_and_wait_ms.toFixed(1)),
      notes:
        `${BURST} texts dispatched at once in one conversation until all are settled (applied by the AppServer, outcome committed), the Runtime on its SQLite store talking to the reference AppServer through a proxy that holds each frame ${LINK_DELAY_MS} ms each way. ` +
        "Floor: the same number of turn/start requests sent at once by a raw client over the same link. stop_and_wait_ms: the same Runtime through a proxy that hides the server's features (no ordered writes), one entry per round trip, as before pipelining. " +
        "new_conversation_first_text_ms: a conversation started on the device and its first text, until both settled (the text chained to the start), and the same stop-and-wait.",
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { suite: "runtime", machine: machine(), results };
}
