/**
 * Probe (not a suite): whose code the renderer's main thread runs during a warm start of the web host, up to
 * the Runtime online. Loads the host as the host suite does (headless Chromium, IndexedDB on disk, the real
 * AppServer), reloads it a few times to warm the caches, then takes a V8 CPU profile (a sample every 100 µs)
 * of each of `loads` more reloads and prints the mean time per reload by script (each chunk by name, without
 * its hash) and by function. `(program)` is the browser's own work on that thread (parsing and compiling
 * scripts, style, layout, IndexedDB and IPC), `(idle)` its waiting; what is left is our JavaScript.
 *
 * With `fresh` as the second argument, each load is instead a first start on a new profile (a new browser each time,
 * the profiler started on its blank page before the navigation).
 *
 * With LINEUP_PROBE_CONVERSATIONS=N, the device has N sessions on the AppServer before the first load (the host
 * suite's `seedConversations`), which the Runtime lists and follows.
 *
 *   node --conditions=source --import tsx bench/probes/host-cpu.ts [loads] [fresh]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger, startAppServer } from "@lineup/app-server";
import { ensureHostBuilt, startHostServer } from "@lineup/host-web/node";
import type { Page } from "playwright-core";
import { launchPersistentChromium } from "../../test/support/chromium.js";
import { seedConversations } from "../suites/host.js";

const LOADS = Number(process.argv[2] ?? 6);
const FRESH = process.argv[3] === "fresh";

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number; readonly columnNumber: number };
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const online = (page: Page) => page.waitForSelector('.connection[data-lifecycle="online"]', { timeout: 60_000 });
/** A script by its chunk's name (`start-runtime`, not `start-runtime-BT9ixaET.js`); a built-in by its function. */
const scriptOf = (frame: ProfileNode["callFrame"]): string => frame.url.split("/").pop()!.replace(/-[\w-]{8}\.js$/, "") || `(${frame.functionName || "native"})`;

const add = (totals: Map<string, number>, key: string, ms: number) => totals.set(key, (totals.get(key) ?? 0) + ms);
const report = (label: string, totals: Map<string, number>, rows: number): void => {
  console.log(`\n${label} (ms per ${FRESH ? "fresh load" : "reload"}, mean of ${LOADS})`);
  for (const [name, ms] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, rows)) console.log(`${(ms / LOADS).toFixed(1).padStart(8)}  ${name}`);
};

const root = mkdtempSync(join(tmpdir(), "lineup-probe-cpu-"));
const server = await startAppServer({ dataDir: join(root, "server"), port: 0, logger: silentLogger });
const { distDir } = await ensureHostBuilt();
const host = await startHostServer({ distDir, config: { server_url: server.url, device_token: server.devCredentials!.device_token } });
await seedConversations(server, Number(process.env["LINEUP_PROBE_CONVERSATIONS"] ?? 0));
const byScript = new Map<string, number>();
const byFunction = new Map<string, number>();
/** One load profiled: `load` navigates and waits until online. */
const profiled = async (page: Page, load: () => Promise<unknown>): Promise<void> => {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
  await cdp.send("Profiler.start");
  await load();
  await online(page);
  const { profile } = (await cdp.send("Profiler.stop")) as unknown as { profile: Profile };
  await cdp.detach();
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  // A sample's time is the delta to the next one.
  for (let s = 0; s < profile.samples.length - 1; s++) {
    const frame = nodes.get(profile.samples[s]!)!.callFrame;
    const ms = profile.timeDeltas[s + 1]! / 1000;
    const script = scriptOf(frame);
    add(byScript, script, ms);
    add(byFunction, `${frame.functionName || "(anonymous)"} ${script}:${frame.lineNumber + 1}:${frame.columnNumber + 1}`, ms);
  }
};
try {
  if (FRESH) {
    for (let i = 0; i < LOADS; i++) {
      const browser = await launchPersistentChromium();
      try {
        const page = browser.context.pages()[0] ?? (await browser.context.newPage());
        await profiled(page, () => page.goto(host.url));
      } finally {
        await browser.close();
      }
    }
  } else {
    const browser = await launchPersistentChromium();
    try {
      const page = browser.context.pages()[0] ?? (await browser.context.newPage());
      await page.goto(host.url);
      await online(page);
      for (let i = 0; i < 3; i++) {
        await page.reload();
        await online(page);
      }
      for (let i = 0; i < LOADS; i++) await profiled(page, () => page.reload());
    } finally {
      await browser.close();
    }
  }
  report("by script", byScript, 20);
  report("by function", byFunction, 30);
} finally {
  await host.close();
  await server.close();
  rmSync(root, { recursive: true, force: true });
}
