/**
 * What only the desktop's native side knows or can do, in the real window (WebKitGTK under Xvfb) against the real
 * AppServer, with the agent SDK as the agent:
 *
 * - issue 21, the host channel's push: the window hidden and shown again from the native side reaches the Runtime as
 *   window_hidden / window_shown, once each (read back from the Runtime's own audit log in the window's IndexedDB);
 *   a notification service that comes and goes on the session bus gives the agent a new inventory revision each
 *   time, with `notification.show` offered only while it runs; a push that is not sound changes nothing.
 * - issue 22, MCP back-ends on the desktop: an MCP server from npm that nobody here wrote
 *   (`@modelcontextprotocol/server-budget-allocator`), installed from Apps as a signed LineUp app, runs in the
 *   desktop's Node-side local back-end service (`startDesktopBackends`, as `npm run desktop` starts it); the agent's
 *   tool call reaches the server and the server's own result reaches the agent.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppServerHandle } from "@lineup/app-server";
import { connectAgent, type AgentClient, type SessionInventory } from "@lineup/agent-sdk";
import { nodeWebSocketTransport } from "@lineup/agent-sdk/node";
import type { LocalBackendServer } from "@lineup/host-web/node";
import { generatePublisherKey } from "@lineup/runtime";
import { signedBundle } from "../../runtime/test/helpers/apps-harness.js";
import { BUDGET_ALLOCATOR, npmServerFiles, npmServerManifest } from "../../runtime/test/helpers/mcp-servers.js";
import { appPage, signedBundle as signedPage } from "../../host-web/test/signed-app.js";
import { buildOnce } from "../../host-web/test/support.js";
import { startDesktopBackends } from "../src/node/backends.js";
import { clickWhenThere, DESKTOP_SCREENSHOTS, inFrames, installAsDefaultInWindow, installInWindow, launchDesktop, LIFECYCLE, onDisplay, realClick, requireDesktopTools, startServerAndConfig, startSessionBus, waitInWindow, xdotool, type DesktopWindow } from "./harness.js";

let root: string;
let server: AppServerHandle;
let backends: LocalBackendServer;
let window: DesktopWindow;
let agent: AgentClient;
let bus: { readonly address: string; stop(): void };
let notifications: ChildProcess | undefined;
let budgetName: string;
const inventories: SessionInventory[] = [];
/** An app whose frame keeps posting the page a forged push (the window hidden), to its parent and to the top window. */
const FORGER = { app_scope: "forger", name: "Forger", file: "forger.lineup" } as const;
const FORGER_MANIFEST = {
  format: "lineup.app.v1",
  app_scope: FORGER.app_scope,
  version: "1.0.0",
  name: FORGER.name,
  runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1"] },
  entrypoints: [{ id: "main", kind: "primary", default_eligible: true, display_modes: ["foreground"], path: "index.html", title: FORGER.name }],
};
const FORGER_SCRIPT = `import { connectSurface } from "@lineup/surface-sdk";
const forged = { "lineup-host": "push", text: JSON.stringify({ channel: "lineup.host", v: 1, push: "window.state", params: { state: "hidden" } }) };
let sent = 0;
void connectSurface().then((surface) => {
  surface.lifecycle.ready();
  setInterval(() => { parent.postMessage(forged, "*"); top.postMessage(forged, "*"); document.body.textContent = "sent " + ++sent; }, 100);
});`;
/** What the agent's budget calls ended with: the tool's result, or the refusal's code. */
const outcomes: { ok: boolean; value: unknown }[] = [];

/** The subjects of the Runtime's `host.intent` audit records for the window, oldest first, read from its store in the window. */
const WINDOW_INTENTS = `const names = (await indexedDB.databases()).map((d) => d.name).filter((n) => n.startsWith("lineup-runtime:"));
  const found = [];
  for (const name of names) {
    const db = await new Promise((resolve, reject) => { const r = indexedDB.open(name); r.onsuccess = () => resolve(r.result); r.onerror = () => reject(r.error); });
    const rows = await new Promise((resolve, reject) => { const r = db.transaction("entries").objectStore("entries").getAll(IDBKeyRange.bound(["audit"], ["audit", []])); r.onsuccess = () => resolve(r.result); r.onerror = () => reject(r.error); });
    db.close();
    for (const row of rows) { const record = JSON.parse(row.text); if (record.type === "host.intent" && record.subject.startsWith("window_")) found.push([record.index, record.subject]); }
  }
  return found.sort((a, b) => a[0] - b[0]).map((r) => r[1]);`;
const windowIntents = () => window.evaluate<string[]>(WINDOW_INTENTS);
const pushed = () => window.events.filter((e) => e.event === "pushed").map((e) => e["params"]);

function startNotificationService(): Promise<ChildProcess> {
  const child = spawn("gjs", ["-m", join(import.meta.dirname, "fixtures", "fake-notifications.js")], { env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: bus.address }, stdio: ["pipe", "pipe", "inherit"] });
  return new Promise((resolve) => createInterface({ input: child.stdout! }).on("line", (line) => (JSON.parse(line) as { ready?: boolean }).ready === true && resolve(child)));
}

beforeAll(async () => {
  requireDesktopTools();
  root = mkdtempSync(join(tmpdir(), "lineup-desktop-push-"));
  bus = await startSessionBus(root);
  backends = await startDesktopBackends(join(root, "backends"));
  const publisher = await generatePublisherKey();
  const budget = await npmServerManifest(BUDGET_ALLOCATOR, "budget");
  budgetName = budget.manifest.name!;
  const bundlePath = join(root, "budget.lineup");
  writeFileSync(bundlePath, await signedBundle(budget.manifest, publisher, undefined, npmServerFiles(BUDGET_ALLOCATOR)));
  const forgerPath = join(root, FORGER.file);
  writeFileSync(forgerPath, await signedPage(FORGER_MANIFEST, await appPage(FORGER_SCRIPT, FORGER.name), publisher));
  const started = await startServerAndConfig(root, {
    trusted_publishers: [{ ...publisher.trustedKey, label: "Desktop back-ends test publisher" }],
    builtin_apps: [{ name: budgetName, file: "budget.lineup" }, { name: FORGER.name, file: FORGER.file }],
    local_backends: backends.config,
  });
  server = started.server;
  // A session bus with no notification service on it yet.
  window = await launchDesktop({ dist: await buildOnce(), config: started.configFile, dataDir: join(root, "profile"), bundles: [{ file: "budget.lineup", path: bundlePath }, { file: FORGER.file, path: forgerPath }], env: { DBUS_SESSION_BUS_ADDRESS: bus.address } });
  agent = await connectAgent({ url: server.url, token: server.devCredentials!.agent_token, transport: nodeWebSocketTransport(), sessionPollMs: 50, reconnect: { initialMs: 20, maxMs: 200 } });
  agent.onInventory((_session, inventory) => void inventories.push(inventory));
  agent.onTurn((turn) => {
    void (async () => {
      try {
        outcomes.push({ ok: true, value: await agent.invokeTool(turn.sessionId, "budget.get_budget_data", {}, { appScope: "budget" }).result });
      } catch (error) {
        outcomes.push({ ok: false, value: (error as { code?: unknown }).code });
      }
      await agent.completeTurn(turn.sessionId, turn.turnId, { text: "done" });
    })().catch(() => undefined);
  });
}, 240_000);

afterAll(async () => {
  await agent?.close();
  window?.kill();
  notifications?.kill();
  await backends?.close();
  await server?.close();
  bus?.stop();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe("issue 21: the native side tells the page (the host channel's push)", () => {
  it("the window hidden and shown from the native side reaches the Runtime as window_hidden, then window_shown, once each", async () => {
    await waitInWindow(window, LIFECYCLE, "online", 60_000);
    expect(await windowIntents()).toEqual([]);
    await window.command("window-hide");
    await expect.poll(windowIntents, { timeout: 15_000 }).toEqual(["window_hidden"]);
    expect(pushed()).toContainEqual({ state: "hidden" });
    await window.command("window-show");
    await expect.poll(windowIntents, { timeout: 15_000 }).toEqual(["window_hidden", "window_shown"]);
    // Settled: the page's own visibility change does not report either a second time.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await windowIntents()).toEqual(["window_hidden", "window_shown"]);
  }, 90_000);

  it("minimized (the toplevel's state, as a window manager sets it) is the window hidden too, and shown again when it is not", async () => {
    // No window manager runs under Xvfb: the test sets the window's _NET_WM_STATE as one does when it minimizes it.
    const id = xdotool(window, "search", "--name", "^LineUp").split("\n")[0]!;
    const xprop = (...args: string[]) => onDisplay(window, "xprop", "-id", id, ...args);
    xprop("-f", "_NET_WM_STATE", "32a", "-set", "_NET_WM_STATE", "_NET_WM_STATE_HIDDEN");
    await expect.poll(windowIntents, { timeout: 15_000 }).toEqual(["window_hidden", "window_shown", "window_hidden"]);
    expect(pushed()).toContainEqual({ state: "minimized" });
    xprop("-remove", "_NET_WM_STATE");
    await expect.poll(windowIntents, { timeout: 15_000 }).toEqual(["window_hidden", "window_shown", "window_hidden", "window_shown"]);
  }, 60_000);

  it("a push that is not sound (a state the channel does not have) is refused, and changes nothing", async () => {
    await window.evaluate(`postMessage({ "lineup-host": "push", text: JSON.stringify({ channel: "lineup.host", v: 1, push: "window.state", params: { state: "gone" } }) }, "*"); return true;`);
    await new Promise((r) => setTimeout(r, 500));
    expect(await windowIntents()).toEqual(["window_hidden", "window_shown", "window_hidden", "window_shown"]);
  }, 30_000);
});

describe("issue 22: an app's MCP server runs on the desktop", () => {
  it("the person installs the budget allocator from Apps; the agent's call reaches the server and gets its own result", async () => {
    await installInWindow(window, budgetName);
    await clickWhenThere(window, '[role="tab"]', "Chat");
    await clickWhenThere(window, "button", "New conversation with the demo agent");
    await realClick(window, { selector: 'textarea[aria-label="Message"]' });
    xdotool(window, "type", "--delay", "15", "what is my budget?");
    xdotool(window, "key", "Return");
    await expect.poll(() => outcomes.length, { timeout: 60_000 }).toBe(1);
    const [call] = outcomes;
    expect(call!.ok, JSON.stringify(call)).toBe(true);
    const result = call!.value as { structuredContent: { config: { categories: { name?: string }[] } } };
    expect(result.structuredContent.config.categories.length).toBeGreaterThan(0);
    expect(JSON.stringify(result.structuredContent)).toContain("Marketing");
    // The chat shows the call and its one outcome.
    await expect.poll(() => window.evaluate<string>(`return document.querySelector('[role="log"]')?.textContent ?? ""`), { timeout: 15_000 }).toContain("Get Budget DataDone");
    await window.command("snapshot", { path: join(DESKTOP_SCREENSHOTS, "desktop-mcp-backend.png") });
  }, 120_000);
});

describe("issue 21: the notification service coming and going", () => {
  it("gives the agent a new inventory revision each time, notification.show offered only while it runs", async () => {
    await expect.poll(() => inventories.at(-1)?.tools.some((t) => t.app_scope === "budget"), { timeout: 30_000 }).toBe(true);
    const latest = () => inventories.at(-1)!;
    expect(latest().capabilities).not.toContain("notification.show");
    const without = latest().revision;

    notifications = await startNotificationService();
    await expect.poll(() => latest().revision, { timeout: 20_000 }).toBeGreaterThan(without);
    expect(latest().capabilities).toContain("notification.show");
    expect(pushed()).toContainEqual({ available: true });

    const withService = latest().revision;
    notifications.kill();
    notifications = undefined;
    await expect.poll(() => latest().revision, { timeout: 20_000 }).toBeGreaterThan(withService);
    expect(latest().capabilities).not.toContain("notification.show");
    expect(pushed()).toContainEqual({ available: false });
  }, 90_000);
});

describe("issue 21: the push is the native side's alone", () => {
  it("an app's frame posting a push to its parent and to the top window changes nothing", async () => {
    const before = await windowIntents();
    await installAsDefaultInWindow(window, FORGER.name, FORGER.app_scope);
    const sent = async () => Number(/sent (\d+)/.exec((await inFrames<{ text: string }[]>(window, { op: "query", selector: "body", attributes: [] })).flatMap((f) => f.result.map((r) => r.text)).join(" "))?.[1] ?? 0);
    await expect.poll(sent, { timeout: 30_000 }).toBeGreaterThan(20);
    expect(await windowIntents()).toEqual(before);
  }, 120_000);
});
