/**
 * The Transport port over the `ws` WebSocket client (Node host). Text frames only; a binary frame from
 * the peer is a protocol violation and closes the connection (1003).
 */
import WebSocket from "ws";
import type { Transport, TransportConnection } from "../communication/transport.js";
import { socketConnection } from "../communication/socket-connection.js";

export interface WsTransportOptions {
  /** Refuse frames larger than this (ws `maxPayload`). Default 4 MiB. */
  readonly maxPayloadBytes?: number;
  /** Give up opening after this long. Default 10 000 ms. */
  readonly handshakeTimeoutMs?: number;
}

export function createWsTransport(options: WsTransportOptions = {}): Transport {
  return {
    open(url) {
      return new Promise<TransportConnection>((resolve, reject) => {
        const socket = new WebSocket(url, { maxPayload: options.maxPayloadBytes ?? 4 * 1024 * 1024, handshakeTimeout: options.handshakeTimeoutMs ?? 10_000 });
        let opened = false;
        const { connection, events } = socketConnection(
          {
            send(text) {
              if (socket.readyState === WebSocket.OPEN) socket.send(text);
            },
            close(code, reason) {
              if (socket.readyState === WebSocket.CLOSED) return;
              // A socket still connecting or closing is torn down at once so close listeners run promptly.
              if (socket.readyState === WebSocket.OPEN) socket.close(code, reason);
              else socket.terminate();
            },
          },
          "ws",
        );
        socket.on("message", (data, isBinary) => {
          if (isBinary) return socket.close(1003, "text frames only");
          events.message(Array.isArray(data) ? Buffer.concat(data).toString("utf8") : Buffer.from(data as ArrayBuffer).toString("utf8"));
        });
        socket.on("close", (code, reason) => events.closed({ code, reason: reason.toString("utf8") }));
        socket.on("error", (error) => {
          if (!opened) reject(error);
          // After open, an error is followed by "close", which is what the connection reports.
        });
        socket.on("open", () => {
          opened = true;
          resolve(connection);
        });
      });
    },
  };
}
