/**
 * The shell's connection indicator in real Chromium: it follows the Runtime's lifecycle from the render that
 * shows it, so a change between that render and the browser's paint (the Runtime going online as the shell
 * first shows, on every start) is on screen in that paint, not a frame or more later.
 */
import { resolve } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../../test/support/chromium.js";
import { serveHarnessPage, type HarnessPage } from "./harness-page.js";

const HOST_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'";

let browser: Browser;
let page: Page;
let harness: HarnessPage | undefined;
const pageErrors: string[] = [];

beforeAll(async () => {
  harness = await serveHarnessPage({ entry: resolve(import.meta.dirname, "connection-indicator.entry.ts"), csp: HOST_CSP, title: "LineUp" });
  browser = await launchChromium();
  page = await browser.newPage();
  page.on("pageerror", (error) => pageErrors.push(String(error)));
  await page.goto(harness.origin);
  await page.waitForFunction(() => "__conn" in window);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await harness?.close();
});

describe("the connection indicator (Chromium)", () => {
  it("shows a lifecycle change made before the browser paints, without waiting for a frame", async () => {
    const seen = await page.evaluate(() => (window as unknown as { __conn: { mountThenGoOnline(): Promise<{ beforePaint?: string; afterFrame?: string }> } }).__conn.mountThenGoOnline());
    expect(seen).toEqual({ beforePaint: "online", afterFrame: "online" });
    expect(await page.getByRole("status").textContent()).toBe("Online");
    expect(pageErrors).toEqual([]);
  });
});
