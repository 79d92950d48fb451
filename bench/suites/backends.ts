/**
 * backends: what an app's own code and data cost, each beside its floor in the same run (issue 20):
 *
 * - app storage writes on the Node host — `sdk.storage.put` through the app storage service (checks, value schema,
 *   quota, provenance, the usage row in the same transaction) into the app's own SQLite file — beside raw
 *   better-sqlite3 inserting the same rows, one transaction each, WAL and `synchronous=FULL` as the store uses.
 *   Target ≥ 0.5× the rate.
 * - the same in the browser, in real headless Chromium on a persistent profile (IndexedDB on disk): the service over
 *   the web host's IndexedDB app storage beside raw IndexedDB putting the same rows, one strict transaction each
 *   (`bench/surface/app-storage.entry.ts`). Target ≥ 0.5×. (fake-indexeddb in Node would measure a JavaScript
 *   map, not the browser's IndexedDB.)
 * - a `wasm` back-end call (worker thread, JSON in and out) beside a raw `postMessage` round trip to a bare worker
 *   that calls the same module's export (the ABI's copies in and out, nothing else): once with a module that only
 *   echoes, so the row is the call path alone, and once with the journal's search, so the module's own work is in
 *   both sides of the ratio;
 * - a `stdio-jsonrpc` back-end call (child process, the host's supervision) beside a raw JSON-RPC round trip over a
 *   pipe to a trivial child. Targets ≤ 1.5× the time.
 *
 * The back-end rows run when this checkout has their runners (`createNodeWasmRunner`, `createStdioRunner`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { AppManifest } from "@lineup/protocol";
import { createAppStorageService } from "@lineup/runtime";
import { Worker } from "node:worker_threads";
import { fileURLToPath } from "node:url";
import type { BackendDeclaration } from "@lineup/protocol";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { createNodeWasmRunner, createSqliteAppStorageHost, createStdioRunner } from "@lineup/runtime/node";
import { compileBackend } from "../../packages/runtime/test/helpers/assemblyscript.js";
import { watModule } from "../../packages/runtime/test/helpers/wat.js";
import { launchPersistentChromium } from "../../test/support/chromium.js";
import { bundlePage, modulePage, servePages } from "../browser-pages.js";
import { machine, pairedAsync, round, type BenchResult, type SuiteResult } from "../lib.js";
import type { AppStorageBench } from "../surface/app-storage.entry.js";
import { benchEntry, benchJournalManifest } from "../surface/app-storage-shared.js";

const manifest = benchJournalManifest as unknown as AppManifest;
const entry = benchEntry;

const ROUND_MS = 400;

async function storageWrites(dir: string): Promise<BenchResult> {
  const service = createAppStorageService({
    host: createSqliteAppStorageHost(join(dir, "apps")),
    active: () => ({ manifest, version: "1.0.0", bundle_digest: "bench", enabled: true }),
    now: () => Date.now(),
  });
  const api = service.forApp("bench-journal");
  const raw = new Database(join(dir, "raw.db"));
  raw.pragma("journal_mode = WAL");
  raw.pragma("synchronous = FULL");
  raw.exec("CREATE TABLE IF NOT EXISTS entries (collection TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (collection, key)) WITHOUT ROWID");
  const insert = raw.prepare("INSERT INTO entries (collection, key, value) VALUES (?, ?, ?) ON CONFLICT (collection, key) DO UPDATE SET value = excluded.value");
  let n = 0;
  const ours = async (): Promise<number> => {
    let count = 0;
    const start = performance.now();
    while (performance.now() - start < ROUND_MS) {
      n += 1;
      await api.put("entries", `e${String(n).padStart(9, "0")}`, entry(n));
      count += 1;
    }
    return (count * 1000) / (performance.now() - start);
  };
  let m = 0;
  const floor = async (): Promise<number> => {
    let count = 0;
    const start = performance.now();
    while (performance.now() - start < ROUND_MS) {
      m += 1;
      insert.run("entries", `e${String(m).padStart(9, "0")}`, JSON.stringify(entry(m)));
      count += 1;
    }
    return (count * 1000) / (performance.now() - start);
  };
  const paired = await pairedAsync(ours, floor, 9);
  await service.stop();
  raw.close();
  return {
    metric: "app storage write (Node host, SQLite, one record a transaction)",
    unit: "writes/s",
    value: paired.ours,
    baseline: "raw better-sqlite3 insert, WAL, synchronous=FULL",
    baseline_value: paired.baseline,
    ratio: paired.ratio,
    target_ratio: 0.5,
    higher_is_better: true,
    notes: "the app storage write also reads the record it replaces, checks the value schema and writes the usage row in the same transaction",
  };
}

/** App storage writes in Chromium (its IndexedDB on disk) beside raw IndexedDB puts of the same rows, same page. */
async function indexedDbStorageWrites(): Promise<BenchResult> {
  const server = await servePages({
    "/app-storage.js": { type: "text/javascript", body: await bundlePage("app-storage.entry.ts", "esm") },
    "/": { type: "text/html", body: modulePage("/app-storage.js") },
  });
  const browser = await launchPersistentChromium();
  try {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${server.origin}/`);
    await page.waitForFunction(() => "__appStorageBench" in window);
    const side = (which: "ours" | "raw") => () => page.evaluate(([w, ms]) => (window as unknown as { __appStorageBench: AppStorageBench }).__appStorageBench[w](ms), [which, ROUND_MS] as const);
    const paired = await pairedAsync(side("ours"), side("raw"), 9);
    // A bench that measured a broken path would report nonsense.
    if (errors.length > 0) throw new Error(`page errors in the IndexedDB app storage bench: ${errors.join("; ")}`);
    return {
      metric: "app storage write (browser, Chromium IndexedDB on disk, one record a transaction)",
      unit: "writes/s",
      value: paired.ours,
      baseline: "raw IndexedDB put of the same rows, one strict transaction each, same page",
      baseline_value: paired.baseline,
      ratio: paired.ratio,
      target_ratio: 0.5,
      higher_is_better: true,
      notes: "the app storage write also reads the record it replaces, checks the value schema and writes the usage row in the same transaction",
    };
  } finally {
    await browser.close();
    await server.close();
  }
}

/** One round of sequential calls for ROUND_MS (the suites' `round`); returns calls/s. */
const rate = (call: () => Promise<unknown>): Promise<number> =>
  round(async () => {
    await call();
  }, ROUND_MS, []);

/**
 * A worker that holds `module` and calls its export the way any host of the ABI must (copy the method and params
 * into its memory, call, read the answer back) and nothing more: no check, queue, timer, limit or restart. The floor
 * for a call that does the module's own work.
 */
const BARE_WASM_WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const memory = new WebAssembly.Memory({ initial: workerData.pages, maximum: workerData.maximum });
const noop = () => {};
const exports = new WebAssembly.Instance(new WebAssembly.Module(workerData.module), { env: { memory, abort: noop, seed: () => 1, trace: noop }, lineup: { log: noop } }).exports;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const put = (text) => { const bytes = encoder.encode(text); const at = exports.lineup_alloc(bytes.length); new Uint8Array(memory.buffer, at, bytes.length).set(bytes); return [at, bytes.length]; };
parentPort.on("message", ({ method, params }) => {
  const [mp, ml] = put(method);
  const [pp, pl] = put(params);
  const at = exports.lineup_call(mp, ml, pp, pl);
  const len = new DataView(memory.buffer).getUint32(at, true);
  const json = decoder.decode(new Uint8Array(memory.buffer, at + 4, len));
  exports.lineup_free?.(at, len + 4); exports.lineup_free?.(mp, ml); exports.lineup_free?.(pp, pl);
  parentPort.postMessage(json);
});`;

/** The bench's echo module: the test modules' echo, with a `lineup_free` that gives back its bump allocator's room. */
const echoModule = (): Promise<Uint8Array> =>
  watModule("(memory 1)", "", `(func (export "lineup_free") (param i32 i32) (global.set $top (i32.const 1024))) (func (export "lineup_call") (param $mp i32) (param $ml i32) (param $pp i32) (param $pl i32) (result i32) (call $echo (local.get $pp) (local.get $pl)))`);

/**
 * A wasm back-end call through the runner (`createNodeWasmRunner`: the ABI's checks, the queue, the call's timer,
 * limits and restarts) beside a bare worker calling the same module (`BARE_WASM_WORKER`), once with a module that
 * only echoes (the call path alone) and once with the journal's search over 5 entries (the module's own work too).
 */
async function wasmCalls(): Promise<BenchResult[]> {
  const params = { query: "quiet", entries: Array.from({ length: 5 }, (_, i) => ({ key: `2026-12-0${i + 1}`, text: i % 2 === 0 ? "A quiet day" : "A busy day" })) };
  const search = await compileBackend(fileURLToPath(new URL("../../apps/journal/backends/search.asc.ts", import.meta.url)), 256);
  const cases = [
    { metric: "wasm back-end call (Node worker thread, a module that echoes its params)", module: await echoModule(), method: "echo" },
    { metric: "wasm back-end call (Node worker thread, the journal's search over 5 entries)", module: search, method: "search" },
  ];
  const results: BenchResult[] = [];
  for (const { metric, module, method } of cases) {
    const declaration = { id: "bench", plane: "client-local", protocol: "wasm", entry: "bench.wasm", methods: [{ name: method }], limits: { memory_mb: 16 } } as BackendDeclaration;
    const runner = createNodeWasmRunner({ app_scope: "bench-journal", declaration, entry: module, hostCalls: async () => null });
    const bare = new Worker(BARE_WASM_WORKER, { eval: true, workerData: { module, pages: 1, maximum: 256 } });
    const raw = (): Promise<unknown> =>
      new Promise((resolve) => {
        bare.once("message", (m: string) => resolve(JSON.parse(m)));
        bare.postMessage({ method, params: JSON.stringify(params) });
      });
    const ours = await runner.call(method, params);
    const floor = ((await raw()) as { result: unknown }).result;
    if (JSON.stringify(ours) !== JSON.stringify(floor)) throw new Error(`the runner and the bare worker answered differently: ${JSON.stringify(ours)} / ${JSON.stringify(floor)}`);
    const paired = await pairedAsync(() => rate(() => runner.call(method, params)), () => rate(raw), 9);
    await runner.stop();
    await bare.terminate();
    results.push({
      metric,
      unit: "calls/s",
      value: paired.ours,
      baseline: "a bare worker calling the same module's export over a raw postMessage round trip (no checks, queue, timer or limits)",
      baseline_value: paired.baseline,
      ratio: 1 / paired.ratio,
      target_ratio: 1.5,
      higher_is_better: false,
      notes: "ratio is time per call against the floor's (target ≤ 1.5×)",
    });
  }
  return results;
}

const ECHO_PROGRAM = `
const { createInterface } = await import("node:readline");
createInterface({ input: process.stdin }).on("line", (line) => { const m = JSON.parse(line); if (m.id !== undefined) process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: m.params }) + "\\n"); });
`;

/** A call to a stdio back-end (sandboxed, supervised) beside the same JSON-RPC round trip over a pipe to a bare child. */
async function stdioCalls(dir: string): Promise<BenchResult> {
  const declaration = { id: "echo", plane: "client-local", protocol: "stdio-jsonrpc", runtime: "node", entry: "echo.mjs", methods: [{ name: "echo" }] } as BackendDeclaration;
  const runner = createStdioRunner({ app_scope: "bench-journal", declaration, entry: new TextEncoder().encode(ECHO_PROGRAM), hostCalls: async () => null, dataDir: join(dir, "stdio") });
  const params = { day: "2026-12-01", text: "A quiet day, nothing much happened." };
  const bare = spawn(process.execPath, ["--input-type=module", "-e", ECHO_PROGRAM], { stdio: "pipe" });
  const lines = createInterface({ input: bare.stdout });
  let next = 1;
  const waiting = new Map<number, () => void>();
  lines.on("line", (line) => {
    const m = JSON.parse(line) as { id: number };
    waiting.get(m.id)?.();
    waiting.delete(m.id);
  });
  const raw = (): Promise<void> =>
    new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      bare.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method: "echo", params })}\n`);
    });
  await runner.call("echo", params);
  const paired = await pairedAsync(() => rate(() => runner.call("echo", params)), () => rate(raw), 9);
  await runner.stop();
  bare.kill();
  return {
    metric: "stdio-jsonrpc back-end call (child process under the sandbox, supervised)",
    unit: "calls/s",
    value: paired.ours,
    baseline: "raw JSON-RPC round trip over a pipe to a bare node child",
    baseline_value: paired.baseline,
    ratio: 1 / paired.ratio,
    target_ratio: 1.5,
    higher_is_better: false,
    notes: "ratio is time per call against the floor's (target ≤ 1.5×)",
  };
}

export async function run(): Promise<SuiteResult> {
  const dir = mkdtempSync(join(tmpdir(), "lineup-bench-backends-"));
  try {
    const results: BenchResult[] = [await storageWrites(dir), await indexedDbStorageWrites(), ...(await wasmCalls()), await stdioCalls(dir)];
    return { suite: "backends", machine: machine(), results };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
