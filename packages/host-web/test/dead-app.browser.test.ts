/**
 * Issue 27, "Dead surfaces", through the whole product in real Chromium: the real host against the real
 * AppServer and demo agent, with the Voice Notes app `npm start` offers. The agent asks for a voice note,
 * so the app holds the agent's call while it waits for the person; then the app's page dies while it runs:
 *
 * - (a) its document navigates itself away (`location.href` run in the app's own frame);
 * - (d) it hangs (an endless loop run in the app's own frame), noticed by the default heartbeat.
 *
 * Each time, what people and peers see: the Runtime records the instance `failed` (its audit log), the
 * agent's call ends `handler_failed` and the agent says so in the chat, the app's tab is gone and a notice
 * names the app with a Reload button, and Reload opens a working new instance in the same conversation.
 */
import { join } from "node:path";
import type { Frame, FrameLocator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAKE_MEDIA_ARGS } from "../../../test/support/chromium.js";
import { auditRecords, explained, installAndAsk, openProduct, say, SCREENSHOTS, type ProductPage } from "./support.js";

let product: ProductPage;
let page: Page;

beforeAll(async () => {
  product = await openProduct({ chromiumArgs: FAKE_MEDIA_ARGS });
  page = product.page;
}, 180_000);

afterAll(async () => {
  await product?.close();
});

const voice = (): FrameLocator => page.frameLocator('.instance-surface[data-app="voice"] iframe');
const surface = () => page.locator('.instance-surface[data-app="voice"]');
const tab = (name: string) => page.getByRole("tab", { name });
const notice = (text: string) => page.locator(".toasts .toast", { hasText: text });
const AGENT_SAW_FAILURE = "Something went wrong with the voice recorder: handler_failed — the app stopped before it finished the call";

/** The Runtime's audit records of instance changes, as `<instance_id> <detail>`. */
async function instanceChanges(): Promise<string[]> {
  return (await auditRecords(page, "instance.changed")).map((record) => `${record.subject} ${record.detail}`);
}

/** The app's own frame (out of process), to run code in the app's document as the app would. */
async function appFrame(): Promise<Frame> {
  const frame = await (await surface().locator("iframe").elementHandle())?.contentFrame();
  if (frame === null || frame === undefined) throw new Error("Voice Notes has no frame");
  return frame;
}

/** Waits for the agent's request in Voice Notes (the app holds the call); returns the instance's id. */
async function waitForRequest(): Promise<string> {
  await expect.poll(() => page.locator("#app-area").getAttribute("data-app"), { timeout: 60_000 }).toBe("voice");
  await voice().getByRole("region", { name: "The agent's request" }).waitFor({ timeout: 60_000 });
  const id = await surface().getAttribute("data-instance");
  expect(id).toBeTruthy();
  return id!;
}

/** After the notice: what the Runtime recorded, what the agent said, and Reload opening a working new instance. */
async function expectFailedThenReload(instanceId: string, noticeText: string, agentFailuresBefore: number): Promise<string> {
  // The Runtime failed the instance (and with it the call it held).
  await expect.poll(instanceChanges, { timeout: 10_000 }).toContain(`${instanceId} voice: active → failed`);
  expect(await tab("Voice Notes").count()).toBe(0);
  expect(await surface().count()).toBe(0);
  // The agent's call ended handler_failed, and the agent says so.
  await tab("Chat").click();
  await expect.poll(async () => ((await page.getByRole("log").textContent()) ?? "").split(AGENT_SAW_FAILURE).length - 1, { timeout: 60_000 }).toBe(agentFailuresBefore + 1);
  // The Runtime's report of it is in the conversation's log on the AppServer, where the agent read it.
  expect(product.world.serverEvents(400).filter((line) => line.includes('"type":"lineup.tool.error"'))).toHaveLength(agentFailuresBefore + 1);
  // Reload: the same app, in front, a new instance that works (it becomes active and shows its page).
  const shown = notice(noticeText);
  await shown.getByRole("button", { name: "Reload" }).click();
  await expect.poll(() => shown.count()).toBe(0);
  await expect.poll(() => page.locator("#app-area").getAttribute("data-app"), { timeout: 30_000 }).toBe("voice");
  await expect.poll(() => surface().getAttribute("data-status"), { timeout: 60_000 }).toBe("active");
  const next = (await surface().getAttribute("data-instance"))!;
  expect(next).not.toBe(instanceId);
  await voice().getByRole("button", { name: "Record a note" }).waitFor({ timeout: 30_000 });
  return next;
}

describe("an app that dies while it runs (Chromium, real host)", () => {
  let reloaded = "";

  it("(a) its document navigates away while it holds the agent's call: failed, handler_failed, a notice with Reload, and Reload works", () => explained(page, product.consoleLines, product.world, async () => {
    await installAndAsk(product, "Voice Notes", "voice.request_recording", "record a voice note");
    const instanceId = await waitForRequest();
    const frame = await appFrame();
    await frame.evaluate(() => {
      location.href = "http://127.0.0.1:9/";
    });
    const text = "Voice Notes left its page and was closed.";
    // Noticed from the frame's load at once, well before a heartbeat could time out.
    await notice(text).waitFor({ timeout: 8_000 });
    expect(await notice(text).getByRole("button", { name: "Reload" }).count()).toBe(1);
    await page.screenshot({ path: join(SCREENSHOTS, "dead-app-01-notice.png") });
    reloaded = await expectFailedThenReload(instanceId, text, 0);
  }), 240_000);

  it("(d) it hangs while it holds the agent's call: noticed by the heartbeat within its bound, and Reload works (the hung renderer is let go)", () => explained(page, product.consoleLines, product.world, async () => {
    await tab("Chat").click();
    await say(page, "record a voice note");
    // The agent's call goes to the reloaded instance: it is the app's instance in this conversation.
    expect(await waitForRequest()).toBe(reloaded);
    const frame = await appFrame();
    const hungAt = Date.now();
    // Never returns; it ends when the frame goes.
    void frame.evaluate(() => {
      for (;;) {
        // the app's page no longer runs anything else
      }
    }).catch(() => undefined);
    const text = "Voice Notes stopped responding and was closed.";
    // The default heartbeat: a ping every 2 s, dead after 10 s unanswered, so at most 14 s after the hang; generous here.
    await notice(text).waitFor({ timeout: 45_000 });
    expect(Date.now() - hungAt).toBeGreaterThanOrEqual(8_000);
    await expectFailedThenReload(reloaded, text, 1);
    expect(product.pageErrors).toEqual([]);
  }), 240_000);
});
