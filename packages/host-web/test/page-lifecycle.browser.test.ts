/**
 * The page's lifecycle and what the web host can do, kept current at run time (spec 4.4, 5.1, 7.2), in real
 * Chromium against the real AppServer:
 * - a person blocks, then allows, notifications for the host's origin (the browser's own permission setting,
 *   through the DevTools protocol as the site settings page does it); each change reaches the Runtime through
 *   the Permissions API's `change` event, and the agent receives a new inventory revision whose capabilities
 *   say so; its surfaces are the display modes the web host has;
 * - each page event reaches the Runtime as its host intent (read back from the Runtime's audit log): hidden and
 *   shown are the window hidden and shown, freeze and resume and the back/forward cache are suspend and resume;
 * - a hidden page pauses idle suspension: an app left idle in the background stays loaded while the page is
 *   hidden past the idle time, and is suspended (its frame unmounted) once the page is shown again.
 *
 * Headless Chromium keeps every page visible and does not freeze it for the DevTools protocol, so the page's
 * `visibilityState` is overridden and its lifecycle events are dispatched in the page, as the browser would.
 */
import type { AgentClient, SessionInventory } from "@lineup/agent-sdk";
import { connectAgent } from "@lineup/agent-sdk/node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { installAndStartConversation, startOneAppHost, type SignedAppHost } from "./signed-app.js";
import { auditRecords, say } from "./support.js";

const APP = { app_scope: "memo", name: "Memo", file: "memo.lineup" } as const;
const MANIFEST = {
  format: "lineup.app.v1",
  app_scope: APP.app_scope,
  version: "1.0.0",
  name: APP.name,
  runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1"] },
  entrypoints: [{ id: "main", kind: "primary", display_modes: ["foreground"], path: "index.html", title: APP.name }],
};
const SCRIPT = `import { connectSurface } from "@lineup/surface-sdk"; void connectSurface().then((s) => s.lifecycle.ready());`;

/** The host's idle time before an app in the background is suspended (the served config's). */
const IDLE_SECONDS = 2;

let world: SignedAppHost;
let agent: AgentClient;
const inventories: SessionInventory[] = [];

beforeAll(async () => {
  world = await startOneAppHost(APP, MANIFEST, SCRIPT, { dataDirPrefix: "lineup-page-lifecycle-", publisherLabel: "Memo test publisher", suspendIdleSeconds: IDLE_SECONDS });
  agent = await connectAgent({ url: world.server.url, token: world.server.devCredentials!.agent_token, sessionPollMs: 50, reconnect: { initialMs: 20, maxMs: 200 } });
  agent.onInventory((_sessionId, inventory) => void inventories.push(inventory));
}, 120_000);

afterAll(async () => {
  await agent?.close();
  await world?.close();
});

it("blocking and allowing notifications in the browser gives the agent a new inventory revision each time", async () => {
  const { page } = world;
  await installAndStartConversation(page, world.host.url, APP.name);
  const latest = () => inventories.at(-1);
  await say(page, "hello");
  await expect.poll(() => latest()?.apps?.some((a) => a.app_scope === APP.app_scope), { timeout: 20_000 }).toBe(true);
  expect(latest()!.capabilities).toContain("notification.show");
  // The web host shows apps in front, in a floating window and as cards in the chat.
  expect(latest()!.surfaces).toEqual(["foreground", "pip", "inline_card"]);
  const before = latest()!.revision;

  const cdp = await page.context().newCDPSession(page);
  const origin = new URL(world.host.url).origin;
  await cdp.send("Browser.setPermission", { permission: { name: "notifications" }, setting: "denied", origin });
  await expect.poll(() => latest()!.revision, { timeout: 20_000 }).toBeGreaterThan(before);
  expect(latest()!.capabilities).not.toContain("notification.show");
  // The rest of what the agent sees is unchanged: the app is still there.
  expect(latest()!.apps!.map((a) => a.app_scope)).toContain(APP.app_scope);

  const blocked = latest()!.revision;
  await cdp.send("Browser.setPermission", { permission: { name: "notifications" }, setting: "granted", origin });
  await expect.poll(() => latest()!.revision, { timeout: 20_000 }).toBeGreaterThan(blocked);
  expect(latest()!.capabilities).toContain("notification.show");
}, 90_000);

/** The host intents the Runtime audited, oldest first. */
const intents = async (): Promise<string[]> => (await auditRecords(world.page, "host.intent")).map((record) => record.subject ?? "");

/** The page hidden (`true`) or shown, as the browser tells it: `visibilityState` and one `visibilitychange`. */
async function setPageHidden(hidden: boolean): Promise<void> {
  await world.page.evaluate((hide) => {
    if (hide) {
      Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
      Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
    } else {
      // The document's own properties go; the browser's (visible) show through again.
      delete (document as { visibilityState?: unknown }).visibilityState;
      delete (document as { hidden?: unknown }).hidden;
    }
    document.dispatchEvent(new Event("visibilitychange"));
  }, hidden);
}

it("each page event reaches the Runtime as its host intent", async () => {
  const { page } = world;
  const before = (await intents()).length;
  const since = async () => (await intents()).slice(before);
  expect(await page.evaluate(() => document.visibilityState)).toBe("visible");

  await setPageHidden(true);
  await expect.poll(since, { timeout: 10_000 }).toEqual(["window_hidden"]);
  await setPageHidden(false);
  await expect.poll(since, { timeout: 10_000 }).toEqual(["window_hidden", "window_shown"]);

  await page.evaluate(() => document.dispatchEvent(new Event("freeze")));
  await expect.poll(since, { timeout: 10_000 }).toEqual(["window_hidden", "window_shown", "suspend"]);
  await page.evaluate(() => document.dispatchEvent(new Event("resume")));
  await expect.poll(since, { timeout: 10_000 }).toEqual(["window_hidden", "window_shown", "suspend", "resume"]);

  // The back/forward cache: a page kept in it is suspended and resumed; a page that is simply left is not.
  await page.evaluate(() => {
    dispatchEvent(new PageTransitionEvent("pagehide", { persisted: false }));
    dispatchEvent(new PageTransitionEvent("pagehide", { persisted: true }));
    dispatchEvent(new PageTransitionEvent("pageshow", { persisted: true }));
  });
  await expect.poll(since, { timeout: 10_000 }).toEqual(["window_hidden", "window_shown", "suspend", "resume", "suspend", "resume"]);
  expect(world.pageErrors).toEqual([]);
}, 60_000);

it("a hidden page pauses idle suspension: the app in the background stays loaded until the page is shown again", async () => {
  const { page } = world;
  const memo = page.locator(`.instance-surface[data-app="${APP.app_scope}"]`);
  const frames = () => page.locator(".instance-layer iframe").count();
  await page.getByRole("button", { name: "Open app" }).click();
  await page.getByRole("dialog", { name: "Open an app" }).getByRole("option", { name: APP.name, exact: true }).click();
  await expect.poll(() => memo.getAttribute("data-status"), { timeout: 30_000 }).toBe("active");

  const before = (await intents()).length;
  await setPageHidden(true);
  await expect.poll(async () => (await intents()).slice(before), { timeout: 10_000 }).toEqual(["window_hidden"]);
  // The person goes back to the chat; the app waits in the background, idle.
  await page.getByRole("tab", { name: "Chat" }).click();
  await expect.poll(() => memo.getAttribute("data-status"), { timeout: 10_000 }).toBe("backgrounded");
  // Well past the idle time, hidden: still loaded.
  await page.waitForTimeout(3 * IDLE_SECONDS * 1_000);
  expect(await frames()).toBe(1);
  expect(await memo.getAttribute("data-status", { timeout: 1_000 })).toBe("backgrounded");

  await setPageHidden(false);
  // Shown again, the idle time has passed: the app is suspended and its frame goes.
  await expect.poll(frames, { timeout: 15_000 }).toBe(0);
  const changes = (await auditRecords(page, "instance.changed")).map((record) => record.detail);
  expect(changes).toContain(`${APP.app_scope}: backgrounded → suspended (idle)`);
  expect(world.pageErrors).toEqual([]);
}, 60_000);
