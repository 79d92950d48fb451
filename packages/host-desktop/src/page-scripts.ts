/**
 * Scripts the native side puts into the page, each in an isolated world of its own (`WebKitUserScript`
 * with a world name): they share the DOM with the page but not its JavaScript, so no page or app code can
 * call or change them, and the message handlers they use exist only in their world. They are written as
 * functions so they type-check, and injected as their source text.
 */

/** The world of the host channel: only this world, and only in the top frame, can post to the native side. */
export const HOST_WORLD = "lineup-host";
/** The world of the test driver (`--driver` only), in every frame. */
export const DRIVER_WORLD = "lineup-driver";

/**
 * Between the host page and the host world (the same window only: an app's frame is another window).
 * Requests, answers and the native side's pushes are window messages tagged `{ "lineup-host": "request" | "answer" | "push", text }` — a DOM
 * event's `detail` does not cross from one world to the other in WebKit (measured: it arrives as null) —
 * and the relay takes a request only when its source is this very window, which no frame can forge.
 * Shutdown is a pair of plain DOM events on the document.
 */
export const HOST_EVENTS = {
  tag: "lineup-host",
  shutdown: "lineup-host-shutdown",
  shutdownDone: "lineup-host-shutdown-done",
} as const;

/** What a world sees of its message handlers. The scripts below are injected as their own source text, so each finds its handler itself (nothing outside a function's body exists where it runs). */
interface Handlers {
  readonly webkit: { readonly messageHandlers: Readonly<Record<string, { postMessage(text: string): Promise<unknown> }>> };
}

/**
 * The host world's relay, in the top frame at document start: a request message from the host page itself
 * carries a request's JSON text to the native side; the answer comes back as an answer message.
 */
export function hostRelay(events: typeof HOST_EVENTS, world: string): void {
  const native = (window as unknown as Handlers).webkit.messageHandlers[world]!;
  window.addEventListener("message", (event) => {
    const data = event.data as Record<string, unknown> | null;
    if (event.source !== window || typeof data !== "object" || data === null || data[events.tag] !== "request" || typeof data["text"] !== "string") return;
    native.postMessage(data["text"]).then(
      (answer) => window.postMessage({ [events.tag]: "answer", text: answer }, "*"),
      // The native side answers every request it can read, refusals included; a rejection means the
      // window is going away, and the page's own time limit ends the request.
      () => undefined,
    );
  });
}

/**
 * The native side's push (`@lineup/protocol` host-channel push), run by the native side in the host world of the top
 * frame only: a push message to this very window, which only the host page hears with itself as the source.
 */
export function hostPush(events: typeof HOST_EVENTS, text: string): void {
  window.postMessage({ [events.tag]: "push", text }, "*");
}

/** The host world's shutdown, run by the native side on close: the page stops its Runtime, then says so. */
export function shutdownBody(events: typeof HOST_EVENTS, limitMs: number): string {
  return `return await new Promise((resolve) => {
  document.addEventListener(${JSON.stringify(events.shutdownDone)}, () => resolve(true), { once: true });
  document.dispatchEvent(new CustomEvent(${JSON.stringify(events.shutdown)}));
  setTimeout(() => resolve(false), ${limitMs});
});`;
}

/** A command for the driver in a frame other than the top one. */
export type FrameCommand =
  | { readonly id: number; readonly op: "query"; readonly selector: string; readonly attributes: readonly string[] }
  | { readonly id: number; readonly op: "click"; readonly selector: string; readonly text?: string }
  | { readonly id: number; readonly op: "rect"; readonly selector: string; readonly text?: string };

/**
 * The test driver in every frame but the top one (the native side evaluates there directly): asks the
 * native side for the next command, runs it on its document, sends the outcome with the next ask.
 */
export function frameDriver(world: string): void {
  // Injected again when a frame's document is rewritten (document.open, as the frame page does): one loop per frame.
  const mark = window as unknown as { lineupFrameDriver?: true };
  if (window === window.top || mark.lineupFrameDriver === true) return;
  mark.lineupFrameDriver = true;
  const native = (window as unknown as Handlers).webkit.messageHandlers[world]!;
  const run = (command: FrameCommand): unknown => {
    if (command.op === "query") {
      return [...document.querySelectorAll(command.selector)].map((element) => ({
        text: element.textContent ?? "",
        attributes: Object.fromEntries(command.attributes.map((name) => [name, element.getAttribute(name)])),
      }));
    }
    const element = [...document.querySelectorAll(command.selector)].find((e) => command.text === undefined || e.textContent?.trim() === command.text);
    if (!(element instanceof HTMLElement)) return null;
    if (command.op === "rect") {
      const { x, y, width, height } = element.getBoundingClientRect();
      return { x, y, width, height };
    }
    element.click();
    return true;
  };
  void (async () => {
    let outcome: { id: number; result: unknown } | undefined;
    for (;;) {
      const text = await native.postMessage(JSON.stringify({ url: location.href, ...(outcome === undefined ? {} : outcome) }));
      const command = JSON.parse(String(text)) as FrameCommand;
      try {
        outcome = { id: command.id, result: run(command) };
      } catch (error) {
        outcome = { id: command.id, result: { error: String(error) } };
      }
    }
  })();
}
