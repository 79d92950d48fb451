/**
 * The spec's F4 acceptance path in real Chromium, against the real AppServer and demo agent, with
 * the whiteboard bundle `npm start` offers (built, packed, signed with a dev key the Runtime trusts):
 *
 *   install (projection first) → enabled → inventory published → the agent's tool call → the
 *   whiteboard launched and brought to the front → the user draws → the agent reads the board back
 *   → chat back in front (the board floats as picture-in-picture) → the demo agent draws a diagram
 *   asked for in the chat → a reload restores where it was → disable → remove.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { FrameLocator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectAgent, type AgentClient } from "@lineup/agent-sdk";
import { nodeWebSocketTransport } from "@lineup/agent-sdk/node";
import { launchPersistentChromium } from "../../../test/support/chromium.js";
import { explained, installBuiltinApp, say, SCREENSHOTS, startWorld, type World } from "./support.js";

let world: World;
let browser: Awaited<ReturnType<typeof launchPersistentChromium>>;
let page: Page;
let reader: AgentClient;
let sessionId: string;
/** The size of the PNG the board exported (the chat's Save must hand over the same bytes). */
let exportedSize = 0;
const pageErrors: string[] = [];
const cspViolations: string[] = [];
const consoleLines: string[] = [];

beforeAll(async () => {
  world = await startWorld({ builtinApps: true });
  browser = await launchPersistentChromium();
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  await page.setViewportSize({ width: 1100, height: 760 });
  page.on("pageerror", (error) => pageErrors.push(String(error)));
  page.on("console", (message) => {
    consoleLines.push(`${message.type()}: ${message.text()}`);
    if (/Content Security Policy|Refused to/i.test(message.text())) cspViolations.push(message.text());
  });
  // A second connection of the demo agent, for reading the board back the way any agent would.
  reader = await connectAgent({ url: world.server.url, token: world.server.devCredentials!.agent_token, transport: nodeWebSocketTransport(), sessionPollMs: 50 });
}, 120_000);

afterAll(async () => {
  await reader?.close();
  await browser?.close();
  await world?.close();
});

const shot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
const whiteboardFrame = (): FrameLocator => page.frameLocator('.instance-surface[data-app="whiteboard"] iframe');
const tab = (name: string) => page.getByRole("tab", { name });


describe("F4: install → agent's tool call → the user draws → back to chat → disable → remove", () => {
  it("installs the whiteboard from Apps after showing what it adds", async () => {
    await page.goto(world.host.url);
    await expect.poll(() => page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 20_000 }).toBe("online");
    await installBuiltinApp(page, "Whiteboard", "board.create", () => shot("f4-01-install-projection"));
    // Installed: no longer offered; the others still are.
    await expect.poll(() => page.getByRole("button", { name: "Install Whiteboard…" }).count(), { timeout: 10_000 }).toBe(0);
    expect(await page.getByRole("button", { name: "Install Pomodoro…" }).count()).toBe(1);
    await shot("f4-02-installed");
  }, 60_000);

  it("the agent sees the inventory and its call brings the whiteboard to the front", () => explained(page, consoleLines, world, async () => {
    await tab("Chat").click();
    await page.getByRole("button", { name: "New conversation with the demo agent" }).click();
    await page.getByRole("log").waitFor();
    // The conversation starts with its first message.
    await say(page, "open a whiteboard called Launch plan");
    await expect.poll(() => reader.sessions().length, { timeout: 15_000 }).toBeGreaterThan(0);
    sessionId = reader.sessions()[0]!.session_id;
    await expect.poll(() => reader.inventory(sessionId)?.tools.map((t) => t.method).sort() ?? [], { timeout: 15_000 }).toContain("board.create");
    // The Runtime launched the whiteboard in front: the shell shows it.
    // Generous waits: on a loaded 2-core CI machine loading the app's page alone has taken over 20 s.
    await expect.poll(() => page.locator("#app-area").getAttribute("data-app"), { timeout: 60_000 }).toBe("whiteboard");
    await expect.poll(() => whiteboardFrame().locator(".wb-title").textContent(), { timeout: 60_000 }).toBe("Launch plan");
    await shot("f4-03-whiteboard-in-front");
  }), 180_000);

  it("the user draws, and the agent reads the drawing back through a tool call", async () => {
    const canvas = (await whiteboardFrame().locator("canvas").boundingBox())!;
    const x0 = canvas.x + 120;
    const y0 = canvas.y + 160;
    await page.mouse.move(x0, y0);
    await page.mouse.down();
    for (let i = 1; i <= 25; i++) await page.mouse.move(x0 + i * 12, y0 + Math.sin(i / 3) * 40);
    await page.mouse.up();
    const call = reader.invokeTool(sessionId, "board.summary", {}, { appScope: "whiteboard" });
    const summary = (await call.result) as { title: string; counts: { stroke: number } };
    expect(summary).toMatchObject({ title: "Launch plan" });
    expect(summary.counts.stroke).toBeGreaterThanOrEqual(1);
    await shot("f4-04-user-drew");

    // board.export: an operation the app runs, with progress; its PNG becomes an artifact the agent can read.
    const exporting = reader.invokeTool(sessionId, "board.export", {}, { appScope: "whiteboard" });
    const exported = (await exporting.result) as { artifact: { artifact_id: string; mime_type: string; size: number } };
    expect(exported.artifact).toMatchObject({ mime_type: "image/png" });
    expect(exported.artifact.size).toBeGreaterThan(100);
    exportedSize = exported.artifact.size;
    await expect
      .poll(async () => {
        const read = await reader.request("artifact/read", { session_id: sessionId, artifact_id: exported.artifact.artifact_id, offset: 0, length: 8 }).catch(() => undefined);
        return read?.data;
      }, { timeout: 10_000, message: "the agent reads the uploaded PNG" })
      .toBe("iVBORw0KGgo=");
  }, 60_000);

  it("back to chat: the board floats as picture-in-picture and the agent's reply is there", async () => {
    await tab("Chat").click();
    await expect.poll(() => page.locator('.instance-surface[data-app="whiteboard"]').getAttribute("class")).toContain("placement-pip");
    await expect.poll(() => page.locator('[data-kind="message"][data-from="agent"]').count(), { timeout: 15_000 }).toBeGreaterThan(0);
    // Finished work shows as static result cards (the app's inline_card view over the data frozen at the result).
    await expect.poll(() => page.locator('.result-card[data-app="whiteboard"] iframe').count(), { timeout: 10_000, message: "result cards" }).toBeGreaterThanOrEqual(2);
    // The first card is the board as board.create left it: its title, drawn by the app in the card.
    const firstCard = page.frameLocator('.result-card[data-app="whiteboard"] iframe').first();
    await expect.poll(() => firstCard.locator(".wb-card-title").textContent({ timeout: 1_000 }).catch(() => "(not shown)"), { timeout: 10_000, message: "the first result card drawn" }).toBe("Launch plan");
    // The cards grew as their frames loaded after the log was laid out: it still ends at the newest row.
    const gap = () => page.getByRole("log").evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
    await expect.poll(gap, { timeout: 10_000, message: "the log at its bottom" }).toBeLessThanOrEqual(24);
    await page.waitForTimeout(500);
    expect(await gap()).toBeLessThanOrEqual(24);
    // Nothing of the newest row is behind the picture-in-picture.
    const newest = (await page.locator(".timeline-row").last().boundingBox())!;
    const pip = (await page.locator('.instance-surface[data-app="whiteboard"]').boundingBox())!;
    expect(newest.y + newest.height).toBeLessThanOrEqual(pip.y + 1);
    // The other agent's calls came with no task of theirs: their cards take the app's own titles for the tools.
    await expect.poll(() => page.locator('[data-kind="tool"] .task-head > span:first-child').allTextContents(), { timeout: 10_000, message: "tool card titles" }).toEqual(expect.arrayContaining(["Read the whiteboard", "Export the whiteboard as PNG"]));
    // What arrived while the board was in front is read now that the conversation is on screen.
    await expect.poll(() => page.locator('.conversation-item[aria-current="true"] .badge').count(), { timeout: 10_000, message: "no badge on the open conversation" }).toBe(0);
    // The exported PNG is in the conversation, shown as a picture (the chat's own renderer, from the device's bytes).
    const picture = page.locator('[data-kind="artifact"] img.artifact-image').first();
    await expect.poll(() => picture.evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0)).catch(() => 0), { timeout: 10_000, message: "the export's preview" }).toBeGreaterThan(100);
    expect(await picture.getAttribute("src")).toMatch(/^blob:/);
    // Save hands the browser the same PNG under its name.
    const [download] = await Promise.all([page.waitForEvent("download", { timeout: 10_000 }), page.getByRole("button", { name: "Save Launch plan.png" }).first().click()]);
    expect(download.suggestedFilename()).toBe("Launch plan.png");
    const saved = await readFile((await download.path())!);
    expect(saved.subarray(0, 8).toString("base64")).toBe("iVBORw0KGgo=");
    expect(saved.byteLength).toBe(exportedSize);
    // The conversation's Files lists it, shared by the Whiteboard (the app's name, as its tab says).
    const files = page.locator("details.conversation-files");
    await files.locator("summary").click();
    await expect.poll(() => files.locator(".files-item").filter({ hasText: "Launch plan.png" }).textContent(), { timeout: 10_000, message: "the export in Files" }).toContain("from Whiteboard");
    await files.locator("summary").click();
    await shot("f4-05-chat-with-pip");
  }, 60_000);

  it("asked in the chat, the demo agent draws a diagram on the board, the user's drawing kept, and reads it back", async () => {
    // The person had scrolled the board far from where the agent will draw.
    await tab("Whiteboard").click();
    await expect.poll(() => page.locator("#app-area").getAttribute("data-app"), { timeout: 8_000 }).toBe("whiteboard");
    const canvas = (await whiteboardFrame().locator("canvas").boundingBox())!;
    await page.mouse.move(canvas.x + canvas.width / 2, canvas.y + canvas.height / 2);
    await page.mouse.wheel(0, 4_000);
    await tab("Chat").click();
    await say(page, "draw the release flow: Plan -> Build -> Ship");
    const replies = page.locator('[data-kind="message"][data-from="agent"] .markdown');
    await expect.poll(async () => (await replies.last().textContent()) ?? "", { timeout: 30_000, message: "the agent's reply" }).toContain("I drew the release flow on the whiteboard: Plan → Build → Ship");
    // Its state patch brings the drawing into view: back on the board, the blue boxes are on screen.
    await tab("Whiteboard").click();
    const blue = () =>
      whiteboardFrame()
        .locator("canvas")
        .evaluate((c: HTMLCanvasElement) => {
          const data = c.getContext("2d")!.getImageData(0, 0, c.width, c.height).data;
          let n = 0;
          for (let i = 0; i < data.length; i += 4) if (data[i + 3]! > 0 && data[i + 2]! > 150 && data[i + 2]! - data[i]! > 100) n++;
          return n;
        });
    await expect.poll(blue, { timeout: 10_000, message: "the agent's boxes in view" }).toBeGreaterThan(500);
    await shot("f4-05c-drawing-in-view");
    await tab("Chat").click();
    // The shapes passed the app's own input schema and are on the board, with the user's stroke.
    const summary = (await reader.invokeTool(sessionId, "board.summary", {}, { appScope: "whiteboard" }).result) as { texts: string[]; counts: { rect: number; arrow: number; stroke: number } };
    expect(summary.texts).toEqual(expect.arrayContaining(["Release flow", "Plan", "Build", "Ship"]));
    expect(summary.counts).toMatchObject({ rect: 3, arrow: 2 });
    expect(summary.counts.stroke).toBeGreaterThanOrEqual(1);
    await say(page, "what's on the whiteboard?");
    await expect.poll(async () => (await replies.last().textContent()) ?? "", { timeout: 30_000, message: "the read-back" }).toContain("3 rectangles, 2 arrows");
    await shot("f4-05b-agent-drew");
  }, 90_000);

  it("a reload restores where it was: the board, its drawing and the focus", async () => {
    await tab("Whiteboard").click({ timeout: 8_000 });
    await expect.poll(() => page.locator("#app-area").getAttribute("data-app"), { timeout: 8_000, message: "whiteboard in front" }).toBe("whiteboard");
    await page.reload({ timeout: 15_000 });
    await expect.poll(() => page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 8_000, message: "online again" }).toBe("online");
    await expect.poll(() => page.locator("#app-area").getAttribute("data-app"), { timeout: 8_000, message: "whiteboard in front again" }).toBe("whiteboard");
    // In the foreground again, with the toolbar: the board as it was, in the mode the shell shows it.
    await expect.poll(() => whiteboardFrame().locator(".wb-title").textContent({ timeout: 1_000 }).catch(() => "(not shown)"), { timeout: 12_000, message: "board loaded" }).toBe("Launch plan");
    await expect.poll(() => whiteboardFrame().locator("[role=toolbar]").isVisible(), { timeout: 5_000 }).toBe(true);
    const againCall = reader.invokeTool(sessionId, "board.summary", {}, { appScope: "whiteboard", timeoutMs: 8_000 });
    const updates: unknown[] = [];
    void (async () => {
      for await (const u of againCall.progress) updates.push(u);
    })();
    const again = (await againCall.result.catch((error: unknown) => {
      throw new Error(`board.summary after reload: ${String(error)}; updates ${JSON.stringify(updates)}; console ${consoleLines.slice(-8).join(" | ")}`);
    })) as { counts: { stroke: number } };
    expect(again.counts.stroke).toBeGreaterThanOrEqual(1);
    await shot("f4-06-after-reload");
  }, 60_000);

  it("disable closes the board and takes its tools away; remove deletes it", async () => {
    await tab("Apps").click();
    const card = page.locator(".app-list > li").filter({ hasText: "Whiteboard" });
    await card.getByRole("button", { name: /^Disable/ }).click();
    await expect.poll(() => page.locator('.instance-surface[data-app="whiteboard"]').count(), { timeout: 15_000 }).toBe(0);
    await expect.poll(() => reader.inventory(sessionId)?.tools.length, { timeout: 15_000 }).toBe(0);
    await card.getByRole("button", { name: /^Remove/ }).click();
    await card.getByRole("button", { name: /and its data/ }).click();
    await expect.poll(() => page.locator(".app-list > li").filter({ hasText: "Whiteboard" }).count(), { timeout: 15_000 }).toBe(0);
    // Removed: offered again.
    await expect.poll(() => page.getByRole("button", { name: "Install Whiteboard…" }).count(), { timeout: 10_000 }).toBe(1);
    await shot("f4-07-removed");
    expect(pageErrors).toEqual([]);
    expect(cspViolations).toEqual([]);
  }, 60_000);
});
