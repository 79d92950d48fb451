/**
 * Probe (not a suite): where a start of the web host spends its time before the Runtime is online. Loads the
 * host as the host suite does (headless Chromium, IndexedDB on disk, the real AppServer; online heard on the
 * console, `loadedOnline`, so no waiting function runs in the page), fresh and warm, and prints the median time
 * from navigation start of each `performance.mark` of the page (`lineup:config-read`, `lineup:profile-claimed`,
 * `lineup:runtime-started`), the navigation's own steps (`nav.*`: the page left behind is unloaded at
 * `nav.unloadEventStart` on a reload), each script's fetch (`js>` its start, `js:` its end) and `online`.
 *
 * With LINEUP_PROBE_IDB=1 it also marks each IndexedDB open (`idbopen:<name>`, then `:upgrade` and `:done`) and
 * transaction (`idb:<n>:<db>:<mode>` when created, `idb:<n>:done` when complete), to see which of them the start waits on,
 * and the WebSocket's steps: `ws:new`, `ws:open`, each frame sent (`ws>` its method and id) and received (`ws<` its
 * method, or `answer:` and its id; a batch frame as `batch:`, its first message and `x` its length); a mark named twice keeps its first time.
 *
 * With LINEUP_PROBE_CONVERSATIONS=N, the device has N sessions on the AppServer before the first load (the host
 * suite's `seedConversations`), which the Runtime lists and follows.
 *
 *   node --conditions=source --import tsx bench/probes/host-start.ts [loads]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger, startAppServer } from "@lineup/app-server";
import { ensureHostBuilt, startHostServer } from "@lineup/host-web/node";
import type { BrowserContext, Page } from "playwright-core";
import { launchPersistentChromium } from "../../test/support/chromium.js";
import { median, untilQuiet } from "../lib.js";
import { loadedOnline, ONLINE_WATCH, seedConversations } from "../suites/host.js";

const LOADS = Number(process.argv[2] ?? 5);
/** IndexedDB opens and transactions as marks (LINEUP_PROBE_IDB=1). */
const IDB_TRACE = `(() => {
  let n = 0;
  const transaction = IDBDatabase.prototype.transaction;
  IDBDatabase.prototype.transaction = function (stores, mode, options) {
    const i = ++n;
    performance.mark("idb:" + i + ":" + this.name.slice(0, 16) + ":" + (mode ?? "readonly"));
    const created = transaction.call(this, stores, mode, options);
    created.addEventListener("complete", () => performance.mark("idb:" + i + ":done"));
    return created;
  };
  const open = IDBFactory.prototype.open;
  IDBFactory.prototype.open = function (name, version) {
    const label = "idbopen:" + name.slice(0, 24);
    performance.mark(label);
    const request = open.call(this, name, version);
    request.addEventListener("upgradeneeded", () => performance.mark(label + ":upgrade"));
    request.addEventListener("success", () => performance.mark(label + ":done"));
    return request;
  };
  const Socket = WebSocket;
  window.WebSocket = function (url, protocols) {
    const socket = new Socket(url, protocols);
    performance.mark("ws:new");
    socket.addEventListener("open", () => performance.mark("ws:open"));
    socket.addEventListener("message", (event) => {
      try {
        const frame = JSON.parse(event.data);
        if (Array.isArray(frame)) performance.mark("ws<batch:" + (frame[0].method ?? "answer:" + frame[0].id) + "x" + frame.length);
        else performance.mark("ws<" + (frame.method ?? "answer:" + frame.id));
      } catch {}
    });
    const send = socket.send;
    socket.send = function (data) {
      try {
        const frame = JSON.parse(data);
        if (Array.isArray(frame)) performance.mark("ws>batch:" + frame[0].method + ":" + frame[0].id + "x" + frame.length);
        else performance.mark("ws>" + (frame.method ?? "answer") + ":" + (frame.id ?? ""));
      } catch {}
      return send.call(this, data);
    };
    return socket;
  };
  window.WebSocket.prototype = Socket.prototype;
  Object.assign(window.WebSocket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
})();`;

const NAVIGATION_STEPS = ["fetchStart", "requestStart", "responseStart", "responseEnd", "unloadEventStart", "unloadEventEnd", "domInteractive", "domContentLoadedEventEnd"] as const;

type Timeline = Record<string, number>;
const timeline = async (page: Page, load: () => Promise<unknown>): Promise<Timeline> => {
  const online = await loadedOnline(page, load);
  return {
    online,
    ...(await page.evaluate((steps) => {
      const out: Record<string, number> = {};
      const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
      // A step the navigation did not have (no page left behind on a first load) is 0: left out.
      for (const step of steps) if (nav[step] > 0) out[`nav.${step}`] = nav[step];
      for (const m of performance.getEntriesByType("mark")) if (out[m.name] === undefined) out[m.name] = m.startTime;
      for (const r of performance.getEntriesByType("resource") as PerformanceResourceTiming[]) {
        if (!r.name.endsWith(".js")) continue;
        const name = r.name.split("/").pop()!.replace(/-[\w-]{8}\.js$/, "");
        out[`js:${name}`] = r.responseEnd;
        out[`js>${name}`] = r.startTime;
      }
      return out;
    }, NAVIGATION_STEPS)),
  };
};

const report = (label: string, runs: Timeline[]): void => {
  const keys = new Set(runs.flatMap((r) => Object.keys(r)));
  const rows = [...keys].map((k) => [k, median(runs.map((r) => r[k]).filter((v): v is number => v !== undefined))] as const).sort((a, b) => a[1] - b[1]);
  console.log(`\n${label} (median of ${runs.length})`);
  for (const [k, v] of rows) console.log(`${v.toFixed(1).padStart(8)}  ${k}`);
};

const watch = async (context: BrowserContext): Promise<void> => {
  await context.addInitScript(ONLINE_WATCH);
  if (process.env["LINEUP_PROBE_IDB"] === "1") await context.addInitScript(IDB_TRACE);
};

const root = mkdtempSync(join(tmpdir(), "lineup-probe-host-"));
const server = await startAppServer({ dataDir: join(root, "server"), port: 0, logger: silentLogger });
const { distDir } = await ensureHostBuilt();
await seedConversations(server, Number(process.env["LINEUP_PROBE_CONVERSATIONS"] ?? 0));
const host = await startHostServer({ distDir, config: { server_url: server.url, device_token: server.devCredentials!.device_token } });
try {
  const fresh: Timeline[] = [];
  for (let i = 0; i < LOADS; i++) {
    const browser = await launchPersistentChromium();
    try {
      await watch(browser.context);
      const page = browser.context.pages()[0] ?? (await browser.context.newPage());
      await untilQuiet();
      fresh.push(await timeline(page, () => page.goto(host.url)));
    } finally {
      await browser.close();
    }
  }
  const browser = await launchPersistentChromium();
  const warm: Timeline[] = [];
  try {
    await watch(browser.context);
    const page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await timeline(page, () => page.goto(host.url));
    for (let i = 0; i < LOADS; i++) warm.push(await timeline(page, () => page.reload()));
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
