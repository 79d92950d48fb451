/**
 * The Transport port over the browser's global `WebSocket`. Text frames only; a binary frame closes the
 * connection (1003).
 */
import { Emitter, ignoreDiagnostics } from "../core/emitter.js";
import type { Transport, TransportClose, TransportConnection } from "../communication/transport.js";

export function createWebSocketTransport(): Transport {
  return {
    open(url) {
      return new Promise<TransportConnection>((resolve, reject) => {
        const socket = new WebSocket(url);
        const messages = new Emitter<string>(ignoreDiagnostics, "websocket message");
        const closes = new Emitter<TransportClose>(ignoreDiagnostics, "websocket close");
        let closed: TransportClose | undefined;
        let opened = false;
        socket.addEventListener("message", (event: MessageEvent) => {
          if (typeof event.data !== "string") return socket.close(1003, "text frames only");
          messages.emit(event.data);
        });
        socket.addEventListener("close", (event: CloseEvent) => {
          closed = { code: event.code, reason: event.reason };
          if (!opened) reject(new Error(`could not connect to ${url} (${event.code})`));
          closes.emit(closed);
        });
        socket.addEventListener("open", () => {
          opened = true;
          resolve({
            send(text) {
              if (socket.readyState === WebSocket.OPEN) socket.send(text);
            },
            onMessage: (listener) => messages.subscribe(listener),
            onClose(listener) {
              if (closed !== undefined) {
                const seen = closed;
                void Promise.resolve().then(() => listener(seen));
                return () => undefined;
              }
              return closes.subscribe(listener);
            },
            close(code = 1000, reason = "") {
              if (socket.readyState === WebSocket.CLOSING || socket.readyState === WebSocket.CLOSED) return;
              socket.close(code, reason);
            },
          });
        });
      });
    },
  };
}
