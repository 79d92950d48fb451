/**
 * The Transport port over the `ws` WebSocket client (Node host). Text frames only; a binary frame from
 * the peer is a protocol violation and closes the connection (1003). The client's heartbeat pings the
 * server and ends a connection silent through a whole interval (1006, "heartbeat timeout"), so a
 * half-open one is noticed and the Runtime reconnects.
 */
import { startHeartbeat, type Heartbeat } from "@lineup/protocol";
import WebSocket from "ws";
import type { Transport, TransportConnection } from "../communication/transport.js";
import { socketConnection } from "../communication/socket-connection.js";

export interface WsTransportOptions {
  /** Refuse frames larger than this (ws `maxPayload`). Default 4 MiB. */
  readonly maxPayloadBytes?: number;
  /** Give up opening after this long. Default 10 000 ms. */
  readonly handshakeTimeoutMs?: number;
  /** Ping the server this often; a server silent through a whole interval is given up on. Default 15 000 ms. */
  readonly heartbeatIntervalMs?: number;
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
        );
        socket.on("message", (data, isBinary) => {
          heartbeat?.heard();
          if (isBinary) return socket.close(1003, "text frames only");
          events.message(Array.isArray(data) ? Buffer.concat(data).toString("utf8") : Buffer.from(data as ArrayBuffer).toString("utf8"));
        });
        let heartbeat: Heartbeat | undefined;
        let silent = false;
        socket.on("ping", () => heartbeat?.heard());
        socket.on("pong", () => heartbeat?.heard());
        socket.on("close", (code, reason) => {
          heartbeat?.stop();
          events.closed(silent ? { code: 1006, reason: "heartbeat timeout" } : { code, reason: reason.toString("utf8") });
        });
        socket.on("error", (error) => {
          if (!opened) reject(error);
          // After open, an error is followed by "close", which is what the connection reports.
        });
        socket.on("open", () => {
          opened = true;
          heartbeat = startHeartbeat({
            ...(options.heartbeatIntervalMs === undefined ? {} : { intervalMs: options.heartbeatIntervalMs }),
            ping: () => socket.ping(),
            silent: () => {
              silent = true;
              socket.terminate();
            },
          });
          resolve(connection);
        });
      });
    },
  };
}
