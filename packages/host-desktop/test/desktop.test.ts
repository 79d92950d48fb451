/**
 * The desktop host in a real GTK 4 window with WebKitGTK 6.0 under Xvfb (issue 23): it serves the unchanged
 * web host over lineup://, reaches Online against the real AppServer, answers the host channel only to the
 * host page, confines the view natively (issue 27: loads outside LineUp's scheme and the AppServer refused
 * by a content filter before any connection, navigations away refused, WebRTC and preconnect off), stops the
 * Runtime before it closes, keeps its window size and runs once per profile.
 */
import { createSocket, type Socket as UdpSocket } from "node:dgram";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppServerHandle } from "@lineup/app-server";
import { buildOnce } from "../../host-web/test/support.js";
import { channelFromPage, DESKTOP_SCREENSHOTS, launchDesktop, LIFECYCLE, requireDesktopTools, spawnDesktop, startServerAndConfig, waitInWindow, type DesktopWindow } from "./harness.js";

let server: AppServerHandle;
let root: string;
let dist: string;
let config: string;
let profile: string;
let window: DesktopWindow;
let tcp: Server;
let udp: UdpSocket;
const connections: string[] = [];
const datagrams: Buffer[] = [];

/** In the page: whether it holds a meta policy, and what its policy does to an inline script. */
const POLICY_PROBE = `return await new Promise((resolve) => {
  const refused = new Set();
  addEventListener("securitypolicyviolation", (e) => refused.add(e.effectiveDirective));
  const inline = document.createElement("script");
  inline.textContent = "window.__inlineRan = true";
  document.head.append(inline);
  setTimeout(() => resolve(JSON.stringify({
    meta: document.querySelector('meta[http-equiv="Content-Security-Policy"]') !== null,
    inline: window.__inlineRan === true ? "ran" : refused.has("script-src-elem") || refused.has("script-src") ? "refused" : "not run",
  })), 500);
});`;

beforeAll(async () => {
  requireDesktopTools();
  root = mkdtempSync(join(tmpdir(), "lineup-desktop-test-"));
  ({ server, configFile: config } = await startServerAndConfig(root));
  dist = await buildOnce();
  profile = join(root, "profile");
  tcp = createServer((socket) => {
    connections.push(`${socket.remoteAddress}:${socket.remotePort}`);
    socket.on("error", () => undefined);
    socket.destroy();
  });
  await new Promise<void>((r) => tcp.listen(0, "127.0.0.1", r));
  udp = createSocket("udp4");
  udp.on("message", (m) => datagrams.push(m));
  await new Promise<void>((r) => udp.bind(0, "127.0.0.1", r));
  window = await launchDesktop({ dist, config, dataDir: profile });
}, 180_000);

afterAll(async () => {
  window?.kill();
  await server?.close();
  tcp?.close();
  udp?.close();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe("the desktop host window", () => {
  it("serves the web host over lineup:// as a secure origin and reaches Online against the AppServer", async () => {
    await waitInWindow(window, LIFECYCLE, "online");
    expect(await window.evaluate("return [location.href, isSecureContext, typeof crypto.subtle, typeof indexedDB]")).toEqual(["lineup://app/index.html", true, "object", "object"]);
    // The page's policy, sent as its header by the lineup:// scheme (the site's, as in the web host; the page holds no
    // meta policy), is enforced: an inline script is refused. (Where the page may connect is confined natively as well:
    // "confines the view natively" below.)
    expect(await window.evaluate<string>(POLICY_PROBE)).toEqual(JSON.stringify({ meta: false, inline: "refused" }));
    const png = join(DESKTOP_SCREENSHOTS, "desktop-1-online.png");
    expect(await window.command("snapshot", { path: png })).toBe(png);
    expect(statSync(png).size).toBeGreaterThan(10_000);
  }, 60_000);

  it("answers the host channel to the host page: host.info, the window's title, typed refusals", async () => {
    const info = JSON.parse(await window.evaluate<string>(channelFromPage(JSON.stringify({ channel: "lineup.host", v: 1, id: 41, method: "host.info", params: {} }), 41))) as { id: number; result: { host: string; toolkit: string; data_dir: string } };
    expect(info.id).toBe(41);
    expect(info.result.host).toBe("desktop");
    expect(info.result.toolkit).toMatch(/^GTK 4\.\d+\.\d+, WebKitGTK 2\.\d+\.\d+$/);
    expect(info.result.data_dir).toBe(profile);
    // The bootstrap mirrors the page's title into the native window's.
    await window.evaluate(`document.title = "LineUp — desktop test"; return true`);
    await expect.poll(async () => (await window.command<{ title: string }>("window")).title, { timeout: 5_000 }).toBe("LineUp — desktop test");
    const refused = async (text: string, id: number) => (JSON.parse(await window.evaluate<string>(channelFromPage(text, id))) as { error: { code: string } }).error.code;
    expect(await refused("{", 0)).toBe("json_malformed");
    expect(await refused(JSON.stringify({ channel: "lineup.host", v: 1, id: 42, method: "shell.run", params: {} }), 42)).toBe("method_not_found");
    expect(await refused(JSON.stringify({ channel: "lineup.host", v: 1, id: 43, method: "window.set_title", params: { title: 7 } }), 43)).toBe("invalid_params");
    // The native handler lives in the host's isolated world alone: the page's own world cannot post to it.
    expect(await window.evaluate("return typeof window.webkit")).toBe("undefined");
  }, 30_000);

  it("confines the view natively: loads outside lineup: and the AppServer never connect, navigations away are refused", async () => {
    const target = `127.0.0.1:${(tcp.address() as AddressInfo).port}`;
    // From the driver's isolated world, which the page's CSP does not govern: only the content filter stands
    // between it and the listener. A load of LineUp's own scheme from the same world goes through.
    const attempts = await window.evaluate<Record<string, string>>(
      `const settle = (p) => p.then(() => "loaded", (e) => "refused " + e.name);
      const image = (url) => new Promise((resolve) => { const i = new Image(); i.onload = () => resolve("loaded"); i.onerror = () => resolve("refused"); i.src = url; });
      const socket = (url) => new Promise((resolve) => { const s = new WebSocket(url); s.onopen = () => resolve("open"); s.onerror = () => resolve("refused"); });
      return {
        own: await settle(fetch("lineup://app/index.html")),
        fetch: await settle(fetch("http://${target}/fetch?secret=1")),
        image: await image("http://${target}/image?secret=2"),
        socket: await socket("ws://${target}/socket?secret=3"),
      };`,
      "lineup-driver",
    );
    expect(attempts).toEqual({ own: "loaded", fetch: "refused TypeError", image: "refused", socket: "refused" });
    // From the page's own world: a preconnect (WebKit's LinkPreconnect is off), WebRTC (off), and the top frame
    // navigating itself away (no CSP governs that: the native side refuses it).
    const page = await window.evaluate<Record<string, string>>(
      `const link = document.createElement("link"); link.rel = "preconnect"; link.href = "http://${target}/"; document.head.append(link);
      const rtc = typeof RTCPeerConnection;
      location.href = "http://${target}/leave?secret=4";
      await new Promise((r) => setTimeout(r, 1500));
      return { rtc, href: location.href };`,
    );
    expect(page).toEqual({ rtc: "undefined", href: "lineup://app/index.html" });
    expect(window.events).toContainEqual({ event: "navigation-refused", uri: `http://${target}/leave?secret=4` });
    await new Promise((r) => setTimeout(r, 1_000));
    expect({ connections, datagrams: datagrams.length }).toEqual({ connections: [], datagrams: 0 });
    expect(await window.evaluate(LIFECYCLE)).toBe("online");
  }, 30_000);

  it("runs once per profile: a second start brings the running window forward and ends", async () => {
    const { window: second } = await spawnDesktop({ dist, config, dataDir: profile });
    expect(await second.exited).toBe(0);
    expect(second.output.join("\n")).toMatch(/LineUp is already running on this profile \(pid \d+\); its window was brought forward/);
    await expect.poll(() => window.events.some((e) => e.event === "presented"), { timeout: 5_000 }).toBe(true);
  }, 30_000);

  it("closing lets the page stop its Runtime first, keeps the window's size, and frees the profile", async () => {
    expect(await window.close()).toBe(0);
    expect(window.events).toContainEqual({ event: "shutdown", flushed: true });
    expect(JSON.parse(readFileSync(join(profile, "window.json"), "utf8"))).toEqual({ width: 1100, height: 760, maximized: false });
    expect(existsSync(join(profile, "desktop.lock"))).toBe(false);
  }, 30_000);

  it("starts again on the same profile, with the size it kept, and reaches Online", async () => {
    writeFileSync(join(profile, "window.json"), JSON.stringify({ width: 900, height: 640, maximized: false }));
    window = await launchDesktop({ dist, config, dataDir: profile });
    await waitInWindow(window, LIFECYCLE, "online");
    expect(await window.command("window")).toMatchObject({ width: 900, height: 640 });
    expect(await window.close()).toBe(0);
  }, 60_000);
});
