/**
 * Group commit. Writes are queued; the queue is flushed on the next turn of the event loop as ONE
 * SQLite transaction holding every write that arrived meanwhile (while a transaction runs the loop
 * is blocked, so everything that arrives during it lands in the next one). Each write runs in its
 * own savepoint: a write that throws is undone alone and the others still commit.
 *
 * Nothing is acknowledged and no event is fanned out before the transaction commits: promises
 * settle and `onCommitted` runs only after `COMMIT` returned (with `synchronous=FULL`, after fsync).
 * If the commit itself fails, every write of the batch fails with `store_write_failed` and no
 * event is published.
 */
import { LineUpError, type JsonObject, type SessionEvent, type SessionEventKind } from "@lineup/protocol";
import type { Clock } from "./clock.js";
import type { Logger } from "./logger.js";
import type { Db } from "./store/database.js";
import { appendEvent, type Actor } from "./store/log.js";

/** What a write sees inside the transaction. */
export interface WriteContext {
  readonly db: Db;
  /** One timestamp per transaction. */
  readonly now: string;
  /** Appends an event (next seq of the session); it is published only if the transaction commits. */
  append(sessionId: string, kind: SessionEventKind, actor: Actor, data: JsonObject): SessionEvent;
  /** Runs `fn` in a nested savepoint: if it throws, its writes and events are undone and the error rethrown. */
  savepoint<T>(fn: () => T): T;
}

export type WriteOp<T> = (ctx: WriteContext) => T;

interface Pending {
  readonly op: WriteOp<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

export interface WriteQueueStats {
  readonly transactions: number;
  readonly writes: number;
  readonly largestBatch: number;
}

export class WriteQueue {
  private pending: Pending[] = [];
  private scheduled = false;
  private closed = false;
  private transactions = 0;
  private writes = 0;
  private largestBatch = 0;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly onCommitted: (events: readonly SessionEvent[]) => void,
    private readonly logger: Logger,
  ) {}

  /** Queues a write; settles after its transaction committed (or failed). */
  submit<T>(op: WriteOp<T>): Promise<T> {
    if (this.closed) return Promise.reject(new LineUpError("store_write_failed", "the server is shutting down"));
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ op, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  stats(): WriteQueueStats {
    return { transactions: this.transactions, writes: this.writes, largestBatch: this.largestBatch };
  }

  /** Commits what is queued, then refuses new writes. */
  close(): void {
    this.flush();
    this.closed = true;
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    const published: SessionEvent[] = [];
    const now = this.clock.now();
    try {
      this.db
        .transaction(() => {
          for (const item of batch) {
            const events: SessionEvent[] = [];
            let frames: SessionEvent[][] = [events];
            const ctx: WriteContext = {
              db: this.db,
              now,
              append: (sessionId, kind, actor, data) => {
                const event = appendEvent(this.db, sessionId, kind, actor, data, now);
                frames[frames.length - 1]!.push(event);
                return event;
              },
              savepoint: <T>(fn: () => T): T => {
                const frame: SessionEvent[] = [];
                frames = [...frames, frame];
                try {
                  const value = this.db.transaction(fn)();
                  frames = frames.slice(0, -1);
                  frames[frames.length - 1]!.push(...frame);
                  return value;
                } catch (error) {
                  frames = frames.slice(0, -1);
                  throw error;
                }
              },
            };
            try {
              outcomes.push({ ok: true, value: ctx.savepoint(() => item.op(ctx)) });
              published.push(...events);
            } catch (error) {
              outcomes.push({ ok: false, error });
            }
          }
        })
        .immediate();
    } catch (error) {
      this.logger.error("write transaction failed", { error: describe(error), writes: batch.length });
      const failure = new LineUpError("store_write_failed", "the write could not be stored; nothing of it was applied", { cause: error });
      for (const item of batch) item.reject(failure);
      return;
    }
    this.transactions++;
    this.writes += batch.length;
    this.largestBatch = Math.max(this.largestBatch, batch.length);
    try {
      this.onCommitted(published);
    } catch (error) {
      this.logger.error("fan-out failed", { error: describe(error) });
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
