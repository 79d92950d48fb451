/**
 * What the web host can do, kept current at run time (spec 7.2), in real Chromium against the real AppServer:
 * a person blocks, then allows, notifications for the host's origin (the browser's own permission setting,
 * through the DevTools protocol as the site settings page does it); each change reaches the Runtime through
 * the Permissions API's `change` event, and the agent receives a new inventory revision whose capabilities
 * say so.
 */
import type { AgentClient, SessionInventory } from "@lineup/agent-sdk";
import { connectAgent } from "@lineup/agent-sdk/node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { installAndStartConversation, startOneAppHost, type SignedAppHost } from "./signed-app.js";
import { say } from "./support.js";

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

let world: SignedAppHost;
let agent: AgentClient;
const inventories: SessionInventory[] = [];

beforeAll(async () => {
  world = await startOneAppHost(APP, MANIFEST, SCRIPT, { dataDirPrefix: "lineup-page-lifecycle-", publisherLabel: "Memo test publisher" });
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
