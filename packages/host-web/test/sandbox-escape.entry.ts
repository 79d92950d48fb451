// The page of sandbox-escape.browser.test.ts (RELIABILITY B1–B3): apps mounted through the real
// surface host under the host page's CSP, each with a handler that only records what reached it, and
// a watch on every iframe's sandbox attribute. The test drives it through window.__escape.
import { bridgeEvent, bridgeRequest, type BridgeHostSnapshot } from "@lineup/protocol";
import { mountSurface, type MountedSurface } from "../src/surface-host/index.js";

interface Mounted {
  surface: MountedSurface;
  /** Every app → host request that reached the Runtime side's handler: `method` and its params. */
  readonly calls: { method: string; params: unknown }[];
  readonly refused: string[];
  readonly resizes: number[];
  ready: boolean;
  /** Why the surface never became ready, once it is known. */
  readyError?: string;
}

const mounted = new Map<string, Mounted>();
/** Every sandbox value any iframe in this page ever had (at insertion and on each change). */
const sandboxSeen: string[] = [];
/** Window messages the top page received that were not the frame-document handshake. */
const topMessages: unknown[] = [];

const recordFrame = (node: Node): void => {
  if (node instanceof HTMLIFrameElement) sandboxSeen.push(node.getAttribute("sandbox") ?? "<none>");
  if (node instanceof Element) for (const frame of node.querySelectorAll("iframe")) sandboxSeen.push(frame.getAttribute("sandbox") ?? "<none>");
};
new MutationObserver((records) => {
  for (const record of records) {
    if (record.type === "attributes") recordFrame(record.target);
    else for (const node of record.addedNodes) recordFrame(node);
  }
}).observe(document.documentElement, { subtree: true, childList: true, attributes: true, attributeFilter: ["sandbox"] });

window.addEventListener("message", (event) => {
  const type = (event.data as { type?: unknown } | null)?.type;
  if (type !== "lineup.surface-frame.ready" && type !== "lineup.surface-frame.loaded") topMessages.push(event.data);
});

function mount(id: string, html: string, snapshot: BridgeHostSnapshot, height = 300): void {
  const container = document.createElement("div");
  container.id = id;
  Object.assign(container.style, { display: "inline-block", verticalAlign: "top", width: "420px", height: `${height}px`, margin: "8px", border: "1px solid #888" });
  document.body.append(container);
  const record: Mounted = { surface: undefined as unknown as MountedSurface, calls: [], refused: [], resizes: [], ready: false };
  record.surface = mountSurface(
    container,
    html,
    snapshot,
    {
      async request(method, params) {
        record.calls.push({ method, params });
        return method === "session_data.replace" ? { revision: 1 } : { data: null, revision: 0 };
      },
      onRefused: (refusal) => record.refused.push(refusal.code),
      onResize: (height) => record.resizes.push(height),
    },
    { title: `App ${snapshot.app_scope}`, readyTimeoutMs: 120_000 },
  );
  void record.surface.ready.then(
    () => (record.ready = true),
    (error: unknown) => (record.readyError = error instanceof Error ? error.message : String(error)),
  );
  mounted.set(id, record);
}

const get = (id: string): Mounted => {
  const record = mounted.get(id);
  if (record === undefined) throw new Error(`no surface ${id}`);
  return record;
};

/** Valid-looking app → host frames carrying `nonce`: ready, a resize to `height`, a session-data write. */
function forgedFrames(nonce: string, height: number): unknown[] {
  return [
    bridgeRequest(nonce, 7001, "lifecycle.ready", {}),
    bridgeRequest(nonce, 7002, "surface.resize", { height }),
    bridgeRequest(nonce, 7003, "session_data.replace", { expected_revision: 0, data: { forged: true } }),
    bridgeRequest(nonce, 7004, "session_data.get", {}),
  ];
}

(window as unknown as { __escape: unknown }).__escape = {
  mount,
  nonce: (id: string) => get(id).surface.nonce,
  state: (id: string) => {
    const r = get(id);
    return {
      calls: r.calls,
      refused: r.refused,
      resizes: r.resizes,
      ready: r.ready,
      readyError: r.readyError,
      sandbox: r.surface.frame.getAttribute("sandbox"),
      hostCanReadFrame: r.surface.frame.contentDocument !== null,
    };
  },
  sandboxSeen: () => sandboxSeen.slice(),
  topMessages: () => topMessages.slice(),
  iframeCount: () => document.querySelectorAll("iframe").length,
  /** The top window forges `id`'s frames with its real nonce: to itself (with and without a port) and into the app's frame. */
  forgeFromTop: (id: string, height: number) => {
    const r = get(id);
    const frames = [...forgedFrames(r.surface.nonce, height), bridgeEvent(r.surface.nonce, "host.snapshot", {} as never)];
    for (const frame of frames) {
      window.postMessage(frame, "*");
      const channel = new MessageChannel();
      window.postMessage(frame, "*", [channel.port2]);
      channel.port1.postMessage(frame);
    }
    // A late handshake, as if the frame's document asked to be loaded (and handed a port) again.
    window.postMessage({ type: "lineup.surface-frame.ready" }, "*");
    window.postMessage({ type: "lineup.surface-frame.loaded" }, "*");
    window.dispatchEvent(new MessageEvent("message", { data: { type: "lineup.surface-frame.loaded" }, source: r.surface.frame.contentWindow }));
  },
  /** Tells the app in `id`'s frame something through its window (what an app's page sees as `parent`). */
  tellApp: (id: string, data: unknown) => get(id).surface.frame.contentWindow?.postMessage(data, "*"),
  /** The sandbox tokens of every iframe in the page now. */
  sandboxTokens: () => [...document.querySelectorAll("iframe")].map((f) => [...f.sandbox].join(" ")),
};
