/**
 * The Transport port (ARCHITECTURE 4): text frames to and from one peer. The WebSocket adapters live in
 * `node/` and `browser/`; an in-memory pair in `testing/`.
 */
import type { Unsubscribe } from "../core/emitter.js";

export interface Transport {
  /**
   * Opens a connection to `url`. Resolves once frames can be sent; rejects with an Error when the peer
   * cannot be reached (the caller retries with backoff).
   */
  open(url: string): Promise<TransportConnection>;
}

/** Why a connection ended: `code`/`reason` as the peer or the adapter reported them. */
export interface TransportClose {
  readonly code: number;
  readonly reason: string;
}

export interface TransportConnection {
  /** Queues one text frame. After close, frames are dropped (a closed connection has no one to deliver to). */
  send(text: string): void;
  /** Every inbound text frame, in order. */
  onMessage(listener: (text: string) => void): Unsubscribe;
  /** Called once when the connection ends, whoever ended it. A listener added after the close is called at once. */
  onClose(listener: (close: TransportClose) => void): Unsubscribe;
  /** Ends the connection; idempotent. Close listeners run. */
  close(code?: number, reason?: string): void;
}
