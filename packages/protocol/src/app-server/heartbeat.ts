/**
 * The client's end of the WebSocket heartbeat (docs/app-server-protocol.md, "Heartbeat"): every
 * interval, a peer heard from since the last tick (any frame, ping or pong) is pinged; one silent for a
 * whole interval is given up on, so a half-open connection ends within two intervals instead of
 * waiting for TCP. Platform-neutral: the adapter gives it the socket's ping and its way to end.
 */

/** The default interval of both ends, ms. */
export const DEFAULT_HEARTBEAT_INTERVAL_MS = 15_000;

export interface HeartbeatOptions {
  readonly intervalMs?: number;
  /** Sends a WebSocket ping. */
  readonly ping: () => void;
  /** The peer stayed silent through a whole interval: end the connection (without waiting for the peer). */
  readonly silent: () => void;
}

export interface Heartbeat {
  /** Call on every frame, ping and pong from the peer. */
  heard(): void;
  stop(): void;
}

export function startHeartbeat(options: HeartbeatOptions): Heartbeat {
  let heard = true;
  const timer = setInterval(() => {
    if (!heard) {
      clearInterval(timer);
      options.silent();
      return;
    }
    heard = false;
    options.ping();
  }, options.intervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS);
  // A heartbeat never keeps a process alive on its own.
  (timer as { unref?: () => void }).unref?.();
  return {
    heard: () => void (heard = true),
    stop: () => clearInterval(timer),
  };
}
