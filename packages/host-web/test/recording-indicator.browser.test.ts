/**
 * The shell's recording indicator with the browser HostProvider in real Chromium (fake microphone, host
 * CSP): while microphone.record runs, a bar names the app and counts the time; Stop ends the recording
 * early and keeps it (`completed`, with the audio and its real duration), Discard ends it and drops it
 * (`cancelled_by_user`); the bar goes when the recording ends any other way (its time limit, an abort),
 * and the microphone is released every time.
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAKE_MEDIA_ARGS, launchChromium } from "../../../test/support/chromium.js";
import { serveHarnessPage, type HarnessPage } from "./harness-page.js";

const HOST_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'";
const OUTPUT = resolve(import.meta.dirname, "..", "..", "..", "test-output");

type Result = { status: string; code?: string; message?: string; value?: { recording: { name: string; mime_type: string; size: number; data: string }; duration_ms: number } };
type Rec = Record<string, (...args: unknown[]) => unknown>;

let browser: Browser;
let page: Page;
let harness: HarnessPage | undefined;
const pageErrors: string[] = [];
const cspViolations: string[] = [];

const rec = <T>(fn: string, ...args: unknown[]): Promise<T> =>
  page.evaluate(([name, a]) => (window as unknown as { __rec: Rec }).__rec[name as string]!(...(a as unknown[])), [fn, args] as const) as Promise<T>;
const bar = () => page.getByRole("group", { name: "Recording for Voice Notes" });

beforeAll(async () => {
  harness = await serveHarnessPage({ entry: resolve(import.meta.dirname, "recording-indicator.entry.ts"), csp: HOST_CSP, title: "LineUp" });
  browser = await launchChromium({}, FAKE_MEDIA_ARGS);
  page = await browser.newPage({ viewport: { width: 900, height: 500 } });
  page.on("pageerror", (error) => pageErrors.push(String(error)));
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) cspViolations.push(message.text());
  });
  await page.goto(harness.origin);
  await page.waitForFunction(() => "__rec" in window);
  mkdirSync(OUTPUT, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await harness?.close();
});

describe("the recording indicator (Chromium, fake microphone)", () => {
  it("shows nothing while nothing records", async () => {
    expect(await page.getByRole("region", { name: "Microphone recording" }).count()).toBe(0);
  });

  it("names the app and counts the time while recording; Stop keeps the audio with its real duration", async () => {
    await rec("start", "mic-stop", { max_ms: 60_000 });
    await bar().waitFor();
    expect(await bar().getByRole("timer").textContent()).toMatch(/^0:0[0-9] \/ 1:00$/);
    await expect.poll(() => bar().getByRole("timer").textContent(), { timeout: 5_000 }).toMatch(/^0:0[1-9] \//);
    const before = Date.now();
    await page.screenshot({ path: join(OUTPUT, "host-recording-indicator.png") });
    await bar().getByRole("button", { name: "Stop" }).click();
    const pressed = Date.now();
    const result = await rec<Result>("result", "mic-stop");
    expect(result.status).toBe("completed");
    const value = result.value!;
    expect(value.recording.size).toBeGreaterThan(0);
    expect(Buffer.from(value.recording.data, "base64").byteLength).toBe(value.recording.size);
    expect(value.recording.mime_type).toMatch(/^audio\//);
    // Ended when Stop was pressed (about a second in), far from the one-minute limit.
    expect(value.duration_ms).toBeGreaterThanOrEqual(1_000);
    expect(value.duration_ms).toBeLessThan(1_000 + (pressed - before) + 5_000);
    expect(await bar().count()).toBe(0);
    expect(await rec("live")).toEqual([]);
    expect(await rec("liveTracks")).toBe(0);
  });

  it("Discard ends the recording and drops it: cancelled_by_user", async () => {
    await rec("start", "mic-discard", { max_ms: 60_000 });
    await bar().waitFor();
    await bar().getByRole("button", { name: "Discard" }).click();
    expect(await rec<Result>("result", "mic-discard")).toEqual({ status: "cancelled_by_user", code: "cancelled_by_user", message: "the user discarded the recording" });
    expect(await bar().count()).toBe(0);
    expect(await rec("liveTracks")).toBe(0);
  });

  it("two recordings are listed side by side, and each control ends only its own", async () => {
    await rec("start", "mic-a", { max_ms: 60_000 });
    await expect.poll(() => rec("live")).toEqual(["mic-a"]);
    await rec("start", "mic-b", { max_ms: 60_000 });
    await expect.poll(() => rec("live")).toEqual(["mic-a", "mic-b"]);
    expect(await bar().count()).toBe(2);
    await page.locator('[data-request="mic-b"]').getByRole("button", { name: "Discard" }).click();
    expect(await rec<Result>("result", "mic-b")).toMatchObject({ status: "cancelled_by_user" });
    expect(await rec("settled", "mic-a")).toBe(false);
    await page.locator('[data-request="mic-a"]').getByRole("button", { name: "Stop" }).click();
    expect(await rec<Result>("result", "mic-a")).toMatchObject({ status: "completed" });
    expect(await rec("liveTracks")).toBe(0);
  });

  it("the bar goes by itself when the time limit ends the recording, or when the request is aborted", async () => {
    await rec("start", "mic-time", { max_ms: 1_200 });
    await bar().waitFor();
    const timed = await rec<Result>("result", "mic-time");
    expect(timed.status).toBe("completed");
    expect(timed.value!.duration_ms).toBeGreaterThan(800);
    expect(timed.value!.duration_ms).toBeLessThanOrEqual(1_200);
    expect(await bar().count()).toBe(0);

    await rec("start", "mic-abort", { max_ms: 60_000 });
    await bar().waitFor();
    await rec("abort", "mic-abort");
    expect(await rec<Result>("result", "mic-abort")).toMatchObject({ status: "cancelled_by_user", message: "the user cancelled microphone.record" });
    expect(await bar().count()).toBe(0);
    expect(await rec("liveTracks")).toBe(0);
  });

  it("left no page errors and no CSP violations", () => {
    expect(pageErrors).toEqual([]);
    expect(cspViolations).toEqual([]);
  });
});
