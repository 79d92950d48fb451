/**
 * Issue 6: the Runtime's IndexedDB store passes its contract suite in real Chromium — the same suite the
 * Node tests run against fake-indexeddb, SQLite and memory, here on the browser's own IndexedDB (strict
 * durability, real transactions). The suite is bundled with esbuild and run in a page on a real origin.
 */
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CaseResult } from "./browser/vitest-shim.js";
import { runSuiteInChromium } from "./support.js";

let results: CaseResult[] = [];
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  const run = await runSuiteInChromium(resolve(import.meta.dirname, "browser/store-contract.entry.ts"), "runStoreContract");
  results = run.results;
  close = () => run.close();
}, 85_000);

afterAll(async () => close?.());

describe("RuntimeStore contract on Chromium's IndexedDB", () => {
  it("runs the whole suite", () => {
    expect(results.length).toBeGreaterThan(40);
    console.log(`store contract in Chromium: ${results.length} cases, ${results.reduce((n, r) => n + r.ms, 0)} ms`);
  });

  it("passes every case", () => {
    const failed = results.filter((r) => !r.ok).map((r) => `${r.name}: ${r.error}`);
    expect(failed).toEqual([]);
  });
});
