/**
 * The chat's Stop in real Chromium against the real AppServer and demo agent: while the agent works on a
 * turn (here it waits on a card it asked), Stop beside Send — and Escape in the composer — cancel the
 * turn; the server records `turn.cancelled`, the chat says the agent was stopped, the button goes away,
 * and the agent says nothing more for that turn.
 */
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchPersistentChromium } from "../../../test/support/chromium.js";
import { SCREENSHOTS, say, startWorld, type World } from "./support.js";

let world: World;
let browser: Awaited<ReturnType<typeof launchPersistentChromium>>;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  world = await startWorld();
  browser = await launchPersistentChromium();
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.on("pageerror", (error) => pageErrors.push(String(error)));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await world?.close();
});

const stopButton = (p: Page) => p.getByRole("button", { name: "Stop the agent" });
const statusLine = (p: Page) => p.locator(".status-line");
const agentBubbles = (p: Page) => p.locator('[data-kind="message"][data-from="agent"]');
const cancelledTurns = () => world.serverEvents(200).filter((line) => line.includes(" turn.cancelled ")).length;

describe("stopping the agent from the chat", () => {
  it("Stop beside Send cancels the turn the agent works on; the chat says it stopped and the button goes", async () => {
    await page.goto(world.host.url);
    await expect.poll(() => page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 15_000 }).toBe("online");
    await page.getByRole("button", { name: "New conversation with the demo agent" }).click();
    await page.getByRole("log").waitFor();
    // No turn yet: no Stop.
    expect(await stopButton(page).count()).toBe(0);

    // The demo agent asks for a name and waits for it: its turn keeps running.
    await say(page, "ask me something");
    await page.locator('[data-kind="card"][data-card="input"]').waitFor({ timeout: 10_000 });
    await expect.poll(() => statusLine(page).textContent(), { timeout: 10_000 }).toBe("Waiting for you");
    await stopButton(page).waitFor({ timeout: 10_000 });
    await page.screenshot({ path: join(SCREENSHOTS, "stop-01-working.png") });
    const repliesBefore = await agentBubbles(page).count();

    await stopButton(page).click();
    await expect.poll(() => statusLine(page).textContent(), { timeout: 10_000 }).toBe("Agent stopped");
    await expect.poll(() => stopButton(page).count(), { timeout: 10_000 }).toBe(0);
    expect(await page.locator('[data-kind="notice"]').last().textContent()).toBe("You stopped the agent.");
    await expect.poll(cancelledTurns, { timeout: 10_000 }).toBe(1);
    // The card the stopped turn waited on can no longer be answered, and says why.
    const card = page.locator('[data-kind="card"][data-card="input"]');
    await expect.poll(() => card.locator(".card-answer").textContent(), { timeout: 10_000 }).toBe("Not answered: you stopped the agent");
    expect(await card.getByRole("textbox").count()).toBe(0);
    // …and the conversation no longer says something waits for the person's answer.
    await expect.poll(() => page.locator(".badge.waiting").count(), { timeout: 10_000 }).toBe(0);
    await page.screenshot({ path: join(SCREENSHOTS, "stop-02-stopped.png") });

    // The agent says nothing more for the stopped turn.
    await page.waitForTimeout(500);
    expect(await agentBubbles(page).count()).toBe(repliesBefore);
    expect(world.serverEvents(200).filter((line) => line.includes(" turn.completed ") || line.includes(" turn.failed "))).toEqual([]);
  });

  it("Escape in the composer does the same while a turn runs, and nothing when none does", async () => {
    await say(page, "let me choose");
    await page.locator('[data-kind="card"][data-card="choice"]').last().waitFor({ timeout: 10_000 });
    await stopButton(page).waitFor({ timeout: 10_000 });
    const box = page.getByRole("textbox", { name: "Message" });
    await box.focus();
    await page.keyboard.type("half a thought");
    await page.keyboard.press("Escape");
    await expect.poll(() => statusLine(page).textContent(), { timeout: 10_000 }).toBe("Agent stopped");
    await expect.poll(() => stopButton(page).count(), { timeout: 10_000 }).toBe(0);
    await expect.poll(cancelledTurns, { timeout: 10_000 }).toBe(2);
    // What the person was typing stays; Escape with no turn running stops nothing and says nothing.
    expect(await box.inputValue()).toBe("half a thought");
    await page.keyboard.press("Escape");
    await page.waitForTimeout(300);
    expect(cancelledTurns()).toBe(2);
    expect(await page.locator('[data-kind="notice"]').count()).toBe(2);
    expect(await page.locator(".toast").count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
