/**
 * Group commit. Writes are queued; the queue is flushed on the next turn of the event loop as ONE
 * SQLite transaction holding every write that arrived meanwhile (while a transaction runs the loop
 * is blocked, so everything that arrives during it lands in the next one). Each write runs in its
 * own savepoint: a write that throws is undone alone and the others still commit.
 *
 * Per write the queue adds two statements (SAVEPOINT, RELEASE), prepared once: the batch's
 * BEGIN/COMMIT are shared, which is the point of group commit.
 *
 * Nothing is acknowledged and no event is fanned out before the transaction commits: promises
 * settle and `onCommitted` runs only after `COMMIT` returned (with `synchronous=FULL`, after fsync).
 * If the commit itself fails, every write of the batch fails with `store_write_failed` and no
 * event is published; so does the whole batch when the store rolls the transaction back under a
 * write (disk full, I/O error) — the writes after it must not go on in autocommit mode. After a
 * commit: events are fanned out, then the kept writes' `afterCommit` hooks run, then promises settle.
 */
import { LineUpError, type JsonObject, type SessionEvent, type SessionEventKind } from "@lineup/protocol";
import type { Clock } from "./clock.js";
import type { Logger } from "./logger.js";
import type { Db } from "./store/database.js";
import { appendEvent, type Actor } from "./store/log.js";
import { stmt } from "./store/statements.js";

/** What a write sees inside the transaction. */
export interface WriteContext {
  readonly db: Db;
  /** One timestamp per transaction. */
  readonly now: string;
  /** Appends an event (next seq of the session); it is published only if the transaction commits. */
  append(sessionId: string, kind: SessionEventKind, actor: Actor, data: JsonObject): SessionEvent;
  /** Runs `fn` in a nested savepoint: if it throws, its writes, events and hooks are undone and the error rethrown. */
  savepoint<T>(fn: () => T): T;
  /** Runs `fn` after the transaction committed (after its events were fanned out), unless this write is undone. */
  afterCommit(fn: () => void): void;
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

/** What one savepoint level produced; merged into its parent when it is released. */
interface Frame {
  readonly events: SessionEvent[];
  readonly hooks: Array<() => void>;
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
    const db = this.db;
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    const committed: Frame = { events: [], hooks: [] };
    const now = this.clock.now();
    const savepointStmt = stmt(db, "SAVEPOINT lineup_write");
    const releaseStmt = stmt(db, "RELEASE lineup_write");
    const rollbackToStmt = stmt(db, "ROLLBACK TO lineup_write");
    let frames: Frame[] = [];
    const savepoint = <T>(fn: () => T): T => {
      frames.push({ events: [], hooks: [] });
      savepointStmt.run();
      try {
        const value = fn();
        releaseStmt.run();
        const frame = frames.pop()!;
        const parent = frames[frames.length - 1]!;
        parent.events.push(...frame.events);
        parent.hooks.push(...frame.hooks);
        return value;
      } catch (error) {
        frames.pop();
        if (error instanceof TransactionLost) throw error;
        // SQLite may have rolled the whole transaction back already (SQLITE_FULL, I/O error).
        if (!db.inTransaction) throw new TransactionLost(error);
        rollbackToStmt.run();
        releaseStmt.run();
        throw error;
      }
    };
    const ctx: WriteContext = {
      db,
      now,
      append: (sessionId, kind, actor, data) => {
        const event = appendEvent(db, sessionId, kind, actor, data, now);
        frames[frames.length - 1]!.events.push(event);
        return event;
      },
      savepoint,
      afterCommit: (fn) => void frames[frames.length - 1]!.hooks.push(fn),
    };
    try {
      stmt(db, "BEGIN IMMEDIATE").run();
      try {
        for (const item of batch) {
          const own: Frame = { events: [], hooks: [] };
          frames = [own];
          try {
            outcomes.push({ ok: true, value: savepoint(() => item.op(ctx)) });
            committed.events.push(...own.events);
            committed.hooks.push(...own.hooks);
          } catch (error) {
            if (error instanceof TransactionLost) throw error.cause;
            outcomes.push({ ok: false, error });
          }
        }
        stmt(db, "COMMIT").run();
      } catch (error) {
        if (db.inTransaction) stmt(db, "ROLLBACK").run();
        throw error;
      }
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
      this.onCommitted(committed.events);
    } catch (error) {
      this.logger.error("fan-out failed", { error: describe(error) });
    }
    for (const hook of committed.hooks) {
      try {
        hook();
      } catch (error) {
        this.logger.error("after-commit hook failed", { error: describe(error) });
      }
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }
}

/** The transaction itself is gone: the batch cannot go on in autocommit mode. */
class TransactionLost extends Error {
  constructor(override readonly cause: unknown) {
    super("the write transaction was rolled back by the store");
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
