/**
 * Streamed text in real Chromium: the LLM adapter against a fake OpenAI-compatible endpoint that streams
 * its answer slowly, the real AppServer and Runtime. The chat shows the text growing in one agent bubble
 * marked as still being written, then the final message in its place — the text once, rendered as
 * Markdown — and the screen reader's live region announces the answer once, not each piece. Stopped
 * while it streams, what was written stays, marked cut short.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchPersistentChromium } from "../../../test/support/chromium.js";
import { SCREENSHOTS, explained, say, startWorld, type World } from "./support.js";

const PIECES = ["Here ", "is ", "**a streamed** ", "answer, ", "written ", "piece ", "by ", "piece ", "so ", "you ", "can ", "watch ", "it ", "grow."];
const ANSWER = PIECES.join("");
const GAP_MS = 180;

let llm: Server;
let requests = 0;
let world: World;
let browser: Awaited<ReturnType<typeof launchPersistentChromium>>;
let page: Page;
const pageErrors: string[] = [];
const consoleLines: string[] = [];

/** Streams `PIECES` as chat-completion chunks, `GAP_MS` apart. */
function startFakeModel(): Promise<string> {
  llm = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      requests += 1;
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (delta: object, finish: string | null = null) => `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      void (async () => {
        for (const piece of PIECES) {
          if (res.destroyed) return;
          res.write(chunk({ content: piece }));
          await new Promise((resolve) => setTimeout(resolve, GAP_MS));
        }
        res.end(`${chunk({}, "stop")}data: [DONE]\n\n`);
      })();
    });
  });
  return new Promise((resolve) => llm.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(llm.address() as AddressInfo).port}/v1`)));
}

beforeAll(async () => {
  const baseUrl = await startFakeModel();
  world = await startWorld({ agent: { llm: { LINEUP_LLM_BASE_URL: baseUrl, LINEUP_LLM_MODEL: "fake-streaming" } } });
  browser = await launchPersistentChromium();
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  await page.setViewportSize({ width: 1000, height: 700 });
  page.on("pageerror", (error) => pageErrors.push(String(error)));
  page.on("console", (message) => consoleLines.push(`${message.type()}: ${message.text()}`));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await world?.close();
  llm?.closeAllConnections();
  await new Promise((resolve) => llm?.close(resolve));
});

const draft = (p: Page) => p.locator('[data-kind="message"][data-from="agent"][data-streaming="true"]');
const agentBubbles = (p: Page) => p.locator('[data-kind="message"][data-from="agent"]');

describe("the chat with the LLM adapter streaming its answer", () => {
  it("shows the text growing in one bubble marked as being written, then the final message in its place, announced once", async () => {
    await page.goto(world.host.url);
    await expect.poll(() => page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 15_000 }).toBe("online");
    await page.getByRole("button", { name: "New conversation with the demo agent" }).click();
    await page.getByRole("log").waitFor();
    await say(page, "hello");
    // Count what the chat's live region says while the answer streams (the conversation opens with the first message).
    await page.locator(".conversation > .sr-only[aria-live]").waitFor({ state: "attached", timeout: 10_000 });
    await page.evaluate(() => {
      const region = document.querySelector(".conversation > .sr-only[aria-live]")!;
      const said: string[] = [];
      (window as unknown as { said: string[] }).said = said;
      new MutationObserver(() => said.push(region.textContent ?? "")).observe(region, { childList: true, characterData: true, subtree: true });
    });
    await explained(page, consoleLines, world, async () => {
      await draft(page).waitFor({ timeout: 15_000 });
      const early = (await draft(page).locator(".markdown").textContent()) ?? "";
      await expect.poll(async () => ((await draft(page).locator(".markdown").textContent().catch(() => "")) ?? "").length, { timeout: 5_000 }).toBeGreaterThan(early.length + 10);
      const grown = (await draft(page).locator(".markdown").textContent()) ?? "";
      expect(ANSWER.replace(/\*\*/g, "").startsWith(grown.trimEnd())).toBe(true);
      expect(grown.length).toBeLessThan(ANSWER.replace(/\*\*/g, "").length);
      expect(await draft(page).locator(".streaming-indicator").count()).toBe(1);
      expect(await draft(page).locator(".bubble").getAttribute("aria-busy")).toBe("true");
      // Rendered as Markdown while it grows (through the same sanitizer).
      await page.screenshot({ path: join(SCREENSHOTS, "llm-streaming-01-writing.png") });

      await expect.poll(() => draft(page).count(), { timeout: 15_000 }).toBe(0);
    });
    await expect.poll(() => agentBubbles(page).count(), { timeout: 5_000 }).toBe(1);
    const final = agentBubbles(page).first();
    expect((await final.locator(".markdown").textContent())?.trim()).toBe(ANSWER.replace(/\*\*/g, ""));
    expect(await final.locator("strong").textContent()).toBe("a streamed");
    expect(await final.locator(".streaming-indicator").count()).toBe(0);
    expect(await final.getAttribute("data-cut-short")).toBeNull();
    // The text shows once in the whole log.
    const log = (await page.getByRole("log").textContent()) ?? "";
    expect(log.split("watch it grow").length - 1).toBe(1);
    await page.screenshot({ path: join(SCREENSHOTS, "llm-streaming-02-final.png") });

    // What the region said (a re-render that leaves it empty says nothing): the answer, once.
    const said = await page.evaluate(() => (window as unknown as { said: string[] }).said.filter((text, i, all) => text !== "" && text !== all[i - 1]));
    expect(said).toEqual([`Agent: ${ANSWER}`]);
    expect(requests).toBe(1);
    expect(world.serverEvents(200).filter((line) => line.includes(" turn.updated ") && line.includes("text_delta")).length).toBeGreaterThanOrEqual(5);
    expect(pageErrors).toEqual([]);
  });

  it("Stop while the answer streams keeps what was written, marked cut short, and nothing more arrives", async () => {
    await say(page, "tell me more");
    await draft(page).waitFor({ timeout: 15_000 });
    await expect.poll(async () => ((await draft(page).locator(".markdown").textContent().catch(() => "")) ?? "").length, { timeout: 5_000 }).toBeGreaterThan(12);
    await page.getByRole("button", { name: "Stop the agent" }).click();
    const cut = page.locator('[data-kind="message"][data-from="agent"][data-cut-short="true"]');
    await explained(page, consoleLines, world, () => cut.waitFor({ timeout: 10_000 }));
    expect(await draft(page).count()).toBe(0);
    expect(await cut.locator(".cut-short").textContent()).toContain("Cut short");
    expect(await page.locator('[data-kind="notice"]').last().textContent()).toBe("You stopped the agent.");
    const kept = (await cut.locator(".markdown").textContent()) ?? "";
    expect(kept.length).toBeGreaterThan(12);
    expect(kept.length).toBeLessThan(ANSWER.length);
    await page.screenshot({ path: join(SCREENSHOTS, "llm-streaming-03-stopped.png") });
    // The model would have gone on for seconds: nothing of it reaches the chat.
    await page.waitForTimeout(1_000);
    expect((await cut.locator(".markdown").textContent()) ?? "").toBe(kept);
    expect(await agentBubbles(page).count()).toBe(2);
    expect(pageErrors).toEqual([]);
  });
});
