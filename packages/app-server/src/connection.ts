/**
 * One WebSocket connection: its role once initialized, its subscriptions, and its bounded send
 * queue. The queue counts frames handed to the socket whose write has not completed, and the bytes
 * the socket still buffers (`ws.bufferedAmount`). At either limit the connection is saturated: new
 * requests are refused with -32001 `overloaded`, subscriptions stop reading the log, and if it stays
 * saturated for `slow_consumer_timeout_ms` the connection is closed with 4008 (the client resumes by
 * seq; the log loses nothing).
 *
 * The server pings each connection every heartbeat interval; one that answered neither that ping nor
 * with any frame by the next one is terminated, so a half-open connection (a peer gone without a
 * close) ends within two intervals and its agent's presence goes false.
 */
import { CLOSE_CODES, encodeJsonRpc, startHeartbeat, type Heartbeat, jsonRpcNotification, type JsonObject, type JsonRpcMessage, type ServerLimits } from "@lineup/protocol";
import type { WebSocket } from "ws";
import type { Logger } from "./logger.js";
import type { ServerMetrics } from "./metrics.js";
import { ProgramOrder } from "./program-order.js";
import type { Principal } from "./store/principals.js";
import type { Subscription } from "./subscriptions.js";

let nextConnectionId = 1;

/** A frame of the current burst waiting to leave in a batch, and how many messages it holds. */
interface HeldFrame {
  readonly frame: string;
  readonly items: number;
}

/** The socket under the WebSocket: held (corked) while a burst of frames is written. */
export interface Corkable {
  cork(): void;
  uncork(): void;
}

export interface ConnectionStats {
  readonly id: number;
  readonly role: string | undefined;
  readonly principal: string | undefined;
  readonly framesInFlight: number;
  readonly bufferedAmount: number;
  readonly saturated: boolean;
  readonly subscriptions: number;
}

export class Connection {
  readonly id = nextConnectionId++;
  principal: Principal | undefined;
  clientName: string | undefined;
  /** The client sent `initialized`. */
  handshakeComplete = false;
  /** Set while `initialize` looks the token up: the frames after it wait, then are handled in order. */
  initializing: Promise<void> | undefined;
  readonly subscriptions = new Map<string, Subscription>();
  /** The order in which this connection's requests take effect. */
  readonly order = new ProgramOrder();
  private framesInFlight = 0;
  private slowTimer: NodeJS.Timeout | undefined;
  private closing = false;
  private readonly drainListeners = new Set<() => void>();
  private readonly logger: Logger;
  private readonly heartbeat: Heartbeat;

  /** Called by the socket once a frame is written (one function for every frame). */
  private readonly frameWritten = (error?: Error | null) => {
    this.framesInFlight--;
    if (error !== undefined && error !== null) return;
    if (!this.saturated) this.drained();
  };

  /** Frames sent in one burst (a commit's answers and fan-out) are held and leave in one write (see sendEncoded). */
  private corked = false;
  private readonly uncork = () => {
    this.corked = false;
    if (this.held.length > 0) this.sendHeld();
    this.socket.uncork();
  };
  /** The client's `receive_batches`, within the server's own limits: a burst's messages then leave as batch frames. */
  private batches: { readonly maxBatch: number; readonly maxBytes: number } | undefined;
  /** The current burst's frames, held until it ends, when the client takes batches. */
  private held: HeldFrame[] = [];

  constructor(
    private readonly ws: WebSocket,
    private readonly socket: Corkable,
    private readonly limits: ServerLimits,
    logger: Logger,
    private readonly metrics: ServerMetrics,
    heartbeatIntervalMs: number,
  ) {
    this.logger = logger.child({ connection: this.id });
    this.heartbeat = startHeartbeat({
      intervalMs: heartbeatIntervalMs,
      ping: () => this.ws.ping(),
      silent: () => {
        this.logger.warn("closing a connection that stopped answering pings", { principal: this.principal?.key });
        this.metrics.heartbeatTimeouts.inc();
        this.closing = true;
        this.stopSlowTimer();
        this.ws.terminate();
      },
    });
    ws.on("pong", this.markHeard);
    ws.on("ping", this.markHeard);
  }

  /** Anything from the peer shows it is there. */
  readonly markHeard = (): void => this.heartbeat.heard();

  get role() {
    return this.principal?.role;
  }

  get open(): boolean {
    return !this.closing && this.ws.readyState === this.ws.OPEN;
  }

  get saturated(): boolean {
    return this.framesInFlight >= this.limits.send_queue_limit_frames || this.ws.bufferedAmount >= this.limits.send_queue_limit_bytes;
  }

  /** Called whenever the queue has room again (subscriptions resume reading the log). */
  onDrain(listener: () => void): () => void {
    this.drainListeners.add(listener);
    return () => this.drainListeners.delete(listener);
  }

  send(message: JsonRpcMessage | readonly JsonRpcMessage[]): void {
    this.sendEncoded(encodeJsonRpc(message), Array.isArray(message) ? message.length : 1);
  }

  /**
   * From the client's `receive_batches` (in `initialized`): the messages of each burst leave as batch frames within its
   * limits and the server's own `max_batch` and `max_message_bytes`.
   */
  receiveBatches(limits: { readonly max_batch: number; readonly max_message_bytes: number }): void {
    const maxBatch = Math.min(limits.max_batch, this.limits.max_batch);
    this.batches = maxBatch < 2 ? undefined : { maxBatch, maxBytes: Math.min(limits.max_message_bytes, this.limits.max_message_bytes) };
  }

  /** Sends a frame already encoded (a notification encoded once for many connections); `items`: the messages in it. */
  sendEncoded(frame: string, items = 1): void {
    if (!this.open) return;
    // A commit answers many requests and fans out many events at once: the socket is corked until
    // the promise jobs of this turn have run (a microtask that queues a tick runs after all of them),
    // so the burst leaves in one writev instead of one system call per frame, still in this turn.
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      queueMicrotask(() => process.nextTick(this.uncork));
    }
    this.framesInFlight++;
    // A client that takes batches gets the burst's messages in as few frames as its limits allow: a browser
    // hands each frame to the page on its own, at a cost per frame.
    if (this.batches !== undefined) this.held.push({ frame, items });
    else this.ws.send(frame, this.frameWritten);
    if (this.saturated) this.startSlowTimer();
  }

  /** The held burst as batch frames, in order: consecutive frames joined while the limits allow, a frame past them alone. */
  private sendHeld(): void {
    const frames = this.held;
    this.held = [];
    if (!this.open) return;
    const { maxBatch, maxBytes } = this.batches!;
    let group: HeldFrame[] = [];
    let items = 0;
    let bytes = 2;
    const flush = (): void => {
      if (group.length === 1) this.ws.send(group[0]!.frame, this.frameWritten);
      else if (group.length > 1) {
        // A frame that is itself a batch (the answer to a batch request) gives its messages, not its brackets.
        const text = `[${group.map(({ frame }) => (frame.startsWith("[") ? frame.slice(1, -1) : frame)).join(",")}]`;
        const joined = group.length;
        this.ws.send(text, (error) => {
          this.framesInFlight -= joined - 1;
          this.frameWritten(error);
        });
      }
      group = [];
      items = 0;
      bytes = 2;
    };
    for (const held of frames) {
      const size = Buffer.byteLength(held.frame) + 1;
      if (group.length > 0 && (items + held.items > maxBatch || bytes + size > maxBytes)) flush();
      group.push(held);
      items += held.items;
      bytes += size;
    }
    flush();
  }

  /** Sends a session event's frame (counted as fanned out). */
  sendEvent(frame: string): void {
    if (!this.open) return;
    this.metrics.eventsFannedOut.inc();
    this.sendEncoded(frame);
  }

  notify(method: string, params: JsonObject): void {
    this.send(jsonRpcNotification(method, params));
  }

  close(code: number, reason: string): void {
    if (this.closing) return;
    // What this burst already sent goes before the close frame.
    if (this.held.length > 0) this.sendHeld();
    this.closing = true;
    this.stopSlowTimer();
    this.ws.close(code, reason);
    // A peer that does not read never completes the closing handshake.
    setTimeout(() => this.ws.terminate(), 1_000).unref();
  }

  /** Forget timers and listeners; the socket is gone. */
  dispose(): void {
    this.closing = true;
    this.heartbeat.stop();
    this.stopSlowTimer();
    this.drainListeners.clear();
    for (const sub of this.subscriptions.values()) sub.stop();
    this.subscriptions.clear();
  }

  stats(): ConnectionStats {
    return {
      id: this.id,
      role: this.principal?.role,
      principal: this.principal?.key,
      framesInFlight: this.framesInFlight,
      bufferedAmount: this.ws.bufferedAmount,
      saturated: this.saturated,
      subscriptions: this.subscriptions.size,
    };
  }

  private drained(): void {
    this.stopSlowTimer();
    for (const listener of [...this.drainListeners]) {
      try {
        listener();
      } catch (error) {
        this.logger.error("drain listener failed", { error: error instanceof Error ? error.message : String(error) });
      }
      if (this.saturated) break;
    }
  }

  private startSlowTimer(): void {
    if (this.slowTimer !== undefined || this.closing) return;
    this.slowTimer = setTimeout(() => {
      this.slowTimer = undefined;
      if (!this.saturated) return;
      this.metrics.slowConsumers.inc();
      this.logger.warn("closing a slow consumer", { principal: this.principal?.key, bufferedAmount: this.ws.bufferedAmount });
      this.close(CLOSE_CODES.slow_consumer, "slow consumer: resume by seq");
    }, this.limits.slow_consumer_timeout_ms);
    this.slowTimer.unref();
  }

  private stopSlowTimer(): void {
    if (this.slowTimer !== undefined) clearTimeout(this.slowTimer);
    this.slowTimer = undefined;
  }
}
