/**
 * Issue 23's native capabilities in the real window (WebKitGTK under Xvfb), asked by an installed app through
 * the Capability Gateway: `file.pick` — the host page's file input answered by the desktop's own chooser (a
 * stand-in here, `--fake-dialogs`: a real GTK dialog cannot be driven); `file.save` — over the host channel into
 * the desktop's save dialog; `notification.show` — a `Gio.Notification` sent over a session bus of the test's own
 * to a notification service of the test's own (`fixtures/fake-notifications.js`), whose click brings the app
 * forward; `microphone.record` — WebKit's MediaRecorder over GStreamer in the host page, WebKit's mock microphone
 * standing in for the machine's (`--mock-capture`), kept when the person presses Stop.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppServerHandle } from "@lineup/app-server";
import { generatePublisherKey } from "@lineup/runtime";
import { appPage, signedBundle } from "../../host-web/test/signed-app.js";
import { buildOnce } from "../../host-web/test/support.js";
import { CAPS_APP, CAPS_MANIFEST } from "./capabilities-app.js";
import { channelFromPage, clickWhenThere, reloadWindow, startKeyring, DESKTOP_SCREENSHOTS, inFrames, installAsDefaultInWindow, launchDesktop, LIFECYCLE, realClick, requireDesktopTools, startNotificationService, startServerAndConfig, startSessionBus, waitInWindow, type DesktopWindow, type ShownNotification } from "./harness.js";

let root: string;
let server: AppServerHandle;
let window: DesktopWindow;
let bus: { readonly address: string; stop(): void };
let notifications: Awaited<ReturnType<typeof startNotificationService>>;
let keyringHome: string;
let configFile: string;
let notified: readonly ShownNotification[] = [];

const FRAME = `.instance-surface[data-app="${CAPS_APP.app_scope}"] iframe`;
const logLines = async (): Promise<string[]> => (await inFrames<{ text: string }[]>(window, { op: "query", selector: "#log li", attributes: [] })).flatMap((f) => f.result.map((line) => line.text));
const inFront = `return document.querySelector("#app-area")?.getAttribute("data-app") ?? null`;

beforeAll(async () => {
  requireDesktopTools();
  root = mkdtempSync(join(tmpdir(), "lineup-desktop-caps-"));
  bus = await startSessionBus(root);
  keyringHome = join(root, "home");
  await startKeyring(bus.address, keyringHome);
  notifications = await startNotificationService(bus.address);
  notified = notifications.shown;
  const dialogs = join(root, "dialogs");
  mkdirSync(join(dialogs, "pick"), { recursive: true });
  writeFileSync(join(dialogs, "pick", "hello.txt"), "hello from the desktop");
  const script = `import { run } from ${JSON.stringify(join(import.meta.dirname, "capabilities-app.ts"))};\nrun();\n`;
  const [dist, publisher, html] = await Promise.all([buildOnce(), generatePublisherKey(), appPage(script, CAPS_APP.name)]);
  const bundlePath = join(root, CAPS_APP.file);
  writeFileSync(bundlePath, await signedBundle(CAPS_MANIFEST, html, publisher));
  const started = await startServerAndConfig(root, { trusted_publishers: [{ ...publisher.trustedKey, label: "Capability test publisher" }], builtin_apps: [{ name: CAPS_APP.name, file: CAPS_APP.file }] });
  server = started.server;
  configFile = started.configFile;
  window = await launchDesktop({ dist, config: started.configFile, dataDir: join(root, "profile"), bundles: [{ file: CAPS_APP.file, path: bundlePath }], args: ["--fake-dialogs", dialogs, "--mock-capture"], env: { DBUS_SESSION_BUS_ADDRESS: bus.address, HOME: keyringHome } });
}, 180_000);

afterAll(async () => {
  window?.kill();
  await server?.close();
  notifications?.stop();
  bus?.stop();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

const buttonTexts = () => window.evaluate<string[]>(`return [...document.querySelectorAll("button")].map((b) => b.textContent.trim())`);

/**
 * Answers the shell's prompts for the app's request `label` as a person would, until the app has its answer: Allow
 * where the gateway asks, and a real click on `action` where the host page asks for the gesture a chooser needs (it
 * asks only when the app's click did not already give the page one).
 */
async function answerPrompts(label: string, action?: string): Promise<string> {
  const started = Date.now();
  while (Date.now() - started < 20_000) {
    const answered = (await logLines()).find((line) => line.startsWith(`${label}: `));
    if (answered !== undefined) return answered.slice(label.length + 2);
    const texts = await buttonTexts();
    if (action !== undefined && texts.includes(action)) await realClick(window, { selector: "button", text: action });
    else if (texts.includes("Allow")) await clickWhenThere(window, "button", "Allow");
    await new Promise((r) => setTimeout(r, 150));
  }
  await window.command("snapshot", { path: join(DESKTOP_SCREENSHOTS, "desktop-4-capabilities-stuck.png") });
  throw new Error(`no answer to ${label}; the page's buttons: ${JSON.stringify(await buttonTexts())}`);
}

describe("issue 23: the desktop's own dialogs and notifications, through the gateway", () => {
  it("the native side allows the window's microphone only when the host page said the ask was coming", async () => {
    // First of the window's asks: WebKit keeps a grant for the page, across loads too. A refused ask may be kept until
    // the page loads again, so the told ask starts on a fresh load.
    const reload = async () => {
      await reloadWindow(window);
      await waitInWindow(window, LIFECYCLE, "online", 30_000);
    };
    const ask = `return await navigator.mediaDevices.getUserMedia({ audio: true }).then((s) => (s.getTracks().forEach((t) => t.stop()), "granted"), (e) => e.name);`;
    // Asked by the page itself, untold: WebKit has the mock microphone and would allow it; the native side refuses.
    await reload();
    expect(await window.evaluate<string>(ask)).toBe("NotAllowedError");
    // Told over the host channel first, as the gateway does before microphone.record: allowed.
    await reload();
    const told = JSON.parse(await window.evaluate<string>(channelFromPage(JSON.stringify({ channel: "lineup.host", v: 1, id: 901, method: "permission.expect", params: { permission: "microphone" } }), 901))) as { result?: object };
    expect(told.result).toEqual({});
    expect(await window.evaluate<string>(ask)).toBe("granted");
  }, 90_000);

  it("keeps the device token in the keyring: the config file no longer holds it, and the window signs in with it", async () => {
    await waitInWindow(window, LIFECYCLE, "online");
    const saved = JSON.parse(readFileSync(configFile, "utf8")) as Record<string, unknown>;
    expect(saved["server_url"]).toBe(server.url);
    expect(saved).not.toHaveProperty("device_token");
    expect((statSync(configFile).mode & 0o777).toString(8)).toBe("600");
    expect(window.output.join("\n")).toContain("the device token was moved into the keyring");
  }, 60_000);

  it("installs the app through Apps, and the host says the desktop has a notification service", async () => {
    await installAsDefaultInWindow(window, CAPS_APP.name, CAPS_APP.app_scope, (review) => expect(review).toContain("notification.show"));
    // The app is up: its three buttons are in its frame.
    await expect.poll(async () => (await inFrames<unknown[]>(window, { op: "query", selector: "button", attributes: [] })).reduce((n, f) => n + f.result.length, 0), { timeout: 20_000 }).toBe(4);
    expect(await window.evaluate(`return await new Promise((resolve) => {
      addEventListener("message", (e) => e.source === window && e.data?.["lineup-host"] === "answer" && JSON.parse(e.data.text).id === 7002 && resolve([JSON.parse(e.data.text).result.notifications, JSON.parse(e.data.text).result.token_storage]));
      postMessage({ "lineup-host": "request", text: JSON.stringify({ channel: "lineup.host", v: 1, id: 7002, method: "host.info", params: {} }) }, "*");
    })`)).toEqual([true, "keyring"]);
  }, 120_000);

  it("file.pick: the desktop's chooser answers the host page's file input, and the app gets the chosen file", async () => {
    await realClick(window, { selector: "button", text: "Pick", frame: FRAME });
    const line = await answerPrompts("Pick", "Choose file…");
    expect(JSON.parse(line), line).toMatchObject({ status: "completed", value: { files: [{ name: "hello.txt", mime_type: "text/plain", size: 22, data: Buffer.from("hello from the desktop").toString("base64") }] } });
  }, 60_000);

  it("file.save: written where the desktop's save dialog says, and the app hears it was saved", async () => {
    await realClick(window, { selector: "button", text: "Save", frame: FRAME });
    const answer = await answerPrompts("Save");
    expect(JSON.parse(answer), answer).toMatchObject({ status: "completed" });
    expect(readFileSync(join(root, "dialogs", "saved", "note.txt"), "utf8")).toBe("saved by the desktop");
    expect(window.events.some((e) => e.event === "file-saved")).toBe(true);
  }, 60_000);

  it("notification.show: a desktop notification, whose click brings the window and the app forward", async () => {
    await realClick(window, { selector: "button", text: "Notify", frame: FRAME });
    const answer = await answerPrompts("Notify");
    expect(JSON.parse(answer), answer).toMatchObject({ status: "completed" });
    await expect.poll(() => notified.length, { timeout: 10_000 }).toBe(1);
    expect(notified[0]).toMatchObject({ summary: "The note is ready", body: "Open Caps to read it.", actions: expect.arrayContaining(["default"]) });
    await window.command("snapshot", { path: join(DESKTOP_SCREENSHOTS, "desktop-4-capabilities.png") });
    // The person goes to the chat, then clicks the notification: the app it came from is in front again.
    await clickWhenThere(window, '[role="tab"]', "Chat");
    await waitInWindow(window, inFront, "chat");
    notifications.click(notified[0]!.id);
    await waitInWindow(window, inFront, CAPS_APP.app_scope, 15_000);
  }, 60_000);

  it("microphone.record: recorded in the window until the person presses Stop, and the app gets the audio", async () => {
    await realClick(window, { selector: "button", text: "Record", frame: FRAME });
    // Allow, then the shell's recording bar: Stop keeps the audio.
    await expect.poll(async () => { const texts = await buttonTexts(); if (texts.includes("Allow")) await clickWhenThere(window, "button", "Allow"); return texts.includes("Stop"); }, { timeout: 20_000 }).toBe(true);
    await new Promise((r) => setTimeout(r, 1_000));
    await clickWhenThere(window, "button", "Stop");
    const answer = await answerPrompts("Record");
    const result = JSON.parse(answer) as { status: string; value?: { mime_type?: string; size?: number } };
    expect(result, answer).toMatchObject({ status: "completed" });
    expect(JSON.stringify(result.value)).toMatch(/audio\//);
  }, 60_000);
});
