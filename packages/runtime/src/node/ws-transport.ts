/**
 * The Transport port over the `ws` WebSocket client (Node host). Text frames only; a binary frame from
 * the peer is a protocol violation and closes the connection (1003).
 */
import WebSocket from "ws";
import { Emitter, ignoreDiagnostics } from "../core/emitter.js";
import type { Transport, TransportClose, TransportConnection } from "../communication/transport.js";

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
        const messages = new Emitter<string>(ignoreDiagnostics, "ws message");
        const closes = new Emitter<TransportClose>(ignoreDiagnostics, "ws close");
        let closed: TransportClose | undefined;
        let opened = false;
        socket.on("message", (data, isBinary) => {
          if (isBinary) return socket.close(1003, "text frames only");
          messages.emit(Array.isArray(data) ? Buffer.concat(data).toString("utf8") : Buffer.from(data as ArrayBuffer).toString("utf8"));
        });
        socket.on("close", (code, reason) => {
          closed = { code, reason: reason.toString("utf8") };
          closes.emit(closed);
        });
        socket.on("error", (error) => {
          if (!opened) reject(error);
          // After open, an error is followed by "close", which is what the connection reports.
        });
        socket.on("open", () => {
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
              if (socket.readyState === WebSocket.CLOSED) return;
              // A socket still connecting or closing is torn down at once so close listeners run promptly.
              if (socket.readyState === WebSocket.OPEN) socket.close(code, reason);
              else socket.terminate();
            },
          });
        });
      });
    },
  };
}
