/**
 * Probe (not a suite): what an IndexedDB row costs in Chromium. Puts 3,000 event frames on a persistent
 * profile with strict durability: 1 put per event in 100-record transactions (the surface suite's raw
 * floor), then 1, 2, 3 and 4 operations per event in 250-record transactions (an inbox row alone; plus
 * an envelope-id row; plus a pending row; plus that row's later delete — the Runtime's layout before
 * log chunks). Prints the median events/s of 5 rounds for each.
 *
 *   node --conditions=source --import tsx bench/probes/idb-ops-per-event.ts
 *
 * The page script is plain JavaScript in a string, so the TypeScript loader's helpers never reach it.
 */
import { createServer } from "node:http";
import { launchPersistentChromium } from "../../test/support/chromium.js";
import { eventFrame } from "../ingest-frames.js";
const frames = Array.from({ length: 3000 }, (_, i) => eventFrame("s-bench", i + 1));
const server = createServer((_, res) => res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>x</title>"));
await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
const port = (server.address() as { port: number }).port;
const browser = await launchPersistentChromium();
const page = await browser.context.newPage();
await page.goto(`http://127.0.0.1:${port}/`);
await page.evaluate(`window.__frames = ${JSON.stringify(frames)}`);
const result = await page.evaluate(`(async (frames) => {
  const open = (name) => new Promise((res, rej) => { const r = indexedDB.open(name, 1); r.onupgradeneeded = () => r.result.createObjectStore("s"); r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });
  const out = {};
  for (let round = 0; round < 5; round++) {
    for (const [variant, per, batch, arrayKey] of [["raw1x100", 1, 100, false], ["1x250arr", 1, 250, true], ["2x250arr", 2, 250, true], ["3x250arr", 3, 250, true], ["4x250arr", 4, 250, true]]) {
      const db = await open(\`\${variant}-\${round}\`);
      const t = performance.now();
      for (let i = 0; i < frames.length; i += batch) {
        await new Promise((res, rej) => {
          const tx = db.transaction("s", "readwrite", { durability: "strict" });
          tx.oncomplete = () => res(); tx.onabort = () => rej(tx.error);
          const s = tx.objectStore("s");
          for (let j = i; j < Math.min(i + batch, frames.length); j++) {
            const k = String(j).padStart(12, "0");
            s.put(arrayKey ? { kind: "json", text: frames[j] } : frames[j], arrayKey ? ["inbox", \`chat/s/\${k}\`] : \`k\${k}\`);
            if (per >= 2) s.put({ kind: "json", text: \`{"seq":\${j}}\` }, ["envelope-ids", \`s/env-\${j}\`]);
            if (per >= 3) s.put({ kind: "json", text: \`{"message_id":"s:\${j}"}\` }, ["inbox-pending", \`chat/s/\${k}\`]);
            if (per >= 4 && j >= batch) s.delete(["inbox-pending", \`chat/s/\${String(j - batch).padStart(12, "0")}\`]);
          }
          tx.commit();
        });
      }
      (out[variant] ??= []).push(frames.length * 1000 / (performance.now() - t));
      db.close();
    }
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v.sort((a, b) => a - b)[2]]));
})(window.__frames)`);
console.log(result);
await browser.close(); server.close();
