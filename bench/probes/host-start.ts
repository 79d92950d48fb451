/**
 * Probe (not a suite): where a start of the web host spends its time before the Runtime is online. Loads the
 * host as the host suite does (headless Chromium, IndexedDB on disk, the real AppServer), fresh and warm, and
 * prints the median time from navigation start of each `performance.mark` of the page (`lineup:config-read`,
 * `lineup:profile-claimed`, `lineup:runtime-started`), each script's fetch (`js>` its start, `js:` its end) and
 * `online` (the connection indicator says online, as the suite reads it).
 *
 *   node --conditions=source --import tsx bench/probes/host-start.ts [loads]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger, startAppServer } from "@lineup/app-server";
import { ensureHostBuilt, startHostServer } from "@lineup/host-web/node";
import type { Page } from "playwright-core";
import { launchPersistentChromium } from "../../test/support/chromium.js";
import { median } from "../lib.js";

const LOADS = Number(process.argv[2] ?? 5);
const ONLINE_WATCH = `(() => {
  const seen = () => { if (window.__onlineAt === undefined && document.querySelector('.connection[data-lifecycle="online"]')) window.__onlineAt = performance.now(); };
  new MutationObserver(seen).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-lifecycle"] });
})();`;

type Timeline = Record<string, number>;
const timeline = async (page: Page): Promise<Timeline> => {
  await page.waitForFunction(() => (window as { __onlineAt?: number }).__onlineAt, undefined, { timeout: 60_000, polling: 20 });
  return page.evaluate(() => {
    const out: Record<string, number> = { online: (window as unknown as { __onlineAt: number }).__onlineAt };
    const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
    out["nav.responseEnd"] = nav.responseEnd;
    out["nav.domInteractive"] = nav.domInteractive;
    for (const m of performance.getEntriesByType("mark")) if (out[m.name] === undefined) out[m.name] = m.startTime;
    for (const r of performance.getEntriesByType("resource") as PerformanceResourceTiming[]) {
      if (!r.name.endsWith(".js")) continue;
      const name = r.name.split("/").pop()!.replace(/-[\w-]{8}\.js$/, "");
      out[`js:${name}`] = r.responseEnd;
      out[`js>${name}`] = r.startTime;
    }
    return out;
  });
};

const report = (label: string, runs: Timeline[]): void => {
  const keys = new Set(runs.flatMap((r) => Object.keys(r)));
  const rows = [...keys].map((k) => [k, median(runs.map((r) => r[k]).filter((v): v is number => v !== undefined))] as const).sort((a, b) => a[1] - b[1]);
  console.log(`\n${label} (median of ${runs.length})`);
  for (const [k, v] of rows) console.log(`${v.toFixed(1).padStart(8)}  ${k}`);
};

const root = mkdtempSync(join(tmpdir(), "lineup-probe-host-"));
const server = await startAppServer({ dataDir: join(root, "server"), port: 0, logger: silentLogger });
const { distDir } = await ensureHostBuilt();
const host = await startHostServer({ distDir, config: { server_url: server.url, device_token: server.devCredentials!.device_token } });
try {
  const fresh: Timeline[] = [];
  for (let i = 0; i < LOADS; i++) {
    const browser = await launchPersistentChromium();
    try {
      await browser.context.addInitScript(ONLINE_WATCH);
      const page = browser.context.pages()[0] ?? (await browser.context.newPage());
      await page.goto(host.url);
      fresh.push(await timeline(page));
    } finally {
      await browser.close();
    }
  }
  const browser = await launchPersistentChromium();
  const warm: Timeline[] = [];
  try {
    await browser.context.addInitScript(ONLINE_WATCH);
    const page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await page.goto(host.url);
    await timeline(page);
    for (let i = 0; i < LOADS; i++) {
      await page.reload();
      warm.push(await timeline(page));
    }
  } finally {
    await browser.close();
  }
  report("fresh", fresh);
  report("warm", warm);
} finally {
  await host.close();
  await server.close();
  rmSync(root, { recursive: true, force: true });
}
