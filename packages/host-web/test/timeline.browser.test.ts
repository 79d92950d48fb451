/**
 * The chat's windowed Timeline in real Chromium: what a person scrolling the log sees. Rows above the screen
 * that are mounted again as the window moves (an MCP view or an image mounting small, then growing), rows
 * measured for the first time, and older history prepended must not move what is on screen: a scroll moves
 * the rows by exactly the distance scrolled, and nothing moves them after.
 */
import { resolve } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../../test/support/chromium.js";
import { serveHarnessPage, type HarnessPage } from "./harness-page.js";

const HOST_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'";

type Api = {
  fill(count: number, viewEvery: number): void;
  prepend(count: number): void;
  visible(): { key: string; top: number } | undefined;
  topOf(key: string): number | undefined;
};

let browser: Browser;
let page: Page;
let harness: HarnessPage | undefined;
const pageErrors: string[] = [];

const call = <K extends keyof Api>(name: K, ...args: Parameters<Api[K]>): Promise<ReturnType<Api[K]>> =>
  page.evaluate(([n, a]) => ((window as unknown as { __timeline: Record<string, (...x: unknown[]) => unknown> }).__timeline[n as string]!(...(a as unknown[]))), [name, args] as const) as Promise<ReturnType<Api[K]>>;
const log = () => page.getByRole("log", { name: "Messages" });
/** Long enough for every view mounted to have grown (60 ms) and the log to have settled. */
const settle = () => page.waitForTimeout(400);

beforeAll(async () => {
  harness = await serveHarnessPage({ entry: resolve(import.meta.dirname, "timeline.entry.ts"), csp: HOST_CSP, title: "Timeline" });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 800, height: 800 } });
  page.on("pageerror", (error) => pageErrors.push(String(error)));
  await page.goto(harness.origin);
  await page.waitForFunction(() => "__timeline" in window);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await harness?.close();
});

describe("the chat's windowed log (Chromium)", () => {
  it("stays at the bottom while the last rows grow", async () => {
    await call("fill", 400, 4);
    await settle();
    const gap = await log().evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
    expect(gap).toBeLessThanOrEqual(1);
  }, 30_000);

  it("moves what is on screen by exactly what the person scrolled, while rows above mount and grow", async () => {
    const drifts: number[] = [];
    for (let step = 0; step < 14; step++) {
      const before = (await call("visible"))!;
      await log().evaluate((el) => (el.scrollTop -= 350));
      await settle();
      const after = await call("topOf", before.key);
      expect(after, `row ${before.key} is still rendered after step ${step}`).toBeDefined();
      drifts.push(after! - (before.top + 350));
    }
    expect(drifts.map((d) => Math.abs(d) <= 1)).toEqual(drifts.map(() => true));
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it("keeps the rows on screen still when older history is prepended", async () => {
    const before = (await call("visible"))!;
    await call("prepend", 60);
    // In the first frame already (the rows on screen are not mounted again), and after every view has grown.
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => done(undefined))));
    expect(await call("topOf", before.key)).toBe(before.top);
    await settle();
    expect(await call("topOf", before.key)).toBe(before.top);
  }, 30_000);
});
