/**
 * What the host's first page load fetches, and the parts it fetches later: the built host in Chromium
 * (English browser), the real AppServer and demo agent. The first load fetches none of the later chunks:
 * the Markdown renderer (markdown-it and DOMPurify), the Chinese catalogue, Apps, Settings, the launcher,
 * an MCP server's question form, an MCP Apps view's card, and the app bridge with the surface host. With the renderer's chunk held back by the test, an agent
 * message shows its text as plain, escaped text (raw HTML in it is never parsed into elements) and is
 * rendered as Markdown once the chunk arrives. A core app or the launcher whose chunk cannot be fetched
 * says so, and the next opening fetches it again.
 * Chinese chosen in Settings turns the host Chinese without a reload once its catalogue arrives, and a
 * reload then never shows the shell in English.
 */
import type { Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchPersistentChromium } from "../../../test/support/chromium.js";
import { say, startWorld, type World } from "./support.js";

let world: World;
let browser: Awaited<ReturnType<typeof launchPersistentChromium>>;
let page: Page;
const pageErrors: string[] = [];
const scripts: string[] = [];
const rendererRequests: string[] = [];
let releaseRenderer: () => void = () => undefined;

beforeAll(async () => {
  world = await startWorld();
  browser = await launchPersistentChromium();
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.on("pageerror", (error) => pageErrors.push(String(error)));
  page.on("request", (request) => {
    const path = new URL(request.url()).pathname;
    if (path.endsWith(".js")) scripts.push(path);
  });
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
/** The chunks a page load must not fetch until they are wanted, by the module each is named after. */
const LATER = /\/assets\/(markdown|messages\.zh-CN|RegistryApp|SettingsApp|Launcher|ElicitationForm|McpViewCard|instance-bridge|mount-surface)-[\w-]+\.js$/;
const fetched = (chunk: string) => scripts.filter((path) => path.includes(`/assets/${chunk}-`)).length;

describe("the host's first load and its later parts", () => {
  it("the first page load fetches none of the later chunks", async () => {
    await page.goto(world.host.url);
    await expect.poll(() => page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 30_000 }).toBe("online");
    await expect.poll(() => page.getByRole("tab", { name: "Chat" }).getAttribute("aria-selected")).toBe("true");
    expect(scripts.length).toBeGreaterThan(0);
    expect(scripts.filter((path) => LATER.test(path))).toEqual([]);
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

  it("Apps, its chunk refused: chat comes back with a notice, and opening Apps again fetches it again", async () => {
    let refusing = true;
    let refused = 0;
    await page.route(/\/assets\/RegistryApp-[\w-]+\.js$/, async (route: Route) => {
      if (!refusing) return route.continue();
      refused++;
      return route.abort("connectionrefused");
    });
    await page.getByRole("tab", { name: "Apps" }).click();
    await expect.poll(() => page.locator(".toasts").textContent(), { timeout: 20_000 }).toContain("stopped working; back to chat");
    await expect.poll(() => page.getByRole("tab", { name: "Chat" }).getAttribute("aria-selected"), { timeout: 20_000 }).toBe("true");
    expect(refused).toBeGreaterThan(0);
    refusing = false;
    await page.getByRole("tab", { name: "Apps" }).click();
    await page.getByRole("heading", { name: "Apps" }).first().waitFor({ timeout: 20_000 });
    expect(await page.getByRole("tab", { name: "Apps" }).getAttribute("aria-selected")).toBe("true");
    await page.getByRole("tab", { name: "Chat" }).click();
  }, 60_000);

  it("the launcher, its chunk refused: a notice says it could not open, and Ctrl+K again opens it", async () => {
    let refusing = true;
    await page.route(/\/assets\/Launcher-[\w-]+\.js$/, async (route: Route) => (refusing ? route.abort("connectionrefused") : route.continue()));
    await page.keyboard.press("Control+k");
    await expect.poll(() => page.locator(".toasts").textContent(), { timeout: 20_000 }).toContain("Could not open the launcher");
    expect(await page.getByRole("dialog").count()).toBe(0);
    refusing = false;
    await page.keyboard.press("Control+k");
    await page.getByRole("dialog").waitFor({ timeout: 20_000 });
    await page.keyboard.press("Escape");
    await expect.poll(() => page.getByRole("dialog").count()).toBe(0);
  }, 60_000);

  it("Chinese chosen in Settings: the host speaks it once its catalogue arrives, without a reload", async () => {
    let navigations = 0;
    page.on("framenavigated", (frame) => frame === page.mainFrame() && navigations++);
    await page.getByRole("tab", { name: "Settings" }).click();
    await page.getByRole("combobox", { name: "Language" }).selectOption("zh-CN");
    await expect.poll(() => page.getByRole("tab", { name: "设置" }).getAttribute("aria-selected"), { timeout: 20_000 }).toBe("true");
    expect(await page.locator("html").getAttribute("lang")).toBe("zh-CN");
    expect(await page.getByRole("combobox", { name: "语言" }).locator("option:checked").textContent()).toBe("简体中文");
    expect(navigations).toBe(0);
    expect(fetched("messages.zh-CN")).toBe(1);
    expect(fetched("SettingsApp")).toBe(1);
  }, 60_000);

  it("a reload with Chinese chosen never shows the shell in English", async () => {
    // Every text the app switcher's tabs ever show, from the first one rendered.
    await page.addInitScript(() => {
      const seen = new Set<string>();
      (window as unknown as { __tabTexts: Set<string> }).__tabTexts = seen;
      new MutationObserver(() => {
        for (const tab of document.querySelectorAll('[role="tab"]')) seen.add(tab.textContent ?? "");
      }).observe(document, { subtree: true, childList: true, characterData: true });
    });
    await page.reload();
    await expect.poll(() => page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 30_000 }).toBe("online");
    await expect.poll(() => page.getByRole("tab", { name: "聊天" }).count(), { timeout: 20_000 }).toBe(1);
    const texts = await page.evaluate(() => [...(window as unknown as { __tabTexts: Set<string> }).__tabTexts]);
    expect(texts).toContain("聊天");
    expect(texts.filter((text) => /Chat|Apps|Settings/.test(text))).toEqual([]);
    expect(pageErrors).toEqual([]);
  }, 60_000);
});

describe("what the start asks the host's server for", () => {
  it("nothing but the page and its assets: the sign-in config is in the page, the Runtime chunk is fetched, and a new profile goes online without the app-schema engine", async () => {
    const fresh = await launchPersistentChromium();
    try {
      const tab = fresh.context.pages()[0] ?? (await fresh.context.newPage());
      const requested: string[] = [];
      tab.on("request", (request) => {
        const url = new URL(request.url());
        if (url.origin === new URL(world.host.url).origin) requested.push(url.pathname);
      });
      await tab.goto(world.host.url);
      await expect.poll(() => tab.locator(".connection").getAttribute("data-lifecycle"), { timeout: 30_000 }).toBe("online");
      const beforeOnline = [...requested];
      expect(beforeOnline.filter((path) => !(path === "/" || path === "/favicon.svg" || /^\/assets\/[\w.-]+\.(js|css)$/.test(path)))).toEqual([]);
      // The Runtime (`start-runtime.ts`); not the app-schema engine (@cfworker/json-schema and RE2 in `json-schema-check.ts`):
      // a new profile holds no app but the core ones, which declare no schema.
      expect(beforeOnline.filter((path) => /\/assets\/start-runtime-[\w-]+\.js$/.test(path))).toHaveLength(1);
      expect(beforeOnline.filter((path) => /\/assets\/json-schema-check-[\w-]+\.js$/.test(path))).toEqual([]);
      // Nor the native host channel's codec: a page served over http is in a plain browser, with no native host to ask.
      expect(beforeOnline.filter((path) => /\/assets\/host-channel-codec-[\w-]+\.js$/.test(path))).toEqual([]);
      // The page's policy is its header alone (no meta policy, which would hold back the preload scanner), and it is enforced.
      const policy = await tab.evaluate(async () => {
        const refused = new Set<string>();
        addEventListener("securitypolicyviolation", (e) => refused.add(e.effectiveDirective));
        const inline = document.createElement("script");
        inline.textContent = "window.__inlineRan = true";
        document.head.append(inline);
        try {
          new WebSocket("ws://127.0.0.1:9/");
        } catch {
          refused.add("connect-src");
        }
        await new Promise((resolve) => setTimeout(resolve, 300));
        return { meta: document.querySelector('meta[http-equiv="Content-Security-Policy"]') !== null, inlineRan: (window as { __inlineRan?: boolean }).__inlineRan === true, refused: [...refused].sort() };
      });
      expect(policy).toEqual({ meta: false, inlineRan: false, refused: ["connect-src", "script-src-elem"] });
    } finally {
      await fresh.close();
    }
  }, 90_000);
});
