/**
 * The agent's side of ordered writes (docs/app-server-protocol.md section 6, `after_key`): per
 * session, the writes the agent issued and that have not settled yet, in issue order.
 *
 * Program order on one connection does not survive a retry or a reconnect: a write refused with
 * `overloaded`, timed out or lost with its connection goes again after the writes issued behind it.
 * So every attempt names the nearest earlier write of its session that is still unsettled; the
 * server refuses it (`predecessor_pending`, nothing stored) until that one has an outcome. The
 * writes still leave at once, pipelined: on a healthy connection each one's predecessor is ahead
 * of it on the wire and already applied when its turn comes.
 *
 * No I/O and no timers: the client asks for the predecessor before each attempt, reports each
 * attempt sent and the settlement, and waits on `Predecessor.moved` after `predecessor_pending`.
 */

/** The write an attempt names in `after_key`. */
export interface Predecessor {
  /** Its idempotency key. */
  readonly key: string;
  /**
   * Resolves once that write was sent again or settled after the attempt named it (at once when it
   * already was), or when `signal` aborts. Sending earlier would only be refused again.
   */
  moved(signal?: AbortSignal): Promise<void>;
}

/** One write of a session, from issue until it settles. */
export class PendingWrite {
  private attempts = 0;
  private done = false;
  private readonly movers = new Set<() => void>();

  constructor(
    readonly key: string,
    private readonly line: PendingWrite[],
    private readonly onSettle: () => void,
  ) {}

  /**
   * The nearest earlier unsettled write of the session, recomputed for every attempt: one that
   * settled (even without an outcome on the server) no longer holds this one back. A write issued
   * twice with one key never names itself.
   */
  predecessor(): Predecessor | undefined {
    for (let i = this.line.indexOf(this) - 1; i >= 0; i--) {
      const earlier = this.line[i]!;
      if (earlier.key !== this.key) return earlier.asPredecessor();
    }
    return undefined;
  }

  /** An attempt of this write left on the wire: the writes refused behind it may go again. */
  sent(): void {
    this.attempts++;
    this.wake();
  }

  /** Resolved or failed for good: leaves the order for good. Idempotent. */
  settle(): void {
    if (this.done) return;
    this.done = true;
    this.line.splice(this.line.indexOf(this), 1);
    this.onSettle();
    this.wake();
  }

  private asPredecessor(): Predecessor {
    const seen = this.attempts;
    return {
      key: this.key,
      moved: (signal) =>
        new Promise<void>((resolve) => {
          if (this.done || this.attempts > seen || signal?.aborted === true) return resolve();
          const finish = (): void => {
            this.movers.delete(finish);
            signal?.removeEventListener("abort", finish);
            resolve();
          };
          this.movers.add(finish);
          signal?.addEventListener("abort", finish, { once: true });
        }),
    };
  }

  private wake(): void {
    for (const finish of [...this.movers]) finish();
  }
}

/** Every session's unsettled writes, in issue order. */
export class WriteOrder {
  private readonly lines = new Map<string, PendingWrite[]>();

  /** Registers a write behind every unsettled write of its session; call in the order the agent issues them. */
  issue(sessionId: string, key: string): PendingWrite {
    let line = this.lines.get(sessionId);
    if (line === undefined) this.lines.set(sessionId, (line = []));
    const owner = line;
    const write = new PendingWrite(key, owner, () => {
      if (owner.length === 0 && this.lines.get(sessionId) === owner) this.lines.delete(sessionId);
    });
    line.push(write);
    return write;
  }

  /** The keys of the session's unsettled writes, oldest first. */
  pending(sessionId: string): readonly string[] {
    return (this.lines.get(sessionId) ?? []).map((w) => w.key);
  }
}
