/**
 * The page's end of the native host channel (`@lineup/protocol` host-channel v1), for when the web host runs
 * inside a native window (the desktop host). Requests go out as messages to this very window, where the
 * native side's isolated world (which alone can post to the native program) takes them; answers, and what the
 * native side tells unasked (its pushes), come back the same way, from this window only, and are checked against
 * the channel's schemas. The native window serves the page from a scheme of its own (`NATIVE_HOST_PROTOCOL`); a page
 * served any other way is in a plain browser, where nothing would answer: it asks nothing, loads no codec and runs
 * as the web host it is. A native host that does not answer ends the first request with `unsupported_on_host` after
 * its time limit, and the page runs as a web host then too.
 *
 * The tag and event names are the desktop host's (`packages/host-desktop/src/page-scripts.ts` HOST_EVENTS): a
 * test there holds both to the same strings.
 */
import {
  fail,
  type HostChannelMethod,
  type HostChannelParams,
  type HostChannelPush,
  type HostChannelResult,
  type Result,
} from "@lineup/protocol";

/** The scheme the desktop host serves the page from (`lineup://app/`: `packages/host-desktop/src/confinement.ts`; a test there holds both to it). */
export const NATIVE_HOST_PROTOCOL = "lineup:";

export const NATIVE_HOST_EVENTS = {
  tag: "lineup-host",
  shutdown: "lineup-host-shutdown",
  shutdownDone: "lineup-host-shutdown-done",
} as const;

/** How long a request waits for the native side (it answers at once when it is there). */
const REQUEST_LIMIT_MS = 1_500;
/** Methods the native side answers only when the person has (a dialog): no time limit once the host is known. */
const WAITS_FOR_THE_PERSON: ReadonlySet<HostChannelMethod> = new Set(["file.pick", "file.save"]);

export interface NativeHost {
  readonly info: HostChannelResult<"host.info">;
  request<M extends HostChannelMethod>(method: M, params: HostChannelParams<M>): Promise<Result<HostChannelResult<M>>>;
  /**
   * Hears what the native side tells the page unasked (the window hidden or shown, the notification service come or
   * gone), each checked against the channel's schemas. Returns the unsubscribe.
   */
  onPush(listener: (push: HostChannelPush) => void): () => void;
}

/** The channel's codec, a chunk of its own (`host-channel-codec.ts`): loaded with the first request, not with the page. */
const loadCodec = () => import("./host-channel-codec.js");
type Codec = Awaited<ReturnType<typeof loadCodec>>;

let nextId = 1;

function request<M extends HostChannelMethod>(win: Window, codec: Codec, method: M, params: HostChannelParams<M>, limitMs: number | undefined = REQUEST_LIMIT_MS): Promise<Result<HostChannelResult<M>>> {
  const id = nextId++;
  return new Promise((resolve) => {
    const onAnswer = (event: MessageEvent) => {
      const data = event.data as Record<string, unknown> | null;
      if (event.source !== win || typeof data !== "object" || data === null || data[NATIVE_HOST_EVENTS.tag] !== "answer") return;
      const text = data["text"];
      let answered: unknown;
      try {
        answered = typeof text === "string" ? (JSON.parse(text) as { id?: unknown }).id : undefined;
      } catch {
        answered = undefined;
      }
      // Another request's answer; 0 answers a request the native side could not read at all.
      if (answered !== id && answered !== 0) return;
      done(codec.decodeHostChannelResponse(text, id, method));
    };
    const timer = limitMs === undefined ? undefined : setTimeout(() => done(fail("unsupported_on_host", `no native host answered ${method}`)), limitMs);
    const done = (answer: Result<HostChannelResult<M>>) => {
      clearTimeout(timer);
      win.removeEventListener("message", onAnswer);
      resolve(answer);
    };
    win.addEventListener("message", onAnswer);
    win.postMessage({ [NATIVE_HOST_EVENTS.tag]: "request", text: codec.encodeHostChannelRequest(id, method, params) }, "*");
  });
}

/** The native side's pushes to `win`: push messages from this very window (the native side's isolated world), checked. */
function listenForPushes(win: Window, codec: Codec, listener: (push: HostChannelPush) => void): () => void {
  const onPush = (event: MessageEvent) => {
    const data = event.data as Record<string, unknown> | null;
    if (event.source !== win || typeof data !== "object" || data === null || data[NATIVE_HOST_EVENTS.tag] !== "push") return;
    const push = codec.decodeHostChannelPush(data["text"]);
    if (push.ok) listener(push.value);
    else console.error(`[lineup] the native host's push was refused: ${push.error.code}: ${push.error.message}`);
  };
  win.addEventListener("message", onPush);
  return () => win.removeEventListener("message", onPush);
}

/** The native host around this page, or undefined in a plain browser. */
export async function connectNativeHost(win: Window = window): Promise<NativeHost | undefined> {
  const codec = await loadCodec();
  const info = await request(win, codec, "host.info", {});
  if (!info.ok) return undefined;
  return {
    info: info.value,
    request: (method, params) => request(win, codec, method, params, WAITS_FOR_THE_PERSON.has(method) ? undefined : REQUEST_LIMIT_MS),
    onPush: (listener) => listenForPushes(win, codec, listener),
  };
}

let thisPage: Promise<NativeHost | undefined> | undefined;
/** This page's native host, asked for once (the bootstrap starts asking at load); undefined in a plain browser. */
export function nativeHost(): Promise<NativeHost | undefined> {
  thisPage ??= typeof window === "undefined" || window.location.protocol !== NATIVE_HOST_PROTOCOL ? Promise.resolve(undefined) : connectNativeHost(window);
  return thisPage;
}

/**
 * While the page runs in a native window, closing the window first runs `stop` (the Runtime commits what it
 * holds and closes its store), then tells the native side it may go. Returns the unsubscribe.
 */
export function onNativeShutdown(stop: () => Promise<void>, doc: Document = document): () => void {
  const onShutdown = () => {
    void stop()
      .catch(() => undefined)
      .finally(() => doc.dispatchEvent(new CustomEvent(NATIVE_HOST_EVENTS.shutdownDone)));
  };
  doc.addEventListener(NATIVE_HOST_EVENTS.shutdown, onShutdown);
  return () => doc.removeEventListener(NATIVE_HOST_EVENTS.shutdown, onShutdown);
}

/** Keeps the native window's title the page's title (what a person reads in the task bar). */
export function mirrorTitle(host: NativeHost, doc: Document = document): () => void {
  let sent = "";
  const send = () => {
    const title = doc.title.trim().slice(0, 200);
    if (title === "" || title === sent) return;
    sent = title;
    void host.request("window.set_title", { title });
  };
  send();
  const head = doc.head ?? doc.documentElement;
  const observer = new MutationObserver(send);
  observer.observe(head, { subtree: true, childList: true, characterData: true });
  return () => observer.disconnect();
}
