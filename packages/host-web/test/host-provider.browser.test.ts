/**
 * The browser HostProvider and the shell's capability dialog in real Chromium, on a page under the
 * host's strict CSP: file.pick hands back the chosen bytes (and `cancelled_by_user` when the picker is
 * closed), asks for a click first when the page has no user gesture; file.save downloads the bytes;
 * microphone.record records from Chromium's fake device and always releases it; the dialog shows the
 * app, the capability, the purpose and the risk, and answers Allow / Escape.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, launchChromium } from "../../../test/support/chromium.js";
import { serveHarnessPage, type HarnessPage } from "./harness-page.js";

const HOST_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'";
const OUTPUT = resolve(import.meta.dirname, "..", "..", "..", "test-output");

let browser: Browser;
let context: BrowserContext;
let page: Page;
let harness: HarnessPage | undefined;
let origin: string;
const pageErrors: string[] = [];
const cspViolations: string[] = [];

type Result = { status: string; code?: string; message?: string; value?: Record<string, unknown> };
type Hp = Record<string, (...args: unknown[]) => unknown>;

const hp = <T>(p: Page, fn: string, ...args: unknown[]): Promise<T> =>
  p.evaluate(([name, a]) => (window as unknown as { __hp: Hp }).__hp[name as string]!(...(a as unknown[])), [fn, args] as const) as Promise<T>;

async function openPage(hash = ""): Promise<Page> {
  const p = await context.newPage();
  p.on("pageerror", (error) => pageErrors.push(String(error)));
  p.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) cspViolations.push(message.text());
  });
  await p.goto(`${origin}/${hash}`);
  await p.waitForFunction(() => "__hp" in window);
  return p;
}

beforeAll(async () => {
  harness = await serveHarnessPage({ entry: resolve(import.meta.dirname, "host-provider.entry.ts"), csp: HOST_CSP, title: "LineUp" });
  origin = harness.origin;
  browser = await launchChromium({ args: [...CHROMIUM_ARGS, "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream"] });
  context = await browser.newContext({ viewport: { width: 900, height: 640 }, acceptDownloads: true });
  // A browser without the File System Access API (Firefox, Safari): file.save falls back to a download.
  await context.addInitScript(() => {
    // Members of the global object are own properties of `window`, not of `Window.prototype`.
    delete (window as { showSaveFilePicker?: unknown }).showSaveFilePicker;
  });
  page = await openPage();
  mkdirSync(OUTPUT, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await harness?.close();
});

describe("the browser HostProvider (Chromium, host CSP)", () => {
  it("detects what this browser can do", async () => {
    for (const capability of ["file.pick", "file.save", "microphone.record", "notification.show", "link.open", "window.attention"]) {
      expect(await hp(page, "supports", capability), capability).toBe(true);
    }
    expect(await hp(page, "systemPermission", "file.pick")).toBe("not_applicable");
  });

  it("file.pick returns the chosen file's bytes as base64", async () => {
    const chooser = page.waitForEvent("filechooser");
    await hp(page, "start", "pick-1", "file.pick", { accept: ["text/plain", ".md"] });
    const picker = await chooser;
    expect(picker.isMultiple()).toBe(false);
    await picker.setFiles({ name: "note.txt", mimeType: "text/plain", buffer: Buffer.from("héllo, LineUp\n") });
    expect(await hp<Result>(page, "result", "pick-1")).toEqual({
      status: "completed",
      value: { files: [{ name: "note.txt", mime_type: "text/plain", size: 15, data: Buffer.from("héllo, LineUp\n").toString("base64") }] },
    });
  });

  it("file.pick is cancelled_by_user when the picker closes without a choice", async () => {
    const chooser = page.waitForEvent("filechooser");
    await hp(page, "start", "pick-2", "file.pick", { multiple: true });
    const picker = await chooser;
    expect(picker.isMultiple()).toBe(true);
    await picker.setFiles([]);
    expect(await hp<Result>(page, "result", "pick-2")).toMatchObject({ status: "cancelled_by_user", code: "cancelled_by_user" });
  });

  it("file.pick refuses a file above max_bytes", async () => {
    const chooser = page.waitForEvent("filechooser");
    await hp(page, "start", "pick-3", "file.pick", { max_bytes: 4 });
    await (await chooser).setFiles({ name: "big.bin", mimeType: "application/octet-stream", buffer: Buffer.alloc(5) });
    expect(await hp<Result>(page, "result", "pick-3")).toMatchObject({ status: "failed", code: "failed", message: "the chosen file is larger than the limit of 4 bytes" });
  });

  it("file.pick without a user gesture asks in the shell's dialog first, and its button opens the picker", async () => {
    const fresh = await openPage("#pick-on-load");
    try {
      const dialog = fresh.getByRole("dialog", { name: "Choose a file for Notes" });
      await dialog.waitFor();
      const chooser = fresh.waitForEvent("filechooser");
      await dialog.getByRole("button", { name: "Choose file…" }).click();
      await (await chooser).setFiles({ name: "a.txt", mimeType: "text/plain", buffer: Buffer.from("abc") });
      expect(await hp<Result>(fresh, "result", "on-load")).toMatchObject({ status: "completed", value: { files: [{ name: "a.txt", size: 3, data: "YWJj" }] } });
      expect(await dialog.isVisible()).toBe(false);
    } finally {
      await fresh.close();
    }
  });

  it("file.save downloads the bytes under the given name", async () => {
    const bytes = Buffer.from([0, 1, 2, 250, 251, 252, 10, 13]);
    const downloaded = page.waitForEvent("download");
    const result = hp<Result>(page, "invoke", "save-1", "file.save", { name: "report.bin", mime_type: "application/octet-stream", data: bytes.toString("base64") });
    const download = await downloaded;
    expect(await result).toEqual({ status: "completed", value: { saved: true } });
    expect(download.suggestedFilename()).toBe("report.bin");
    const path = await download.path();
    expect(readFileSync(path)).toEqual(bytes);
  });

  it("file.save with the File System Access API: a save dialog closed without saving is cancelled_by_user", async () => {
    // Headless Chromium closes the save dialog at once, as a user pressing Cancel would.
    const other = await browser.newContext();
    try {
      const p = await other.newPage();
      await p.goto(origin);
      await p.waitForFunction(() => "__hp" in window);
      expect(await p.evaluate(() => typeof (window as { showSaveFilePicker?: unknown }).showSaveFilePicker)).toBe("function");
      expect(await hp<Result>(p, "invoke", "save-fs", "file.save", { name: "a.txt", mime_type: "text/plain", data: "aGk=" })).toEqual({ status: "cancelled_by_user", code: "cancelled_by_user", message: "the user cancelled file.save" });
    } finally {
      await other.close();
    }
  });

  it("file.save refuses a path as the name and data that is not base64", async () => {
    expect(await hp<Result>(page, "invoke", "save-2", "file.save", { name: "../x.txt", mime_type: "text/plain", data: "" })).toMatchObject({ status: "failed", code: "invalid_arguments" });
    expect(await hp<Result>(page, "invoke", "save-3", "file.save", { name: "x.txt", mime_type: "text/plain", data: "not base64!" })).toMatchObject({ status: "failed", code: "invalid_arguments" });
  });

  it("microphone.record returns a non-empty recording and releases the microphone", async () => {
    const result = await hp<Result>(page, "invoke", "mic-1", "microphone.record", { max_ms: 1_200 });
    expect(result.status).toBe("completed");
    const value = result.value as { recording: { name: string; mime_type: string; size: number; data: string }; duration_ms: number };
    expect(value.recording.size).toBeGreaterThan(0);
    expect(Buffer.from(value.recording.data, "base64").byteLength).toBe(value.recording.size);
    expect(value.recording.mime_type).toMatch(/^audio\//);
    expect(value.recording.name).toMatch(/^recording\./);
    expect(value.duration_ms).toBeGreaterThan(800);
    expect(value.duration_ms).toBeLessThanOrEqual(1_200);
    expect(await hp(page, "liveTracks")).toBe(0);
  });

  it("microphone.record aborted is cancelled_by_user, and the microphone is released", async () => {
    await hp(page, "start", "mic-2", "microphone.record", { max_ms: 60_000 });
    await expect.poll(() => hp(page, "liveTracks")).toBe(1);
    await hp(page, "abort", "mic-2");
    expect(await hp<Result>(page, "result", "mic-2")).toMatchObject({ status: "cancelled_by_user", code: "cancelled_by_user" });
    expect(await hp(page, "liveTracks")).toBe(0);
  });

  it("microphone permission: the system prompt is answered, and systemPermission follows it", async () => {
    expect(await hp(page, "requestSystemPermission", "microphone.record")).toBe("granted");
    expect(await hp(page, "systemPermission", "microphone.record")).toBe("granted");
    expect(await hp(page, "liveTracks")).toBe(0);
  });

  it("clipboard.write puts the text on the clipboard", async () => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
    await page.bringToFront();
    expect(await hp<Result>(page, "invoke", "clip-1", "clipboard.write", { text: "copied by Notes ✓" })).toEqual({ status: "completed", value: { written: true } });
    expect(await hp(page, "readClipboard")).toBe("copied by Notes ✓");
  });

  it("link.open opens an https link in a new tab without an opener", async () => {
    await context.route("https://docs.example/**", (route) => route.fulfill({ status: 200, contentType: "text/html", body: "<p>the shared document</p>" }));
    const opened = context.waitForEvent("page");
    expect(await hp<Result>(page, "invoke", "link-0", "link.open", { url: "https://docs.example/shared?id=7" })).toEqual({ status: "completed", value: { opened: true } });
    const tab = await opened;
    await tab.waitForLoadState();
    expect(tab.url()).toBe("https://docs.example/shared?id=7");
    expect(await tab.evaluate(() => window.opener)).toBeNull();
    await tab.close();
  });

  it("link.open refuses anything but https", async () => {
    expect(await hp<Result>(page, "invoke", "link-1", "link.open", { url: "javascript:alert(1)" })).toMatchObject({ status: "failed", code: "invalid_arguments", message: "url must be an https URL" });
    expect(await hp<Result>(page, "invoke", "link-2", "link.open", { url: "http://example.com/" })).toMatchObject({ status: "failed", code: "invalid_arguments" });
  });

  it("notification.show shows one where notifications are allowed", async () => {
    await context.grantPermissions(["notifications"], { origin });
    expect(await hp(page, "systemPermission", "notification.show")).toBe("granted");
    expect(await hp<Result>(page, "invoke", "note-1", "notification.show", { title: "Build finished", body: "All green" })).toEqual({ status: "completed", value: { shown: true } });
  });
});

describe("the shell's capability dialog (Chromium)", () => {
  const prompt = (request_id: string) => ({
    request_id,
    app_scope: "notes",
    app_name: "Notes",
    capability: "microphone.record",
    purpose: "Dictate a note: the recording is transcribed and then deleted.",
    description: "Record audio from the microphone until stopped or a time limit; the recording becomes an artifact.",
    risk: "high",
  });

  it("shows the app, the capability, the purpose and the risk; Allow answers true", async () => {
    await hp(page, "confirm", prompt("confirm-1"));
    const dialog = page.getByRole("dialog", { name: "Notes wants to use microphone.record" });
    await dialog.waitFor();
    expect(await dialog.getByText("Dictate a note: the recording is transcribed and then deleted.").isVisible()).toBe(true);
    expect(await dialog.getByText("High risk").isVisible()).toBe(true);
    expect(await dialog.getByText(/Record audio from the microphone/).isVisible()).toBe(true);
    // Modal: the safe answer has the focus, and the page behind is inert.
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe("Don't allow");
    await page.screenshot({ path: join(OUTPUT, "host-provider-dialog.png") });
    await dialog.getByRole("button", { name: "Allow", exact: true }).click();
    expect(await hp(page, "confirmed", "confirm-1")).toBe("allow");
    await expect.poll(() => dialog.isVisible()).toBe(false);
  });

  it("Escape closes without a choice (a dismissal, not a denial), and queued prompts come one after the other", async () => {
    await hp(page, "confirm", prompt("confirm-2"));
    await hp(page, "confirm", { ...prompt("confirm-3"), capability: "link.open", purpose: "Open the shared document", risk: "medium" });
    await page.getByRole("dialog", { name: "Notes wants to use microphone.record" }).waitFor();
    await page.keyboard.press("Escape");
    expect(await hp(page, "confirmed", "confirm-2")).toBe("dismiss");
    const second = page.getByRole("dialog", { name: "Notes wants to use link.open" });
    await second.waitFor();
    expect(await second.getByText("Open the shared document").isVisible()).toBe(true);
    // Keyboard only: Tab from "Don't allow" reaches "Allow"; Enter presses it.
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    expect(await hp(page, "confirmed", "confirm-3")).toBe("allow");
    await expect.poll(() => page.getByRole("dialog").count()).toBe(0);
  });

  const question = (request_id: string, requested_schema: Record<string, unknown>) => ({ request_id, app_scope: "notes", app_name: "Notes", message: "Where should the shared list go?", requested_schema });

  it("asks an MCP server's question as a form typed by its schema, and sends what the person filled in", async () => {
    await hp(page, "elicit",
      question("ask-1", {
        type: "object",
        properties: {
          list: { type: "string", title: "List name", description: "As it appears in Notes", minLength: 1 },
          copies: { type: "integer", title: "Copies", minimum: 1, maximum: 5 },
          colour: { type: "string", title: "Colour", enum: ["red", "green"], enumNames: ["Red", "Green"] },
          pinned: { type: "boolean", title: "Pin it", default: true },
        },
        required: ["list", "copies"],
      }),
    );
    const dialog = page.getByRole("dialog", { name: "Notes asks you" });
    await dialog.waitFor();
    expect(await dialog.getByText("Where should the shared list go?").isVisible()).toBe(true);
    // The schema's constraints are the fields' own: an empty required field does not send.
    await dialog.getByRole("button", { name: "Send" }).click();
    expect(await dialog.isVisible()).toBe(true);
    await dialog.getByLabel("List name").fill("Groceries");
    await dialog.getByLabel("Copies").fill("2");
    await dialog.getByLabel("Colour").selectOption("green");
    await page.screenshot({ path: join(OUTPUT, "host-provider-elicitation.png") });
    await dialog.getByRole("button", { name: "Send" }).click();
    expect(await hp(page, "elicited", "ask-1")).toEqual({ action: "accept", content: { list: "Groceries", copies: 2, colour: "green", pinned: true } });
    await expect.poll(() => page.getByRole("dialog").count()).toBe(0);
  });

  it("a question with no fields is accept / decline; Escape and a withdrawn question are a cancel", async () => {
    await hp(page, "elicit", question("ask-2", { type: "object", properties: {} }));
    await page.getByRole("dialog", { name: "Notes asks you" }).getByRole("button", { name: "Decline" }).click({ timeout: 15_000 });
    expect(await hp(page, "elicited", "ask-2")).toEqual({ action: "decline" });
    await hp(page, "elicit", question("ask-3", { type: "object", properties: {} }));
    await page.getByRole("dialog", { name: "Notes asks you" }).waitFor();
    await page.keyboard.press("Escape");
    expect(await hp(page, "elicited", "ask-3")).toEqual({ action: "cancel" });
    await hp(page, "elicit", question("ask-4", { type: "object", properties: {} }));
    await page.getByRole("dialog", { name: "Notes asks you" }).waitFor();
    await hp(page, "withdrawQuestion", "ask-4");
    expect(await hp(page, "elicited", "ask-4")).toEqual({ action: "cancel" });
    await expect.poll(() => page.getByRole("dialog").count()).toBe(0);
  }, 60_000);

  it("left no page errors and no CSP violations", () => {
    expect(pageErrors).toEqual([]);
    expect(cspViolations).toEqual([]);
  });
});
