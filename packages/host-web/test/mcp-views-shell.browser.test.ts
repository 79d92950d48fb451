/**
 * Issue 22 §3 through the real shell, in Chromium: MCP Apps views of the agent's calls shown in the chat. Two MCP Apps
 * from npm that nobody here wrote (`@modelcontextprotocol/server-budget-allocator`, `server-basic-preact`) and a probe
 * server written here with the MCP SDK are installed through Apps as signed LineUp apps; the demo agent (real AppServer)
 * calls their tools because the person asks; each call's row in the chat shows the tool's view, fed the call's input and
 * result from the Runtime. The basic-preact view's "Send Message" becomes the person's message in the conversation; a
 * reload rebuilds the card from the Runtime's state; the probe view reaches its own server only once the person allows
 * the origin it declares, and not after they revoke it in Settings.
 *
 * The page's Runtime runs each app's `mcp-stdio` server as `npm start`'s does: through the host's local back-end
 * service, which runs the real server program from the app's verified bundle files.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import type { FrameLocator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { runDemoAgent, type AgentClient, type DemoAgent } from "@lineup/agent-sdk";
import { connectAgent } from "@lineup/agent-sdk/node";
import type { AppManifest, AppScope } from "@lineup/protocol";
import { generatePublisherKey, manifestFromMcp, type McpToolInfo } from "@lineup/runtime";
import { describeMcpServer } from "@lineup/runtime/node";
import { signedBundle } from "../../runtime/test/helpers/apps-harness.js";
import { npmServerFiles, npmServerManifest } from "../../runtime/test/helpers/mcp-servers.js";
import { installFromApps, startSignedAppHost, type SignedAppHost } from "./signed-app.js";
import { auditRecords, buildOnce, describeScene, say, SCREENSHOTS } from "./support.js";

/** The apps, as the test installs them: each one's bundle files and manifest. */
interface TestApp {
  readonly scope: string;
  readonly files: Record<string, string>;
  manifest?: AppManifest;
}
const APPS: Record<string, TestApp> = {
  budget: { scope: "budget", files: npmServerFiles("@modelcontextprotocol/server-budget-allocator") },
  clock: { scope: "clock", files: npmServerFiles("@modelcontextprotocol/server-basic-preact") },
  probe: { scope: "probe", files: {} },
};

let world: SignedAppHost;
let page: Page;
let client: AgentClient;
let agent: DemoAgent;
let dataDir: string;
let remote: Server;
let reached = 0;
let remoteOrigin = "";
const consoleLines: string[] = [];
/** The app's name as Apps offers it (the MCP server's own name, in its generated manifest). */
const nameOf = (app: TestApp): string => app.manifest?.name ?? app.scope;
const card = (app: string) => page.locator(`.mcp-view-card[data-app="${app}"]`).last();
const viewOf = (app: string): FrameLocator => card(app).frameLocator("iframe");
/**
 * Presses `button` in a view: scrolled into view, then clicked as the element itself (`dispatchEvent`), not at
 * screen coordinates. Scrolling brings rows near the screen back into the windowed log, and a view among them
 * mounts again a moment later (under load, later still), moving the rows around it; a click aimed at where the
 * button was would land elsewhere. What is tested here is the view's request and the host's answer.
 */
async function press(button: ReturnType<FrameLocator["getByRole"]>): Promise<void> {
  await button.scrollIntoViewIfNeeded();
  await button.dispatchEvent("click");
}
const userMessages = () => page.locator('[data-kind="message"][data-from="user"]').allTextContents();

async function scene<T>(what: () => Promise<T>): Promise<T> {
  try {
    return await what();
  } catch (error) {
    console.log(await describeScene(page, consoleLines));
    throw error;
  }
}

beforeAll(async () => {
  dataDir = realpathSync(mkdtempSync(join(tmpdir(), "lineup-mcp-shell-")));
  // The probe's own server elsewhere: it answers any origin (CORS) and counts who reached it.
  remote = createServer((_req, res) => {
    reached += 1;
    res.writeHead(200, { "content-type": "text/plain", "access-control-allow-origin": "*" }).end("pong");
  });
  await new Promise<void>((r) => remote.listen(0, "127.0.0.1", r));
  const origin = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
  remoteOrigin = origin;
  // Minified: the page travels in one MCP message, which the runner caps at 1 MiB.
  const probeView = (await build({ entryPoints: [resolve(import.meta.dirname, "browser/mcp-probe-view.entry.ts")], bundle: true, write: false, format: "esm", platform: "browser", target: "es2022", minify: true, logLevel: "silent" })).outputFiles[0]!.text;
  const probeHtml = `<!doctype html><html><head><meta charset="utf-8"><meta name="probe-fetch" content="${origin}/ping"></head><body><button id="pip">Picture in picture</button><button id="link">Open link</button><ol id="log"></ol><script type="module">${probeView.replaceAll("</script", "<\\/script")}</script></body></html>`;
  const probeServer = (await build({
    entryPoints: [resolve(import.meta.dirname, "browser/mcp-probe-server.entry.ts")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "silent",
    define: { PROBE_HTML: JSON.stringify(probeHtml), PROBE_ORIGIN: JSON.stringify(origin) },
  })).outputFiles[0]!.text;
  APPS["probe"]!.files["server/package.json"] = '{"type":"module"}\n';
  APPS["probe"]!.files["server/index.js"] = probeServer;
  const probeFile = join(dataDir, "probe-server.mjs");
  writeFileSync(probeFile, probeServer);
  const described = await describeMcpServer(new StdioClientTransport({ command: process.execPath, args: [probeFile], stderr: "ignore" }));
  // As `lineup app from-mcp` makes it (its view's declared origin recorded), but without the `link.open` it declares, as
  // a hand-written manifest might: its view's open-link is refused.
  const { capabilities: probeCapabilities, ...probeManifest } = manifestFromMcp({ app_scope: "probe" as AppScope, version: "1.0.0", name: described.server.name, entry: "server/index.js", tools: described.tools as unknown as McpToolInfo[], views: described.views });
  expect(probeCapabilities?.map((c) => c.name)).toEqual(["link.open"]);
  expect(probeManifest.tools![0]!.view).toEqual({ resource_uri: "ui://fetch-probe/view.html", csp: { connect_domains: [origin] } });
  APPS["probe"]!.manifest = probeManifest;
  APPS["budget"]!.manifest = (await npmServerManifest("@modelcontextprotocol/server-budget-allocator", "budget")).manifest;
  APPS["clock"]!.manifest = (await npmServerManifest("@modelcontextprotocol/server-basic-preact", "clock")).manifest;

  const publisher = await generatePublisherKey();
  const bundles = new Map<string, Uint8Array>();
  for (const app of Object.values(APPS)) bundles.set(`${app.scope}.lineup`, await signedBundle(app.manifest!, publisher, undefined, app.files));
  world = await startSignedAppHost({
    distDir: await buildOnce(),
    dataDirPrefix: "lineup-mcp-shell-server-",
    publisher,
    publisherLabel: "MCP views test publisher",
    builtinApps: Object.values(APPS).map((app) => ({ name: nameOf(app), file: `${app.scope}.lineup` })),
    bundles,
    localBackends: true,
  });
  page = world.page;
  page.on("console", (message) => consoleLines.push(`${message.type()}: ${message.text()}`));
  client = await connectAgent({ url: world.server.url, token: world.server.devCredentials!.agent_token, sessionPollMs: 50, reconnect: { initialMs: 20, maxMs: 200 } });
  agent = runDemoAgent(client);
}, 180_000);

afterAll(async () => {
  agent?.dispose();
  await client?.close();
  await world?.close();
  if (remote !== undefined) {
    remote.closeAllConnections();
    await new Promise<void>((r) => remote.close(() => r()));
  }
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
});

describe("MCP Apps views of the agent's calls, in the shell's chat (Chromium, real host and AppServer)", () => {
  it("installs the three apps and starts a conversation with the demo agent", async () => {
    await page.goto(world.host.url);
    await expect.poll(() => page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 20_000 }).toBe("online");
    await page.getByRole("tab", { name: "Apps" }).click();
    for (const app of Object.values(APPS)) {
      // The review says which tools show a view in the chat, which origins each view may ask to reach (none unless
      // allowed), and the link.open a server with views declares.
      await installFromApps(page, nameOf(app), async (review) => {
        const text = await review.textContent();
        expect(text).toContain(app.scope === "probe" ? "ui://fetch-probe/view.html" : "ui://");
        if (app.scope === "probe") expect(text).toContain(`The view may ask to reach ${remoteOrigin}; it reaches none of them until you allow them`);
        else expect(text).toContain("The view declares no address to reach: it reaches no network.");
        expect(await review.locator('[data-capability="link.open"]').count()).toBe(app.scope === "probe" ? 0 : 1);
        if (app.scope === "probe") await page.screenshot({ path: join(SCREENSHOTS, "mcp-shell-install-review.png") });
      });
    }
    await page.getByRole("tab", { name: "Chat" }).click();
    await page.getByRole("button", { name: "New conversation with the demo agent" }).click();
    await page.getByRole("log").waitFor();
  }, 120_000);

  it("the budget allocator's view appears in the chat after the agent's call, with the call's data", async () => {
    await scene(async () => {
      await say(page, "get budget data");
      await card("budget").waitFor({ timeout: 60_000 });
      await expect.poll(() => viewOf("budget").locator("body").textContent(), { timeout: 30_000 }).toContain("Marketing");
      expect(await card("budget").locator("iframe").getAttribute("sandbox")).toBe("allow-scripts");
      await card("budget").scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SCREENSHOTS, "mcp-shell-budget.png") });
      // Expanded, it covers the app area (the same frame, not a new one); back in the chat, it is a card again.
      const frame = await card("budget").locator("iframe").elementHandle();
      await card("budget").getByRole("button", { name: "Expand" }).click();
      expect(await card("budget").getAttribute("data-display-mode")).toBe("foreground");
      expect((await card("budget").boundingBox())!.width).toBeGreaterThan(900);
      await page.screenshot({ path: join(SCREENSHOTS, "mcp-shell-budget-expanded.png") });
      await card("budget").getByRole("button", { name: "Back to the chat" }).click();
      expect(await card("budget").getAttribute("data-display-mode")).toBe("inline_card");
      expect(await frame!.evaluate((el) => el.isConnected)).toBe(true);
      expect(await viewOf("budget").locator("body").textContent()).toContain("Marketing");
    });
  }, 120_000);

  it("the basic-preact view's “Send Message” puts the person's message in the conversation", async () => {
    await scene(async () => {
      await say(page, "get time");
      const send = viewOf("clock").getByRole("button", { name: "Send Message" });
      await send.waitFor({ timeout: 60_000 });
      const before = (await userMessages()).length;
      await send.click();
      await expect.poll(async () => (await userMessages()).slice(before), { timeout: 30_000 }).toEqual([expect.stringContaining("This is message text.")]);
      // The agent hears it as the person's own message, and answers it.
      await expect.poll(() => page.locator('[data-kind="message"][data-from="agent"]').last().textContent(), { timeout: 30_000 }).toContain("This is message text.");
    });
    await page.screenshot({ path: join(SCREENSHOTS, "mcp-shell-message.png") });
  }, 120_000);

  it("the basic-preact view's “Open Link” is its app's link.open through the Capability Gateway: asked, audited, a new tab", async () => {
    const opened: string[] = [];
    const onPage = (popup: Page) => void popup.waitForLoadState().then(() => opened.push(popup.url()));
    world.browser.context.on("page", onPage);
    // The address answers here (this machine reaches no internet), so the tab shows what opened.
    const LINK = "https://modelcontextprotocol.io/";
    await world.browser.context.route(LINK, (route) => route.fulfill({ contentType: "text/html", body: "<title>opened</title>" }));
    try {
      await scene(async () => {
        const dialog = page.getByRole("dialog");
        await press(viewOf("clock").getByRole("button", { name: "Open Link" }));
        await dialog.waitFor({ timeout: 30_000 });
        expect(await dialog.textContent()).toContain(LINK);
        expect(await dialog.textContent()).toContain("Basic MCP App Server");
        expect(await dialog.textContent()).toContain("link.open");
        await page.screenshot({ path: join(SCREENSHOTS, "mcp-shell-open-link.png") });
        // Closed without a choice: nothing opens, and the next link is asked again.
        await page.keyboard.press("Escape");
        await dialog.waitFor({ state: "hidden", timeout: 15_000 });
        expect(opened).toEqual([]);
        await press(viewOf("clock").getByRole("button", { name: "Open Link" }));
        await dialog.getByRole("button", { name: "Allow", exact: true }).click();
        await expect.poll(() => opened.length, { timeout: 15_000 }).toBe(1);
        // The audit log has each step as the app's use of link.open, the host's call after the person allowed it.
        const linkSteps = async () => (await auditRecords(page)).filter((r) => r.subject === "clock" && r.detail?.startsWith("link.open")).map((r) => `${r.type}${r.code === undefined ? "" : ` ${r.code}`}`);
        await expect.poll(linkSteps, { timeout: 15_000 }).toEqual(["capability.ask_user", "capability.refused cancelled_by_user", "capability.ask_user", "capability.user_granted", "capability.invoke", "capability.result"]);
      });
    } finally {
      world.browser.context.off("page", onPage);
      await world.browser.context.unroute(LINK);
    }
    for (const other of world.browser.context.pages()) if (other !== page) await other.close();
    expect(opened).toEqual([LINK]);
  }, 120_000);

  it("after a reload the cards come back from the Runtime's state, their views fed the calls' results again", async () => {
    await scene(async () => {
      await page.reload();
      await expect.poll(() => page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 20_000 }).toBe("online");
      // The budget card is far up by now: the person scrolls back to it (the windowed log mounts rows near the screen).
      await viewOf("clock").getByRole("button", { name: "Send Message" }).waitFor({ timeout: 30_000 });
      const toTop = () => page.getByRole("log").evaluate((log) => log.scrollTo({ top: 0 }));
      await expect.poll(async () => (await toTop(), await card("budget").count()), { timeout: 30_000 }).toBe(1);
      await expect.poll(() => viewOf("budget").locator("body").textContent(), { timeout: 30_000 }).toContain("Marketing");
      await page.screenshot({ path: join(SCREENSHOTS, "mcp-shell-reloaded.png") });
    });
  }, 120_000);

  it("a view reaches the origin it declares only once the person allows it, and no more after they revoke it", async () => {
    const lines = () => viewOf("probe").locator("#log li").allTextContents();
    await scene(async () => {
      await say(page, "probe fetch");
      const ask = card("probe").getByRole("group", { name: "Allow" });
      await ask.waitFor({ timeout: 60_000 });
      expect(await ask.textContent()).toContain(`127.0.0.1:${(remote.address() as AddressInfo).port}`);
      // Not allowed (the default): the frame's policy refuses the request before it leaves the browser.
      await expect.poll(lines, { timeout: 30_000 }).toContain("fetch refused");
      await expect.poll(lines, { timeout: 30_000 }).toContain('result {"probed":true}');
      expect(reached).toBe(0);
      await page.screenshot({ path: join(SCREENSHOTS, "mcp-shell-csp-ask.png") });
      await ask.getByRole("button", { name: "Not now" }).click();
      expect(await ask.count()).toBe(0);
      expect(reached).toBe(0);

      // Asked again after a reload; allowed this time: the view is mounted again with the origin in its policy.
      await page.reload();
      await card("probe").getByRole("group", { name: "Allow" }).getByRole("button", { name: "Allow" }).click();
      await expect.poll(lines, { timeout: 30_000 }).toContain("fetch pong");
      expect(reached).toBe(1);
      expect(await card("probe").getByRole("group", { name: "Allow" }).count()).toBe(0);

      // Settings lists the grant; revoked, the next mount reaches nothing.
      await page.getByRole("tab", { name: "Settings" }).click();
      const grants = page.getByRole("region", { name: "Network access of app views" });
      await expect.poll(() => grants.textContent(), { timeout: 15_000 }).toContain("ui://fetch-probe/view.html");
      await grants.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SCREENSHOTS, "mcp-shell-settings-grant.png") });
      await grants.getByRole("button", { name: /Revoke network access/ }).click();
      await expect.poll(() => grants.textContent(), { timeout: 15_000 }).toContain("No app view may reach the network.");
      await page.getByRole("tab", { name: "Chat" }).click();
      await expect.poll(lines, { timeout: 30_000 }).toContain("fetch refused");
      expect(reached).toBe(1);
    });
  }, 180_000);

  it("a view whose app's manifest does not declare link.open: its open-link is refused without asking anyone, and audited", async () => {
    const lines = () => viewOf("probe").locator("#log li").allTextContents();
    await scene(async () => {
      await viewOf("probe").getByRole("button", { name: "Open link" }).click();
      await expect.poll(lines, { timeout: 30_000 }).toContain("link refused");
      expect(await page.getByRole("dialog").count()).toBe(0);
      const refused = (await auditRecords(page)).filter((r) => r.subject === "probe" && r.detail?.startsWith("link.open"));
      expect(refused.map((r) => `${r.type} ${r.code}`)).toEqual(["capability.refused capability_not_declared"]);
    });
  }, 60_000);

  it("disabling an app takes its views down: the card says the app is no longer enabled, and no frame of it is left", async () => {
    await scene(async () => {
      await page.getByRole("tab", { name: "Apps" }).click();
      await page.getByRole("button", { name: `Disable ${nameOf(APPS["clock"]!)}` }).click();
      await expect.poll(() => page.getByRole("button", { name: `Enable ${nameOf(APPS["clock"]!)}` }).count(), { timeout: 15_000 }).toBe(1);
      await page.getByRole("tab", { name: "Chat" }).click();
      const gone = page.locator('.mcp-view-gone[data-app="clock"]');
      const toTop = () => page.getByRole("log").evaluate((log) => log.scrollTo({ top: 0 }));
      await expect.poll(async () => (await toTop(), await gone.count()), { timeout: 30_000 }).toBeGreaterThan(0);
      expect(await gone.first().textContent()).toBe("The app of this view is no longer enabled.");
      expect(await page.locator('.mcp-view-card[data-app="clock"]').count()).toBe(0);
      // The other apps' views stay.
      await expect.poll(() => viewOf("budget").locator("body").textContent(), { timeout: 30_000 }).toContain("Marketing");
    });
    expect(world.pageErrors).toEqual([]);
  }, 120_000);
});
