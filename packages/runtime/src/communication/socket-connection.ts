/**
 * The part every WebSocket adapter shares: the events of one open socket turned into a
 * `TransportConnection`. A close listener added after the socket closed still hears the close once,
 * on a microtask, so no caller misses it.
 */
import { Emitter } from "../core/emitter.js";
import type { TransportClose, TransportConnection } from "./transport.js";

/** What an adapter feeds in as its socket reports events. */
export interface SocketEvents {
  message(text: string): void;
  closed(close: TransportClose): void;
}

/** What the adapter's socket can do. */
export interface SocketControl {
  /** Sends a text frame when the socket is open; silently nothing otherwise (the close reports why). */
  send(text: string): void;
  close(code: number, reason: string): void;
}

export function socketConnection(control: SocketControl): { readonly connection: TransportConnection; readonly events: SocketEvents } {
  const messages = new Emitter<string>();
  const closes = new Emitter<TransportClose>();
  let closed: TransportClose | undefined;
  return {
    events: {
      message: (text) => messages.fire(text),
      closed(close) {
        closed = close;
        closes.fire(close);
      },
    },
    connection: {
      send: (text) => control.send(text),
      onMessage: (listener) => messages.on(listener),
      onClose(listener) {
        if (closed !== undefined) {
          const seen = closed;
          void Promise.resolve().then(() => listener(seen));
          return () => undefined;
        }
        return closes.on(listener);
      },
      close: (code = 1000, reason = "") => control.close(code, reason),
    },
  };
}
