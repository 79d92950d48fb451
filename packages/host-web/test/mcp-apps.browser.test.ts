/**
 * Issue 22 §3 in real Chromium: MCP Apps views, unmodified, in LineUp's sandboxed surface. Two MCP Apps from npm that
 * nobody here wrote — `@modelcontextprotocol/server-basic-preact` and `@modelcontextprotocol/server-budget-allocator` —
 * are installed as LineUp apps on a Runtime in Node, which runs each server as an `mcp-stdio` back-end. The agent
 * calls their tools; the Runtime reads each tool's `ui://` view; the page shows it through `mountMcpView` (the
 * surface frame, no `allow-same-origin`) and ext-apps' `AppBridge`: the view gets the tool's input and result, its own
 * `tools/call` goes through the Runtime's back-end checks, its `ui/message` reaches the host, and its
 * `ui/open-link` is refused unless the person confirms, and its `ui/message`s past their limit are refused `rate_limited`. A view written here with ext-apps' own `App` shows the host's
 * side of the rest of the protocol: partial input, cancel, display modes (picture-in-picture asked by the view), and
 * its `localStorage` kept in the app's session data.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import type { Browser, FrameLocator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BridgeTheme, JsonObject } from "@lineup/protocol";
import type { McpToolInfo } from "@lineup/runtime";
import { sessionDataStorage } from "../src/apps-host/mcp-view-storage.js";
import { createMcpStdioRunner } from "@lineup/runtime/node";
import type { FakeAppServer } from "@lineup/runtime/testing";
import { launchChromium } from "../../../test/support/chromium.js";
import { agentInvokes, onlineDevice, publishedInventories, signedBundle, toolOutputs } from "../../runtime/test/helpers/apps-harness.js";
import { npmServerFiles, npmServerManifest } from "../../runtime/test/helpers/mcp-servers.js";
import { until, type Device } from "../../runtime/test/helpers/runtime-harness.js";
import { grantedFramePage, surfaceFrameHeaders } from "../src/node/serve.js";
import { SCREENSHOTS } from "./support.js";

const HOST_CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; frame-src 'self'; object-src 'none'; base-uri 'none'";
const THEME: BridgeTheme = { mode: "light", effective_mode: "light", color_scheme_id: "default", css_variables: {} };

let browser: Browser;
let page: Page;
let http: Server;
let dataDir: string;
let server: FakeAppServer;
let device: Device;
const tools: Record<string, McpToolInfo[]> = {};
/** What the views asked of LineUp, in order. */
const viewCalls: { app: string; name: string }[] = [];
const messages: string[] = [];
const links: string[] = [];
const errors: string[] = [];
/** The probe view's page, and where the test keeps its `localStorage` (the clock app's session data). */
let probeHtml: string;
let probeStorage: Awaited<ReturnType<typeof sessionDataStorage>> | undefined;

const call = <T>(fn: string, ...args: unknown[]): Promise<T> =>
  page.evaluate(([name, a]) => (window as unknown as { __mcp: Record<string, (...x: unknown[]) => unknown> }).__mcp[name as string]!(...(a as unknown[])), [fn, args] as const) as Promise<T>;
const view = (id: string): FrameLocator => page.frameLocator(`#${id} iframe`);

let calls = 0;
/** The agent calls `app/method`; resolves with its one result (a `CallToolResult`). */
async function agentCall(app: string, method: string, args: JsonObject = {}): Promise<{ content: unknown[]; structuredContent?: Record<string, unknown> }> {
  const callId = `agent-${++calls}`;
  agentInvokes(server, callId, app, method, args, publishedInventories(server).at(-1)!.revision);
  const terminal = () => toolOutputs(server, callId).find(([type]) => type === "lineup.tool.result" || type === "lineup.tool.error");
  await until(() => terminal() !== undefined, 30_000, `the end of ${app}/${method}`);
  const [type, payload] = terminal()!;
  expect(type).toBe("lineup.tool.result");
  return payload["result"] as { content: unknown[]; structuredContent?: Record<string, unknown> };
}

/** Shows the view of the agent's call of `app/method` in a surface `id`, and hands it the call's input and result. */
async function showView(id: string, app: string, method: string, result: { content: unknown[] }): Promise<void> {
  const mcpView = await device.runtime.appPort(app).readMcpView(method);
  const tool = tools[app]!.find((t) => t.name === mcpView.tool)!;
  await call("mount", id, mcpView.html, { app_scope: app, tool, theme: THEME, locale: "en-US", display_mode: "inline_card", display_modes: ["foreground", "pip", "inline_card"] });
  expect(await call("ready", id)).toBe("ready");
  await call("toolInput", id, {});
  await call("toolResult", id, result);
}

beforeAll(async () => {
  dataDir = realpathSync(mkdtempSync(join(tmpdir(), "lineup-mcp-views-")));
  const online = await onlineDevice({ extra: { backends: { "mcp-stdio": (spec) => createMcpStdioRunner(spec, { dataDir }) } } });
  server = online.server;
  device = online.d;
  for (const [app, pkg] of [
    ["clock", "@modelcontextprotocol/server-basic-preact"],
    ["budget", "@modelcontextprotocol/server-budget-allocator"],
  ] as const) {
    const made = await npmServerManifest(pkg, app);
    tools[app] = made.tools;
    expect(await device.runtime.appManager.install(await signedBundle(made.manifest, undefined, undefined, npmServerFiles(pkg)), { approved: true })).toMatchObject({ status: "succeeded" });
  }
  await until(() => publishedInventories(server).some((i) => i.methods.includes("clock/clock.get_time") && i.methods.includes("budget/budget.get_budget_data")), 10_000, "both apps' tools in the inventory");

  const harness = (await build({ entryPoints: [resolve(import.meta.dirname, "browser/mcp-view.entry.ts")], bundle: true, write: false, format: "esm", platform: "browser", target: "es2022", conditions: ["source"], logLevel: "silent" })).outputFiles[0]!.text;
  const probe = (await build({ entryPoints: [resolve(import.meta.dirname, "browser/mcp-probe-view.entry.ts")], bundle: true, write: false, format: "esm", platform: "browser", target: "es2022", logLevel: "silent" })).outputFiles[0]!.text;
  probeHtml = `<!doctype html><html><head><meta charset="utf-8"></head><body><button id="pip">Picture in picture</button><ol id="log"></ol><script type="module">${probe.replaceAll("</script", "<\\/script")}</script></body></html>`;
  const frameHtml = readFileSync(resolve(import.meta.dirname, "../public/surface-frame.html"), "utf8");
  http = createServer((req, res) => {
    if (req.url === "/harness.js") return void res.writeHead(200, { "content-type": "text/javascript" }).end(harness);
    if (req.url === "/surface-frame.html") return void res.writeHead(200, { "content-type": "text/html", ...surfaceFrameHeaders(frameHtml) }).end(frameHtml);
    // As the site serves it: the frame page with the origins a person granted a view in its policy.
    const granted = grantedFramePage(frameHtml, req.url ?? "");
    if (granted !== undefined) return void res.writeHead(200, { "content-type": "text/html", ...granted.headers }).end(granted.html);
    res.writeHead(200, { "content-type": "text/html", "content-security-policy": HOST_CSP });
    res.end('<!doctype html><html><head><meta charset="utf-8"><title>MCP views</title></head><body style="margin:0;font:14px system-ui"><script type="module" src="/harness.js"></script></body></html>');
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 800, height: 900 } });
  page.on("pageerror", (e) => errors.push(e.message));
  const appOf = (id: string): string => (id.startsWith("budget") ? "budget" : "clock");
  await page.exposeFunction("lineupCallTool", async (id: string, name: string, args: Record<string, unknown>) => {
    viewCalls.push({ app: appOf(id), name });
    return device.runtime.appPort(appOf(id)).callBackend("mcp", name, args as JsonObject);
  });
  await page.exposeFunction("lineupMessage", async (_id: string, text: string) => void messages.push(text));
  // The person declines every link here: the view is told it did not open.
  await page.exposeFunction("lineupOpenLink", async (_id: string, url: string) => {
    links.push(url);
    return false;
  });
  await page.exposeFunction("lineupStorageSave", async (_id: string, items: Record<string, string>) => probeStorage?.save(items));
  await page.goto(`http://127.0.0.1:${(http.address() as AddressInfo).port}/`);
  await page.waitForFunction(() => "__mcp" in window);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await device?.stop();
  await new Promise<void>((r) => (http ? http.close(() => r()) : r()));
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
});

describe("MCP Apps views in LineUp's sandboxed surface (Chromium)", () => {
  it("shows the budget allocator's view of the agent's call, with the result it was given", async () => {
    const result = await agentCall("budget", "budget.get_budget_data");
    expect(result.structuredContent).toHaveProperty("config");
    await showView("budget", "budget", "budget.get_budget_data", result);
    await expect.poll(() => view("budget").locator("body").textContent(), { timeout: 20_000 }).toContain("Marketing");
    expect(await call<{ sandbox: string }>("state", "budget")).toMatchObject({ sandbox: "allow-scripts" });
    await page.screenshot({ path: join(SCREENSHOTS, "mcp-budget-allocator.png"), fullPage: true });
  }, 90_000);

  it("shows the basic preact view; its own tool call, message and link go through LineUp", async () => {
    const result = await agentCall("clock", "clock.get_time");
    await showView("clock", "clock", "clock.get_time", result);
    const frame = view("clock");
    await frame.getByRole("button", { name: "Get Server Time" }).waitFor({ timeout: 20_000 });
    const before = viewCalls.length;
    await frame.getByRole("button", { name: "Get Server Time" }).click();
    await expect.poll(() => viewCalls.slice(before), { timeout: 15_000 }).toEqual([{ app: "clock", name: "get-time" }]);
    await expect.poll(() => frame.locator("body").textContent(), { timeout: 15_000 }).toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
    await frame.getByRole("button", { name: "Send Message" }).click();
    await expect.poll(() => messages.length, { timeout: 15_000 }).toBe(1);
    await frame.getByRole("button", { name: "Open Link" }).click();
    await expect.poll(() => links.length, { timeout: 15_000 }).toBe(1);
    await page.screenshot({ path: join(SCREENSHOTS, "mcp-basic-preact.png"), fullPage: true });
    await call("close", "clock");
    expect(await page.locator("#clock iframe").count()).toBe(0);
    expect(errors).toEqual([]);
  }, 90_000);

  it("tells a view the agent's partial input and cancel, moves it where it asks (pip included), and keeps its localStorage in session data", async () => {
    const tool = { name: "probe", inputSchema: { type: "object" } };
    const context = { app_scope: "clock", tool, theme: THEME, locale: "en-US", display_mode: "inline_card", display_modes: ["foreground", "pip", "inline_card"] };
    const lines = (id: string) => view(id).locator("#log li").allTextContents();
    // Without a host that keeps it, the sandbox's own localStorage throws, as docs/security.md says.
    await call("mount", "bare", probeHtml, context);
    expect(await call("ready", "bare")).toBe("ready");
    await expect.poll(() => lines("bare"), { timeout: 15_000 }).toContain("storage SecurityError");
    await call("close", "bare");

    const sessionData = device.runtime.appPort("clock").sessionData();
    const stored = async () => {
      const read = await sessionData.get();
      return read.ok ? read.value.data : read.error;
    };
    probeStorage = await sessionDataStorage(sessionData, "local_storage");
    await call("mount", "probe", probeHtml, context, probeStorage.items);
    expect(await call("ready", "probe")).toBe("ready");
    await call("toolInputPartial", "probe", { city: "Par" });
    await call("toolInputPartial", "probe", { city: "Paris" });
    await call("toolCancelled", "probe", "the person stopped the agent");
    await expect.poll(() => lines("probe"), { timeout: 15_000 }).toEqual(["count 1", "started inline", 'partial {"city":"Par"}', 'partial {"city":"Paris"}', "cancelled the person stopped the agent"]);

    // The view asks for picture-in-picture: the host moves it to LineUp's pip placement and the view hears so.
    await view("probe").getByRole("button", { name: "Picture in picture" }).click();
    await expect.poll(() => lines("probe"), { timeout: 15_000 }).toEqual(expect.arrayContaining(["mode pip", "granted pip"]));
    expect(await call<{ modes: string[] }>("state", "probe")).toMatchObject({ modes: ["pip"] });
    expect(await call("displayMode", "probe")).toBe("pip");
    // The shell moves it to the foreground: the view hears fullscreen.
    await call("setDisplayMode", "probe", "foreground");
    await expect.poll(() => lines("probe"), { timeout: 15_000 }).toContain("mode fullscreen");
    await call("close", "probe");

    // Its localStorage outlived the view, in the app's session data: opened again, it counts on.
    await probeStorage.saved();
    expect(await stored()).toMatchObject({ local_storage: { count: "1" } });
    probeStorage = await sessionDataStorage(sessionData, "local_storage");
    await call("mount", "again", probeHtml, context, probeStorage.items);
    await expect.poll(() => lines("again"), { timeout: 15_000 }).toContain("count 2");
    await call("close", "again");
    await probeStorage.saved();
    expect(await stored()).toMatchObject({ local_storage: { count: "2" } });
    expect(errors).toEqual([]);
  }, 90_000);

  it("a view's ui/message past its limit gets a typed rate_limited error; nothing is dropped silently", async () => {
    const html = probeHtml.replace("<head>", '<head><meta name="probe-messages" content="8">');
    const context = { app_scope: "clock", tool: { name: "probe", inputSchema: { type: "object" } }, theme: THEME, locale: "en-US", display_mode: "inline_card", display_modes: ["inline_card"] };
    const before = messages.length;
    await call("mount", "chatty", html, context);
    expect(await call("ready", "chatty")).toBe("ready");
    const answers = async () => (await view("chatty").locator("#log li").allTextContents()).filter((line) => line.startsWith("message ")).sort();
    // The bucket holds MCP_VIEW_MESSAGE_LIMIT.burst (5): the first five reach the chat, the other three are refused, typed.
    await expect.poll(answers, { timeout: 15_000 }).toHaveLength(8);
    expect(await answers()).toEqual([...[1, 2, 3, 4, 5].map((i) => `message ${i} sent`), ...[6, 7, 8].map((i) => `message ${i} rate_limited`)]);
    expect(messages.slice(before)).toEqual(["message 1", "message 2", "message 3", "message 4", "message 5"]);
    await call("close", "chatty");
  }, 60_000);

  it("a view reaches the origins its server declares only once the person granted them", async () => {
    // The view's own server, elsewhere: it answers any origin (CORS), and counts who reached it.
    let reached = 0;
    const remote = createServer((_req, res) => {
      reached += 1;
      res.writeHead(200, { "content-type": "text/plain", "access-control-allow-origin": "*" }).end("pong");
    });
    await new Promise<void>((r) => remote.listen(0, "127.0.0.1", r));
    try {
      const origin = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
      const html = probeHtml.replace("<head>", `<head><meta name="probe-fetch" content="${origin}/ping">`);
      const context = { app_scope: "clock", tool: { name: "probe", inputSchema: { type: "object" } }, theme: THEME, locale: "en-US", display_mode: "inline_card", display_modes: ["inline_card"] };
      const lines = (id: string) => view(id).locator("#log li").allTextContents();
      // No grant (the default): the frame's CSP refuses the request before it leaves the browser.
      await call("mount", "ungranted", html, context);
      expect(await call("ready", "ungranted")).toBe("ready");
      await expect.poll(() => lines("ungranted"), { timeout: 15_000 }).toContain("fetch refused");
      expect(reached).toBe(0);
      await call("close", "ungranted");
      // The person granted the view its declared origin: the frame is served with it in its policy.
      await call("mount", "granted", html, context, undefined, { connect_domains: [origin], resource_domains: [] });
      expect(await call("ready", "granted")).toBe("ready");
      await expect.poll(() => lines("granted"), { timeout: 15_000 }).toContain("fetch pong");
      expect(reached).toBe(1);
      await call("close", "granted");
    } finally {
      remote.closeAllConnections();
      await new Promise<void>((r) => remote.close(() => r()));
    }
  }, 60_000);
});
