/**
 * The pomodoro `npm start` offers, end to end in real Chromium against the real AppServer and demo agent:
 * installed from Apps → "start a … pomodoro" in the chat → the Runtime brings the app to the front and runs
 * the session as its own timed operation → the person presses Stop in the app → the Runtime ends the call
 * with its one `interrupted` result, and gives the front back to the chat by itself → the agent says how long
 * the session ran. The agent's turn ends as
 * soon as the session has started (the conversation goes on while the timer runs), and the person closes
 * the finished timer's picture-in-picture window.
 */
import { join } from "node:path";
import type { FrameLocator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { explained, installAndAsk, openProduct, SCREENSHOTS, type ProductPage } from "./support.js";

let product: ProductPage;
let page: Page;

beforeAll(async () => {
  product = await openProduct();
  page = product.page;
}, 180_000);

afterAll(async () => {
  await product?.close();
});

const pomodoro = (): FrameLocator => page.frameLocator('.instance-surface[data-app="pomodoro"] iframe');
const tab = (name: string) => page.getByRole("tab", { name });

describe("the pomodoro through the whole product", () => {
  it("the agent starts a session, the person stops it in the app, and the agent hears how it ended", () => explained(page, product.consoleLines, product.world, async () => {
    await installAndAsk(product, "Pomodoro", "pomodoro.start", "start a 25 minute pomodoro for the quarterly report");

    // The Runtime brought the pomodoro to the front; the app counts down the session it was handed.
    // Generous waits: on a loaded 2-core CI machine loading the app's page alone has taken over 20 s.
    await expect.poll(() => page.locator("#app-area").getAttribute("data-app"), { timeout: 60_000 }).toBe("pomodoro");
    await expect.poll(() => pomodoro().locator(".pomo-title").textContent(), { timeout: 60_000 }).toBe("the quarterly report");
    expect(await pomodoro().locator(".pomo-clock").textContent()).toMatch(/^2[45]:[0-9]{2}$/);
    await page.screenshot({ path: join(SCREENSHOTS, "pomodoro-01-running.png") });
    // The turn ended once the session started: the agent is free for anything else meanwhile.
    await tab("Chat").click();
    await expect.poll(() => page.getByRole("log").textContent(), { timeout: 60_000 }).toContain("Started the pomodoro timer for 25 minutes. I'll tell you when it's over");
    await tab("Pomodoro").click();

    await pomodoro().getByRole("button", { name: "Stop" }).click();
    await expect.poll(() => pomodoro().locator(".pomo-status").textContent(), { timeout: 30_000 }).toMatch(/^Stopped with 2[45]:[0-9]{2} left$/);
    // The session is over: the Runtime gives the front back (restore_focus) and the chat is shown without a click.
    await expect.poll(() => page.locator("#app-area").getAttribute("data-app"), { timeout: 30_000 }).toBe("chat");
    await expect.poll(() => page.getByRole("log").textContent(), { timeout: 60_000 }).toMatch(/was stopped after \d+ seconds? of the 25 minutes planned/);
    // One card for the call: the agent's task for it (same id) is told on the call's card, titled as the agent named it.
    expect(await page.locator('[data-kind="task"]').count()).toBe(0);
    expect(await page.locator('[data-kind="tool"]').count()).toBe(1);
    expect(await page.locator('[data-kind="tool"] .task-head').first().textContent()).toBe("Start a pomodoroStopped");
    expect(await page.locator('[data-kind="tool"]').first().textContent()).toContain("stopped by the user in the app");
    await page.screenshot({ path: join(SCREENSHOTS, "pomodoro-02-agent-heard.png") });

    // Over the chat the stopped timer floats as picture-in-picture until the person closes it.
    const surface = page.locator('.instance-surface[data-app="pomodoro"]');
    await expect.poll(() => surface.getAttribute("class"), { timeout: 15_000 }).toContain("placement-pip");
    await surface.getByRole("button", { name: "Close Pomodoro" }).click();
    await expect.poll(() => surface.count(), { timeout: 30_000 }).toBe(0);
    expect(await tab("Pomodoro").count()).toBe(0);
    expect(await page.locator("#app-area").getAttribute("data-app")).toBe("chat");
    expect(product.pageErrors).toEqual([]);
  }), 240_000);
});
