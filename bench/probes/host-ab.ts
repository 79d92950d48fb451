/**
 * Probe (not a suite): two builds of the web host side by side, to tell whether a change to the start helps when the
 * machine's own speed drifts more than the change (it does on a shared 2-core machine: the same build measured 61 ms
 * and 107 ms to online within the hour). Both builds are served at once against one AppServer (each on its own
 * origin, so its own IndexedDB and cache); fresh loads alternate which goes first, each on a new Chromium profile
 * loaded once the new browser is quiet (`untilQuiet`, as the suite does), and warm reloads alternate in one browser,
 * a tab each. Prints the median time to online of each, read in the page
 * as the host suite reads it (its ONLINE_WATCH and loadedOnline: the connection indicator says online, heard on the
 * console, so no waiting function runs in the page).
 *
 *   (cd packages/host-web && npx vite build --outDir /tmp/before)   # then change, and build into /tmp/after
 * With LINEUP_PROBE_CONVERSATIONS=N, the device has N sessions on the AppServer before the first load (the host
 * suite's `seedConversations`), which both builds list and follow.
 *
 *   node --conditions=source --import tsx bench/probes/host-ab.ts /tmp/before /tmp/after [warm reloads] [fresh loads]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger, startAppServer } from "@lineup/app-server";
import { startHostServer } from "@lineup/host-web/node";
import type { Page } from "playwright-core";
import { loadedOnline, ONLINE_WATCH, seedConversations } from "../suites/host.js";
import { launchPersistentChromium } from "../../test/support/chromium.js";
import { median, untilQuiet } from "../lib.js";

const [distA, distB] = [process.argv[2], process.argv[3]];
if (distA === undefined || distB === undefined) throw new Error("usage: host-ab.ts DIST_A DIST_B [warm reloads] [fresh loads]");
const WARM = Number(process.argv[4] ?? 15);
const FRESH = Number(process.argv[5] ?? 8);
const root = mkdtempSync(join(tmpdir(), "lineup-host-ab-"));
const server = await startAppServer({ dataDir: join(root, "server"), port: 0, logger: silentLogger });
const config = { server_url: server.url, device_token: server.devCredentials!.device_token };
const hostA = await startHostServer({ distDir: distA, config });
const hostB = await startHostServer({ distDir: distB, config });
await seedConversations(server, Number(process.env["LINEUP_PROBE_CONVERSATIONS"] ?? 0));
try {
  const fresh = { a: [] as number[], b: [] as number[] };
  for (let i = 0; i < FRESH; i++) {
    const order: [string, number[]][] = [
      [hostA.url, fresh.a],
      [hostB.url, fresh.b],
    ];
    if (i % 2 === 1) order.reverse();
    for (const [url, out] of order) {
      const browser = await launchPersistentChromium();
      try {
        await browser.context.addInitScript(ONLINE_WATCH);
        const page = browser.context.pages()[0] ?? (await browser.context.newPage());
        await untilQuiet();
        out.push(await loadedOnline(page, () => page.goto(url)));
      } finally {
        await browser.close();
      }
    }
  }
  const warm = { a: [] as number[], b: [] as number[] };
  const browser = await launchPersistentChromium();
  try {
    await browser.context.addInitScript(ONLINE_WATCH);
    const pageA = browser.context.pages()[0] ?? (await browser.context.newPage());
    const pageB = await browser.context.newPage();
    await loadedOnline(pageA, () => pageA.goto(hostA.url));
    await loadedOnline(pageB, () => pageB.goto(hostB.url));
    for (let i = 0; i < 3; i++) {
      await loadedOnline(pageA, () => pageA.reload());
      await loadedOnline(pageB, () => pageB.reload());
    }
    for (let i = 0; i < WARM; i++) {
      const order: [Page, number[]][] = [
        [pageA, warm.a],
        [pageB, warm.b],
      ];
      if (i % 2 === 1) order.reverse();
      for (const [page, out] of order) out.push(await loadedOnline(page, () => page.reload()));
    }
  } finally {
    await browser.close();
  }
  const ms = (values: number[]) => median(values).toFixed(1);
  console.log(`warm   A ${ms(warm.a)} ms   B ${ms(warm.b)} ms   (median of ${WARM})`);
  console.log(`fresh  A ${ms(fresh.a)} ms   B ${ms(fresh.b)} ms   (median of ${FRESH})`);
} finally {
  await hostA.close();
  await hostB.close();
  await server.close();
  rmSync(root, { recursive: true, force: true });
}
