/**
 * The host in real Chromium against the real AppServer and demo agent: sign in, start a conversation,
 * send (also keyboard-only), see the agent's Markdown rendered and sanitised, answer a choice and a
 * confirm card, reload and find the history restored from IndexedDB, and a second tab told that LineUp
 * is open elsewhere — then taking over with "Use here".
 */
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seriousAxeViolations } from "../../../test/support/axe.js";
import { launchPersistentChromium } from "../../../test/support/chromium.js";
import { SCREENSHOTS, startWorld, type World } from "./support.js";

let world: World;
let browser: Awaited<ReturnType<typeof launchPersistentChromium>>;
let page: Page;
const pageErrors: string[] = [];
const cspViolations: string[] = [];

beforeAll(async () => {
  world = await startWorld();
  browser = await launchPersistentChromium();
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.on("pageerror", (error) => pageErrors.push(String(error)));
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) cspViolations.push(message.text());
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await world?.close();
});

const agentBubbles = (p: Page) => p.locator('[data-kind="message"][data-from="agent"] .markdown');
const shot = (p: Page, name: string) => p.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });

async function sendByKeyboard(p: Page, text: string): Promise<void> {
  const box = p.getByRole("textbox", { name: "Message" });
  await box.focus();
  await p.keyboard.type(text);
  await p.keyboard.press("Enter");
}

describe("the web host in Chromium", () => {
  it("signs in with the served config and shows the chat, online", async () => {
    await page.goto(world.host.url);
    await expect.poll(() => page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 15_000 }).toBe("online");
    await expect.poll(() => page.getByRole("tab", { name: "Chat" }).getAttribute("aria-selected")).toBe("true");
    await shot(page, "01-empty-chat");
  });

  it("starts a conversation, sends with the keyboard only, and renders the agent's Markdown sanitised", async () => {
    await page.getByRole("button", { name: "New conversation with the demo agent" }).click();
    await page.getByRole("log").waitFor();
    // Nothing is started until the first message: the list stays empty, the empty conversation says what to do.
    expect(await page.locator(".conversation-item").count()).toBe(0);
    expect(await page.locator(".draft-hint").textContent()).toContain("try “help”");
    // Keyboard only: Tab from the new-conversation button reaches the composer; Enter sends.
    await page.getByRole("button", { name: "New conversation with the demo agent" }).focus();
    let reached = false;
    for (let i = 0; i < 12 && !reached; i++) {
      await page.keyboard.press("Tab");
      reached = await page.evaluate(() => document.activeElement?.getAttribute("aria-label") === "Message");
    }
    expect(reached).toBe(true);
    await page.keyboard.type('sanitiser check <img src=x onerror="window.__pwned=1"> [click](javascript:window.__pwned=2) <script>window.__pwned=3</script>');
    await page.keyboard.press("Enter");
    // Local echo, then the server's copy.
    await page.locator('[data-kind="message"][data-from="user"]').first().waitFor({ timeout: 10_000 });
    // The conversation is started by that message and named after it.
    expect(await page.locator(".conversation-item .conversation-title").allTextContents()).toEqual(["sanitiser check <img src=x…"]);
    expect(await page.locator('.conversation-item[aria-current="true"]').count()).toBe(1);
    await agentBubbles(page).first().waitFor({ timeout: 10_000 });
    const bubble = agentBubbles(page).first();
    expect(await bubble.locator("blockquote").count()).toBe(1);
    // The raw HTML is shown as text, never parsed into elements; the javascript: link is not a link.
    expect(await bubble.textContent()).toContain("<img src=x");
    expect(await bubble.locator("img, script, [onerror]").count()).toBe(0);
    const hrefs = await bubble.locator("a").evaluateAll((links) => links.map((a) => a.getAttribute("href")));
    expect(hrefs.filter((h) => h !== null && !/^(https?:|mailto:)/.test(h))).toEqual([]);
    expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined();
    // Only one agent bubble for one reply: the turn's text is not rendered a second time.
    await page.waitForTimeout(300);
    expect(await agentBubbles(page).count()).toBe(1);
    expect(await page.locator('[data-kind="echo"]').count()).toBe(0);
    await shot(page, "02-markdown-reply");
  });

  it("answers a choice card with arrow keys and Enter, and shows it answered", async () => {
    await sendByKeyboard(page, "let me choose");
    const card = page.locator('[data-kind="card"][data-card="choice"]');
    await card.waitFor({ timeout: 10_000 });
    // On screen, the open conversation's badge counts what waits for an answer, not unread text.
    const badge = page.locator('.conversation-item[aria-current="true"] .badge');
    await expect.poll(() => badge.getAttribute("aria-label"), { timeout: 10_000 }).toBe("1 waiting for your answer");
    await shot(page, "03-choice-card");
    const first = card.getByRole("radio").first();
    await first.focus();
    await page.keyboard.press("ArrowDown");
    const focused = await page.evaluate(() => document.activeElement?.textContent ?? "");
    const secondLabel = (await card.getByRole("radio").nth(1).locator(".choice-label").textContent()) ?? "";
    expect(focused).toContain(secondLabel);
    await page.keyboard.press("Enter");
    await expect.poll(() => card.getAttribute("data-answered"), { timeout: 10_000 }).toBe("true");
    expect(await card.locator(".card-answer").textContent()).toContain(secondLabel);
    await expect.poll(() => badge.count(), { timeout: 10_000, message: "no badge once answered" }).toBe(0);
    // The agent continues after the answer.
    await expect.poll(() => agentBubbles(page).count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
  });

  it("answers a confirm card and the agent hears it", async () => {
    await sendByKeyboard(page, "please confirm");
    const card = page.locator('[data-kind="card"][data-card="confirm"]');
    await card.waitFor({ timeout: 10_000 });
    await card.getByRole("button", { name: "Yes, go ahead" }).click();
    await expect.poll(() => card.getAttribute("data-answered"), { timeout: 10_000 }).toBe("true");
    await expect.poll(async () => (await agentBubbles(page).allTextContents()).some((t) => t.includes("Confirmed")), { timeout: 10_000 }).toBe(true);
    await shot(page, "04-cards-answered");
  });

  it("restores the history from IndexedDB after a reload, cards still answered", async () => {
    const before = await agentBubbles(page).allTextContents();
    await page.reload();
    await agentBubbles(page).first().waitFor({ timeout: 15_000 });
    await expect.poll(() => agentBubbles(page).allTextContents(), { timeout: 10_000 }).toEqual(before);
    expect(await page.locator('[data-kind="card"][data-answered="true"]').count()).toBe(2);
    expect(await page.locator('[data-kind="card"][data-answered="false"]').count()).toBe(0);
    await shot(page, "05-after-reload");
  });

  it("a second tab says LineUp is open elsewhere, and 'Use here' moves the Runtime over", async () => {
    const second = await browser.context.newPage();
    await second.goto(world.host.url);
    const notice = second.getByRole("heading", { name: "LineUp is open in another tab" });
    await notice.waitFor({ timeout: 10_000 });
    await shot(second, "06-second-tab");
    await second.getByRole("button", { name: "Use here" }).click();
    await expect.poll(() => second.locator(".connection").getAttribute("data-lifecycle"), { timeout: 15_000 }).toBe("online");
    await page.getByRole("heading", { name: "LineUp is open in another tab" }).waitFor({ timeout: 10_000 });
    // The history is there in the new tab too (same profile, same IndexedDB).
    await agentBubbles(second).first().waitFor({ timeout: 10_000 });
    await shot(second, "07-second-tab-took-over");
    await second.close();
  });

  it("keeps the timeline windowed as the history grows: only visible rows are in the DOM", async () => {
    // The second tab closed: this one got the profile back by itself.
    await expect.poll(() => page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 15_000 }).toBe("online");
    const box = page.getByRole("textbox", { name: "Message" });
    for (let i = 0; i < 30; i++) {
      await box.fill(`note ${i}`);
      await box.press("Enter");
    }
    const log = page.getByRole("log");
    await expect.poll(async () => Number(await log.getAttribute("data-rows-total")), { timeout: 30_000 }).toBeGreaterThanOrEqual(68);
    await expect.poll(() => page.locator('[data-kind="echo"]').count(), { timeout: 30_000 }).toBe(0);
    const total = Number(await log.getAttribute("data-rows-total"));
    const rendered = await page.locator(".timeline-row").count();
    expect(rendered).toBeLessThan(total / 2);
    // Pinned to the bottom: the newest reply is on screen.
    await expect.poll(() => agentBubbles(page).last().isVisible()).toBe(true);
    // Scrolling to the top brings the first rows back into the DOM.
    // Older pages load on scroll-up and the window re-renders asynchronously: keep scrolling to the top
    // until the first user message of the conversation is the first one in the DOM.
    await expect
      .poll(
        async () => {
          await log.evaluate((el) => (el.scrollTop = 0));
          return (await page.locator('[data-kind="message"][data-from="user"]').first().textContent()) ?? "";
        },
        { timeout: 20_000 },
      )
      .toContain("sanitiser check");
    expect(await page.locator(".timeline-row").first().getAttribute("data-row-key")).toMatch(/^m:/);
    await shot(page, "08-long-history-top");
  }, 60_000);

  it("opens a conversation at its newest message and goes back there when the person sends", async () => {
    // How far the log is from its bottom, once rows are rendered (-1 before).
    const gap = () => page.getByRole("log").evaluate((el) => (el.querySelector(".timeline-row") === null ? -1 : el.scrollHeight - el.scrollTop - el.clientHeight));
    // Reopened: rows are measured taller than estimated as they render, and the log must end at the bottom anyway.
    await page.getByRole("tab", { name: "Apps" }).click();
    await page.getByRole("tab", { name: "Chat" }).click();
    await expect.poll(gap, { timeout: 10_000 }).toBeGreaterThanOrEqual(0);
    await expect.poll(gap, { timeout: 10_000 }).toBeLessThanOrEqual(24);
    await page.waitForTimeout(1_000);
    expect(await gap()).toBeLessThanOrEqual(24);
    // Scrolled up to read, then sending: the log follows to the answer.
    await page.getByRole("log").evaluate((el) => (el.scrollTop = 0));
    await expect.poll(gap).toBeGreaterThan(200);
    await sendByKeyboard(page, "back to the bottom");
    await expect.poll(async () => (await agentBubbles(page).last().textContent()) ?? "", { timeout: 15_000 }).toContain("back to the bottom");
    await expect.poll(gap, { timeout: 10_000 }).toBeLessThanOrEqual(24);
    await shot(page, "08b-pinned-after-send");
  }, 60_000);

  it("the chat, Apps and Settings screens have no serious or critical axe-core violations", { timeout: 60_000 }, async () => {
    await page.getByRole("tab", { name: "Chat" }).click();
    await agentBubbles(page).first().waitFor();
    expect(await seriousAxeViolations(page), "chat").toEqual([]);
    await page.getByRole("tab", { name: "Apps" }).click();
    await expect.poll(() => page.locator("#app-area").getAttribute("data-app")).toBe("app-registry");
    expect(await seriousAxeViolations(page), "Apps").toEqual([]);
    await page.getByRole("tab", { name: "Settings" }).click();
    await expect.poll(() => page.locator("#app-area").getAttribute("data-app")).toBe("settings");
    expect(await seriousAxeViolations(page), "Settings").toEqual([]);
    await page.getByRole("tab", { name: "Chat" }).click();
  });

  it("switches apps from the keyboard and themes the whole shell dark from Settings", async () => {
    await page.getByRole("tab", { name: "Chat" }).focus();
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => page.locator("#app-area").getAttribute("data-app")).toBe("app-registry");
    expect(await page.getByRole("listitem").filter({ hasText: "chat" }).count()).toBeGreaterThan(0);
    await shot(page, "09-apps");
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => page.locator("#app-area").getAttribute("data-app")).toBe("settings");
    await page.getByRole("radio", { name: "Dark" }).check();
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue("--lineup-color-bg").trim())).toBe("#111316");
    await page.getByRole("tab", { name: "Chat" }).click();
    await agentBubbles(page).first().waitFor();
    await shot(page, "09-chat-dark");
    // Back to the default for whoever runs next in this profile.
    await page.getByRole("tab", { name: "Settings" }).click();
    await page.getByRole("radio", { name: "Follow the system" }).check();
  });

  it("says offline as soon as the browser loses the network, keeps what is said, and reconnects as soon as the network is back", async () => {
    const lifecycle = () => page.locator(".connection").getAttribute("data-lifecycle");
    await page.getByRole("tab", { name: "Chat" }).click();
    await expect.poll(lifecycle, { timeout: 15_000 }).toBe("online");
    // Reconnects back off by a random part of a doubling ceiling; take the whole ceiling each time, so
    // the waits are known: 0.25, 0.5, 1, 2, 4 s, then 8 s once "offline" shows.
    await page.evaluate(() => {
      const w = window as unknown as { __random?: () => number };
      w.__random = Math.random;
      Math.random = () => 0.999;
    });
    await browser.context.setOffline(true);
    // The browser's `offline` event ends the connection: no "Online" while nothing gets through.
    await expect.poll(lifecycle, { timeout: 5_000 }).not.toBe("online");
    await sendByKeyboard(page, "sent while offline");
    await expect.poll(() => page.locator(".queued").textContent(), { timeout: 5_000 }).toBe("1 waiting to send");
    await expect.poll(lifecycle, { timeout: 30_000 }).toBe("offline_degraded");
    await shot(page, "10-offline");
    // The agent's answer quotes what was said (the log is windowed: count its answer, not its rows).
    const answers = agentBubbles(page).filter({ hasText: "sent while offline" });
    expect(await answers.count()).toBe(0);
    await browser.context.setOffline(false);
    // The `online` event reconnects now instead of waiting out the 8 s backoff.
    await expect.poll(lifecycle, { timeout: 5_000 }).toBe("online");
    await page.evaluate(() => {
      Math.random = (window as unknown as { __random: () => number }).__random;
    });
    await expect.poll(() => answers.count(), { timeout: 15_000 }).toBe(1);
    // Nothing is left waiting to send. That line is rendered with the chat's list, at most every 50 ms
    // (ChatApp's LIST_RENDER_INTERVAL_MS), the agent's answer in the log at once: it may go a moment after.
    await expect.poll(() => page.locator(".queued").count(), { timeout: 15_000 }).toBe(0);
  }, 60_000);

  it("says when the agent is not connected, and what was sent then is answered once it connects", async () => {
    const status = page.locator(".status-line");
    await expect.poll(() => status.getAttribute("data-agent"), { timeout: 10_000 }).toBe("connected");
    await world.stopAgent();
    await expect.poll(() => status.getAttribute("data-agent"), { timeout: 10_000 }).toBe("away");
    expect(await status.textContent()).toBe("The agent is not connected");
    await sendByKeyboard(page, "are you there while away?");
    await expect.poll(() => status.textContent(), { timeout: 10_000 }).toBe("Sent · the agent is not connected: it gets your message when it connects");
    await shot(page, "11-agent-away");
    await world.startAgent();
    await expect.poll(() => status.getAttribute("data-agent"), { timeout: 10_000 }).toBe("connected");
    await expect.poll(() => agentBubbles(page).filter({ hasText: "are you there while away?" }).count(), { timeout: 15_000 }).toBe(1);
  }, 60_000);

  it("ran without page errors or CSP violations", () => {
    expect(pageErrors).toEqual([]);
    expect(cspViolations).toEqual([]);
  });
});
