/**
 * The surface host: one installed app in a sandboxed frame, and the only channel to it.
 *
 * - The frame is `<iframe sandbox="allow-scripts">` (never `allow-same-origin`: an opaque origin, no
 *   access to the host's storage, cookies or DOM) loading `surface-frame.html`, which writes the app's
 *   single-file HTML into itself. That document's CSP allows inline code only and no network at all.
 * - The handover happens once: a private `MessageChannel` port and a fresh per-instance nonce, sent with
 *   the `host.snapshot` first frame. After it the host never reads the frame's window messages again.
 * - Every message on the port is checked by `decodeBridgeMessage` (schema, nonce, direction, size) and
 *   by a token bucket; a refused request gets a bridge error, anything else refused is dropped.
 * - Nothing but the snapshot and answers to its own requests reach the app before `lifecycle.ready`.
 * - Display modes (foreground, picture-in-picture, inline result card), frame height from the app's
 *   `surface.resize`, theme and locale pushes, and a graceful `closing` with a flush deadline.
 * - A dead surface is noticed (`dead`): a new document in the frame (the app navigated it, a meta refresh,
 *   an error page) at once, an app that stops answering the `surface.ping` heartbeat within its bound.
 */
import {
  bridgeError,
  bridgeEvent,
  bridgeRequest,
  bridgeResult,
  createTokenBucket,
  decodeBridgeMessageInHost as decodeBridgeMessage,
  LineUpError,
  PendingRequests,
  platformTimer,
  type BridgeEventData,
  type BridgeEventName,
  type BridgeExpectation,
  type BridgeHostSnapshot,
  type BridgeMethodName,
  type BridgeParams,
  type BridgeResponse,
  type BridgeTheme,
  type DisplayMode,
  type ErrorCode,
  type ProtocolError,
  type RateLimit,
} from "@lineup/protocol";
import { startHeartbeat, type Heartbeat, type HeartbeatOptions } from "./heartbeat.js";
import { FRAME_ALLOW_ATTRIBUTE } from "./frame-policy.js";
import { newBridgeNonce } from "./nonce.js";

/** What the embedding Runtime side answers for the app. */
export interface SurfaceHandlers {
  /**
   * An app → host request other than the ones the surface host answers itself (`lifecycle.ready`,
   * `lifecycle.closing_done`, `surface.resize`). Resolve with the result; reject with `{ code, message }`.
   */
  request(method: BridgeMethodName, params: unknown): Promise<unknown>;
  /** A frame was refused (bad schema, nonce, size or rate); for diagnostics. */
  onRefused?(refusal: ProtocolError): void;
  /** The content height changed (already clamped and applied to the frame). */
  onResize?(height: number): void;
}

export interface SurfaceOptions {
  /** The frame document (default `./surface-frame.html`, next to the host page). */
  readonly frameUrl?: string;
  /** Largest message from the app, in UTF-8 bytes. Default 256 KiB. */
  readonly maxBytes?: number;
  /** Default 100 messages/s with a burst of 200. */
  readonly rate?: RateLimit;
  /**
   * How long the start-up may go without a step forward before the app counts as failed. Default 15 s.
   * The steps are the frame page loaded, the app's page written into it, and every message the app sends
   * before `lifecycle.ready`: a slow device that keeps going is waited for, a stalled app is not.
   */
  readonly readyTimeoutMs?: number;
  readonly minHeight?: number;
  readonly maxHeight?: number;
  /** An accessible name for the frame. */
  readonly title?: string;
  /** The app's name for people, in what `dead` says (default the app scope). */
  readonly name?: string;
  /** The `surface.ping` heartbeat after `lifecycle.ready` (default every 2 s, dead after 10 s unanswered). */
  readonly heartbeat?: HeartbeatOptions;
}

/**
 * How a surface died: `navigated` — a new document replaced the app's page in the frame (the app went to
 * another address, a meta refresh, the browser's error page for a refused address); `unresponsive` — the app
 * left a `surface.ping` unanswered past the heartbeat's timeout (it hangs, or its renderer process is gone).
 * `message` is a sentence for people, naming the app.
 */
export interface SurfaceDeath {
  readonly reason: "navigated" | "unresponsive";
  readonly message: string;
}

export interface MountedSurface {
  readonly frame: HTMLIFrameElement;
  readonly nonce: string;
  /** Resolves once the app answered `lifecycle.ready`; rejects on timeout, close, or death before it. */
  readonly ready: Promise<void>;
  /**
   * Resolves once, when the surface dies (never for one that is closed first). By then the heartbeat has
   * stopped, every request to the app has failed and nothing from the app is read any more; `ready`, if the app
   * was not ready, rejects just after (its handlers run after `dead`'s). The frame stays in the container
   * until `close()`: its owner decides.
   */
  readonly dead: Promise<SurfaceDeath>;
  /** Calls one of the app's methods (`tool.invoke`); resolves with the app's response frame. */
  request<M extends BridgeMethodName>(method: M, params: BridgeParams<M>, timeoutMs?: number): Promise<BridgeResponse<M>>;
  /** Pushes an event to the app (queued until it is ready). */
  event<N extends BridgeEventName>(name: N, data: BridgeEventData<N>): void;
  setDisplayMode(mode: DisplayMode): void;
  setTheme(theme: BridgeTheme): void;
  setLocale(locale: string, timezone: string): void;
  /** Tells the app `closing`, waits for `lifecycle.closing_done` up to the deadline, then tears down (at once when dead). */
  close(flushDeadlineMs?: number): Promise<"flushed" | "deadline">;
}

const refusal = (code: ErrorCode, message: string): ProtocolError => ({ code, message });

/** Why the frame page refuses an app's page, in the host's words (the frame only names the code). */
export const PAGE_REFUSALS = {
  nested_frame: "contains a nested frame (iframe, frame, object or embed), which LineUp apps cannot have",
  link_element: "contains a <link> element (a connection hint), which LineUp apps cannot have",
  declarative_shadow_root: "uses a declarative shadow root, which LineUp apps cannot have",
} as const;

/**
 * The frame every sandboxed surface runs in (an installed app's page, an MCP Apps view): `sandbox="allow-scripts"`
 * and never `allow-same-origin`, no powerful feature delegated, no referrer. It loads `surface-frame.html` (its
 * caller sets `src`).
 */
export function createSandboxedFrame(title: string): HTMLIFrameElement {
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts");
  // No powerful feature is delegated to the app's frame: the Capability Gateway runs them as the host.
  frame.setAttribute("allow", FRAME_ALLOW_ATTRIBUTE);
  frame.setAttribute("referrerpolicy", "no-referrer");
  frame.setAttribute("title", title);
  frame.className = "surface-frame";
  // CSSOM, not a style attribute: allowed under the page's style-src 'self'.
  frame.style.display = "block";
  frame.style.width = "100%";
  frame.style.border = "0";
  return frame;
}

export function mountSurface(container: HTMLElement, appHtml: string, snapshot: BridgeHostSnapshot, handlers: SurfaceHandlers, options: SurfaceOptions = {}): MountedSurface {
  const frame = createSandboxedFrame(options.title ?? `App ${snapshot.app_scope}`);
  const size = sizeFrame(frame, container, snapshot.display_mode, options.minHeight ?? 120, options.maxHeight ?? 4_000);
  const link = new SurfaceLink(snapshot.app_scope, options.name ?? snapshot.app_scope, options.readyTimeoutMs ?? 15_000);
  link.stopHandover = handOver(frame, appHtml, () => bridgeEvent(link.nonce, "host.snapshot", snapshot), link.appPort, link.startup, snapshot.app_scope);
  const surface = surfaceApi(link, frame, size);
  const answer = ownAnswers(link, size, handlers, surface, options.heartbeat);
  link.port.onmessage = receiver(link, snapshot.app_scope, handlers, answer, options);
  watchNavigation(frame, () => link.die("navigated"));
  frame.src = options.frameUrl ?? "./surface-frame.html";
  container.append(frame);
  return surface;
}

/**
 * The host's end of one surface's channel: its private port and nonce, the start-up watch, the host's requests
 * in flight, the deliveries waiting for `lifecycle.ready`, and the surface's end (closed, or dead and why).
 */
class SurfaceLink {
  readonly nonce = newBridgeNonce();
  readonly #channel = new MessageChannel();
  readonly port = this.#channel.port1;
  /** The frame's end of the channel, handed over once. */
  readonly appPort = this.#channel.port2;
  readonly startup: StartupWatch;
  /** The host's requests to the app awaiting its response: settled by the response, their timeout, or the surface closing or dying. */
  readonly pending = new PendingRequests<BridgeResponse>(platformTimer);
  readonly dead: Promise<SurfaceDeath>;
  closed = false;
  death: SurfaceDeath | undefined;
  heartbeat: Heartbeat | undefined;
  /** Set while `close()` waits for the app's `lifecycle.closing_done`. */
  closingDone: (() => void) | undefined;
  /** Stops listening to the frame's window (set once the handover is under way). */
  stopHandover: () => void = () => undefined;
  /** Deliveries to the app wait for `lifecycle.ready`. */
  readonly #queue: (() => void)[] = [];
  #resolveDead!: (death: SurfaceDeath) => void;

  constructor(
    appScope: string,
    private readonly appName: string,
    readyTimeoutMs: number,
  ) {
    this.startup = watchStartup(appScope, readyTimeoutMs);
    this.dead = new Promise<SurfaceDeath>((resolve) => (this.#resolveDead = resolve));
  }

  post(frameData: unknown): void {
    if (!this.closed && this.death === undefined) this.port.postMessage(frameData);
  }

  /** Settles the request `response` answers (same id and method); false when it answers none. */
  settle(response: BridgeResponse): boolean {
    if (this.pending.get(response.id)?.method !== response.method) return false;
    this.pending.take(response.id)?.resolve(response);
    return true;
  }

  whenReady(send: () => void): void {
    if (this.startup.isReady()) send();
    else this.#queue.push(send);
  }

  /** The app said `lifecycle.ready`: the start-up succeeded and the deliveries that waited go now. */
  becameReady(): void {
    this.startup.succeed();
    for (const send of this.#queue.splice(0)) send();
  }

  /** The surface is dead: nothing more goes to the app or is read from it, and whatever waited on it ends now. */
  die(reason: SurfaceDeath["reason"]): void {
    if (this.closed || this.death !== undefined) return;
    const death: SurfaceDeath = { reason, message: reason === "navigated" ? `${this.appName} left its page` : `${this.appName} stopped responding` };
    this.death = death;
    this.heartbeat?.stop();
    this.startup.halt();
    this.#queue.length = 0;
    this.pending.rejectAll(() => new LineUpError("request_cancelled", death.message));
    this.stopHandover();
    this.port.onmessage = null;
    this.port.close();
    // `dead` first: an owner that listens to both hears why before it hears that the start failed.
    this.#resolveDead(death);
    this.startup.fail(new Error(death.message));
  }

  /** Closed by its owner: everything waiting fails and the channel closes. */
  shut(): void {
    this.closed = true;
    this.heartbeat?.stop();
    this.startup.halt();
    this.pending.rejectAll(() => new LineUpError("request_cancelled", "the surface was closed"));
    this.startup.fail(new Error("the surface was closed"));
    this.stopHandover();
    this.port.close();
  }
}

/** The requests the surface host answers itself (`lifecycle.ready`, `lifecycle.closing_done`, `surface.resize`); any other goes to `handlers.request`. */
function ownAnswers(link: SurfaceLink, size: FrameSize, handlers: SurfaceHandlers, surface: MountedSurface, heartbeatOptions: HeartbeatOptions | undefined) {
  const { nonce } = link;
  return async (id: number, method: BridgeMethodName, params: unknown): Promise<void> => {
    switch (method) {
      case "lifecycle.ready":
        link.post(bridgeResult(nonce, id, method, {}));
        if (!link.startup.isReady()) {
          link.becameReady();
          // Its own request, answered by the app's SDK: a long request timeout, since the heartbeat decides (and
          // knows when the host itself was not running); death or close fails it with everything else. An app
          // whose SDK predates the heartbeat does not say `heartbeat: true` and is not pinged: only a new document
          // in its frame tells of its death.
          if ((params as { heartbeat?: true }).heartbeat === true) link.heartbeat = startHeartbeat(() => surface.request("surface.ping", {}, 24 * 60 * 60 * 1_000), () => link.die("unresponsive"), heartbeatOptions);
        }
        return;
      case "lifecycle.closing_done":
        link.post(bridgeResult(nonce, id, method, {}));
        link.closingDone?.();
        return;
      case "surface.resize": {
        const height = size.fitContent((params as { height: number }).height);
        link.post(bridgeResult(nonce, id, method, {}));
        handlers.onResize?.(height);
        return;
      }
      default:
        try {
          const result = await handlers.request(method, params);
          link.post(bridgeResult(nonce, id, method, result as never));
        } catch (error) {
          const e = error as { code?: unknown; message?: unknown };
          const code = (typeof e.code === "string" ? e.code : "internal_error") as ErrorCode;
          link.post(bridgeError(nonce, id, method, refusal(code, typeof e.message === "string" ? e.message : "refused")));
        }
    }
  };
}

/** The port's one reader: every message is decoded (schema, nonce, direction, size) and rate limited before it is acted on. */
function receiver(link: SurfaceLink, appScope: string, handlers: SurfaceHandlers, answer: ReturnType<typeof ownAnswers>, options: SurfaceOptions): (event: MessageEvent) => void {
  const { nonce } = link;
  const bucket = createTokenBucket(options.rate ?? { perSecond: 100, burst: 200 }, () => performance.now());
  // Built once: every message is checked against the same expectation.
  const expectation: BridgeExpectation = { nonce, direction: "to_host", ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }) };
  return (event) => {
    const decoded = decodeBridgeMessage(event.data, expectation);
    if (!decoded.ok) {
      handlers.onRefused?.(decoded.error);
      return;
    }
    const message = decoded.value;
    // The answer to a request of the host's (a `tool.invoke`, a heartbeat `surface.ping`) is bounded by the host's
    // own requests: it takes no token, so an app over its rate still answers its calls and proves it is alive.
    if (message.kind === "response" && link.settle(message)) return;
    if (!bucket.take()) {
      handlers.onRefused?.(refusal("rate_limited", `${appScope} is sending too fast`));
      if (message.kind === "request") link.post(bridgeError(nonce, message.id, message.method, refusal("rate_limited", "too many messages; slow down")));
      return;
    }
    if (message.kind === "request") {
      link.startup.progressed(`it did not say it was ready after ${message.method}`);
      // The app may read (session data, …) before it declares itself ready; only deliveries to it wait.
      void answer(message.id, message.method, message.params);
    }
    // A response that matches nothing pending (late, a wrong id or method) is dropped; events from the app are
    // not part of Bridge v1's app → host direction, the decoder refuses them.
  };
}

/** What the surface's owner holds: requests and events to the app, display mode, theme and locale, and `close`. */
function surfaceApi(link: SurfaceLink, frame: HTMLIFrameElement, size: FrameSize): MountedSurface {
  const { nonce } = link;
  const surface: MountedSurface = {
    frame,
    nonce,
    ready: link.startup.ready,
    dead: link.dead,
    request(method, params, timeoutMs = 30_000) {
      if (link.closed) return Promise.reject(new LineUpError("request_cancelled", "the surface is closed"));
      if (link.death !== undefined) return Promise.reject(new LineUpError("request_cancelled", link.death.message));
      return new Promise((resolve, reject) => {
        const id = link.pending.open({ method, timeoutMs, resolve: resolve as (response: BridgeResponse) => void, reject });
        link.whenReady(() => link.post(bridgeRequest(nonce, id, method, params)));
      });
    },
    event(name, data) {
      link.whenReady(() => link.post(bridgeEvent(nonce, name, data)));
    },
    setDisplayMode(mode) {
      size.setMode(mode);
      surface.event("display_mode.changed", { display_mode: mode });
    },
    setTheme(theme) {
      surface.event("theme.changed", { theme });
    },
    setLocale(locale, timezone) {
      surface.event("locale.changed", { locale, timezone });
    },
    async close(flushDeadlineMs = 2_000) {
      if (link.closed) return "deadline";
      let outcome: "flushed" | "deadline" = "deadline";
      // A dead app flushes nothing: it is torn down at once.
      if (link.startup.isReady() && link.death === undefined) {
        outcome = await new Promise<"flushed" | "deadline">((resolve) => {
          const timer = setTimeout(() => resolve("deadline"), flushDeadlineMs);
          link.closingDone = () => {
            clearTimeout(timer);
            resolve("flushed");
          };
          link.post(bridgeEvent(nonce, "lifecycle", { state: "closing", flush_deadline_ms: flushDeadlineMs }));
        });
      }
      link.shut();
      frame.remove();
      return outcome;
    },
  };
  return surface;
}

/**
 * The frame's height and display mode: foreground fills the area the shell gives it; picture-in-picture and the
 * inline card follow the content's height (the app's `surface.resize`, clamped); an inline card takes no input.
 */
function sizeFrame(frame: HTMLIFrameElement, container: HTMLElement, initial: DisplayMode, minHeight: number, maxHeight: number) {
  let contentHeight = minHeight;
  let displayMode = initial;
  const apply = (): void => {
    frame.style.height = displayMode === "foreground" ? "100%" : `${contentHeight}px`;
  };
  container.dataset["displayMode"] = initial;
  apply();
  return {
    setMode(mode: DisplayMode): void {
      displayMode = mode;
      container.dataset["displayMode"] = mode;
      apply();
      // An inline result card is static: it shows what the app drew, and takes no input.
      frame.toggleAttribute("inert", mode === "inline_card");
    },
    /** Applies the height the content wants, clamped; returns the height applied. */
    fitContent(height: number): number {
      contentHeight = Math.max(minHeight, Math.min(maxHeight, height));
      apply();
      return contentHeight;
    },
  };
}

/**
 * The start-up's deadline: `ready` resolves once the app said `lifecycle.ready`; each step forward (`progressed`)
 * gives it a fresh `stallMs`, and a start-up that stalls rejects `ready` naming the step it did not take.
 */
function watchStartup(appScope: string, stallMs: number) {
  let isReady = false;
  let halted = false;
  let stage = "its page did not load";
  let timer: ReturnType<typeof setTimeout> | undefined;
  let resolveReady!: () => void;
  let rejectReady!: (error: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  ready.catch(() => undefined);
  const progressed = (next: string): void => {
    if (isReady || halted) return;
    stage = next;
    clearTimeout(timer);
    timer = setTimeout(() => rejectReady(new Error(`${appScope} did not become ready: ${stage} within ${stallMs >= 1_000 ? `${Math.round(stallMs / 1_000)} s` : `${stallMs} ms`}`)), stallMs);
  };
  progressed(stage);
  return {
    ready,
    isReady: (): boolean => isReady,
    progressed,
    succeed(): void {
      isReady = true;
      clearTimeout(timer);
      resolveReady();
    },
    /** The start-up failed (or the surface went away first); no-op once ready. */
    fail(error: Error): void {
      clearTimeout(timer);
      rejectReady(error);
    },
    /** No more steps are counted: the surface died or closed. */
    halt(): void {
      halted = true;
      clearTimeout(timer);
    },
  };
}

type StartupWatch = ReturnType<typeof watchStartup>;

type FrameSize = ReturnType<typeof sizeFrame>;

/**
 * The handover: the frame's window speaks only before it — "ready" (load me), then "loaded" or "refused" — and
 * the port and the snapshot go to the frame once. Returns the function that stops listening to the window.
 */
function handOver(frame: HTMLIFrameElement, appHtml: string, snapshotFrame: () => unknown, appPort: MessagePort, startup: StartupWatch, appScope: string): () => void {
  let handedOver = false;
  const onWindowMessage = (event: MessageEvent): void => {
    if (handedOver || event.source !== frame.contentWindow || frame.contentWindow === null) return;
    const type = (event.data as { type?: unknown } | null)?.type;
    if (type === "lineup.surface-frame.ready") {
      startup.progressed("its page did not start");
      frame.contentWindow.postMessage({ type: "lineup.surface-frame.load", html: appHtml }, "*");
    } else if (type === "lineup.surface-frame.refused") {
      // The frame page would not write the app's page (surface-frame.html says why): it never ran.
      const code = (event.data as { code?: unknown }).code;
      startup.fail(new Error(`${appScope} did not start: its page ${PAGE_REFUSALS[code as keyof typeof PAGE_REFUSALS] ?? "was refused"}`));
    } else if (type === "lineup.surface-frame.loaded") {
      handedOver = true;
      startup.progressed("it did not connect to LineUp");
      window.removeEventListener("message", onWindowMessage);
      // An opaque-origin frame can only be addressed with "*"; the port, not the origin, is the trust.
      frame.contentWindow.postMessage(snapshotFrame(), "*", [appPort]);
    }
  };
  window.addEventListener("message", onWindowMessage);
  return () => window.removeEventListener("message", onWindowMessage);
}

/**
 * The frame page loads twice: its own document, then once more when it has written the app's page into itself
 * (document.open/write/close; before or after it says "loaded", as the app's page finishes). Any later load is a
 * new document in the frame — the app navigated it, a meta refresh, the browser's error page for an address the
 * host's frame-src refuses — and the app's page with its port is gone. (Should the app's page never finish
 * loading, its navigation is the second load and goes unseen here; the heartbeat still ends it.)
 */
function watchNavigation(frame: HTMLIFrameElement, navigated: () => void): void {
  let loads = 0;
  frame.addEventListener("load", () => {
    loads += 1;
    if (loads > 2) navigated();
  });
}
