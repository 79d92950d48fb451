/**
 * surface: the browser paths, in real headless Chromium, beside their floors measured in the same run.
 *
 * - bridge_round_trip: an app in `<iframe sandbox="allow-scripts">`, mounted by the real surface host
 *   (`mountSurface`, the real frame page, the real surface SDK inside), calls `sessionData.get()`
 *   answered by a trivial host handler: request built and sent by the SDK → `decodeBridgeMessage` +
 *   token bucket on the host → handler → response → `decodeBridgeMessage` in the app. Beside it, a
 *   sandboxed frame of the same kind in the same page does request → echo over a plain `MessagePort`
 *   with the same frames and no checks. Rounds alternate; the ratio is the median of the per-round
 *   ratios of mean time per call (lower is better). Target ≤ 1.3×.
 * - browser_durable_ingest: the real Runtime over `openIndexedDbStore` (strict durability), on a
 *   persistent profile so IndexedDB is on disk, ingesting `agentSession/event` frames from an in-page
 *   peer until a subscribed chat app has them all, beside strict IndexedDB transactions each putting 100
 *   records of the same frame bytes. Target ≥ 0.5×.
 *
 * - app_launch: the agent's call of a tool that needs its app ready (`bench.open`, `app_ready`) arrives at an
 *   in-page `FakeAppServer` → the real Runtime over IndexedDB on disk accepts it and starts an instance → the
 *   page mounts it as the web host does (`connectInstance`: entry read back from the store, `mountSurface`,
 *   frame page, handover with the snapshot) → the app's page (the real SDK and Preact, bench/surface/
 *   launch-app.entry.ts) parses, connects and calls `ready()`: timed to the host's `ready`. Beside it, a
 *   sandboxed frame of the same kind (same frame page) loading a page of the same bytes that answers a hello
 *   on the port it is handed (the app's script is in it, parsed, never run). Rounds alternate; the ratio is
 *   the median of per-round ratios (lower is better). Target ≤ 1.5×.
 *
 * The page code under bench/surface/ is bundled with esbuild and served from 127.0.0.1 on an ephemeral
 * port; the browser profile, the server and everything built are gone when the suite returns.
 */
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { composePage } from "@lineup/surface-sdk/node";
import type { BrowserContext, Frame, Page } from "playwright-core";
import { launchPersistentChromium } from "../../test/support/chromium.js";
import { testSnapshot } from "../../test/support/bridge-snapshot.js";
import { bundlePage as bundle, modulePage as page, servePages } from "../browser-pages.js";
import { machine, median, pairedAsync, percentile, type BenchResult, type SuiteResult } from "../lib.js";
import type { HostBench } from "../surface/host.entry.js";
import type { IngestBench } from "../surface/ingest.entry.js";
import type { LaunchBench } from "../surface/launch.entry.js";
import { FRAME_GLOBAL, type FrameBench, type TimedRound } from "../surface/shared.js";

const here = dirname(fileURLToPath(import.meta.url));
const FRAME_PAGE = join(here, "..", "..", "packages", "host-web", "public", "surface-frame.html");

const BRIDGE_CALLS = Number(process.env["LINEUP_BENCH_BRIDGE_CALLS"] ?? 500);
const BRIDGE_ROUNDS = 15;
const INGEST_EVENTS = Number(process.env["LINEUP_BENCH_BROWSER_INGEST"] ?? 3_000);
const INGEST_ROUNDS = 7;
const LAUNCH_ROUNDS = Number(process.env["LINEUP_BENCH_LAUNCH_ROUNDS"] ?? 15);

/** The host page's policy, as in the surface host's browser test: no inline script, frames from 'self'. */
export const HOST_CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; frame-src 'self'; object-src 'none'; base-uri 'none'";

export const snapshot = testSnapshot({ app_scope: "bench", instance_id: "bench-1" });

const trace = (text: string): void => {
  if (process.env["LINEUP_BENCH_TRACE"] === "1") console.error(`[surface bench] ${text}`);
};

export interface Built {
  readonly hostJs: string;
  readonly ingestJs: string;
  readonly bridgeAppHtml: string;
  readonly rawAppHtml: string;
  readonly frameHtml: string;
  readonly launchJs: string;
  readonly launchAppHtml: string;
  readonly launchFloorHtml: string;
}

/** Apps are single-file pages with their own hash CSP, exactly as `buildApp` writes them. */
export async function buildPages(): Promise<Built> {
  const [hostJs, ingestJs, bridgeApp, rawApp, frameHtml, launchJs, launchApp, helloApp] = await Promise.all([
    bundle("host.entry.ts", "esm"),
    bundle("ingest.entry.ts", "esm"),
    bundle("bridge-app.entry.ts", "iife"),
    bundle("raw-app.entry.ts", "iife"),
    readFile(FRAME_PAGE, "utf8"),
    bundle("launch.entry.ts", "esm"),
    bundle("launch-app.entry.ts", "iife"),
    bundle("hello-app.entry.ts", "iife"),
  ]);
  return {
    launchJs,
    launchAppHtml: composePage({ title: "Launch bench", lang: "en", script: launchApp, style: "" }),
    // The app's own script, parsed (a function declaration) and never run: the floor page carries the same bytes.
    launchFloorHtml: composePage({ title: "Launch bench", lang: "en", script: `${helloApp}\nfunction launchBenchAppScript(){${launchApp}}`, style: "" }),
    hostJs,
    ingestJs,
    bridgeAppHtml: composePage({ title: "Bridge bench", lang: "en", script: bridgeApp, style: "" }),
    rawAppHtml: composePage({ title: "Raw port bench", lang: "en", script: rawApp, style: "" }),
    frameHtml,
  };
}

function serve(built: Built): Promise<{ origin: string; close(): Promise<void> }> {
  return servePages({
    "/host.js": { type: "text/javascript", body: built.hostJs },
    "/ingest.js": { type: "text/javascript", body: built.ingestJs },
    "/surface-frame.html": { type: "text/html", body: built.frameHtml },
    "/ingest.html": { type: "text/html", body: page("/ingest.js") },
    "/launch.js": { type: "text/javascript", body: built.launchJs },
    "/launch.html": { type: "text/html", body: page("/launch.js"), headers: { "content-security-policy": HOST_CSP } },
    "/": { type: "text/html", body: page("/host.js"), headers: { "content-security-policy": HOST_CSP } },
  });
}

/** Page errors fail the suite: a bench that measured a broken path would report nonsense. */
function watchErrors(p: Page, errors: string[]): void {
  p.on("pageerror", (e) => errors.push(e.message));
}

async function frameOf(p: Page, selector: string): Promise<Frame> {
  const element = await p.waitForSelector(selector, { state: "attached" });
  const frame = await element.contentFrame();
  if (frame === null) throw new Error(`${selector} has no frame`);
  await frame.waitForFunction((name) => name in globalThis, FRAME_GLOBAL, { timeout: 15_000 });
  return frame;
}

const runIn = (frame: Frame, calls: number): Promise<TimedRound> =>
  frame.evaluate(([name, n]) => (globalThis as unknown as Record<string, FrameBench>)[name]!.run(n), [FRAME_GLOBAL, calls] as const);

async function bridgeBench(context: BrowserContext, origin: string, built: Built, errors: string[]): Promise<BenchResult> {
  const p = await context.newPage();
  watchErrors(p, errors);
  await p.goto(`${origin}/`);
  await p.waitForFunction(() => "__hostBench" in window);
  const mounted = await p.evaluate(
    ([bridgeHtml, rawHtml, snap]) => (window as unknown as { __hostBench: HostBench }).__hostBench.mount(bridgeHtml, rawHtml, snap as never),
    [built.bridgeAppHtml, built.rawAppHtml, snapshot] as const,
  );
  if (mounted.refused.length > 0) throw new Error(`the surface host refused frames while mounting: ${mounted.refused.join(", ")}`);
  const ours = await frameOf(p, "#bridge iframe");
  const raw = await frameOf(p, "#raw iframe");
  trace("both frames ready");

  // Warm-up: JIT both paths and the ports.
  await runIn(ours, BRIDGE_CALLS);
  await runIn(raw, BRIDGE_CALLS);
  const oursTimes: number[] = [];
  const rawTimes: number[] = [];
  const oursPerCall: number[] = [];
  const rawPerCall: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < BRIDGE_ROUNDS; i++) {
    let a: TimedRound;
    let b: TimedRound;
    if (i % 2 === 0) {
      a = await runIn(ours, BRIDGE_CALLS);
      b = await runIn(raw, BRIDGE_CALLS);
    } else {
      b = await runIn(raw, BRIDGE_CALLS);
      a = await runIn(ours, BRIDGE_CALLS);
    }
    oursTimes.push(...a.times);
    rawTimes.push(...b.times);
    const x = a.totalMs / BRIDGE_CALLS;
    const y = b.totalMs / BRIDGE_CALLS;
    oursPerCall.push(x);
    rawPerCall.push(y);
    ratios.push(x / y);
    trace(`bridge round ${i}: ours ${x.toFixed(3)} ms, raw ${y.toFixed(3)} ms`);
  }
  const refused = await p.evaluate(() => (window as unknown as { __hostBench: HostBench }).__hostBench.refused());
  if (refused.length > 0) throw new Error(`the surface host refused frames during the bench: ${refused.join(", ")}`);
  await p.close();
  const ms = (n: number): number => Number(n.toFixed(3));
  return {
    metric: "bridge_round_trip",
    unit: "ms/call",
    value: ms(median(oursPerCall)),
    baseline: "raw_messageport_echo_same_sandboxed_frame",
    baseline_value: ms(median(rawPerCall)),
    ratio: Number(median(ratios).toFixed(3)),
    target_ratio: 1.3,
    higher_is_better: false,
    p50_ms: ms(percentile(oursTimes, 50)),
    p99_ms: ms(percentile(oursTimes, 99)),
    raw_p50_ms: ms(percentile(rawTimes, 50)),
    raw_p99_ms: ms(percentile(rawTimes, 99)),
    calls_per_round: BRIDGE_CALLS,
    rounds: BRIDGE_ROUNDS,
    call: "session_data.get (app → host), trivial handler",
    notes: "per-call p50/p99 come from performance.now() in an opaque-origin frame, which Chromium coarsens to ~0.1 ms; the ratio uses whole-round times",
  };
}

async function ingestBench(context: BrowserContext, origin: string, errors: string[]): Promise<BenchResult> {
  const p = await context.newPage();
  watchErrors(p, errors);
  await p.goto(`${origin}/ingest.html`);
  await p.waitForFunction(() => "__ingestBench" in window);
  const commits: number[] = [];
  const writes: number[] = [];
  const gets: number[] = [];
  const ours = async (round: number): Promise<number> => {
    const measured = await p.evaluate(([r, n]) => (window as unknown as { __ingestBench: IngestBench }).__ingestBench.ours(r, n), [round, INGEST_EVENTS] as const);
    commits.push(measured.commits);
    writes.push(measured.writes);
    gets.push(measured.gets);
    return measured.eventsPerSecond;
  };
  const raw = (round: number): Promise<number> =>
    p.evaluate(([r, n]) => (window as unknown as { __ingestBench: IngestBench }).__ingestBench.raw(r, n), [round, INGEST_EVENTS] as const);
  const frameBytes = await p.evaluate(() => (window as unknown as { __ingestBench: IngestBench }).__ingestBench.frameBytes());
  let round = 0;
  await ours(round++);
  await raw(round++);
  commits.length = 0;
  writes.length = 0;
  gets.length = 0;
  const a: number[] = [];
  const b: number[] = [];
  const r: number[] = [];
  for (let i = 0; i < INGEST_ROUNDS; i++) {
    let x: number;
    let y: number;
    if (i % 2 === 0) {
      x = await ours(round++);
      y = await raw(round++);
    } else {
      y = await raw(round++);
      x = await ours(round++);
    }
    a.push(x);
    b.push(y);
    r.push(x / y);
    trace(`ingest round ${i}: ours ${Math.round(x)}/s, raw ${Math.round(y)}/s`);
  }
  await p.close();
  return {
    metric: "browser_durable_ingest",
    unit: "events/s",
    value: Math.round(median(a)),
    baseline: "indexeddb_strict_batch100_put_same_bytes",
    baseline_value: Math.round(median(b)),
    ratio: Number(median(r).toFixed(3)),
    target_ratio: 0.5,
    higher_is_better: true,
    events_per_round: INGEST_EVENTS,
    rounds: INGEST_ROUNDS,
    frame_bytes: frameBytes,
    store_commits_per_round: median(commits),
    store_writes_per_event: Number((median(writes) / INGEST_EVENTS).toFixed(2)),
    store_gets_per_event: Number((median(gets) / INGEST_EVENTS).toFixed(2)),
    raw_transactions_per_round: Math.ceil(INGEST_EVENTS / 100),
  };
}

async function launchBench(context: BrowserContext, origin: string, built: Built, errors: string[]): Promise<BenchResult> {
  const p = await context.newPage();
  watchErrors(p, errors);
  p.on("console", (message) => trace(`launch page: ${message.text()}`));
  await p.goto(`${origin}/launch.html`);
  await p.waitForFunction(() => "__launchBench" in window);
  await p.evaluate(([app, floor]) => (window as unknown as { __launchBench: LaunchBench }).__launchBench.setUp(app, floor), [built.launchAppHtml, built.launchFloorHtml] as const);
  // Every timed launch, ours and the floor's, for the p90s (pairedAsync reports the medians and the ratio).
  const a: number[] = [];
  const b: number[] = [];
  const timed = (which: "ours" | "floor", into: number[]) => async (): Promise<number> => {
    const ms = await p.evaluate((w) => (window as unknown as { __launchBench: LaunchBench }).__launchBench[w](), which);
    into.push(ms);
    trace(`launch ${which}: ${ms.toFixed(1)} ms`);
    return ms;
  };
  // Warm-up: the Runtime's paths, the frame page and the app page in the cache, the JIT (pairedAsync adds one more).
  for (let i = 0; i < 2; i++) {
    await timed("ours", [])();
    await timed("floor", [])();
  }
  const paired = await pairedAsync(timed("ours", a), timed("floor", b), LAUNCH_ROUNDS);
  // pairedAsync's own warm-up round is not a measured one.
  a.shift();
  b.shift();
  await p.evaluate(() => (window as unknown as { __launchBench: LaunchBench }).__launchBench.tearDown());
  await p.close();
  const ms = (n: number): number => Number(n.toFixed(2));
  return {
    metric: "app_launch",
    unit: "ms",
    value: ms(paired.ours),
    baseline: "sandboxed_frame_same_bytes_messageport_hello",
    baseline_value: ms(paired.baseline),
    ratio: Number(paired.ratio.toFixed(3)),
    target_ratio: 1.5,
    higher_is_better: false,
    p90_ms: ms(percentile(a, 90)),
    floor_p90_ms: ms(percentile(b, 90)),
    rounds: LAUNCH_ROUNDS,
    app_page_bytes: Buffer.byteLength(built.launchAppHtml),
    floor_page_bytes: Buffer.byteLength(built.launchFloorHtml),
    notes:
      "Ours: the agent's lineup.tool.invoke (app_ready) applied at the in-page FakeAppServer → Runtime on IndexedDB (strict) accepts the call and starts an instance → connectInstance (entry read from the store, mountSurface, frame page, handover) → the app page (real surface SDK + Preact) connects and calls ready() → timed at the host's ready; the call's result and the instance's close follow untimed. " +
      "Floor: the same frame page loading a page of the same bytes that answers a hello on its port.",
  };
}

export async function run(): Promise<SuiteResult> {
  const built = await buildPages();
  trace("built");
  const server = await serve(built);
  const errors: string[] = [];
  const results: BenchResult[] = [];
  let browser: Awaited<ReturnType<typeof launchPersistentChromium>> | undefined;
  try {
    // One persistent profile (on disk, removed by close()) serves both: IndexedDB must be on disk.
    browser = await launchPersistentChromium();
    results.push(await bridgeBench(browser.context, server.origin, built, errors));
    results.push(await ingestBench(browser.context, server.origin, errors));
    results.push(await launchBench(browser.context, server.origin, built, errors));
    if (errors.length > 0) throw new Error(`page errors during the surface bench: ${errors.join("; ")}`);
  } finally {
    await browser?.close();
    await server.close();
  }
  return { suite: "surface", machine: machine(), results };
}
