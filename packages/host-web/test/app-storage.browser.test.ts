/**
 * Issue 20: apps' own storage in the browser — one IndexedDB database per app store — passes the app storage
 * contract in real Chromium: the same suite the Node tests run on memory, SQLite and fake-indexeddb (records with
 * provenance, quota, value schemas, migrations that finish or are undone when killed at any commit, one app's
 * records out of another's reach). Bundled with esbuild and run in a page on a real origin.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../../test/support/chromium.js";
import type { CaseResult } from "./browser/vitest-shim.js";

let results: CaseResult[] = [];
let server: Server | undefined;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  const bundle = await build({
    entryPoints: [resolve(import.meta.dirname, "browser/app-storage.entry.ts")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["source"],
    alias: { vitest: resolve(import.meta.dirname, "browser/vitest-shim.ts") },
  });
  const script = bundle.outputFiles[0]!.text;
  // IndexedDB needs a real origin (not about:blank): a tiny loopback page.
  server = createServer((req, res) => {
    if (req.url === "/suite.js") {
      res.writeHead(200, { "content-type": "text/javascript" });
      res.end(script);
    } else {
      res.writeHead(200, { "content-type": "text/html" });
      res.end('<!doctype html><script type="module" src="/suite.js"></script>');
    }
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  const browser = await launchChromium();
  close = async () => {
    await browser.close();
    await new Promise<void>((r) => server!.close(() => r()));
  };
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  await page.waitForFunction(() => typeof (window as { runAppStorageContract?: unknown }).runAppStorageContract === "function");
  results = await page.evaluate(() => (window as unknown as { runAppStorageContract: () => Promise<CaseResult[]> }).runAppStorageContract());
}, 85_000);

afterAll(async () => close?.());

describe("app storage contract on Chromium's IndexedDB", () => {
  it("runs the whole suite", () => {
    expect(results.length).toBeGreaterThan(7);
    console.log(`app storage contract in Chromium: ${results.length} cases, ${results.reduce((n, r) => n + r.ms, 0)} ms`);
  });

  it("passes every case", () => {
    const failed = results.filter((r) => !r.ok).map((r) => `${r.name}: ${r.error}`);
    expect(failed).toEqual([]);
  });
});
