/**
 * An open frame follows a dev update by itself (issue 26), in real Chromium against the real AppServer: the
 * person installs a dev release of an app from the catalog and has it open in front, counts a click in its
 * session data, and `lineup publish` puts a newer dev release in the catalog. The Runtime follows it and
 * updates; the open frame then shows the new version's page, restored from the Runtime's snapshot (the
 * count is still one: no click repeated) — the person does nothing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FrameLocator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePublisherKey, type PublisherKey } from "@lineup/runtime";
import { appPage, publishToCatalog, startSignedAppHost, type SignedAppHost } from "./signed-app.js";
import { buildOnce, SCREENSHOTS } from "./support.js";

const APP = { app_scope: "dev-notes", name: "Dev Notes" };
const FIRST = "1.0.0-dev.1";
const SECOND = "1.0.0-dev.2";

/** The page of one edition: its own heading, the count from session data, "Add one", and a mark new with each document. */
const appScript = (edition: string): string => `
import { connectSurface } from "@lineup/surface-sdk";
const root = document.getElementById("app");
const heading = document.createElement("h1"); heading.textContent = ${JSON.stringify(`Edition ${edition}`)};
const count = document.createElement("output"); count.id = "count"; count.textContent = "…";
const mark = document.createElement("span"); mark.id = "document"; mark.textContent = String(Math.random()).slice(2);
root.append(heading, count, mark);
void (async () => {
  const surface = await connectSurface();
  let current = await surface.sessionData.get();
  const show = () => { count.textContent = String(current.data?.clicks ?? 0); };
  surface.sessionData.subscribe((snapshot) => { if (snapshot.revision >= current.revision) { current = snapshot; show(); } });
  show();
  const add = document.createElement("button"); add.type = "button"; add.textContent = "Add one";
  add.addEventListener("click", async () => {
    const clicks = (current.data?.clicks ?? 0) + 1;
    const { revision } = await surface.sessionData.replace({ data: { clicks }, expected_revision: current.revision });
    current = { ...current, data: { clicks }, revision };
    show();
  });
  root.append(add);
  await surface.lifecycle.ready();
})();
`;

function manifest(version: string): { readonly app_scope: string; readonly version: string } & Record<string, unknown> {
  return {
    format: "lineup.app.v1",
    app_scope: APP.app_scope,
    version,
    name: APP.name,
    description: "Notes an author is working on.",
    runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.session-data.v1"] },
    entrypoints: [{ id: "home", kind: "primary", default_eligible: true, display_modes: ["foreground"], path: "index.html", title: APP.name }],
    storage: { session_data_quota_bytes: 1024 },
  };
}

let world: SignedAppHost;
let page: Page;
let publisher: PublisherKey;
let work: string;

/** `lineup publish` of the edition `version`, signed with the test's publisher key. */
const publish = async (version: string): Promise<unknown> => publishToCatalog(world.server, work, publisher, manifest(version), await appPage(appScript(version), APP.name));

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "lineup-dev-reload-"));
  let distDir: string;
  [distDir, publisher] = await Promise.all([buildOnce(), generatePublisherKey()]);
  world = await startSignedAppHost({ distDir, dataDirPrefix: "lineup-dev-reload-", publisher, publisherLabel: "Dev test publisher", builtinApps: [], bundles: new Map() });
  page = world.page;
}, 120_000);

afterAll(async () => {
  await world?.close();
  rmSync(work, { recursive: true, force: true });
});

const surface = () => page.locator(`.instance-surface[data-app="${APP.app_scope}"]`);
const frame = (): FrameLocator => page.frameLocator(`.instance-surface[data-app="${APP.app_scope}"] iframe`);
const text = (selector: string) => frame().locator(selector).textContent({ timeout: 1_000 }).catch(() => "");

describe("an open frame after a dev update (Chromium, real host, real AppServer)", () => {
  it("installs the first dev release from the catalog and has it open in front", async () => {
    await publish(FIRST);
    await page.goto(world.host.url);
    await expect.poll(() => page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 20_000 }).toBe("online");
    await page.getByRole("tab", { name: "Apps" }).click();
    await page.getByRole("button", { name: `Install ${APP.name} ${FIRST} from the catalog` }).click({ timeout: 20_000 });
    const region = page.getByRole("region", { name: "Review before installing" });
    await region.waitFor({ timeout: 15_000 });
    await region.getByRole("button", { name: "Install & enable" }).click();
    await expect.poll(() => page.locator(".install-live").textContent(), { timeout: 15_000 }).toContain(`Installed ${APP.name} ${FIRST}`);
    await page.getByRole("button", { name: `Make ${APP.name} the default app` }).click();
    await page.reload();
    await expect.poll(() => page.locator("#app-area").getAttribute("data-app"), { timeout: 20_000 }).toBe(APP.app_scope);
    await expect.poll(() => text("h1"), { timeout: 15_000 }).toBe(`Edition ${FIRST}`);
  }, 90_000);

  it("shows the newer dev release's page in the open frame by itself, restored from the Runtime's snapshot", async () => {
    await frame().getByRole("button", { name: "Add one" }).click({ timeout: 15_000 });
    await expect.poll(() => text("#count"), { timeout: 10_000 }).toBe("1");
    const instance = await surface().getAttribute("data-instance");
    const firstDocument = await text("#document");
    expect(await surface().getAttribute("data-version")).toBe(FIRST);

    await publish(SECOND);
    // Nothing pressed: the Runtime follows the release, and the frame reloads on the new version.
    await expect.poll(() => text("h1"), { timeout: 30_000 }).toBe(`Edition ${SECOND}`);
    expect(await surface().getAttribute("data-version")).toBe(SECOND);
    // The same instance, still in front, in a new document that read the count from the Runtime: one click, not two.
    await expect.poll(() => text("#count"), { timeout: 10_000 }).toBe("1");
    expect(await text("#document")).not.toBe(firstDocument);
    expect(await surface().getAttribute("data-instance")).toBe(instance);
    expect(await page.locator("#app-area").getAttribute("data-app")).toBe(APP.app_scope);
    expect(await page.locator(".instance-layer iframe").count()).toBe(1);
    await page.screenshot({ path: join(SCREENSHOTS, "dev-reload-second-edition.png") });

    // The new page is live: a click counts on from the Runtime's value.
    await frame().getByRole("button", { name: "Add one" }).click({ timeout: 15_000 });
    await expect.poll(() => text("#count"), { timeout: 10_000 }).toBe("2");
    expect(world.pageErrors).toEqual([]);
  }, 90_000);
});
