/**
 * A person who has used LineUp for a while: 200 conversations, started on another device of theirs (a Node
 * Runtime with the same device token), listed and followed by the web host on its first start (Chromium, the
 * real AppServer and demo agent). They are listed the one where something was said last first, the others the most
 * recently started first, as on the device that started them, and in the same order after a reload: what the list
 * should say is read from the AppServer's database (`listedTitles`).
 *
 * The chat renders a conversation's row again only when its summary changed, keeps the open conversation as it
 * is while others change, follows a burst of changes at most every LIST_RENDER_INTERVAL_MS, and renders only the
 * rows in view of a list this long (ConversationList's WINDOW_FROM): this checks, scrolling the list through, that
 * what a person sees is still the whole and latest list — every conversation in its place, each badge where a
 * message arrived, the one they opened staying open and answering.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import type { AgentClient } from "@lineup/agent-sdk";
import { connectAgent } from "@lineup/agent-sdk/node";
import { compareSessionStarts } from "@lineup/protocol";
import { createNodeRuntime } from "@lineup/runtime/node";
import { launchPersistentChromium } from "../../../test/support/chromium.js";
import { tempDirs } from "../../../test/support/temp-dirs.js";
import { say, SCREENSHOTS, startWorld, type World } from "./support.js";

const CONVERSATIONS = 200;
const temp = tempDirs();

let world: World;
let browser: Awaited<ReturnType<typeof launchPersistentChromium>>;
let page: Page;
let agent: AgentClient;
/** Session id by title ("Conversation 1" … "Conversation 200"). */
const sessions = new Map<string, string>();

/** The titles the list should show at first (nothing said yet), top to bottom: the most recently started first, by the AppServer's start times. */
let newestFirst: string[] = [];

beforeAll(async () => {
  world = await startWorld();
  const device = { serverUrl: world.server.url, token: world.server.devCredentials!.device_token, dataDir: temp("lineup-host-many-"), relistIntervalMs: 0 };
  const other = await createNodeRuntime(device);
  try {
    await other.start();
    await other.whenOnline();
    const started = await Promise.all(Array.from({ length: CONVERSATIONS }, (_, i) => other.conversations.start({ agent_id: "demo-agent", workspace_id: "w-1", title: `Conversation ${i + 1}` })));
    for (const [i, receipt] of started.entries()) sessions.set(`Conversation ${i + 1}`, receipt.conversation_id);
    // Stored on the AppServer before this device stops.
    const deadline = Date.now() + 60_000;
    while (other.conversations.list().some((c) => c.status !== "live")) {
      if (Date.now() > deadline) throw new Error("the conversations were not all started");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await other.stop();
  }
  // Started again, that device holds each conversation's start time as the AppServer listed it.
  const listed = await createNodeRuntime(device);
  try {
    await listed.start();
    await listed.whenOnline();
    newestFirst = [...listed.conversations.list()].sort((a, b) => compareSessionStarts(b.created_at, b.conversation_id, a.created_at, a.conversation_id)).map((c) => c.title!);
  } finally {
    await listed.stop();
  }
  expect(newestFirst).toHaveLength(CONVERSATIONS);
  agent = await connectAgent({ url: world.server.url, token: world.server.devCredentials!.agent_token, sessionPollMs: 50 });
  browser = await launchPersistentChromium();
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  await page.setViewportSize({ width: 1100, height: 760 });
  await page.goto(world.host.url);
  await page.locator('.connection[data-lifecycle="online"]').waitFor({ timeout: 60_000 });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await agent?.close();
  await world?.close();
});

const column = () => page.getByRole("complementary", { name: "Conversations" });
const list = () => column().getByRole("list");
const item = (title: string) => list().getByRole("button", { name: new RegExp(`^${title}( |$)`) });

interface Row {
  readonly title: string;
  /** Its badge's count, "" without one. */
  readonly unread: string;
  readonly current: boolean;
}

/**
 * Every row of the list, top to bottom, read as a person would see them: the list's column scrolled from top to bottom
 * a screen at a time, the rows rendered at each step placed by their aria-posinset. Fails on a row missing, placed twice
 * differently, or a list whose rendered rows are not a window of it. Leaves the column scrolled to the top.
 */
async function allRows(): Promise<{ readonly rows: Row[]; readonly mostRendered: number }> {
  return column().evaluate(async (el) => {
    const frame = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    const seen = new Map<number, { title: string; unread: string; current: boolean }>();
    let size = 0;
    let mostRendered = 0;
    for (let top = 0; ; top += el.clientHeight / 2) {
      el.scrollTop = top;
      await frame();
      const items = [...el.querySelectorAll<HTMLLIElement>(".conversation-list > li")];
      mostRendered = Math.max(mostRendered, items.length);
      items.forEach((li, i) => {
        const position = Number(li.getAttribute("aria-posinset") ?? i + 1);
        size = Number(li.getAttribute("aria-setsize") ?? items.length);
        const row = { title: li.querySelector(".conversation-title")!.textContent!, unread: li.querySelector(".badge")?.textContent ?? "", current: li.querySelector("[aria-current=true]") !== null };
        const was = seen.get(position);
        if (was !== undefined && JSON.stringify(was) !== JSON.stringify(row)) throw new Error(`row ${position} read as ${JSON.stringify(was)} and ${JSON.stringify(row)}`);
        seen.set(position, row);
      });
      if (el.scrollTop + el.clientHeight >= el.scrollHeight - 1) break;
    }
    el.scrollTop = 0;
    await frame();
    const rows = Array.from({ length: size }, (_, i) => {
      const row = seen.get(i + 1);
      if (row === undefined) throw new Error(`row ${i + 1} of ${size} was never rendered`);
      return row;
    });
    return { rows, mostRendered };
  });
}

/** Scrolls the list's column until the row titled `title` is rendered (where the AppServer's log puts it). */
async function showRow(title: string): Promise<void> {
  const index = world.listedTitles().indexOf(title);
  await column().evaluate(async (el, index) => {
    const rows = el.querySelectorAll<HTMLElement>(".conversation-list > li");
    const pitch = rows.length >= 2 ? rows[1]!.getBoundingClientRect().top - rows[0]!.getBoundingClientRect().top : 44;
    const list = el.querySelector<HTMLElement>(".conversation-list")!;
    const listTop = list.getBoundingClientRect().top - el.getBoundingClientRect().top + el.scrollTop;
    el.scrollTop = listTop + index * pitch - el.clientHeight / 2;
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  }, index);
  await item(title).waitFor();
}

describe("the chat with 200 conversations (Chromium, the real AppServer)", () => {
  /** The titles in the list, top to bottom. */
  const titles = () => list().locator(".conversation-title").allTextContents();

  it("lists every conversation the device follows, the most recently started first, rendering only the rows in view", async () => {
    await expect.poll(async () => (await allRows()).rows.length, { timeout: 30_000 }).toBe(CONVERSATIONS);
    const { rows, mostRendered } = await allRows();
    expect(rows.map((row) => row.title)).toEqual(newestFirst);
    expect(world.listedTitles()).toEqual(newestFirst);
    // A screen of rows and the ones either side of it, not all two hundred.
    expect(mostRendered).toBeLessThan(80);
    expect(await list().getByRole("listitem").first().getAttribute("aria-setsize")).toBe(String(CONVERSATIONS));
    // Started one after the other: the last ones started are near the top, the first ones near the bottom.
    expect(newestFirst.indexOf("Conversation 200")).toBeLessThan(newestFirst.indexOf("Conversation 1"));
  });

  it("brings up each conversation a burst of messages arrived in, with a badge, and keeps the open one as it was", async () => {
    await showRow("Conversation 150");
    await item("Conversation 150").click();
    await expect.poll(() => item("Conversation 150").getAttribute("aria-current")).toBe("true");
    await expect.poll(() => page.getByRole("log").getAttribute("aria-label")).toContain("Conversation 150");
    // Twenty conversations hear from the agent at once: more changes than the list renders for one by one.
    const told = Array.from({ length: 20 }, (_, i) => `Conversation ${i * 7 + 3}`);
    await Promise.all(told.map((title) => agent.send(sessions.get(title)!, { kind: "text", text: `news for ${title}` })));
    const unread = async () => (await allRows()).rows.filter((row) => row.unread === "1").map((row) => row.title);
    await expect.poll(unread, { timeout: 15_000 }).toEqual(world.listedTitles().filter((title) => told.includes(title)));
    // They come first, the one the agent spoke in last at the top; the rest stay in the order they were started.
    await expect.poll(async () => (await allRows()).rows.map((row) => row.title), { timeout: 15_000 }).toEqual(world.listedTitles());
    expect(new Set(world.listedTitles().slice(0, 20))).toEqual(new Set(told));
    expect(world.listedTitles().slice(20)).toEqual(newestFirst.filter((title) => !told.includes(title)));
    // The open conversation is still the one on screen, and still answers.
    expect((await allRows()).rows.filter((row) => row.current).map((row) => row.title)).toEqual(["Conversation 150"]);
    await showRow("Conversation 150");
    await say(page, "hello from a busy person");
    await page.getByRole("log").getByText("hello from a busy person").waitFor();
    await page.getByRole("log").locator(".bubble-row.from-agent").first().waitFor({ timeout: 30_000 });
    // Spoken in last, it is at the top now.
    await expect.poll(async () => (await allRows()).rows[0]!.title, { timeout: 15_000 }).toBe("Conversation 150");
    await expect.poll(async () => (await allRows()).rows.map((row) => row.title), { timeout: 15_000 }).toEqual(world.listedTitles());
    await page.screenshot({ path: join(SCREENSHOTS, "many-conversations.png") });
  });

  it("opening a conversation with news shows its message and clears its badge", async () => {
    await showRow("Conversation 3");
    await item("Conversation 3").click();
    await page.getByRole("log").getByText("news for Conversation 3").waitFor({ timeout: 15_000 });
    await expect.poll(() => item("Conversation 3").getByLabel("1 unread").count(), { timeout: 15_000 }).toBe(0);
    expect((await allRows()).rows.filter((row) => row.unread === "1")).toHaveLength(19);
  });

  it("finds a conversation by its title, and shows them all again on Escape", async () => {
    const find = page.getByRole("searchbox", { name: "Find a conversation" });
    await find.fill("conversation 15");
    await expect.poll(() => titles()).toEqual(world.listedTitles().filter((title) => /^Conversation 15\d?$/.test(title)));
    expect(await titles()).toHaveLength(11);
    await page.screenshot({ path: join(SCREENSHOTS, "many-conversations-find.png") });
    await find.fill("no such title");
    await page.getByText("No conversation is called “no such title”").waitFor();
    expect(await list().getByRole("listitem").count()).toBe(0);
    await find.press("Escape");
    await expect.poll(async () => (await allRows()).rows.map((row) => row.title)).toEqual(world.listedTitles());
    expect(await find.inputValue()).toBe("");
    // The conversation on screen stayed.
    expect((await allRows()).rows.filter((row) => row.current).map((row) => row.title)).toEqual(["Conversation 3"]);
  });

  it("keeps the order and what is unread after a reload", async () => {
    await page.reload();
    await page.locator('.connection[data-lifecycle="online"]').waitFor({ timeout: 60_000 });
    await expect.poll(async () => (await allRows()).rows.map((row) => row.title), { timeout: 30_000 }).toEqual(world.listedTitles());
    await expect.poll(async () => (await allRows()).rows.filter((row) => row.unread === "1").length, { timeout: 15_000 }).toBe(19);
    expect((await allRows()).rows.filter((row) => row.current).map((row) => row.title)).toEqual(["Conversation 3"]);
  });

  it("moves between all the conversations with the arrow keys, Home and End, bringing each row it reaches into view, and Enter opens it", async () => {
    const focused = () => page.evaluate(() => document.activeElement?.querySelector(".conversation-title")?.textContent ?? null);
    const order = world.listedTitles();
    await showRow(order[0]!);
    await item(order[0]!).focus();
    await page.keyboard.press("End");
    await expect.poll(focused).toBe(order.at(-1));
    await page.keyboard.press("ArrowUp");
    await expect.poll(focused).toBe(order.at(-2));
    await page.keyboard.press("Home");
    await expect.poll(focused).toBe(order[0]);
    await page.keyboard.press("ArrowDown");
    await expect.poll(focused).toBe(order[1]);
    await page.keyboard.press("Enter");
    await expect.poll(() => item(order[1]!).getAttribute("aria-current")).toBe("true");
  });

  it("keeps the focus on a row scrolled far out of view, and is one stop of the Tab key that comes back to it", async () => {
    const focused = () => page.evaluate(() => document.activeElement?.closest(".conversation-list") ? document.activeElement.querySelector(".conversation-title")?.textContent ?? null : null);
    const scrollColumn = (to: "top" | "bottom") =>
      column().evaluate(async (el, to) => {
        el.scrollTop = to === "top" ? 0 : el.scrollHeight;
        await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      }, to);
    const order = world.listedTitles();
    await showRow(order[10]!);
    await item(order[10]!).focus();
    // Scrolled with the mouse to the far end, the row focused stays focused, and the keys go on from it.
    await scrollColumn("bottom");
    expect(await focused()).toBe(order[10]);
    await page.keyboard.press("ArrowDown");
    await expect.poll(focused).toBe(order[11]);
    await expect.poll(() => item(order[11]!).isVisible()).toBe(true);
    // One Tab leaves the list; Shift+Tab comes back to the row last focused, even scrolled far out of view.
    await page.keyboard.press("End");
    await expect.poll(focused).toBe(order.at(-1));
    await page.keyboard.press("Tab");
    await expect.poll(focused).toBe(null);
    expect(await page.evaluate(() => document.activeElement !== document.body)).toBe(true);
    await scrollColumn("top");
    await page.keyboard.press("Shift+Tab");
    await expect.poll(focused).toBe(order.at(-1));
    // Every row but that one is out of the Tab order.
    expect(await list().locator('button[tabindex="0"]').count()).toBe(1);
  });

  it("keeps the focus on a row whose conversation moves to the top when something is said in it", async () => {
    const focused = () => page.evaluate(() => (document.activeElement?.closest(".conversation-list") ? (document.activeElement.querySelector(".conversation-title")?.textContent ?? null) : null));
    // A conversation low in the list, where nothing was said yet.
    const quiet = world.listedTitles().at(-5)!;
    await showRow(quiet);
    await item(quiet).focus();
    await agent.send(sessions.get(quiet)!, { kind: "text", text: `news for ${quiet}` });
    await expect.poll(() => world.listedTitles()[0]).toBe(quiet);
    await expect.poll(async () => (await allRows()).rows[0]!.title, { timeout: 15_000 }).toBe(quiet);
    expect(await focused()).toBe(quiet);
    // The keys go on from where it is now.
    await page.keyboard.press("ArrowDown");
    await expect.poll(focused).toBe(world.listedTitles()[1]);
  });
});
