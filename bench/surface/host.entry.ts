/**
 * The host page of the bridge round-trip bench, served under the host's CSP. It mounts the bench app
 * through the real surface host (`mountSurface`: sandboxed frame, frame page, port + nonce handover,
 * `decodeBridgeMessage`, token bucket) with a trivial `session_data.get` handler, and beside it a second
 * sandboxed frame of the same kind that gets a plain `MessagePort` whose host end echoes a response
 * frame without any checks. The suite drives both frames through Playwright.
 */
import { LineUpError, type BridgeHostSnapshot } from "@lineup/protocol";
import { currentTheme, mountSurface } from "../../packages/host-web/src/surface-host/index.js";
import { mountRawFrame } from "./raw-frame.js";
import { FRAME_RAN, FRAME_RUN, SESSION, type TimedRound } from "./shared.js";

export interface HostBench {
  /** Mounts both frames; resolves once the app is ready and the raw frame holds its port. */
  mount(bridgeAppHtml: string, rawAppHtml: string, snapshot: BridgeHostSnapshot): Promise<{ refused: string[] }>;
  /** Frames the surface host refused so far (must stay empty: a refusal would skew the timing). */
  refused(): string[];
  /** Asks the bridge app's or the raw frame's bench for a round of `calls` round trips. */
  runFrame(which: "bridge" | "raw", calls: number): Promise<TimedRound>;
}

const FRAME_URL = "./surface-frame.html";
const refusals: string[] = [];

function container(id: string): HTMLElement {
  const element = document.createElement("div");
  element.id = id;
  element.style.width = "320px";
  element.style.height = "200px";
  document.body.append(element);
  return element;
}

function mountBridge(html: string, snapshot: BridgeHostSnapshot): Promise<void> {
  const surface = mountSurface(
    container("bridge"),
    html,
    { ...snapshot, theme: currentTheme() },
    {
      request(method) {
        if (method === "session_data.get") return Promise.resolve(SESSION);
        return Promise.reject(new LineUpError("method_not_found", `${method} is not served by the bench host`));
      },
      onRefused: (refusal) => refusals.push(refusal.code),
    },
    // The token bucket still runs on every message; only its limit is raised above the bench's call rate.
    { frameUrl: FRAME_URL, rate: { perSecond: 1_000_000, burst: 1_000_000 }, title: "Bridge bench app" },
  );
  return surface.ready;
}

/** The same frame page and handshake as the surface host, then a bare port with an echoing host end. */
async function mountRaw(html: string, nonce: string): Promise<void> {
  const port = await mountRawFrame(container("raw"), html, FRAME_URL, "Raw port bench app", nonce);
  port.onmessage = (event: MessageEvent) => {
    const request = event.data as { id: number; method: string };
    port.postMessage({ bridge: "lineup.surface", v: 1, nonce, kind: "response", id: request.id, method: request.method, result: SESSION });
  };
}

const bench: HostBench = {
  async mount(bridgeAppHtml, rawAppHtml, snapshot) {
    await Promise.all([mountBridge(bridgeAppHtml, snapshot), mountRaw(rawAppHtml, "rawbenchnonce0000000000")]);
    return { refused: [...refusals] };
  },
  refused: () => [...refusals],
  runFrame(which, calls) {
    const target = document.querySelector<HTMLIFrameElement>(`#${which} iframe`)?.contentWindow;
    if (target === null || target === undefined) return Promise.reject(new Error(`no ${which} frame`));
    return new Promise((resolve) => {
      const onMessage = (event: MessageEvent): void => {
        const data = event.data as { type?: unknown; result?: TimedRound } | null;
        if (event.source !== target || data?.type !== FRAME_RAN || data.result === undefined) return;
        window.removeEventListener("message", onMessage);
        resolve(data.result);
      };
      window.addEventListener("message", onMessage);
      target.postMessage({ type: FRAME_RUN, calls }, "*");
    });
  },
};
(window as unknown as { __hostBench: HostBench }).__hostBench = bench;
