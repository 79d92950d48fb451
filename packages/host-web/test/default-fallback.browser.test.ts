/**
 * Spec 12 box 5 in real Chromium: when the default app is broken, the person lands in `chat` and is
 * told why. The real host (Vite build, IndexedDB Runtime) against the real AppServer; three small apps
 * with a default-eligible primary entrypoint are signed with a fresh publisher key the host ships as
 * trusted, and installed through Apps as a person would.
 *
 * - control: a working default app opens by itself at start, so landing in chat below is the fallback;
 * - its stored bundle gone (deleted from the profile's IndexedDB);
 * - its stored bundle no longer verifying (bytes changed in IndexedDB);
 * - its publisher no longer trusted (removed in Settings): the bundle no longer verifies.
 *
 * The Runtime still names a broken app the default (`apps.defaultApp()` does not load bundles); the
 * shell launches it at start, the instance fails to load its entry, and the shell shows chat with a
 * notice naming the app and the reason.
 */
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePublisherKey } from "@lineup/runtime";
import { appPage, installFromApps, signedBundle, startSignedAppHost, type SignedAppHost } from "./signed-app.js";
import { buildOnce, SCREENSHOTS } from "./support.js";

const PUBLISHER_LABEL = "Fallback test publisher";
const APPS = [
  { app_scope: "home-a", name: "Home A", file: "home-a.lineup" },
  { app_scope: "home-b", name: "Home B", file: "home-b.lineup" },
  { app_scope: "home-c", name: "Home C", file: "home-c.lineup" },
] as const;

/** The app's page: the real surface SDK, a heading saying it runs, and a Close button (the app closes itself). */
const APP_SCRIPT = `
import { connectSurface } from "@lineup/surface-sdk";
void (async () => {
  const surface = await connectSurface();
  const heading = document.createElement("h1");
  heading.textContent = surface.app.app_scope + " is running";
  const close = document.createElement("button");
  close.type = "button";
  close.textContent = "Close";
  close.addEventListener("click", () => void surface.apps.close());
  document.getElementById("app").append(heading, close);
  await surface.lifecycle.ready();
})();
`;

function manifest(app: (typeof APPS)[number]): { readonly app_scope: string } & Record<string, unknown> {
  return {
    format: "lineup.app.v1",
    app_scope: app.app_scope,
    version: "1.0.0",
    name: app.name,
    description: `${app.name}: a start page for the default-app fallback test.`,
    runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1"] },
    entrypoints: [{ id: "home", kind: "primary", default_eligible: true, display_modes: ["foreground"], path: "index.html", title: app.name }],
  };
}

let world: SignedAppHost;
let page: Page;

beforeAll(async () => {
  const [distDir, publisher, html] = await Promise.all([buildOnce(), generatePublisherKey(), appPage(APP_SCRIPT, "Home")]);
  const bundles = new Map<string, Uint8Array>();
  for (const app of APPS) bundles.set(app.file, await signedBundle(manifest(app), html, publisher));
  world = await startSignedAppHost({ distDir, dataDirPrefix: "lineup-fallback-", publisher, publisherLabel: PUBLISHER_LABEL, builtinApps: APPS, bundles });
  page = world.page;
}, 120_000);

afterAll(async () => {
  await world?.close();
});

const tab = (name: string) => page.getByRole("tab", { name });
const shown = () => page.locator("#app-area").getAttribute("data-app");
const card = (name: string) => page.locator(".app-card", { has: page.locator(".app-name", { hasText: new RegExp(`^${name}$`) }) });
const toasts = () => page.locator(".toasts .toast").allTextContents();

async function online(): Promise<void> {
  await expect.poll(() => page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 20_000, message: "online" }).toBe("online");
}

async function makeDefault(name: string): Promise<void> {
  await tab("Apps").click();
  await card(name).getByRole("button", { name: `Make ${name} the default app` }).click();
  await expect.poll(() => card(name).locator(".badge").allTextContents(), { timeout: 10_000 }).toContain("default");
}

/**
 * Changes what the profile's IndexedDB holds for `app_scope`'s active bundle, the way a damaged or
 * half-cleared profile would: `delete` removes it, `corrupt` flips bytes in the middle of the archive.
 */
async function damageStoredBundle(appScope: string, how: "delete" | "corrupt"): Promise<string> {
  return page.evaluate(
    async ({ appScope, how }) => {
      const done = (request: IDBRequest | IDBTransaction) =>
        new Promise<void>((resolve, reject) => {
          if (request instanceof IDBTransaction) {
            request.oncomplete = () => resolve();
            request.onabort = () => reject(request.error);
          } else {
            request.onsuccess = () => resolve();
            request.onerror = () => reject(request.error);
          }
        });
      const name = (await indexedDB.databases()).map((d) => d.name ?? "").find((n) => n.startsWith("lineup-runtime:"));
      if (name === undefined) throw new Error("no Runtime database in this profile");
      const open = indexedDB.open(name);
      await done(open);
      const db = open.result;
      const tx = db.transaction("entries", "readwrite");
      const store = tx.objectStore("entries");
      const appRead = store.get(["apps", appScope]);
      await done(appRead);
      const managed = JSON.parse((appRead.result as { text: string }).text) as { record: { installed_version: string }; retained: { version: string; bundle_digest: string | null }[] };
      const digest = managed.retained.find((v) => v.version === managed.record.installed_version)?.bundle_digest;
      if (typeof digest !== "string") throw new Error(`no stored bundle for ${appScope}`);
      const bundleRead = store.get(["bundles", digest]);
      await done(bundleRead);
      const stored = bundleRead.result as { kind: "bytes"; bytes: Uint8Array } | undefined;
      if (stored === undefined) throw new Error(`bundle ${digest} is not stored`);
      if (how === "delete") store.delete(["bundles", digest]);
      else {
        const bytes = new Uint8Array(stored.bytes);
        for (let i = Math.floor(bytes.length / 3); i < Math.floor(bytes.length / 3) + 64; i++) bytes[i] = bytes[i]! ^ 0xff;
        store.put({ kind: "bytes", bytes }, ["bundles", digest]);
      }
      await done(tx);
      db.close();
      return digest;
    },
    { appScope, how },
  );
}

/**
 * Reloads the page (a new start of the host) and waits for the notice; then the person sees chat, with
 * no app instance left on screen.
 */
async function restartAndExpectChat(notice: RegExp): Promise<void> {
  await page.reload();
  await online();
  await expect.poll(toasts, { timeout: 15_000, message: "the notice" }).toContainEqual(expect.stringMatching(notice));
  await expect.poll(shown, { timeout: 5_000, message: "chat in front" }).toBe("chat");
  expect(await tab("Chat").getAttribute("aria-selected")).toBe("true");
  await page.getByRole("button", { name: "New conversation with the demo agent" }).waitFor({ timeout: 5_000 });
  await expect.poll(() => page.locator(".instance-surface").count(), { timeout: 5_000 }).toBe(0);
}

describe("spec 12 box 5: a broken default app falls back to chat (Chromium, real host)", () => {
  it("control: a working default app opens by itself at start", async () => {
    await page.goto(world.host.url);
    await online();
    await tab("Apps").click();
    for (const app of APPS) await installFromApps(page, app.name);
    await makeDefault("Home A");
    await page.reload();
    await online();
    await expect.poll(shown, { timeout: 15_000, message: "Home A in front" }).toBe("home-a");
    const frame = page.frameLocator('.instance-surface[data-app="home-a"] iframe');
    await expect.poll(() => frame.locator("h1").textContent({ timeout: 1_000 }).catch(() => ""), { timeout: 15_000 }).toBe("home-a is running");
    await page.screenshot({ path: join(SCREENSHOTS, "default-fallback-0-working-default.png") });
    // The app closes itself, so nothing is left to restore and the next start opens the default again.
    await frame.getByRole("button", { name: "Close" }).click();
    await expect.poll(() => page.locator(".instance-surface").count(), { timeout: 10_000 }).toBe(0);
    await expect.poll(shown, { timeout: 10_000 }).toBe("chat");
  }, 90_000);

  it("its stored bundle gone: the person sees chat and a notice that the app could not start and why", async () => {
    await damageStoredBundle("home-a", "delete");
    await restartAndExpectChat(/^Home A could not start: the stored bundle of home-a 1\.0\.0 is missing/);
    await page.screenshot({ path: join(SCREENSHOTS, "default-fallback-1-bundle-gone.png") });
  }, 60_000);

  it("its stored bundle no longer verifying: chat, and the notice says a file's hash does not match", async () => {
    await makeDefault("Home B");
    await damageStoredBundle("home-b", "corrupt");
    await restartAndExpectChat(/^Home B could not start: "index\.html" has SHA-256 .* the list says /);
    await page.screenshot({ path: join(SCREENSHOTS, "default-fallback-2-bundle-corrupt.png") });
  }, 60_000);

  it("its publisher removed in Settings: chat, and the notice says the key is not trusted", async () => {
    await makeDefault("Home C");
    await tab("Settings").click();
    await page.getByRole("button", { name: `Remove publisher ${PUBLISHER_LABEL}` }).click();
    await expect.poll(() => page.getByRole("list", { name: "Trusted publisher keys" }).count(), { timeout: 10_000 }).toBe(0);
    await restartAndExpectChat(/^Home C could not start: the bundle is signed by key .* which is not trusted here/);
    await page.screenshot({ path: join(SCREENSHOTS, "default-fallback-3-publisher-removed.png") });
    expect(world.pageErrors).toEqual([]);
  }, 60_000);
});
