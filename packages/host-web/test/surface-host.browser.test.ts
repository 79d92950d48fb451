/**
 * The surface host in real Chromium, on a page under the host's strict CSP (script-src 'self', no
 * inline script): the built whiteboard runs sandboxed, gets its port and nonce once, takes tool calls,
 * keeps session data, follows display modes and the theme, and closes gracefully; a hostile app is
 * refused for bad nonces, oversized and flooding messages, and cannot reach the network.
 */
import { mkdtemp, readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildApp } from "@lineup/surface-sdk/node";
import { build } from "esbuild";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../../test/support/chromium.js";
import { testSnapshot, TOOL_APP_FEATURES } from "../../../test/support/bridge-snapshot.js";
import { SCREENSHOTS } from "./support.js";

const HOST_CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; frame-src 'self'; object-src 'none'; base-uri 'none'";

const snapshot = testSnapshot({ app_scope: "whiteboard", instance_id: "wb-host-1", entrypoint: "canvas", sdk: { api_version: "1", features: TOOL_APP_FEATURES } });

/** A hostile app: talks to the port it was given, but with a wrong nonce, too much data and too often; tries the network. */
const HOSTILE_APP = `<!doctype html><html><body><script>
window.addEventListener("message", (e) => {
  const port = e.ports[0]; const nonce = e.data.nonce;
  const f = (o) => Object.assign({ bridge: "lineup.surface", v: 1, nonce }, o);
  port.onmessage = () => {};
  port.postMessage(f({ kind: "request", id: 1, method: "lifecycle.ready", params: {} }));
  port.postMessage(Object.assign(f({ kind: "request", id: 2, method: "session_data.get", params: {} }), { nonce: "x".repeat(24) }));
  port.postMessage(f({ kind: "request", id: 3, method: "session_data.replace", params: { expected_revision: 0, data: { big: "y".repeat(300000) } } }));
  port.postMessage(f({ kind: "request", id: 4, method: "no.such_method", params: {} }));
  for (let i = 0; i < 400; i++) port.postMessage(f({ kind: "request", id: 100 + i, method: "session_data.get", params: {} }));
  // After the flood, once the bucket has refilled: report whether the network was reachable.
  setTimeout(() => fetch("/lineup-config.json").then(() => port.postMessage(f({ kind: "request", id: 9000, method: "surface.resize", params: { height: 999 } })),
    () => port.postMessage(f({ kind: "request", id: 9001, method: "surface.resize", params: { height: 321 } }))), 2500);
}, { once: true });
</script></body></html>`;

/** An app that starts slowly but keeps going: a request every 150 ms for about a second, then ready. */
const SLOW_APP = `<!doctype html><html><body><script>
window.addEventListener("message", (e) => {
  const port = e.ports[0]; const nonce = e.data.nonce;
  const f = (o) => Object.assign({ bridge: "lineup.surface", v: 1, nonce }, o);
  port.onmessage = () => {};
  let id = 0;
  const step = () => {
    id++;
    if (id <= 7) { port.postMessage(f({ kind: "request", id, method: "session_data.get", params: {} })); setTimeout(step, 150); }
    else port.postMessage(f({ kind: "request", id, method: "lifecycle.ready", params: {} }));
  };
  step();
}, { once: true });
</script></body></html>`;

/** An app that loads, takes its port, asks one thing, and never says it is ready. */
const STALLED_APP = `<!doctype html><html><body><script>
window.addEventListener("message", (e) => {
  const port = e.ports[0]; const nonce = e.data.nonce;
  port.onmessage = () => {};
  port.postMessage({ bridge: "lineup.surface", v: 1, nonce, kind: "request", id: 1, method: "session_data.get", params: {} });
}, { once: true });
</script></body></html>`;

let browser: Browser;
let page: Page;
let server: Server;
const errors: string[] = [];
const cspViolations: string[] = [];

const call = <T>(fn: string, ...args: unknown[]): Promise<T> =>
  page.evaluate(([name, a]) => (window as unknown as { __surfaces: Record<string, (...x: unknown[]) => unknown> }).__surfaces[name as string]!(...(a as unknown[])), [fn, args] as const) as Promise<T>;

beforeAll(async () => {
  const outDir = await mkdtemp(join(tmpdir(), "wb-host-"));
  await buildApp({ appDir: resolve(import.meta.dirname, "../../../apps/whiteboard"), outDir });
  const whiteboard = await readFile(join(outDir, "index.html"), "utf8");
  const harness = (
    await build({ entryPoints: [resolve(import.meta.dirname, "browser/surface-harness.entry.ts")], bundle: true, write: false, format: "esm", platform: "browser", target: "es2022", conditions: ["source"] })
  ).outputFiles[0]!.text;
  const frameHtml = await readFile(resolve(import.meta.dirname, "../public/surface-frame.html"), "utf8");
  server = createServer((req, res) => {
    const url = req.url ?? "/";
    if (url === "/harness.js") return void res.writeHead(200, { "content-type": "text/javascript" }).end(harness);
    if (url === "/surface-frame.html") return void res.writeHead(200, { "content-type": "text/html" }).end(frameHtml);
    if (url === "/lineup-config.json") return void res.writeHead(200, { "content-type": "application/json" }).end('{"device_token":"secret"}');
    if (url === "/whiteboard.html") return void res.writeHead(200, { "content-type": "text/html" }).end(whiteboard);
    res.writeHead(200, { "content-type": "text/html", "content-security-policy": HOST_CSP });
    res.end('<!doctype html><html><head><meta charset="utf-8"></head><body style="margin:0"><script type="module" src="/harness.js"></script></body></html>');
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 900, height: 700 } });
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) cspViolations.push(m.text());
  });
  await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  await page.waitForFunction(() => "__surfaces" in window);
  const html = await (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/whiteboard.html`)).text();
  await call("mount", "wb", html, snapshot, "foreground");
}, 85_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
});

describe("surface host (Chromium, host CSP)", () => {
  it("runs the whiteboard sandboxed with an opaque origin, and it becomes ready", async () => {
    expect(await call("ready", "wb")).toBe(true);
    const state = await call<{ sandbox: string; opaque: boolean }>("state", "wb");
    expect(state.sandbox).toBe("allow-scripts");
    expect(state.opaque).toBe(true);
  });

  it("passes tool calls to the app and keeps its session data", async () => {
    expect(await call("invoke", "wb", { call_id: "c1", method: "board.create", arguments: { title: "Host plan" } })).toMatchObject({ outcome: "completed" });
    const drawn = await call("invoke", "wb", {
      call_id: "c2",
      method: "board.add_shapes",
      arguments: { shapes: [{ type: "rect", x: 40, y: 60, width: 160, height: 70, label: "Design", color: "orange" }, { type: "text", x: 40, y: 170, text: "From the host", color: "blue" }] },
    });
    expect(drawn).toMatchObject({ outcome: "completed", result: { added: 2 } });
    const state = await call<{ session: { revision: number; data: { title: string; items: unknown[] } } }>("state", "wb");
    expect(state.session.data.title).toBe("Host plan");
    expect(state.session.data.items).toHaveLength(2);
    await page.screenshot({ path: join(SCREENSHOTS, "10-surface-foreground.png") });
  });

  it("follows display modes and theme changes", async () => {
    await call("setDisplayMode", "wb", "pip");
    expect(await page.locator("#wb").getAttribute("data-display-mode")).toBe("pip");
    await call("setDark", "wb");
    await page.waitForTimeout(200);
    await page.screenshot({ path: join(SCREENSHOTS, "11-surface-dark-pip.png") });
    await call("setDisplayMode", "wb", "inline_card");
    expect(await page.locator("#wb iframe").getAttribute("inert")).not.toBeNull();
    await page.waitForTimeout(200);
    await page.screenshot({ path: join(SCREENSHOTS, "12-surface-inline-card.png") });
    await call("setDisplayMode", "wb", "foreground");
    expect(await page.locator("#wb iframe").getAttribute("inert")).toBeNull();
  });

  it("refuses a hostile app's bad nonce, oversized and flooding messages, and its network access", async () => {
    await call("mount", "bad", HOSTILE_APP, { ...snapshot, app_scope: "hostile", instance_id: "hostile-1" }, "foreground");
    await expect.poll(async () => (await call<{ resizes: number[] }>("state", "bad")).resizes, { timeout: 10_000 }).toEqual([321]);
    const state = await call<{ refused: string[]; requests: string[] }>("state", "bad");
    expect(state.refused).toContain("bridge_bad_nonce");
    expect(state.refused).toContain("json_too_large");
    expect(state.refused).toContain("rate_limited");
    // 400 sent at once: about the burst (200) gets through, plus what refills meanwhile.
    expect(state.requests.filter((m) => m === "session_data.get").length).toBeLessThan(260);
    expect(state.requests).not.toContain("no.such_method");
  });

  it("waits for an app that starts slowly but keeps going, fails one that stalls (saying where), and ends its waiting calls when it closes", async () => {
    // Each start-up step gets 500 ms; the slow app needs about a second in all, the stalled one stops after one request.
    await call("mount", "slow", SLOW_APP, { ...snapshot, app_scope: "slow", instance_id: "slow-1" }, "pip", 500);
    await call("mount", "stalled", STALLED_APP, { ...snapshot, app_scope: "stalled", instance_id: "stalled-1" }, "pip", 500);
    expect(await call("startup", "slow")).toBe("ready");
    expect(await call("startup", "stalled")).toBe("stalled did not become ready: it did not say it was ready after session_data.get within 500 ms");
    // A call the stalled app never answers ends at its own deadline, with the protocol's timeout code.
    await call("startInvoke", "stalled", { call_id: "c-timed", method: "board.create", arguments: {} }, 300);
    await expect.poll(() => call("invokeOutcome", "stalled"), { timeout: 10_000 }).toBe("request_timeout: tool.invoke: no response within 300 ms");
    // A call waiting for the stalled app ends when its surface closes, not 30 s later and not never.
    await call("startInvoke", "stalled", { call_id: "c-stalled", method: "board.create", arguments: {} });
    await call("close", "slow", 100);
    await call("close", "stalled", 100);
    expect(await call("invokeOutcome", "stalled")).toBe("request_cancelled: the surface was closed");
  });

  it("closes gracefully: the app hears closing and flushes before the deadline", async () => {
    expect(await call("close", "wb", 3_000)).toBe("flushed");
    expect(await page.locator("#wb iframe").count()).toBe(0);
  });

  it("ran without page errors; the only CSP refusal is the hostile app's fetch", () => {
    expect(errors).toEqual([]);
    expect(cspViolations.filter((v) => !/lineup-config\.json/.test(v))).toEqual([]);
    expect(cspViolations.some((v) => /lineup-config\.json/.test(v))).toBe(true);
  });
});
