/**
 * The Transport port over the browser's global `WebSocket`. Text frames only; a binary frame closes the
 * connection (1003).
 */
import type { Transport, TransportConnection } from "../communication/transport.js";
import { socketConnection } from "../communication/socket-connection.js";

export function createWebSocketTransport(): Transport {
  return {
    open(url) {
      return new Promise<TransportConnection>((resolve, reject) => {
        const socket = new WebSocket(url);
        let opened = false;
        const { connection, events } = socketConnection(
          {
            send(text) {
              if (socket.readyState === WebSocket.OPEN) socket.send(text);
            },
            close(code, reason) {
              if (socket.readyState === WebSocket.CLOSING || socket.readyState === WebSocket.CLOSED) return;
              socket.close(code, reason);
            },
          },
          "websocket",
        );
        socket.addEventListener("message", (event: MessageEvent) => {
          if (typeof event.data !== "string") return socket.close(1003, "text frames only");
          events.message(event.data);
        });
        socket.addEventListener("close", (event: CloseEvent) => {
          if (!opened) reject(new Error(`could not connect to ${url} (${event.code})`));
          events.closed({ code: event.code, reason: event.reason });
        });
        socket.addEventListener("open", () => {
          opened = true;
          resolve(connection);
        });
      });
    },
  };
}
