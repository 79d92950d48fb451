/**
 * A sandboxed frame of the same kind the surface host mounts (the same frame page and its load handshake), then a
 * bare `MessagePort` handed to the loaded page with `{ type: "bench.raw-port", nonce }` and nothing checked on it:
 * the floor of the bridge and launch benches.
 */

/** Mounts `html` in `container`; resolves with the host's end of the port once the page holds the other. */
export function mountRawFrame(container: HTMLElement, html: string, frameUrl: string, title: string, nonce = "rawbenchnonce0000000000"): Promise<MessagePort> {
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts");
  frame.setAttribute("referrerpolicy", "no-referrer");
  frame.setAttribute("title", title);
  frame.style.width = "100%";
  frame.style.height = "100%";
  frame.style.border = "0";
  const channel = new MessageChannel();
  return new Promise<MessagePort>((resolve) => {
    const onMessage = (event: MessageEvent): void => {
      const target = frame.contentWindow;
      if (target === null || event.source !== target) return;
      const type = (event.data as { type?: unknown } | null)?.type;
      if (type === "lineup.surface-frame.ready") {
        target.postMessage({ type: "lineup.surface-frame.load", html }, "*");
      } else if (type === "lineup.surface-frame.loaded") {
        window.removeEventListener("message", onMessage);
        target.postMessage({ type: "bench.raw-port", nonce }, "*", [channel.port2]);
        resolve(channel.port1);
      }
    };
    window.addEventListener("message", onMessage);
    frame.src = frameUrl;
    container.append(frame);
  });
}
