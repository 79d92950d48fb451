/**
 * Issue 20: apps' own storage in the browser — one IndexedDB database per app store — passes the app storage
 * contract in real Chromium: the same suite the Node tests run on memory, SQLite and fake-indexeddb (records with
 * provenance, quota, value schemas, migrations that finish or are undone when killed at any commit, one app's
 * records out of another's reach). Bundled with esbuild and run in a page on a real origin.
 */
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CaseResult } from "./browser/vitest-shim.js";
import { runSuiteInChromium } from "./support.js";

let results: CaseResult[] = [];
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  const run = await runSuiteInChromium(resolve(import.meta.dirname, "browser/app-storage.entry.ts"), "runAppStorageContract");
  results = run.results;
  close = () => run.close();
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
