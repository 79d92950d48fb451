/**
 * desktop: the desktop host (GJS, GTK 4, WebKitGTK 6.0; under Xvfb) beside floors measured in the same run.
 *
 * - bridge_round_trip_webkitgtk: the surface bench's own pages (the real surface host, frame page and
 *   surface SDK, and beside them a sandboxed frame of the same kind with a bare `MessagePort` echo) served
 *   over the desktop host's `lineup://` scheme in its window. The desktop driver evaluates only in the host
 *   page, so the host page asks each frame for a round (`runFrame`) and the frame times it, as in Chromium.
 *   Rounds alternate; the ratio is the median of per-round ratios of mean time per call. Target ≤ 1.3×.
 * - load_to_online: a reload of the built web host → the Runtime online (the connection indicator says so),
 *   against the real AppServer, in the desktop window (IndexedDB in its profile) beside the same in headless
 *   Chromium on a profile on disk, same server, same run; both polled every 20 ms from Node. Target ≤ 1.5×.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureHostBuilt, startHostServer } from "@lineup/host-web/node";
import { launchDesktop, LIFECYCLE, requireDesktopTools, startServerAndConfig, waitInWindow } from "../../packages/host-desktop/test/harness.js";
import { launchPersistentChromium } from "../../test/support/chromium.js";
import { machine, pairedAsync, type BenchResult, type SuiteResult } from "../lib.js";
import type { TimedRound } from "../surface/shared.js";
import { modulePage as page } from "../browser-pages.js";
import { buildPages, HOST_CSP, snapshot } from "./surface.js";

const BRIDGE_CALLS = Number(process.env["LINEUP_BENCH_BRIDGE_CALLS"] ?? 500);
const BRIDGE_ROUNDS = 15;
const LOADS = 7;

async function bridgeBench(root: string): Promise<BenchResult> {
  const built = await buildPages();
  const dist = join(root, "bridge-site");
  mkdirSync(dist, { recursive: true });
  // The bench's host page under the host's policy (as a meta, which the site turns into its header too).
  writeFileSync(join(dist, "index.html"), page("./host.js").replace("<head>", `<head><meta http-equiv="Content-Security-Policy" content="${HOST_CSP}">`));
  writeFileSync(join(dist, "surface-frame.html"), built.frameHtml);
  writeFileSync(join(dist, "host.js"), built.hostJs);
  const window = await launchDesktop({ dist, dataDir: join(root, "bridge-profile") });
  try {
    await waitInWindow(window, `return "__hostBench" in window`, true);
    const mounted = await window.evaluate<{ refused: string[] }>(`return await window.__hostBench.mount(${JSON.stringify(built.bridgeAppHtml)}, ${JSON.stringify(built.rawAppHtml)}, ${JSON.stringify(snapshot)})`);
    if (mounted.refused.length > 0) throw new Error(`the surface host refused frames while mounting: ${mounted.refused.join(", ")}`);
    const perCall = async (which: "bridge" | "raw") => (await window.evaluate<TimedRound>(`return await window.__hostBench.runFrame(${JSON.stringify(which)}, ${BRIDGE_CALLS})`)).totalMs / BRIDGE_CALLS;
    await waitInWindow(window, `return await window.__hostBench.runFrame("raw", 1).then(() => true)`, true);
    // Alternating rounds after a warm-up of each; the ratio is the median of per-round ratios of time per call.
    const paired = await pairedAsync(() => perCall("bridge"), () => perCall("raw"), BRIDGE_ROUNDS);
    const refused = await window.evaluate<string[]>("return window.__hostBench.refused()");
    if (refused.length > 0) throw new Error(`the surface host refused frames during the bench: ${refused.join(", ")}`);
    return {
      metric: "bridge_round_trip_webkitgtk",
      unit: "ms/call",
      value: Number(paired.ours.toFixed(4)),
      baseline: "raw_messageport_echo_same_sandboxed_frame_webkitgtk",
      baseline_value: Number(paired.baseline.toFixed(4)),
      ratio: Number(paired.ratio.toFixed(3)),
      target_ratio: 1.3,
      higher_is_better: false,
      calls_per_round: BRIDGE_CALLS,
      rounds: BRIDGE_ROUNDS,
      call: "session_data.get (app → host), trivial handler",
    };
  } finally {
    await window.close();
  }
}

async function loadBench(root: string): Promise<BenchResult> {
  const { server, configFile } = await startServerAndConfig(root);
  const config = JSON.parse(readFileSync(configFile, "utf8")) as { server_url: string; device_token: string };
  const { distDir } = await ensureHostBuilt();
  const host = await startHostServer({ distDir, config });
  const browser = await launchPersistentChromium();
  const window = await launchDesktop({ dist: distDir, config: configFile, dataDir: join(root, "load-profile") });
  try {
    const tab = browser.context.pages()[0] ?? (await browser.context.newPage());
    await tab.goto(host.url);
    const chromiumOnline = async (): Promise<number> => {
      const started = performance.now();
      await tab.reload();
      while ((await tab.evaluate(() => document.querySelector(".connection")?.getAttribute("data-lifecycle") ?? null)) !== "online") await new Promise((r) => setTimeout(r, 20));
      return performance.now() - started;
    };
    const desktopOnline = async (): Promise<number> => {
      const started = performance.now();
      await window.evaluate("location.reload(); return true");
      await new Promise((r) => setTimeout(r, 20));
      await waitInWindow(window, LIFECYCLE, "online", 30_000, 20);
      return performance.now() - started;
    };
    await waitInWindow(window, LIFECYCLE, "online");
    const paired = await pairedAsync(desktopOnline, chromiumOnline, LOADS);
    return {
      metric: "load_to_online",
      unit: "ms",
      value: Math.round(paired.ours),
      baseline: "same_reload_to_online_in_headless_chromium",
      baseline_value: Math.round(paired.baseline),
      ratio: Number(paired.ratio.toFixed(3)),
      target_ratio: 1.5,
      higher_is_better: false,
      loads: LOADS,
      notes: "warm profile (a reload), the real AppServer on loopback; both hosts polled every 20 ms from Node",
    };
  } finally {
    await window.close();
    await browser.close();
    await host.close();
    await server.close();
  }
}

export async function run(): Promise<SuiteResult> {
  requireDesktopTools();
  const root = mkdtempSync(join(tmpdir(), "lineup-bench-desktop-"));
  try {
    const results = [await bridgeBench(root), await loadBench(root)];
    return { suite: "desktop", machine: machine(), results };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
