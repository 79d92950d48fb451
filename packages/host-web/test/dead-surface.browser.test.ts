/**
 * Issue 27, "Dead surfaces", at the surface host in real Chromium, on a page under the host's strict CSP
 * (frame-src 'self'): an app built with the real surface SDK, mounted through `mountSurface` with a short
 * heartbeat, dies each way a surface can, and the host notices within the bound, with the right reason:
 *
 * - its document navigates itself (`location.href`), to an address the host's frame-src refuses (Chromium
 *   shows its error page in the frame) and to one it allows: a new document loads → `navigated`, at once;
 * - a `<meta http-equiv="refresh">` to another address: the same;
 * - its renderer crashes (CDP `Page.crash` on the app's out-of-process frame): no event at all reaches the
 *   host page, the heartbeat goes unanswered → `unresponsive`;
 * - it hangs after ready (`for (;;) {}` in a tool call): the heartbeat goes unanswered → `unresponsive`.
 *
 * Each time the tool call the app held ends with the death's message, and the dead surface takes no new
 * request. A live app is never reported: not over many timeouts, not after the host page itself stopped
 * running for longer than the timeout while a ping was out, not while it floods the host far over its rate.
 */
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { build } from "esbuild";
import type { Browser, BrowserContext, CDPSession, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../../test/support/chromium.js";
import { testSnapshot, TOOL_APP_FEATURES } from "../../../test/support/bridge-snapshot.js";
import { appPage } from "./signed-app.js";

const HOST_CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; frame-src 'self'; object-src 'none'; base-uri 'none'";
/** Short, so each case takes seconds: dead after 1.5 s without an answer, checked every 200 ms. */
const HEARTBEAT = { intervalMs: 200, timeoutMs: 1_500 };
/** Refused by the host page's frame-src: Chromium puts its error page in the frame. */
const REFUSED = "http://127.0.0.1:9/";

/** The probe app: the real surface SDK, and tools that do what each case needs when the test calls them. */
const PROBE_SCRIPT = `
import { connectSurface, defineAgentTools } from "@lineup/surface-sdk";
const forever = () => new Promise(() => {});
const to = { type: "object", properties: { to: { type: "string" } }, required: ["to"] };
const tools = defineAgentTools({
  "probe.echo": { input_schema: { type: "object" }, output_schema: {}, handler: async () => ({ echoed: true }) },
  "probe.wait": { input_schema: { type: "object" }, output_schema: {}, handler: forever },
  "probe.navigate": { input_schema: to, output_schema: {}, handler: (args) => { location.href = args.to; return forever(); } },
  "probe.refresh": {
    input_schema: to,
    output_schema: {},
    handler: (args) => {
      const refresh = document.createElement("meta");
      refresh.httpEquiv = "refresh";
      refresh.content = "0; url=" + args.to;
      document.head.append(refresh);
      return forever();
    },
  },
  "probe.hang": { input_schema: { type: "object" }, output_schema: {}, handler: () => { for (;;) {} } },
  "probe.busy": {
    input_schema: { type: "object", properties: { ms: { type: "number" } }, required: ["ms"] },
    output_schema: {},
    handler: async (args) => {
      const end = performance.now() + args.ms;
      while (performance.now() < end) {}
      return { busy: args.ms };
    },
  },
});
void (async () => {
  const surface = await connectSurface({ tools });
  document.getElementById("app").textContent = "probe is running";
  await surface.lifecycle.ready();
})();
`;

/**
 * An app far over its message rate (2,000 requests a second for 3 s, against 100 a second with a burst of
 * 200) that still answers every `surface.ping` at once, by hand (no SDK).
 */
const FLOODING_APP = `<!doctype html><html><body><script>
window.addEventListener("message", (e) => {
  const port = e.ports[0]; const nonce = e.data.nonce;
  const f = (o) => Object.assign({ bridge: "lineup.surface", v: 1, nonce }, o);
  port.onmessage = (m) => {
    if (m.data.kind === "request" && m.data.method === "surface.ping") port.postMessage(f({ kind: "response", id: m.data.id, method: "surface.ping", result: {} }));
  };
  port.postMessage(f({ kind: "request", id: 1, method: "lifecycle.ready", params: { heartbeat: true } }));
  let id = 10;
  const start = Date.now();
  const flood = () => {
    for (let i = 0; i < 40; i++) port.postMessage(f({ kind: "request", id: id++, method: "session_data.get", params: {} }));
    if (Date.now() - start < 3000) setTimeout(flood, 20);
  };
  flood();
}, { once: true });
</script></body></html>`;

interface Death {
  reason: string;
  message: string;
  at: number;
}

let browser: Browser;
let page: Page;
let server: Server;
let origin: string;
let probeHtml: string;
const errors: string[] = [];

/** Calls the harness (test/browser/surface-harness.entry.ts) in `target`. */
const callIn = <T>(target: Page, fn: string, ...args: unknown[]): Promise<T> =>
  target.evaluate(([name, a]) => (window as unknown as { __surfaces: Record<string, (...x: unknown[]) => unknown> }).__surfaces[name as string]!(...(a as unknown[])), [fn, args] as const) as Promise<T>;
const call = <T>(fn: string, ...args: unknown[]): Promise<T> => callIn<T>(page, fn, ...args);

const snapshotOf = (id: string) => testSnapshot({ app_scope: "probe", instance_id: id, entrypoint: "main", sdk: { api_version: "1", features: TOOL_APP_FEATURES } });

/** Mounts the probe app as `id` (named "Probe" for people) and waits until it is ready. */
async function mountProbe(target: Page, id: string): Promise<void> {
  await callIn(target, "mount", id, probeHtml, snapshotOf(id), "pip", undefined, { heartbeat: HEARTBEAT, name: "Probe" });
  expect(await callIn(target, "startup", id)).toBe("ready");
}

const deathOf = (id: string): Promise<Death | null> => call<Death | null>("death", id);

/** Starts `method` on `id`, then waits (up to `withinMs`) for the surface to die; returns the death and how long it took. */
async function killWith(id: string, method: string, args: Record<string, unknown>, withinMs: number): Promise<{ death: Death; afterMs: number }> {
  const sent = await call<number>("startInvoke", id, { call_id: `c-${id}`, method, arguments: args });
  await expect.poll(() => deathOf(id), { timeout: withinMs, interval: 50, message: `${id} is reported dead` }).not.toBeNull();
  const death = (await deathOf(id))!;
  return { death, afterMs: death.at - sent };
}

beforeAll(async () => {
  probeHtml = await appPage(PROBE_SCRIPT, "Probe");
  const harness = (
    await build({ entryPoints: [resolve(import.meta.dirname, "browser/surface-harness.entry.ts")], bundle: true, write: false, format: "esm", platform: "browser", target: "es2022", conditions: ["source"] })
  ).outputFiles[0]!.text;
  const frameHtml = await readFile(resolve(import.meta.dirname, "../public/surface-frame.html"), "utf8");
  server = createServer((req, res) => {
    const url = (req.url ?? "/").split("?")[0];
    if (url === "/harness.js") return void res.writeHead(200, { "content-type": "text/javascript" }).end(harness);
    if (url === "/surface-frame.html") return void res.writeHead(200, { "content-type": "text/html" }).end(frameHtml);
    // Another page of the host's own origin: the host's frame-src lets a frame go there.
    if (url === "/elsewhere.html") return void res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>elsewhere</title><p>not the app</p>");
    if (url !== "/") return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "text/html", "content-security-policy": HOST_CSP });
    res.end('<!doctype html><html><head><meta charset="utf-8"></head><body style="margin:0"><script type="module" src="/harness.js"></script></body></html>');
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 900, height: 700 } });
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${origin}/`);
  await page.waitForFunction(() => "__surfaces" in window);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
});

describe("a dead surface is noticed within its bound (Chromium, host CSP)", () => {
  it("a live app stays alive: a control app is mounted for the cases that do not take its renderer down", async () => {
    await mountProbe(page, "control");
    expect(await call("invoke", "control", { call_id: "c0", method: "probe.echo", arguments: {} })).toEqual({ outcome: "completed", result: { echoed: true } });
  });

  it("(a) the app's document navigates itself to an address the host refuses: the error page's load → navigated, the held call ends", async () => {
    await mountProbe(page, "nav-refused");
    const { death, afterMs } = await killWith("nav-refused", "probe.navigate", { to: REFUSED }, 10_000);
    expect(death).toMatchObject({ reason: "navigated", message: "Probe left its page" });
    // Noticed from the frame's load, not the heartbeat: well before a ping could have timed out.
    expect(afterMs).toBeLessThan(HEARTBEAT.timeoutMs);
    expect(await call("invokeOutcome", "nav-refused")).toBe("request_cancelled: Probe left its page");
    expect(await call("requestNow", "nav-refused")).toBe("request_cancelled: Probe left its page");
    expect(page.frames().some((f) => f.url().startsWith("chrome-error://"))).toBe(true);
    await call("close", "nav-refused", 100);
  });

  it("(a) … and to another page the host's frame-src allows: navigated", async () => {
    await mountProbe(page, "nav-allowed");
    const { death } = await killWith("nav-allowed", "probe.navigate", { to: `${origin}/elsewhere.html` }, 10_000);
    expect(death).toMatchObject({ reason: "navigated", message: "Probe left its page" });
    expect(await call("invokeOutcome", "nav-allowed")).toBe("request_cancelled: Probe left its page");
    await call("close", "nav-allowed", 100);
  });

  it("(b) a meta refresh to another address: navigated", async () => {
    await mountProbe(page, "refresh");
    const { death, afterMs } = await killWith("refresh", "probe.refresh", { to: REFUSED }, 10_000);
    expect(death).toMatchObject({ reason: "navigated", message: "Probe left its page" });
    expect(afterMs).toBeLessThan(HEARTBEAT.timeoutMs);
    expect(await call("invokeOutcome", "refresh")).toBe("request_cancelled: Probe left its page");
    await call("close", "refresh", 100);
  });

  it("a host page that stops running for longer than the timeout, while a ping is out, does not kill the live app", async () => {
    // The app is busy for 600 ms, so the ping sent meanwhile waits; 300 ms in, the host page itself stops
    // running for twice the timeout (as a throttled or frozen tab does; headless Chromium ignores CDP's
    // Page.setWebLifecycleState "frozen", so a long task stands in). The app's answer is then queued behind the
    // heartbeat's late tick: only the restart keeps that tick from counting the host's own gap as the app's silence.
    await page.evaluate(async ({ busyMs, stoppedMs }) => {
      const surfaces = (window as unknown as { __surfaces: Record<string, (...x: unknown[]) => unknown> }).__surfaces;
      surfaces["startInvoke"]!("control", { call_id: "c-busy", method: "probe.busy", arguments: { ms: busyMs } });
      await new Promise((r) => setTimeout(r, busyMs / 2));
      const end = performance.now() + stoppedMs;
      while (performance.now() < end) {
        // the host page does not run
      }
    }, { busyMs: 600, stoppedMs: 2 * HEARTBEAT.timeoutMs });
    // A few heartbeats later it still lives and answers.
    await page.waitForTimeout(4 * HEARTBEAT.intervalMs);
    expect(await deathOf("control")).toBeNull();
    expect(await call("invokeOutcome", "control")).toBe("answered");
    expect(await call("invoke", "control", { call_id: "c1", method: "probe.echo", arguments: {} })).toEqual({ outcome: "completed", result: { echoed: true } });
    // The control app lived through every case so far, many timeouts long, answering its heartbeat.
    expect(await deathOf("control")).toBeNull();
    // Every app frame of the page shares one renderer process: the hang below would take the control down too.
    await call("close", "control", 100);
  });

  it("an app over its message rate still answers its heartbeat: its answers take no token, it is not reported", async () => {
    await callIn(page, "mount", "flood", FLOODING_APP, { ...snapshotOf("flood"), app_scope: "flood" }, "pip", undefined, { heartbeat: HEARTBEAT, name: "Flood" });
    expect(await call("startup", "flood")).toBe("ready");
    await expect.poll(async () => (await call<{ refused: string[] }>("state", "flood")).refused.includes("rate_limited"), { timeout: 5_000 }).toBe(true);
    // Twice the timeout of flooding, and a little more.
    await page.waitForTimeout(2 * HEARTBEAT.timeoutMs + 500);
    expect(await deathOf("flood")).toBeNull();
    await call("close", "flood", 100);
  });

  it("an app whose SDK predates the heartbeat (ready without heartbeat: true) is never pinged, so never reported unresponsive", async () => {
    const OLD_SDK_APP = FLOODING_APP.replace("params: { heartbeat: true }", "params: {}").replace("if (Date.now() - start < 3000)", "if (false)").replace(/port\.onmessage = \(m\) => \{[^]*?\n {2}\};/, "port.onmessage = () => {};");
    expect(OLD_SDK_APP).toContain("params: {} }");
    expect(OLD_SDK_APP).not.toContain("surface.ping");
    await callIn(page, "mount", "old-sdk", OLD_SDK_APP, { ...snapshotOf("old-sdk"), app_scope: "old-sdk" }, "pip", undefined, { heartbeat: HEARTBEAT, name: "Old" });
    expect(await call("startup", "old-sdk")).toBe("ready");
    await page.waitForTimeout(2 * HEARTBEAT.timeoutMs + 500);
    expect(await deathOf("old-sdk")).toBeNull();
    await call("close", "old-sdk", 100);
  });

  it("(d) the app hangs after ready (an endless loop in a tool call): unresponsive within the bound, the held call ends", async () => {
    await mountProbe(page, "hang");
    const { death, afterMs } = await killWith("hang", "probe.hang", {}, 15_000);
    expect(death).toMatchObject({ reason: "unresponsive", message: "Probe stopped responding" });
    // Not before a ping could have waited its whole timeout (the one in flight may have been sent up to an interval before).
    expect(afterMs).toBeGreaterThanOrEqual(HEARTBEAT.timeoutMs - HEARTBEAT.intervalMs);
    expect(await call("invokeOutcome", "hang")).toBe("request_cancelled: Probe stopped responding");
    expect(await call("requestNow", "hang")).toBe("request_cancelled: Probe stopped responding");
    // The dead frame stays until its owner closes it; closing it releases the hung renderer, and the next app runs.
    expect(await call("frameCount")).toBe(1);
    await call("close", "hang", 100);
    expect(await call("frameCount")).toBe(0);
    await mountProbe(page, "after-hang");
    expect(await call("invoke", "after-hang", { call_id: "c2", method: "probe.echo", arguments: {} })).toEqual({ outcome: "completed", result: { echoed: true } });
    await call("close", "after-hang", 100);
  });

  it("(c) the app's renderer crashes: unresponsive within the bound, the held call ends, the host page lives on", async () => {
    // Its own context: the crash takes the app frames' renderer down, and Playwright then counts the whole
    // Page as crashed (it does so for a crash of any frame's target), so the host page is read over raw CDP.
    const context: BrowserContext = await browser.newContext({ viewport: { width: 900, height: 700 } });
    try {
      const crashPage = await context.newPage();
      await crashPage.goto(`${origin}/`);
      await crashPage.waitForFunction(() => "__surfaces" in window);
      await mountProbe(crashPage, "crash");
      const hostCdp: CDPSession = await context.newCDPSession(crashPage);
      const evaluate = async <T>(expression: string): Promise<T> =>
        ((await hostCdp.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true })).result.value as T);
      const sent = await callIn<number>(crashPage, "startInvoke", "crash", { call_id: "c-crash", method: "probe.wait", arguments: {} });
      const appFrame = crashPage.frames().find((f) => f !== crashPage.mainFrame());
      expect(appFrame, "the app's frame").toBeDefined();
      // The sandboxed frame is out of process: it has a CDP target of its own (an in-process frame has none).
      const frameCdp = await context.newCDPSession(appFrame!);
      void frameCdp.send("Page.crash").catch(() => undefined); // never answered: its target is gone
      await expect
        .poll(() => evaluate<Death | null>(`window.__surfaces.death("crash")`), { timeout: 15_000, interval: 50, message: "the crashed app is reported dead" })
        .toMatchObject({ reason: "unresponsive", message: "Probe stopped responding" });
      const death = (await evaluate<Death>(`window.__surfaces.death("crash")`))!;
      expect(death.at - sent).toBeGreaterThanOrEqual(HEARTBEAT.timeoutMs - HEARTBEAT.intervalMs);
      expect(await evaluate(`window.__surfaces.invokeOutcome("crash")`)).toBe("request_cancelled: Probe stopped responding");
      // The host page itself still runs.
      expect(await evaluate(`1 + 1`)).toBe(2);
      await evaluate(`window.__surfaces.close("crash", 100)`);
      expect(await evaluate(`window.__surfaces.frameCount()`)).toBe(0);
    } finally {
      await context.close();
    }
  });

  it("ran without page errors", () => {
    expect(errors).toEqual([]);
  });
});
