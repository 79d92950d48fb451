/**
 * The `Transport` port: how the SDK reaches an App Server. One text frame is one JSON-RPC
 * message or batch (docs/app-server-protocol.md section 1).
 *
 * Adapters: `webSocketTransport` (any WHATWG `WebSocket`, e.g. a browser's), the Node adapter in
 * `@lineup/agent-sdk/node`, and `memoryTransport` for tests.
 */
import { Emitter, throwLater } from "@lineup/protocol";
import type { Disposable } from "./lifecycle.js";

export interface Connection {
  /** Sends one text frame. Throws nothing; a frame sent after close is dropped (the close listeners run). */
  send(text: string): void;
  /** Every inbound text frame, in order. */
  onMessage(listener: (text: string) => void): Disposable;
  /** Runs once when the connection ends, for any reason (peer, network, `close()`). */
  onClose(listener: (info: CloseInfo) => void): Disposable;
  /** Closes the connection; the close listeners run once. Idempotent. */
  close(code?: number, reason?: string): void;
}

export interface CloseInfo {
  readonly code: number;
  readonly reason: string;
}

export interface Transport {
  /** Opens a connection to `url`; rejects when it cannot be opened. */
  connect(url: string): Promise<Connection>;
}

/** The subset of the WHATWG WebSocket this adapter uses. */
interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: "open" | "message" | "close" | "error", listener: (event: { data?: unknown; code?: number; reason?: string }) => void): void;
}
type WebSocketConstructor = new (url: string) => WebSocketLike;

/**
 * A transport over a WHATWG `WebSocket` constructor (the global one by default, as in browsers and
 * Node ≥ 22). Binary frames are ignored: the protocol is text only.
 */
export function webSocketTransport(ctor?: WebSocketConstructor): Transport {
  return {
    connect(url) {
      const Ctor = ctor ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
      if (Ctor === undefined) return Promise.reject(new Error("no global WebSocket: pass a transport (e.g. nodeWebSocketTransport() from @lineup/agent-sdk/node)"));
      return new Promise<Connection>((resolve, reject) => {
        const socket = new Ctor(url);
        const messages = new Emitter<string>(throwLater);
        const closes = new Emitter<CloseInfo>(throwLater);
        let opened = false;
        let closed = false;
        const finish = (info: CloseInfo): void => {
          if (closed) return;
          closed = true;
          if (!opened) reject(new Error(`could not connect to ${url} (${info.code} ${info.reason})`));
          closes.fire(info);
        };
        socket.addEventListener("open", () => {
          opened = true;
          resolve({
            send: (text) => {
              if (!closed && socket.readyState === 1) socket.send(text);
            },
            onMessage: (listener) => messages.on(listener),
            onClose: (listener) => closes.on(listener),
            close: (code, reason) => socket.close(code ?? 1000, reason ?? ""),
          });
        });
        socket.addEventListener("message", (event) => {
          if (typeof event.data === "string") messages.fire(event.data);
        });
        socket.addEventListener("close", (event) => finish({ code: event.code ?? 1006, reason: event.reason ?? "" }));
        socket.addEventListener("error", () => {
          if (!opened) finish({ code: 1006, reason: "connection failed" });
        });
      });
    },
  };
}
