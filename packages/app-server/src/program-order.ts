/**
 * Program order per connection: the requests of one connection take effect in the order they were
 * sent, pipelined or not. A request "takes effect" when
 * - a write (a method with `write: true` in the catalogue) is queued for group commit — the queue is
 *   FIFO and every check of a write runs inside its transaction, so it sees every earlier queued
 *   write of any connection, committed or in the same transaction;
 * - a read runs — and a read runs only after every earlier write of its connection has committed (or
 *   failed), so it sees them.
 * A request that arrives while an earlier read is waiting waits behind it, and a write waits until every
 * earlier read of its connection has finished (a read's query is asynchronous on PostgreSQL: run at once,
 * a later write could commit before the query ran), so a read never sees a later write of its own
 * connection. Independent pipelined writes are never held back: they queue at once and share group
 * commits.
 *
 * Nothing here orders requests of different connections: between connections, a write is visible
 * to a read once it has been acknowledged.
 */
export type Access = "read" | "write";

interface Waiting {
  readonly access: Access;
  readonly go: () => void;
}

export class ProgramOrder {
  /** Requests that arrived behind a waiting read, oldest first. */
  private readonly waiting: Waiting[] = [];
  /** Writes of this connection queued and not yet settled. */
  private unsettledWrites = 0;
  /** Asynchronous reads of this connection running and not yet settled. */
  private unsettledReads = 0;
  private readonly readSettled = (): void => {
    this.unsettledReads--;
    if (this.unsettledReads === 0) this.release();
  };
  /** One function for every write's settlement (no closure per write). */
  private readonly writeSettled = (): void => {
    this.unsettledWrites--;
    if (this.unsettledWrites === 0) this.release();
  };

  /**
   * Runs `fn` (a handler) when its turn comes: at once when nothing earlier holds it back,
   * otherwise later, with its outcome (or its throw) delivered through the returned promise.
   */
  run<T>(access: Access, fn: () => T | Promise<T>): T | Promise<T> {
    if (this.waiting.length === 0 && this.mayRun(access)) return this.execute(access, fn);
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({
        access,
        go: () => {
          try {
            resolve(this.execute(access, fn));
          } catch (error) {
            reject(error);
          }
        },
      });
      this.release();
    });
  }

  /** How many requests wait for their turn (for stats and tests). */
  get backlog(): number {
    return this.waiting.length;
  }

  /** A read waits for earlier writes to settle; a write for earlier reads. */
  private mayRun(access: Access): boolean {
    return access === "read" ? this.unsettledWrites === 0 : this.unsettledReads === 0;
  }

  private execute<T>(access: Access, fn: () => T | Promise<T>): T | Promise<T> {
    const outcome = fn();
    if (outcome instanceof Promise) {
      if (access === "write") {
        this.unsettledWrites++;
        outcome.then(this.writeSettled, this.writeSettled);
      } else {
        this.unsettledReads++;
        outcome.then(this.readSettled, this.readSettled);
      }
    }
    return outcome;
  }

  /** Lets waiting requests go, in order, up to the first that still has to wait (`mayRun`). */
  private release(): void {
    while (this.waiting.length > 0) {
      const next = this.waiting[0]!;
      if (!this.mayRun(next.access)) return;
      this.waiting.shift();
      next.go();
    }
  }
}
