/**
 * The Markdown renderer (markdown-it and DOMPurify) is not in the host's first script: the built host in
 * Chromium, the real AppServer and demo agent, and the renderer's chunk held back by the test. The first
 * page load fetches no renderer; an agent message that arrives before the chunk shows its text as plain,
 * escaped text (raw HTML in it is never parsed into elements) and is rendered as Markdown once the chunk
 * arrives.
 */
import type { Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchPersistentChromium } from "../../../test/support/chromium.js";
import { say, startWorld, type World } from "./support.js";

let world: World;
let browser: Awaited<ReturnType<typeof launchPersistentChromium>>;
let page: Page;
const pageErrors: string[] = [];
const rendererRequests: string[] = [];
let releaseRenderer: () => void = () => undefined;

beforeAll(async () => {
  world = await startWorld();
  browser = await launchPersistentChromium();
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.on("pageerror", (error) => pageErrors.push(String(error)));
  const released = new Promise<void>((resolve) => (releaseRenderer = resolve));
  // The chunk is named after its module, `markdown.ts`.
  await page.route(/\/assets\/markdown-[\w-]+\.js$/, async (route: Route) => {
    rendererRequests.push(route.request().url());
    await released;
    await route.continue();
  });
}, 120_000);

afterAll(async () => {
  releaseRenderer();
  await browser?.close();
  await world?.close();
});

const agentMessage = (p: Page) => p.locator('[data-kind="message"][data-from="agent"]').first();

describe("the Markdown renderer's chunk", () => {
  it("is not fetched by the first page load", async () => {
    await page.goto(world.host.url);
    await expect.poll(() => page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 30_000 }).toBe("online");
    await expect.poll(() => page.getByRole("tab", { name: "Chat" }).getAttribute("aria-selected")).toBe("true");
    expect(rendererRequests).toEqual([]);
  }, 60_000);

  it("a message shown before it arrives reads as plain text, then as Markdown when it arrives", async () => {
    await page.getByRole("button", { name: "New conversation with the demo agent" }).click();
    await page.getByRole("log").waitFor();
    await say(page, 'plain first **bold** <img src=x onerror="window.__pwned=1">');
    const message = agentMessage(page);
    await message.waitFor({ timeout: 20_000 });
    // The demo agent quotes what it was told: the quote is there, as typed, with no element made of it.
    const pending = message.locator('[data-markdown="loading"]');
    await pending.waitFor({ timeout: 10_000 });
    expect(await pending.textContent()).toContain('> plain first **bold** <img src=x onerror="window.__pwned=1">');
    expect(await message.locator("strong, blockquote, img").count()).toBe(0);
    expect(rendererRequests.length).toBe(1);

    releaseRenderer();
    const rendered = message.locator(".markdown");
    await rendered.waitFor({ timeout: 20_000 });
    expect(await rendered.locator("blockquote strong").textContent()).toBe("bold");
    expect(await rendered.textContent()).toContain("<img src=x");
    expect(await message.locator("img, [onerror]").count()).toBe(0);
    expect(await message.locator("[data-markdown]").count()).toBe(0);
    expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
