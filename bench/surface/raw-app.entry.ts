/**
 * The floor of the bridge bench: a sandboxed frame of the same kind (the same frame page, the same
 * single-file app page) that gets a plain `MessagePort` and times request → echo round trips of a
 * frame shaped like the bridge's `session_data.get` request. Nothing is validated on either side.
 */
import { exposeFrameBench, timeCalls } from "./shared.js";

interface PortHandover {
  readonly type: "bench.raw-port";
  readonly nonce: string;
}

const onHandover = (event: MessageEvent): void => {
  const data = event.data as Partial<PortHandover> | null;
  const port = event.ports[0];
  if (event.source !== window.parent || data?.type !== "bench.raw-port" || typeof data.nonce !== "string" || port === undefined) return;
  window.removeEventListener("message", onHandover);
  const nonce = data.nonce;
  let answer: (value: unknown) => void = () => undefined;
  port.onmessage = (message: MessageEvent) => answer(message.data);
  let id = 1;
  const roundTrip = (): Promise<unknown> =>
    new Promise((resolve) => {
      answer = resolve;
      port.postMessage({ bridge: "lineup.surface", v: 1, nonce, kind: "request", id: id++, method: "session_data.get", params: {} });
    });
  exposeFrameBench({ run: (calls) => timeCalls(calls, roundTrip) });
};
window.addEventListener("message", onHandover);
