/**
 * Issue 27 on the desktop host: the hostile app of the Chromium product test (`host-web/test/sandbox-product.app.ts`,
 * the same script) signed, installed through Apps and opened as the default app inside the real desktop window,
 * with the test's own UDP and TCP listeners counting every datagram and connection. WebKitGTK's sandbox and CSP
 * are not Chromium's, and the table of outcomes differs (it is printed for docs/security.md); what must hold is
 * the same: no nested realm runs, nothing reaches the listeners — including the frame navigating itself away,
 * the one channel Chromium leaves open, which the native side refuses here — and the app's frame cannot see
 * the native host channel.
 */
import { createSocket, type Socket as UdpSocket } from "node:dgram";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppServerHandle } from "@lineup/app-server";
import { generatePublisherKey } from "@lineup/runtime";
import { HOSTILE_APP, HOSTILE_MANIFEST, HOSTILE_PURPOSE, type HostileAppConfig } from "../../host-web/test/sandbox-product.app.js";
import { appPage, signedBundle } from "../../host-web/test/signed-app.js";
import { buildOnce } from "../../host-web/test/support.js";
import { DESKTOP_SCREENSHOTS, inFrames, installAsDefaultInWindow, launchDesktop, LIFECYCLE, realClick as realClickOn, requireDesktopTools, startKeyring, startNotificationService, startServerAndConfig, startSessionBus, waitInWindow, xdotool as xdotoolOn, type DesktopWindow } from "./harness.js";

const APP = HOSTILE_APP;
const nonce = Math.random().toString(36).slice(2, 10);
const USERNAME = `exfil-${nonce}`;

let root: string;
let server: AppServerHandle;
let bus: { readonly address: string; stop(): void };
let notifications: Awaited<ReturnType<typeof startNotificationService>>;
let window: DesktopWindow;
let udp: UdpSocket;
let tcp: Server;
const datagrams: Buffer[] = [];
const connections: Socket[] = [];
const seen = () => ({ datagrams: datagrams.length, connections: connections.length });

const frames = <T>(command: Record<string, unknown>) => inFrames<T>(window, command);

const FRAME = `.instance-surface[data-app="${APP.app_scope}"] iframe`;
const realClick = (selector: string, text?: string) => realClickOn(window, { selector, frame: FRAME, ...(text === undefined ? {} : { text }) });
const xdotool = (...args: string[]) => xdotoolOn(window, ...args);

/** The app's log lines, oldest first. */
const logLines = async (): Promise<string[]> => (await frames<{ text: string }[]>({ op: "query", selector: "#log li", attributes: [] })).flatMap((f) => f.result.map((line) => line.text));
const clipboard = () => window.command<string | null>("clipboard");
/** Puts `text` on the clipboard the way the page's gateway does: the host channel's clipboard.write_text. */
const putOnClipboard = (text: string) =>
  window.evaluate(`return await new Promise((resolve) => {
    addEventListener("message", (e) => e.source === window && e.data?.["lineup-host"] === "answer" && JSON.parse(e.data.text).id === 7001 && resolve(JSON.parse(e.data.text)));
    postMessage({ "lineup-host": "request", text: JSON.stringify({ channel: "lineup.host", v: 1, id: 7001, method: "clipboard.write_text", params: { text: ${JSON.stringify(text)} } }) }, "*");
  })`);

/** The hostile app's table of outcomes, read in its frame: attempt → outcome, in the order it tried them. */
async function outcomes(): Promise<Record<string, string>> {
  const rows = (await frames<{ attributes: Record<string, string> }[]>({ op: "query", selector: "#report tr", attributes: ["data-name"] })).flatMap((f) => f.result);
  const cells = (await frames<{ attributes: Record<string, string> }[]>({ op: "query", selector: "#report td[data-outcome]", attributes: ["data-outcome"] })).flatMap((f) => f.result);
  return Object.fromEntries(rows.map((row, i) => [row.attributes["data-name"]!, cells[i]?.attributes["data-outcome"] ?? "?"]));
}

beforeAll(async () => {
  requireDesktopTools();
  root = mkdtempSync(join(tmpdir(), "lineup-desktop-sandbox-"));
  // A session of the test's own with a notification service, so that the host page may show notifications (the
  // gateway's notification.show) and an app's own Notification would have somewhere to go.
  bus = await startSessionBus(root);
  const home = join(root, "home");
  await startKeyring(bus.address, home);
  notifications = await startNotificationService(bus.address);
  udp = createSocket("udp4");
  udp.on("message", (m) => datagrams.push(m));
  await new Promise<void>((r) => udp.bind(0, "127.0.0.1", r));
  tcp = createServer((socket) => {
    connections.push(socket);
    socket.on("error", () => undefined);
  });
  await new Promise<void>((r) => tcp.listen(0, "127.0.0.1", r));
  const config: HostileAppConfig = {
    udpPort: udp.address().port,
    tcpPort: (tcp.address() as AddressInfo).port,
    username: USERNAME,
    scriptText: `script-${nonce}`,
    eventText: `event-${nonce}`,
    gatewayText: `gateway-${nonce}`,
    purpose: HOSTILE_PURPOSE,
  };
  const script = `import { run } from "../../host-web/test/sandbox-product.app.js";\nrun(${JSON.stringify(config)});\n`;
  const [dist, publisher, html] = await Promise.all([buildOnce(), generatePublisherKey(), appPage(script, APP.name)]);
  const bundlePath = join(root, APP.file);
  writeFileSync(bundlePath, await signedBundle(HOSTILE_MANIFEST, html, publisher));
  const started = await startServerAndConfig(root, { trusted_publishers: [{ ...publisher.trustedKey, label: "Sandbox test publisher" }], builtin_apps: [{ name: APP.name, file: APP.file }] });
  server = started.server;
  const configFile = started.configFile;
  // WebKit's mock microphone and camera: a device the app's frame would get if WebKit let it ask.
  window = await launchDesktop({ dist, config: configFile, dataDir: join(root, "profile"), bundles: [{ file: APP.file, path: bundlePath }], args: ["--mock-capture"], env: { DBUS_SESSION_BUS_ADDRESS: bus.address, HOME: home } });
}, 180_000);

afterAll(async () => {
  window?.kill();
  await server?.close();
  notifications?.stop();
  bus?.stop();
  for (const socket of connections) socket.destroy();
  tcp?.close();
  udp?.close();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe("issue 27 on the desktop host: a hostile app in the real window (WebKitGTK)", () => {
  it("installs the hostile app through Apps and opens it in front", async () => {
    await waitInWindow(window, LIFECYCLE, "online");
    // Under Xvfb the process runs in the C locale, and WebKitGTK's language is then no language tag: the
    // host hands apps English instead (an empty or malformed locale made every app's handover fail here).
    console.log(`navigator.language in WebKitGTK under the C locale: ${JSON.stringify(await window.evaluate("return navigator.language"))}`);
    await installAsDefaultInWindow(window, APP.name, APP.app_scope, (review) => expect(review).toContain("clipboard.write"));
    await expect.poll(async () => (await frames<unknown[]>({ op: "query", selector: "#report[data-done]", attributes: [] })).some((f) => f.result.length > 0), { timeout: 30_000 }).toBe(true);
  }, 120_000);

  it("no way out works: no nested realm runs, and nothing reaches the test's UDP or TCP listener", async () => {
    const table = await outcomes();
    console.log(`WebKitGTK outcomes: ${JSON.stringify(table, null, 1)}`);
    expect(Object.keys(table).length).toBeGreaterThan(20);
    expect(table["nested realms that ran"]).toBe("none");
    // The native host channel's handler is in the host's isolated world: the app's frame has no window.webkit.
    expect(table["window.webkit (native message handlers)"]).toBe("undefined");
    for (const [name, outcome] of Object.entries(table)) expect(outcome, name).not.toMatch(/^(?:WORKER RAN|RESOLVED|gathering|GRANTED|SHOWN)/);
    // The machine's devices, asked for directly by the app (a mock microphone and camera are there): refused.
    expect(table["getUserMedia (microphone)"]).toMatch(/^(?:rejected|absent)/);
    expect(table["getUserMedia (camera)"]).toMatch(/^(?:rejected|absent)/);
    expect(table["geolocation"]).toMatch(/^(?:error 1$|absent)/);
    expect(table["new Notification"]).not.toBe("SHOWN");
    // The host page and storage: the frame's origin is opaque.
    expect(table["parent.document (host DOM)"]).toBe("threw SecurityError");
    expect(table["top.location.href"]).toBe("threw SecurityError");
    expect(table["localStorage"]).toBe("threw SecurityError");
    expect(table["document.cookie"]).toBe("empty");
    // The host page may show notifications here (a service is on the bus); none of the app's own reached it.
    expect(await window.evaluate("return Notification.permission")).toBe("granted");
    expect(notifications.shown).toEqual([]);
    // Late arrivals (a retransmit, a preconnect) have time to come.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(seen()).toEqual({ datagrams: 0, connections: 0 });
    expect(datagrams.map((d) => d.toString("latin1")).join("")).not.toContain(USERNAME);
    await window.command("snapshot", { path: join(DESKTOP_SCREENSHOTS, "desktop-2-hostile-app.png") });
  }, 30_000);

  it("the clipboard: the app's own copy on a real click changes nothing; the person's copy works; the gateway's clipboard.write writes natively", async () => {
    const before = seen();
    await putOnClipboard(`known-${nonce}`);
    expect(await clipboard()).toBe(`known-${nonce}`);
    // A real click (user activation) on the app's button whose handler selects its text and copies and cuts it.
    await realClick("button", "Copy by script");
    await expect.poll(logLines, { timeout: 10_000 }).toContain("execCommand copy: false, cut: false");
    expect(await clipboard()).toBe(`known-${nonce}`);
    // The person's own copy of what they typed and selected, with the keyboard.
    await realClick("textarea");
    xdotool("type", "--delay", "20", `mine-${nonce}`);
    xdotool("key", "ctrl+a", "ctrl+c");
    await expect.poll(clipboard, { timeout: 10_000 }).toBe(`mine-${nonce}`);
    // The app asks the Capability Gateway (declared, in front): the native clipboard gets exactly its text.
    await realClick("button", "Ask to copy");
    await expect.poll(async () => (await logLines()).find((line) => line.startsWith("clipboard.write: ")) ?? "", { timeout: 10_000 }).not.toBe("");
    const line = (await logLines()).find((l) => l.startsWith("clipboard.write: "))!;
    expect(JSON.parse(line.slice("clipboard.write: ".length))).toEqual({ status: "completed", value: { written: true } });
    expect(await clipboard()).toBe(`gateway-${nonce}`);
    console.log(`WebKitGTK clipboard: the app's log ${JSON.stringify(await logLines())}`);
    expect(seen()).toEqual(before);
  }, 60_000);

  it("preconnect, and prototypes tampered with, still reach nothing", async () => {
    const before = seen();
    expect((await frames<boolean | null>({ op: "click", selector: "button", text: "Preconnect" })).some((f) => f.result === true)).toBe(true);
    expect((await frames<boolean | null>({ op: "click", selector: "button", text: "Tamper and retry" })).some((f) => f.result === true)).toBe(true);
    await expect.poll(async () => (await frames<unknown[]>({ op: "query", selector: "#report[data-tampered]", attributes: [] })).some((f) => f.result.length > 0), { timeout: 15_000 }).toBe(true);
    const tampered = Object.fromEntries(Object.entries(await outcomes()).filter(([name]) => name.startsWith("tampered:") || name.startsWith("link preconnect")));
    console.log(`WebKitGTK, tampered and preconnect: ${JSON.stringify(tampered, null, 1)}`);
    expect(tampered["tampered: nested realms that ran"]).toBe("none");
    await new Promise((r) => setTimeout(r, 1_500));
    expect(seen()).toEqual(before);
  }, 40_000);

  it("the frame navigating itself away reaches nothing; its surface is noticed dead and offered again", async () => {
    const before = seen();
    expect((await frames<boolean | null>({ op: "click", selector: "button", text: "Leave" })).some((f) => f.result === true)).toBe(true);
    // Measured: WebKit refuses the frame's navigation under the host page's frame-src before any request (the
    // native navigation policy is not even asked: no navigation-refused event), and no connection is opened,
    // where Chromium opens one. The frame's document is gone all the same, so the host treats the surface as
    // dead, as in the web host: the instance is closed and a notice names the app with Reload.
    const notice = `return [...document.querySelectorAll(".toasts .toast")].filter((t) => t.textContent.includes(${JSON.stringify(APP.name)}) && [...t.querySelectorAll("button")].some((b) => b.textContent.trim() === "Reload")).length`;
    await expect.poll(() => window.evaluate<number>(notice), { timeout: 10_000 }).toBe(1);
    await new Promise((r) => setTimeout(r, 1_500));
    console.log(`WebKitGTK, the frame navigating itself: ${JSON.stringify({ since: { datagrams: seen().datagrams - before.datagrams, connections: seen().connections - before.connections }, refusedNatively: window.events.filter((e) => e.event === "navigation-refused").length })}`);
    expect(seen()).toEqual(before);
    expect(await window.evaluate(`return document.querySelector('.instance-surface[data-app="${APP.app_scope}"]') === null`)).toBe(true);
    await window.command("snapshot", { path: join(DESKTOP_SCREENSHOTS, "desktop-3-hostile-app-left.png") });
  }, 30_000);
});
