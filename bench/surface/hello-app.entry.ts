/**
 * The floor of the launch bench: the page answers the first message on the port it is handed (`bench.raw-port`,
 * as raw-frame.ts hands it) at once. The suite puts the launched app's own script after it, parsed, never run,
 * so the page has the app page's bytes.
 */
const onHandover = (event: MessageEvent): void => {
  const port = event.ports[0];
  if (event.source !== window.parent || (event.data as { type?: unknown } | null)?.type !== "bench.raw-port" || port === undefined) return;
  window.removeEventListener("message", onHandover);
  port.onmessage = () => port.postMessage({ hello: true });
};
window.addEventListener("message", onHandover);
