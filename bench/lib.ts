/**
 * Benchmark helpers. Machines here are shared and drift between fast and slow phases, so a
 * metric is always measured beside its floor in the same run, in alternating rounds, and the
 * reported ratio is the median of the per-round ratios (each pair ran seconds apart).
 */
import { readFileSync } from "node:fs";
import { cpus, platform, release } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { PerformanceObserver } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

export interface BenchResult {
  readonly metric: string;
  readonly unit: string;
  readonly value: number;
  readonly baseline: string;
  readonly baseline_value: number;
  readonly ratio: number;
  /**
   * The target from PERFORMANCE.md or the issue that owns the row. Absent on a row kept for information: a
   * ratio against a floor whose target was replaced (issue 25: an in-memory call, raw ws round trips, a bare
   * store insert cannot be met by any design that commits and serves), reported beside the row that holds the target.
   */
  readonly target_ratio?: number;
  readonly higher_is_better: boolean;
  readonly notes?: string;
  readonly [extra: string]: unknown;
}

export interface SuiteResult {
  readonly suite: string;
  readonly machine: string;
  readonly results: readonly BenchResult[];
}

export const machine = (): string => `${platform()} ${release()}, ${cpus().length} cpus (${cpus()[0]?.model ?? "unknown"}), node ${process.version}`;

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Runs `fn` repeatedly for about `ms` milliseconds; returns operations per second. */
export function rateSync(fn: () => void, ms: number): number {
  let ops = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 100; i++) fn();
    ops += 100;
    now = performance.now();
  }
  return (ops * 1000) / (now - start);
}

/** The machine's CPU time so far, busy and in all, from /proc/stat (Linux); undefined elsewhere. */
function cpuTimes(): { busy: number; total: number } | undefined {
  try {
    const fields = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    return { busy: total - fields[3]! - fields[4]!, total };
  } catch {
    return undefined;
  }
}

/**
 * Waits until the machine is quiet: three 100 ms windows in a row with under 20% of its CPU busy, at most `maxMs`
 * (then it goes on). A browser just launched on a new profile keeps both cores of this machine about 85% busy
 * for its first second (its own pages, such as the omnibox's, start in a second renderer); a page loaded
 * then measures that, not itself. Without /proc/stat it waits `maxMs / 4`. Returns how long it waited.
 */
export async function untilQuiet(maxMs = 5_000): Promise<number> {
  const start = performance.now();
  let previous = cpuTimes();
  if (previous === undefined) {
    await sleep(maxMs / 4);
    return performance.now() - start;
  }
  let quiet = 0;
  while (quiet < 3 && performance.now() - start < maxMs) {
    await sleep(100);
    const now = cpuTimes()!;
    const busy = (now.busy - previous.busy) / Math.max(1, now.total - previous.total);
    quiet = busy < 0.2 ? quiet + 1 : 0;
    previous = now;
  }
  return performance.now() - start;
}

export interface PairedRates {
  readonly ours: number;
  readonly baseline: number;
  readonly ratio: number;
  readonly rounds: number;
}

/** Alternates `ours` and `baseline` for `rounds` rounds after a warm-up; medians of rates and of per-round ratios. */
export function pairedSync(ours: () => void, baseline: () => void, options: { rounds?: number; ms?: number } = {}): PairedRates {
  const rounds = options.rounds ?? 15;
  const ms = options.ms ?? 200;
  rateSync(ours, ms);
  rateSync(baseline, ms);
  const a: number[] = [];
  const b: number[] = [];
  const r: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const first = i % 2 === 0;
    const x = first ? rateSync(ours, ms) : 0;
    const y = rateSync(baseline, ms);
    const x2 = first ? x : rateSync(ours, ms);
    a.push(x2);
    b.push(y);
    r.push(x2 / y);
  }
  return { ours: median(a), baseline: median(b), ratio: median(r), rounds };
}

/** Async variant: each `run` call performs one measured round and returns its rate. */
export async function pairedAsync(ours: () => Promise<number>, baseline: () => Promise<number>, rounds = 9): Promise<PairedRates> {
  await ours();
  await baseline();
  const a: number[] = [];
  const b: number[] = [];
  const r: number[] = [];
  for (let i = 0; i < rounds; i++) {
    let x: number;
    let y: number;
    if (i % 2 === 0) {
      x = await ours();
      y = await baseline();
    } else {
      y = await baseline();
      x = await ours();
    }
    a.push(x);
    b.push(y);
    r.push(x / y);
  }
  return { ours: median(a), baseline: median(b), ratio: median(r), rounds };
}

export function printSuite(result: SuiteResult): void {
  console.log(`\n${result.suite} — ${result.machine}`);
  const rows = result.results.map((r) => ({
    metric: r.metric,
    value: `${fmt(r.value)} ${r.unit}`,
    baseline: `${r.baseline}: ${fmt(r.baseline_value)}`,
    ratio: r.ratio.toFixed(2),
    target: r.target_ratio === undefined ? "—" : `${r.higher_is_better ? "≥" : "≤"} ${r.target_ratio}`,
    pass: r.target_ratio === undefined ? "—" : missesTarget(r) ? "NO" : "yes",
  }));
  console.table(rows);
}

/** Whether a row with a target misses it (a row without one never does). */
export function missesTarget(r: BenchResult): boolean {
  if (r.target_ratio === undefined) return false;
  return r.higher_is_better ? r.ratio < r.target_ratio : r.ratio > r.target_ratio;
}

const fmt = (n: number): string => (n >= 100 ? Math.round(n).toLocaleString("en-US") : n.toFixed(3));

/** One sequential round: calls `call` until `ms` have passed; pushes each call's latency (ms) into `latencies`. */
export async function round(call: () => Promise<void>, ms: number, latencies: number[]): Promise<number> {
  let calls = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    const before = now;
    await call();
    now = performance.now();
    latencies.push(now - before);
    calls += 1;
  }
  return (calls * 1000) / (now - start);
}

/** A full garbage collection (V8's `gc`, exposed for the bench process). */
export const collectGarbage = ((): (() => void) => {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
})();

/** GC performance entries reach observers a little after the collection (later than the next setImmediate). */
const settleGcEntries = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

/**
 * Bytes allocated per call: after a full collection, the heap's growth over a batch of sequential
 * calls during which no collection ran (a collection would hide what it freed), divided by the
 * calls. The median of `batches` clean batches; batches a collection interrupted are retried, at
 * most `batches * 4` in all.
 */
export async function bytesAllocatedPerCall(call: () => Promise<void>, callsPerBatch = 20, batches = 7): Promise<{ bytes: number; clean_batches: number }> {
  let collections = 0;
  const observer = new PerformanceObserver((list) => (collections += list.getEntries().length));
  observer.observe({ entryTypes: ["gc"] });
  const perCall: number[] = [];
  try {
    for (let attempt = 0; attempt < batches * 4 && perCall.length < batches; attempt++) {
      collectGarbage();
      await settleGcEntries();
      const seen = collections;
      const before = process.memoryUsage().heapUsed;
      for (let i = 0; i < callsPerBatch; i++) await call();
      const after = process.memoryUsage().heapUsed;
      await settleGcEntries();
      if (collections === seen) perCall.push((after - before) / callsPerBatch);
    }
  } finally {
    observer.disconnect();
  }
  return { bytes: perCall.length === 0 ? Number.NaN : Math.round(median(perCall)), clean_batches: perCall.length };
}
