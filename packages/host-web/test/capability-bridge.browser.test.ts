/**
 * Spec 12 box 12, the surface's side: a real sandboxed app frame asks for capabilities through the
 * real surface SDK (`surface.capabilities.request` → bridge `capability.request` →
 * `instance-bridge.ts` → `AppPort.requestCapability` → the Capability Gateway → the shell's dialog →
 * the browser HostProvider). The real host (Vite build, IndexedDB Runtime) runs against the real
 * AppServer; the app is signed with a fresh publisher key the host ships as trusted, installed through
 * Apps, made the default and opened in front by a reload, as a person would.
 *
 * The app shows every result it gets; the test reads them from the frame and counts the dialogs the
 * shell opens:
 * - undeclared capabilities (a known one and an unknown name) are refused `capability_not_declared`
 *   without asking;
 * - a declared one asks in the shell's dialog (app name, capability, the app's purpose): Don't allow
 *   comes back `permission_denied` and is remembered (the next request is refused without asking);
 *   Escape comes back `cancelled_by_user` and is not remembered (the next request asks again); Allow
 *   comes back `completed` (the host opens the link) and is remembered too.
 *
 * The same frame works with artifacts over the bridge: `artifact.create`, then `artifact.list` and
 * `artifact.get` (what it is, who made it, on the device), and `artifact.save`, which goes through the
 * gateway as `file.save` and reaches the person as a download of the same bytes (a browser without the
 * File System Access API's save picker, as Firefox and Safari are).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { FrameLocator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installAsDefaultApp, startOneAppHost, type SignedAppHost } from "./signed-app.js";
import { SCREENSHOTS } from "./support.js";

const APP = { app_scope: "cap-probe", name: "Probe", file: "cap-probe.lineup" } as const;
const LINK = "https://example.com/lineup-capability-test";
const PURPOSE = { microphone: "Record a short voice memo for the agent.", link: "Open the project page you asked for.", save: "Save your notes where you choose." } as const;
const NOTE = "Buy oat milk.\nCall the plumber.";

/** What the app's buttons ask for: two capabilities it does not declare, two it does (both need the user's confirmation). */
const REQUESTS = {
  clipboard: { capability: "clipboard.write", purpose: "Copy a note.", input: { text: "note" } },
  camera: { capability: "camera.capture", purpose: "Take a photo.", input: {} },
  microphone: { capability: "microphone.record", purpose: PURPOSE.microphone, input: { max_ms: 1000 } },
  link: { capability: "link.open", purpose: PURPOSE.link, input: { url: LINK } },
} as const;
/** What the app's other buttons do with artifacts, over the bridge. */
type ArtifactOp = "note" | "list" | "get" | "save" | "apps" | "default";
type RequestKey = keyof typeof REQUESTS | ArtifactOp;

/** The app's page: one button per request; each result is appended to a list, as JSON. */
const APP_SCRIPT = `
import { connectSurface } from "@lineup/surface-sdk";
const REQUESTS = ${JSON.stringify(REQUESTS)};
void (async () => {
  const surface = await connectSurface();
  const root = document.getElementById("app");
  const results = document.createElement("ol");
  results.id = "results";
  for (const [key, request] of Object.entries(REQUESTS)) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = "Ask for " + key;
    button.addEventListener("click", async () => {
      const result = await surface.capabilities.request(request);
      const item = document.createElement("li");
      item.dataset.key = key;
      item.textContent = JSON.stringify(result);
      results.append(item);
    });
    root.append(button);
  }
  let last;
  const OPS = {
    note: async () => (last = await surface.artifacts.create({ name: "notes.txt", mime_type: "text/plain", content: { encoding: "utf8", data: ${JSON.stringify(NOTE)} } })),
    list: () => surface.artifacts.list(),
    get: () => surface.artifacts.get(last.artifact_id),
    save: () => surface.artifacts.save(last.artifact_id),
    apps: () => surface.apps.listAvailable(),
    default: async () => ({ me: surface.app.instance_id, opened: await surface.apps.openDefaultApp().then(() => "opened") }),
  };
  for (const [key, op] of Object.entries(OPS)) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = "Artifact " + key;
    button.addEventListener("click", async () => {
      const item = document.createElement("li");
      item.dataset.key = key;
      item.textContent = JSON.stringify(await op().catch((error) => ({ error: error.code ?? String(error) })));
      results.append(item);
    });
    root.append(button);
  }
  root.append(results);
  await surface.lifecycle.ready();
})();
`;

const MANIFEST = {
  format: "lineup.app.v1",
  app_scope: APP.app_scope,
  version: "1.0.0",
  name: APP.name,
  description: "Asks for device capabilities so a test can watch the answers.",
  runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "capability.request.v1", "artifact.create.v1", "artifact.read.v1"] },
  entrypoints: [{ id: "main", kind: "primary", default_eligible: true, display_modes: ["foreground"], path: "index.html", title: APP.name }],
  capabilities: [
    { name: "microphone.record", purpose: PURPOSE.microphone },
    { name: "link.open", purpose: PURPOSE.link },
    { name: "file.save", purpose: PURPOSE.save },
  ],
};

let world: SignedAppHost;
let page: Page;
const popups: string[] = [];

beforeAll(async () => {
  world = await startOneAppHost(APP, MANIFEST, APP_SCRIPT, { dataDirPrefix: "lineup-capability-bridge-", publisherLabel: "Capability test publisher" });
  page = world.page;
  const { browser } = world;
  // A browser without the save picker (Firefox, Safari): file.save hands the bytes over as a download.
  await page.addInitScript(() => delete (window as { showSaveFilePicker?: unknown }).showSaveFilePicker);
  // link.open opens a new browsing context: the link is answered locally (the network is closed), and
  // the test records where the new page went, then closes it.
  await browser.context.route(`${LINK}**`, (route) => route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><title>opened</title>" }));
  browser.context.on("page", (opened) => {
    popups.push(opened.url());
    void opened.waitForURL(/^https:/, { timeout: 5_000 }).then(
      () => (popups[popups.length - 1] = opened.url()),
      () => undefined,
    ).finally(() => void opened.close().catch(() => undefined));
  });
}, 120_000);

afterAll(async () => {
  await world?.close();
});

const frame = (): FrameLocator => page.frameLocator(`.instance-surface[data-app="${APP.app_scope}"] iframe`);
const dialog = () => page.locator("dialog.capability-prompt");
/** How many times the shell's capability dialog has opened (counted by the page since `watchPrompts`). */
const promptsShown = () => page.evaluate(() => (window as unknown as { __promptsShown: number }).__promptsShown);

async function watchPrompts(): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __promptsShown: number };
    w.__promptsShown = 0;
    new MutationObserver((records) => {
      for (const r of records) if (r.target instanceof HTMLDialogElement && r.target.classList.contains("capability-prompt") && r.target.open) w.__promptsShown += 1;
    }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ["open"] });
  });
}

/** The results the app has shown so far, oldest first. */
async function results(): Promise<{ key: RequestKey; result: { status: string; code?: string; message?: string; value?: unknown } }[]> {
  const items = frame().locator("#results li");
  const count = await items.count();
  const out = [];
  for (let i = 0; i < count; i++) {
    const item = items.nth(i);
    out.push({ key: (await item.getAttribute("data-key")) as RequestKey, result: JSON.parse((await item.textContent()) ?? "null") as { status: string } });
  }
  return out;
}

/** Clicks the app's button for `key` and waits for the result the app shows. */
/** Clicks the app's artifact button `key` and returns what the app shows for it. */
async function artifactOp(key: ArtifactOp): Promise<unknown> {
  const before = (await results()).length;
  await frame().getByRole("button", { name: `Artifact ${key}` }).click();
  await expect.poll(async () => (await results()).length, { timeout: 10_000, message: `the app hears the answer to ${key}` }).toBe(before + 1);
  const last = (await results())[before]!;
  expect(last.key).toBe(key);
  return last.result;
}

async function ask(key: RequestKey, answer?: (prompt: ReturnType<typeof dialog>) => Promise<void>): Promise<{ status: string; code?: string; message?: string; value?: unknown }> {
  const before = (await results()).length;
  await frame().getByRole("button", { name: `Ask for ${key}` }).click();
  if (answer !== undefined) {
    await expect.poll(() => dialog().evaluate((d) => (d as HTMLDialogElement).open), { timeout: 10_000, message: `the dialog for ${key}` }).toBe(true);
    await answer(dialog());
  }
  await expect.poll(async () => (await results()).length, { timeout: 10_000, message: `the app hears the answer to ${key}` }).toBe(before + 1);
  const last = (await results())[before]!;
  expect(last.key).toBe(key);
  return last.result;
}

describe("spec 12 box 12: capability.request from a sandboxed app frame (Chromium, real host)", () => {
  it("installs the app and opens it in front", async () => {
    await installAsDefaultApp(page, world.host.url, APP.name, async (review) => {
      // The person reads what the app may ask for before installing it.
      expect(await review.textContent()).toContain("microphone.record");
    });
    await expect.poll(() => page.locator("#app-area").getAttribute("data-app"), { timeout: 15_000 }).toBe(APP.app_scope);
    await frame().getByRole("button", { name: "Ask for link" }).waitFor({ timeout: 15_000 });
    await watchPrompts();
  }, 90_000);

  it("an undeclared capability is refused capability_not_declared, and nobody is asked", async () => {
    for (const key of ["clipboard", "camera"] as const) {
      const result = await ask(key);
      expect(result).toMatchObject({ status: "permission_denied", code: "capability_not_declared" });
      expect(result.message).toContain(REQUESTS[key].capability);
    }
    expect(await promptsShown()).toBe(0);
    expect(await dialog().evaluate((d) => (d as HTMLDialogElement).open)).toBe(false);
  });

  it("a declared one asks in the shell's dialog; Don't allow comes back permission_denied and is remembered", async () => {
    const denied = await ask("microphone", async (prompt) => {
      // What the person reads: which app, which capability, and the app's own purpose.
      expect(await prompt.locator("h2").textContent()).toBe(`${APP.name} wants to use microphone.record`);
      expect(await prompt.getByTestId("capability-purpose").textContent()).toBe(PURPOSE.microphone);
      await page.screenshot({ path: join(SCREENSHOTS, "capability-bridge-1-prompt.png") });
      await prompt.getByRole("button", { name: "Don't allow" }).click();
    });
    expect(denied).toMatchObject({ status: "permission_denied", code: "permission_denied" });
    expect(await promptsShown()).toBe(1);

    // Asked again: refused at once from the remembered denial; no dialog.
    const again = await ask("microphone");
    expect(again).toMatchObject({ status: "permission_denied", code: "permission_denied" });
    expect(again.message).toMatch(/denied/);
    expect(await promptsShown()).toBe(1);
  });

  it("Escape comes back cancelled_by_user and is not remembered; Allow comes back completed and the host acts", async () => {
    const dismissed = await ask("link", async () => {
      await page.keyboard.press("Escape");
    });
    expect(dismissed).toMatchObject({ status: "cancelled_by_user", code: "cancelled_by_user" });
    expect(await promptsShown()).toBe(2); // the microphone prompt, then this one

    const allowed = await ask("link", async (prompt) => {
      expect(await prompt.getByTestId("capability-purpose").textContent()).toBe(PURPOSE.link);
      await prompt.getByRole("button", { name: "Allow", exact: true }).click();
    });
    expect(allowed).toEqual({ status: "completed", value: { opened: true } });
    expect(await promptsShown()).toBe(3); // asked again: the dismissal was not remembered
    // The host opened the link once: for the allowed request, not for the dismissed one.
    await expect.poll(() => popups.filter((url) => url.startsWith(LINK)).length, { timeout: 5_000, message: "the host opened the link" }).toBe(1);
    expect(popups).toHaveLength(1);

    // Allowed once: the next request is carried out without asking.
    const again = await ask("link");
    expect(again).toEqual({ status: "completed", value: { opened: true } });
    expect(await promptsShown()).toBe(3);
    await expect.poll(() => popups.filter((url) => url.startsWith(LINK)).length, { timeout: 5_000 }).toBe(2);
    await page.screenshot({ path: join(SCREENSHOTS, "capability-bridge-2-results.png") });
    expect((await results()).map((r) => `${r.key}:${r.result.status}`)).toEqual([
      "clipboard:permission_denied",
      "camera:permission_denied",
      "microphone:permission_denied",
      "microphone:permission_denied",
      "link:cancelled_by_user",
      "link:completed",
      "link:completed",
    ]);
    expect(world.pageErrors).toEqual([]);
  });

  it("artifacts over the bridge: created, listed and described, and saved through file.save as a download of the same bytes", async () => {
    const made = (await artifactOp("note")) as { artifact_id: string; name: string; size: number };
    expect(made).toMatchObject({ name: "notes.txt", mime_type: "text/plain", size: new TextEncoder().encode(NOTE).byteLength });
    // Opened as the default app, the instance has no conversation: the list is the app's own artifacts.
    const listed = (await artifactOp("list")) as { artifact: { artifact_id: string }; origin: string; app_scope: string; on_device: boolean }[];
    expect(listed).toEqual([expect.objectContaining({ artifact: made, origin: "app", app_scope: APP.app_scope, on_device: true })]);
    expect(await artifactOp("get")).toEqual(listed[0]);

    const prompts = await promptsShown();
    const downloaded = page.waitForEvent("download", { timeout: 15_000 });
    const saved = await artifactOp("save");
    expect(saved).toEqual({ status: "completed", value: { saved: true } });
    const download = await downloaded;
    expect(download.suggestedFilename()).toBe("notes.txt");
    expect(await readFile((await download.path())!, "utf8")).toBe(NOTE);
    // file.save needs no confirmation of the Runtime's: the person's choice is the browser's download.
    expect(await promptsShown()).toBe(prompts);
    await page.screenshot({ path: join(SCREENSHOTS, "capability-bridge-3-artifacts.png") });
    expect(world.pageErrors).toEqual([]);
  });

  it("navigation over the bridge (spec 6.2): the apps a person could open, and the default app opened (here, the app itself)", async () => {
    const apps = (await artifactOp("apps")) as { app_scope: string; name: string; kind: string; is_default: boolean }[];
    expect(apps.find((a) => a.app_scope === APP.app_scope)).toMatchObject({ name: APP.name, kind: "installed", is_default: true });
    expect(apps.find((a) => a.app_scope === "chat")).toMatchObject({ kind: "core", is_default: false });
    expect(await artifactOp("default")).toMatchObject({ opened: "opened" });
    expect(await page.locator("#app-area").getAttribute("data-app")).toBe(APP.app_scope);
    expect(world.pageErrors).toEqual([]);
  });
});
