/**
 * The page of the browser durable-ingest bench (served to a persistent Chromium profile, so IndexedDB
 * is on disk). `ours`: the real Runtime (loop, transition, filter chain, inbox + cursor) over
 * `openIndexedDbStore` (every commit a `durability: "strict"` transaction), fed `agentSession/event`
 * frames by an in-page peer over the memory transport, until a subscribed chat app has them all.
 * `raw`: the same frame bytes put straight into IndexedDB, 100 records per strict transaction.
 * Each returns events per second; every round uses a fresh database and deletes it afterwards.
 */
import { createRuntime, RUNTIME_SCHEMA, type RuntimeStore } from "@lineup/runtime";
import { openIndexedDbStore } from "@lineup/runtime/browser";
import { benchPeer, eventFrame } from "../ingest-frames.js";

/** One round of the Runtime path: its rate, and the store traffic that carried the events. */
export interface OursRound {
  readonly eventsPerSecond: number;
  readonly commits: number;
  readonly writes: number;
  /** Point reads (`store.get`); on IndexedDB each is its own readonly transaction. */
  readonly gets: number;
}

interface StoreTraffic {
  commits: number;
  writes: number;
  gets: number;
}

export interface IngestBench {
  /** The frame bytes of one event (for the report). */
  frameBytes(): number;
  ours(round: number, events: number): Promise<OursRound>;
  raw(round: number, events: number): Promise<number>;
}

const SESSION_ID = "s-bench";

const framesFor = (events: number): string[] => Array.from({ length: events }, (_, i) => eventFrame(SESSION_ID, i + 1));

function deleteDatabase(name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.deleteDatabase(name);
    request.onsuccess = () => resolve();
    request.onerror = () => reject(request.error ?? new Error(`could not delete ${name}`));
  });
}

/** Counts the store calls the Runtime makes (a plain pass-through; it adds no await). */
function counting(store: RuntimeStore): { store: RuntimeStore; stats: StoreTraffic } {
  const stats: StoreTraffic = { commits: 0, writes: 0, gets: 0 };
  return {
    stats,
    store: {
      commit(batch) {
        stats.commits++;
        stats.writes += batch.length;
        return store.commit(batch);
      },
      get(collection, key) {
        stats.gets++;
        return store.get(collection, key);
      },
      getMany(keys) {
        // One read trip to the store, however many keys it carries.
        stats.gets++;
        return store.getMany(keys);
      },
      range: (collection, query) => store.range(collection, query),
      count: (collection, range) => store.count(collection, range),
      close: () => store.close(),
    },
  };
}

async function ours(round: number, events: number): Promise<OursRound> {
  const frames = framesFor(events);
  const name = `bench-ours-${round}`;
  const { store, stats } = counting(await openIndexedDbStore({ name, schema: RUNTIME_SCHEMA }));
  const peer = benchPeer({ [SESSION_ID]: 0 });
  const runtime = createRuntime({ store, transport: peer.transport, serverUrl: "mem://bench", token: "t", relistIntervalMs: 0 });
  await runtime.start();
  await runtime.whenOnline();
  let delivered = 0;
  let resolveDone: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  runtime.appPort("chat").subscribeMessages({}, () => {
    if (++delivered === frames.length) resolveDone();
  });
  const before = { ...stats };
  const start = performance.now();
  peer.push(frames);
  await done;
  const seconds = (performance.now() - start) / 1000;
  const measured = { commits: stats.commits - before.commits, writes: stats.writes - before.writes, gets: stats.gets - before.gets };
  await runtime.stop();
  await store.close();
  await deleteDatabase(name);
  return { eventsPerSecond: frames.length / seconds, ...measured };
}

function openRaw(name: string): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(name, 1);
    request.onupgradeneeded = () => request.result.createObjectStore("rows");
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error(`could not open ${name}`));
  });
}

function putBatch(db: IDBDatabase, slice: readonly string[], offset: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const transaction = db.transaction("rows", "readwrite", { durability: "strict" });
    transaction.oncomplete = () => resolve();
    transaction.onabort = () => reject(transaction.error ?? new Error("raw batch aborted"));
    const rows = transaction.objectStore("rows");
    slice.forEach((text, i) => rows.put(text, `k${String(offset + i).padStart(8, "0")}`));
    transaction.commit();
  });
}

async function raw(round: number, events: number): Promise<number> {
  const frames = framesFor(events);
  const name = `bench-raw-${round}`;
  const db = await openRaw(name);
  const start = performance.now();
  for (let i = 0; i < frames.length; i += 100) await putBatch(db, frames.slice(i, i + 100), i);
  const seconds = (performance.now() - start) / 1000;
  db.close();
  await deleteDatabase(name);
  return frames.length / seconds;
}

const bench: IngestBench = { frameBytes: () => eventFrame(SESSION_ID, 1).length, ours, raw };
(window as unknown as { __ingestBench: IngestBench }).__ingestBench = bench;
