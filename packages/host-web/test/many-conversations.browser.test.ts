/**
 * A person who has used LineUp for a while: 200 conversations, started on another device of theirs (a Node
 * Runtime with the same device token), listed and followed by the web host on its first start (Chromium, the
 * real AppServer and demo agent). They are listed the most recently started first, as on the device that started
 * them, and in the same order after a reload.
 *
 * The chat renders a conversation's row again only when its summary changed, keeps the open conversation as it
 * is while others change, and follows a burst of changes at most every LIST_RENDER_INTERVAL_MS: this checks that
 * what a person sees is still the whole and latest list — every conversation, each badge where a message arrived,
 * the one they opened staying open and answering.
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

/** The titles the list should show, top to bottom: the most recently started first, by the AppServer's start times. */
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

const list = () => page.getByRole("complementary", { name: "Conversations" }).getByRole("list");
const item = (title: string) => list().getByRole("button", { name: new RegExp(`^${title}( |$)`) });

describe("the chat with 200 conversations (Chromium, the real AppServer)", () => {
  /** The titles in the list, top to bottom. */
  const titles = () => list().locator(".conversation-title").allTextContents();

  it("lists every conversation the device follows, the most recently started first", async () => {
    await expect.poll(() => list().getByRole("listitem").count(), { timeout: 30_000 }).toBe(CONVERSATIONS);
    expect(await titles()).toEqual(newestFirst);
    // Started one after the other: the last ones started are near the top, the first ones near the bottom.
    expect(newestFirst.indexOf("Conversation 200")).toBeLessThan(newestFirst.indexOf("Conversation 1"));
  });

  it("shows a badge on each conversation a burst of messages arrived in, and keeps the open one as it was", async () => {
    await item("Conversation 150").click();
    await expect.poll(() => item("Conversation 150").getAttribute("aria-current")).toBe("true");
    await expect.poll(() => page.getByRole("log").getAttribute("aria-label")).toContain("Conversation 150");
    // Twenty conversations hear from the agent at once: more changes than the list renders for one by one.
    const told = Array.from({ length: 20 }, (_, i) => `Conversation ${i * 7 + 3}`);
    await Promise.all(told.map((title) => agent.send(sessions.get(title)!, { kind: "text", text: `news for ${title}` })));
    for (const title of told) {
      await expect.poll(() => item(title).getByLabel("1 unread").count(), { timeout: 15_000 }).toBe(1);
    }
    expect(await list().getByLabel("1 unread").count()).toBe(told.length);
    // The open conversation is still the one on screen, and still answers.
    expect(await item("Conversation 150").getAttribute("aria-current")).toBe("true");
    await say(page, "hello from a busy person");
    await page.getByRole("log").getByText("hello from a busy person").waitFor();
    await page.getByRole("log").locator(".bubble-row.from-agent").first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(SCREENSHOTS, "many-conversations.png") });
  });

  it("opening a conversation with news shows its message and clears its badge", async () => {
    await item("Conversation 3").click();
    await page.getByRole("log").getByText("news for Conversation 3").waitFor({ timeout: 15_000 });
    await expect.poll(() => item("Conversation 3").getByLabel("1 unread").count(), { timeout: 15_000 }).toBe(0);
    expect(await list().getByLabel("1 unread").count()).toBe(19);
  });

  it("finds a conversation by its title, and shows them all again on Escape", async () => {
    const find = page.getByRole("searchbox", { name: "Find a conversation" });
    await find.fill("conversation 15");
    await expect.poll(() => titles()).toEqual(newestFirst.filter((title) => /^Conversation 15\d?$/.test(title)));
    expect(await titles()).toHaveLength(11);
    await page.screenshot({ path: join(SCREENSHOTS, "many-conversations-find.png") });
    await find.fill("no such title");
    await page.getByText("No conversation is called “no such title”").waitFor();
    expect(await list().getByRole("listitem").count()).toBe(0);
    await find.press("Escape");
    await expect.poll(() => list().getByRole("listitem").count()).toBe(CONVERSATIONS);
    expect(await find.inputValue()).toBe("");
    // The conversation on screen stayed.
    expect(await item("Conversation 3").getAttribute("aria-current")).toBe("true");
  });

  it("keeps the order and what is unread after a reload", async () => {
    await page.reload();
    await page.locator('.connection[data-lifecycle="online"]').waitFor({ timeout: 60_000 });
    await expect.poll(() => list().getByRole("listitem").count(), { timeout: 30_000 }).toBe(CONVERSATIONS);
    expect(await titles()).toEqual(newestFirst);
    await expect.poll(() => list().getByLabel("1 unread").count(), { timeout: 15_000 }).toBe(19);
    expect(await item("Conversation 3").getAttribute("aria-current")).toBe("true");
  });
});
