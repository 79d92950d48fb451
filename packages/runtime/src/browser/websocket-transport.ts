/**
 * The Transport port over the browser's global `WebSocket`. Text frames only; a binary frame closes the
 * connection (1003).
 *
 * A browser's WebSocket can neither send ping frames nor see the server's, so its heartbeat is one level up
 * (docs/app-server-protocol.md, "Heartbeat"): every interval it sends a `connection/ping` notification when
 * the server said nothing since the last one, and the server answers `connection/pong`. Any frame counts as
 * a sign of life; a server silent through a whole interval is given up on at once — the connection reports
 * 1006 "heartbeat timeout" without waiting for a closing handshake a half-open socket never completes — so
 * the Runtime reconnects within two intervals. The pongs are the transport's own: the Runtime never sees them.
 */
import { encodeJsonRpc, jsonRpcNotification, startHeartbeat, type Heartbeat } from "@lineup/protocol";
import type { Transport, TransportConnection } from "../communication/transport.js";
import { socketConnection } from "../communication/socket-connection.js";

export interface WebSocketTransportOptions {
  /** Ping the server this often; a server silent through a whole interval is given up on. Default 15 000 ms. */
  readonly heartbeatIntervalMs?: number;
  /**
   * A socket the host opened already, before the Runtime's code had loaded, so that its connection is made
   * meanwhile. The first `open` of the same URL takes it while it is connecting or open; otherwise (closed, or
   * another URL) it is closed and `open` makes its own. The server speaks only when spoken to (`initialize`
   * first), so the socket has heard nothing before it is taken.
   */
  readonly early?: { readonly url: string; readonly socket: WebSocket } | undefined;
}

const PING_FRAME = encodeJsonRpc(jsonRpcNotification("connection/ping", {}));
const PONG_FRAME = encodeJsonRpc(jsonRpcNotification("connection/pong", {}));

export function createWebSocketTransport(options: WebSocketTransportOptions = {}): Transport {
  let early = options.early;
  /** The early socket for `url` when it can still be used (once); else a new one. */
  const socketFor = (url: string): WebSocket => {
    const offered = early;
    early = undefined;
    if (offered !== undefined) {
      const usable = offered.url === url && (offered.socket.readyState === WebSocket.CONNECTING || offered.socket.readyState === WebSocket.OPEN);
      if (usable) return offered.socket;
      offered.socket.close();
    }
    return new WebSocket(url);
  };
  return {
    open(url) {
      return new Promise<TransportConnection>((resolve, reject) => {
        const socket = socketFor(url);
        let opened = false;
        let ended = false;
        let heartbeat: Heartbeat | undefined;
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
        );
        const end = (code: number, reason: string): void => {
          if (ended) return;
          ended = true;
          heartbeat?.stop();
          events.closed({ code, reason });
        };
        socket.addEventListener("message", (event: MessageEvent) => {
          if (ended) return;
          heartbeat?.heard();
          if (typeof event.data !== "string") return socket.close(1003, "text frames only");
          if (event.data === PONG_FRAME) return;
          events.message(event.data);
        });
        socket.addEventListener("close", (event: CloseEvent) => {
          if (!opened) reject(new Error(`could not connect to ${url} (${event.code})`));
          end(event.code, event.reason);
        });
        const onOpen = (): void => {
          opened = true;
          heartbeat = startHeartbeat({
            ...(options.heartbeatIntervalMs === undefined ? {} : { intervalMs: options.heartbeatIntervalMs }),
            ping: () => socket.send(PING_FRAME),
            silent: () => {
              end(1006, "heartbeat timeout");
              // The socket is left to close in the background; nothing it says is heard any more.
              socket.close(4000, "heartbeat timeout");
            },
          });
          resolve(connection);
        };
        // An early socket may be open already.
        if (socket.readyState === WebSocket.OPEN) onOpen();
        else socket.addEventListener("open", onOpen);
      });
    },
  };
}
