/**
 * The catalog in real Chromium (spec 003's Registry role): `lineup publish` uploads a signed app to the real
 * AppServer; Apps in the real host lists it with its version history, installs it through the usual
 * review, and, once a newer version is published, offers the update on the app's card. With the AppServer
 * down, Apps says the catalog is unavailable and the installed app still opens by itself at start.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePublisherKey, type PublisherKey } from "@lineup/runtime";
import { appPage, publishToCatalog, startSignedAppHost, type SignedAppHost } from "./signed-app.js";
import { buildOnce, SCREENSHOTS } from "./support.js";

const APP = { app_scope: "catalog-notes", name: "Catalog Notes" };

const APP_SCRIPT = `
import { connectSurface } from "@lineup/surface-sdk";
void (async () => {
  const surface = await connectSurface();
  const heading = document.createElement("h1");
  heading.textContent = surface.app.app_scope + " is running";
  document.getElementById("app").append(heading);
  await surface.lifecycle.ready();
})();
`;

function manifest(version: string): { readonly app_scope: string; readonly version: string } & Record<string, unknown> {
  return {
    format: "lineup.app.v1",
    app_scope: APP.app_scope,
    version,
    name: APP.name,
    description: "Notes, installed from the catalog.",
    runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1"] },
    entrypoints: [{ id: "home", kind: "primary", default_eligible: true, display_modes: ["foreground"], path: "index.html", title: APP.name }],
  };
}

let world: SignedAppHost;
let page: Page;
let publisher: PublisherKey;
let html: string;
let work: string;

/** `lineup publish` of version `version`, signed with the test's publisher key; its output line. */
const publish = (version: string): Promise<string> => publishToCatalog(world.server, work, publisher, manifest(version), html);

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "lineup-catalog-browser-"));
  let distDir: string;
  [distDir, publisher, html] = await Promise.all([buildOnce(), generatePublisherKey(), appPage(APP_SCRIPT, APP.name)]);
  world = await startSignedAppHost({ distDir, dataDirPrefix: "lineup-catalog-", publisher, publisherLabel: "Catalog test publisher", builtinApps: [], bundles: new Map() });
  page = world.page;
}, 120_000);

afterAll(async () => {
  await world?.close();
  rmSync(work, { recursive: true, force: true });
});

const tab = (name: string) => page.getByRole("tab", { name });
const catalogSection = () => page.locator(".install-catalog");
const card = (name: string) => page.locator(".app-card", { has: page.locator(".app-name", { hasText: new RegExp(`^${name}$`) }) });
const online = () => expect.poll(() => page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 20_000, message: "online" }).toBe("online");

describe("the catalog of signed releases (Chromium, real host, real AppServer)", () => {
  it("publishes with lineup publish, lists the release in Apps and installs it through the review", async () => {
    expect(await publish("1.0.0")).toMatch(/^published catalog-notes 1\.0\.0 \(\d+ bytes, sha256 [0-9a-f]{64}\) signed by [0-9a-f]{64}$/);
    await page.goto(world.host.url);
    await online();
    await tab("Apps").click();
    await expect.poll(() => catalogSection().textContent(), { timeout: 15_000 }).toContain("Versions: 1.0.0");
    await page.getByRole("button", { name: "Install Catalog Notes 1.0.0 from the catalog" }).click();
    const region = page.getByRole("region", { name: "Review before installing" });
    await region.waitFor({ timeout: 15_000 });
    await region.getByRole("button", { name: "Install & enable" }).click();
    await expect.poll(() => page.locator(".install-live").textContent(), { timeout: 15_000 }).toContain("Installed Catalog Notes 1.0.0");
    await expect.poll(() => catalogSection().locator(".catalog-entry").textContent(), { timeout: 10_000 }).toContain("Installed");
  }, 90_000);

  it("offers a newer published version as the app's update, and updates to it", async () => {
    await publish("1.1.0");
    await catalogSection().getByRole("button", { name: "Refresh" }).click();
    await expect.poll(() => catalogSection().textContent(), { timeout: 15_000 }).toContain("Versions: 1.1.0, 1.0.0");
    const update = card(APP.name).getByRole("button", { name: "Update Catalog Notes to 1.1.0" });
    await update.waitFor({ timeout: 10_000 });
    await update.click();
    await expect.poll(() => card(APP.name).textContent(), { timeout: 15_000 }).toContain("Updated Catalog Notes to 1.1.0.");
    await expect.poll(() => card(APP.name).getByRole("button", { name: "Update Catalog Notes to 1.1.0" }).count(), { timeout: 10_000 }).toBe(0);
    // The install's line above no longer claims 1.0.0: the card's own line says what happened.
    await expect.poll(() => page.locator(".install-live").textContent(), { timeout: 10_000 }).not.toContain("Installed Catalog Notes 1.0.0");
    expect(await page.locator(".registry").textContent()).not.toContain("1.0.0 and turned it on");
    await page.screenshot({ path: join(SCREENSHOTS, "catalog-updated.png") });
  }, 90_000);

  it("with the AppServer down, says the catalog is unavailable and the installed app still opens", async () => {
    await card(APP.name).getByRole("button", { name: `Make ${APP.name} the default app` }).click();
    await expect.poll(() => card(APP.name).locator(".badge").allTextContents(), { timeout: 10_000 }).toContain("default");
    await world.server.close();
    await page.reload();
    await expect.poll(() => page.locator("#app-area").getAttribute("data-app"), { timeout: 20_000, message: "the installed app in front" }).toBe(APP.app_scope);
    const frame = page.frameLocator(`.instance-surface[data-app="${APP.app_scope}"] iframe`);
    await expect.poll(() => frame.locator("h1").textContent({ timeout: 1_000 }).catch(() => ""), { timeout: 15_000 }).toBe(`${APP.app_scope} is running`);
    await tab("Apps").click();
    await expect.poll(() => catalogSection().textContent(), { timeout: 15_000 }).toContain("The catalog is unavailable");
    expect(await card(APP.name).textContent()).toContain("1.1.0");
    expect(world.pageErrors).toEqual([]);
  }, 90_000);
});
