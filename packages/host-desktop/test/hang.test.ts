/**
 * An app that never yields, in the desktop window. WebKitGTK runs every frame on one thread, so an endless
 * loop in an app's frame freezes the host page too, and the web host's heartbeat cannot notice it (its
 * timers run on that thread). The native watchdog does: the web process is ended within its bound and the
 * page starts again from its store, online. The app that was open is failed (not restored, which would freeze
 * the window again), a notice names it with Reload, and Reload opens it again. Measured here: how long the
 * window stayed frozen. And a crashed web process (in WebKitGTK an app's frame cannot crash alone: every frame is in
 * it): the window loads the page again, which comes back online from its store.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppServerHandle } from "@lineup/app-server";
import { generatePublisherKey } from "@lineup/runtime";
import { appPage, signedBundle } from "../../host-web/test/signed-app.js";
import { buildOnce } from "../../host-web/test/support.js";
import { clickInPage, inFrames, installAsDefaultInWindow, launchDesktop, LIFECYCLE, requireDesktopTools, startServerAndConfig, waitInWindow, type DesktopWindow } from "./harness.js";

const APP = { app_scope: "endless-loop", name: "Endless", file: "endless-loop.lineup" } as const;
const MANIFEST = {
  format: "lineup.app.v1",
  app_scope: APP.app_scope,
  version: "1.0.0",
  name: APP.name,
  description: "Loops forever when asked, so a test can watch the window recover.",
  runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1"] },
  entrypoints: [{ id: "main", kind: "primary", default_eligible: true, display_modes: ["foreground"], path: "index.html", title: APP.name }],
};
const SCRIPT = `import { connectSurface } from "@lineup/surface-sdk";
void (async () => {
  const surface = await connectSurface();
  await surface.lifecycle.ready();
  const button = document.createElement("button");
  button.textContent = "Loop forever";
  button.onclick = () => { for (;;) {} };
  document.body.append(button);
})();`;

/** After a restart: the app is not in front, and one notice names it, says why, and offers Reload. */
async function expectClosedWithReload(why: string): Promise<void> {
  const notice = `return [...document.querySelectorAll(".toasts .toast")].filter((t) => t.textContent.includes(${JSON.stringify(why)}) && t.textContent.includes(${JSON.stringify(`${APP.name} was closed`)}) && [...t.querySelectorAll("button")].some((b) => b.textContent.trim() === "Reload")).length`;
  await waitInWindow(window, notice, 1, 15_000);
  expect(await window.evaluate(`return document.querySelector("#app-area")?.getAttribute("data-app") ?? null`)).not.toBe(APP.app_scope);
  expect(await window.evaluate("return location.search")).toBe("");
}

let root: string;
let server: AppServerHandle;
let window: DesktopWindow;

beforeAll(async () => {
  requireDesktopTools();
  root = mkdtempSync(join(tmpdir(), "lineup-desktop-hang-"));
  const [dist, publisher, html] = await Promise.all([buildOnce(), generatePublisherKey(), appPage(SCRIPT, APP.name)]);
  const bundlePath = join(root, APP.file);
  writeFileSync(bundlePath, await signedBundle(MANIFEST, html, publisher));
  const started = await startServerAndConfig(root, { trusted_publishers: [{ ...publisher.trustedKey, label: "Hang test publisher" }], builtin_apps: [{ name: APP.name, file: APP.file }] });
  server = started.server;
  window = await launchDesktop({ dist, config: started.configFile, dataDir: join(root, "profile"), bundles: [{ file: APP.file, path: bundlePath }] });
}, 180_000);

/** The app open in front, its button there (a deep link opens it, whatever the test before left). */
async function openTheApp(): Promise<void> {
  await window.evaluate(`location.hash = "#/open/${APP.app_scope}"; return true`);
  await waitInWindow(window, `return document.querySelector("#app-area")?.getAttribute("data-app") ?? null`, APP.app_scope, 20_000);
  await expect.poll(async () => (await inFrames<unknown[]>(window, { op: "query", selector: "button", attributes: [] })).some((f) => f.result.length > 0), { timeout: 20_000 }).toBe(true);
}

afterAll(async () => {
  window?.kill();
  await server?.close();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe("an app's endless loop in the desktop window", () => {
  it("installs the app from Apps and opens it in front", async () => {
    await installAsDefaultInWindow(window, APP.name, APP.app_scope);
  }, 60_000);

  it("freezes the whole page, is ended by the native watchdog within its bound, and the page comes back online", async () => {
    await openTheApp();
    const started = Date.now();
    // The click runs the app's handler, which never returns: the frame's driver never answers either.
    await inFrames(window, { op: "click", selector: "button", text: "Loop forever" });
    // Frozen: the host page itself does not answer (its thread is the app's).
    const frozen = await Promise.race([window.evaluate("return 1").then(() => "answered"), new Promise((r) => setTimeout(() => r("no answer"), 2_000))]);
    expect(frozen).toBe("no answer");
    await expect.poll(() => window.events.some((e) => e.event === "web-process-hung"), { timeout: 15_000 }).toBe(true);
    const hungAfter = Date.now() - started;
    await expect.poll(() => window.events.some((e) => e.event === "web-process-terminated"), { timeout: 10_000 }).toBe(true);
    await waitInWindow(window, LIFECYCLE, "online", 30_000);
    const recovered = Date.now() - started;
    console.log(`an endless loop in an app: the watchdog ended the web process after ${hungAfter} ms; online again after ${recovered} ms`);
    // The watchdog's bound (6 s unanswered, asked every second) plus the time to notice.
    expect(hungAfter).toBeLessThan(12_000);
    // Not restored: chat in front, a notice that names the app with Reload; the window stays responsive.
    await expectClosedWithReload("an app stopped responding");
    expect(window.events.filter((e) => e.event === "web-process-hung")).toHaveLength(1);
    // Reload opens it again, and it works (it loops only when asked).
    await clickInPage(window, ".toasts .toast button", "Reload");
    await waitInWindow(window, `return document.querySelector("#app-area")?.getAttribute("data-app") ?? null`, APP.app_scope, 15_000);
    await expect.poll(async () => (await inFrames<unknown[]>(window, { op: "query", selector: "button", attributes: [] })).some((f) => f.result.length > 0), { timeout: 20_000 }).toBe(true);
  }, 90_000);

  it("a crashed web process (every frame with it) is noticed, and the page comes back online from its store", async () => {
    await openTheApp();
    const pids = window.webProcesses();
    expect(pids.length).toBeGreaterThan(0);
    const before = window.events.filter((e) => e.event === "web-process-terminated").length;
    for (const pid of pids) process.kill(pid, "SIGKILL");
    await expect.poll(() => window.events.filter((e) => e.event === "web-process-terminated").length, { timeout: 10_000 }).toBe(before + 1);
    await waitInWindow(window, LIFECYCLE, "online", 30_000);
    await expectClosedWithReload("after a crash");
    expect(window.webProcesses().some((pid) => !pids.includes(pid))).toBe(true);
  }, 60_000);
});
