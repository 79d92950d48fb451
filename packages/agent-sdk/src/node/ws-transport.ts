/**
 * The Node adapter of the `Transport` port, over the `ws` package (Node 20 has no global
 * WebSocket). Text frames only; a binary frame is decoded as UTF-8 text so that a misbehaving
 * peer gets a parse error rather than silence. The client's heartbeat pings the server and ends a
 * connection silent through a whole interval (1006, "heartbeat timeout"), so a half-open one is
 * noticed and the client reconnects.
 */
import { Emitter, startHeartbeat, throwLater, type Heartbeat } from "@lineup/protocol";
import WebSocket from "ws";
import type { CloseInfo, Connection, Transport } from "../transport.js";

export interface NodeWebSocketTransportOptions {
  /** Largest inbound frame, bytes. Default 64 MiB (a session event wraps an envelope of up to 1 MiB). */
  readonly maxPayload?: number;
  /** Extra HTTP headers of the upgrade request. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Opening handshake timeout, ms. Default 10 000. */
  readonly handshakeTimeoutMs?: number;
  /** Ping the server this often; a server silent through a whole interval is given up on. Default 15 000 ms. */
  readonly heartbeatIntervalMs?: number;
}

export function nodeWebSocketTransport(options: NodeWebSocketTransportOptions = {}): Transport {
  return {
    connect(url) {
      return new Promise<Connection>((resolve, reject) => {
        const socket = new WebSocket(url, {
          maxPayload: options.maxPayload ?? 64 * 1_048_576,
          handshakeTimeout: options.handshakeTimeoutMs ?? 10_000,
          ...(options.headers === undefined ? {} : { headers: { ...options.headers } }),
        });
        const messages = new Emitter<string>(throwLater);
        const closes = new Emitter<CloseInfo>(throwLater);
        let opened = false;
        let closed = false;
        let heartbeat: Heartbeat | undefined;
        const finish = (info: CloseInfo): void => {
          if (closed) return;
          closed = true;
          heartbeat?.stop();
          closes.fire(info);
        };
        socket.on("open", () => {
          opened = true;
          heartbeat = startHeartbeat({
            ...(options.heartbeatIntervalMs === undefined ? {} : { intervalMs: options.heartbeatIntervalMs }),
            ping: () => socket.ping(),
            silent: () => {
              finish({ code: 1006, reason: "heartbeat timeout" });
              socket.terminate();
            },
          });
          resolve({
            send: (text) => {
              if (!closed && socket.readyState === WebSocket.OPEN) socket.send(text);
            },
            onMessage: (listener) => messages.on(listener),
            onClose: (listener) => closes.on(listener),
            close: (code = 1000, reason = "") => {
              if (socket.readyState === WebSocket.CONNECTING || socket.readyState === WebSocket.OPEN) socket.close(code, reason);
              // Do not wait for the peer's close frame to tell our listeners.
              finish({ code, reason });
            },
          });
        });
        socket.on("ping", () => heartbeat?.heard());
        socket.on("pong", () => heartbeat?.heard());
        socket.on("message", (data, isBinary) => {
          heartbeat?.heard();
          const text = isBinary || typeof data !== "string" ? Buffer.from(data as Buffer).toString("utf8") : data;
          messages.fire(text);
        });
        socket.on("close", (code, reason) => finish({ code, reason: reason.toString("utf8") }));
        socket.on("error", (error) => {
          if (!opened) reject(error);
          // After open, "close" follows every error.
        });
      });
    },
  };
}
