/**
 * Group commit. Writes are queued; the queue is flushed on the next turn of the event loop as ONE
 * transaction holding every write that arrived meanwhile, and one batch at a time: everything that
 * arrives while a transaction runs lands in the next one. (On SQLite the statements answer
 * synchronously, so a transaction never yields to the event loop; on PostgreSQL it does, and the
 * queue fills meanwhile.) Each write is undone alone when it throws: the others still commit.
 *
 * How a write is undone alone: a batch first runs in the fast mode, every write straight in the
 * transaction. Only when a write throws (or asks to undo itself, `rollback`) is the whole
 * transaction rolled back and the batch run again in the safe mode, each write in its own savepoint
 * (SAVEPOINT, RELEASE — two statements per write). Either way the committed outcome is the one the
 * safe mode gives: the fast mode only commits when every write went through untouched. After a
 * batch needed the safe mode, the next few batches start in it (writes that throw come in runs).
 *
 * Nothing is acknowledged and no event is fanned out before the transaction commits: promises
 * settle and `onCommitted` runs only after `COMMIT` returned (with `synchronous=FULL`, after fsync).
 * If the commit itself fails, every write of the batch fails with `store_write_failed` and no
 * event is published; so does the whole batch when the store rolls the transaction back under a
 * write (disk full, I/O error) — the writes after it must not go on in autocommit mode. When
 * PostgreSQL aborts the transaction because another server process holds what it needs (a deadlock
 * on two sessions' rows), the batch runs again from the start, a few times, before it fails. After a
 * commit: events are fanned out, then the kept writes' `afterCommit` hooks run, then promises settle.
 */
import { LineUpError, SpanKind, endSpan, recordingSpan, startSpan, type JsonObject, type SessionEvent, type SessionEventKind, type Span } from "@lineup/protocol";
import type { Clock } from "./clock.js";
import type { Logger } from "./logger.js";
import { appendEvent, deferEventInserts, dropHeads, pendingHead, setPendingHead, writeHeads, type Actor, type PendingHead } from "./store/log.js";
import { sessionBindingsCommitted, sessionBindingsRolledBack } from "./store/sessions.js";
import type { Db } from "./store/sql.js";

/** What a write sees inside the transaction. */
export interface WriteContext {
  readonly db: Db;
  /** One timestamp per transaction. */
  readonly now: string;
  /** Appends an event (next seq of the session); it is published only if the transaction commits. */
  append(sessionId: string, kind: SessionEventKind, actor: Actor, data: JsonObject): Promise<SessionEvent>;
  /** Runs `fn` in a nested savepoint: if it throws, its writes, events and hooks are undone and the error rethrown. */
  savepoint<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Undoes what the current savepoint (the write's own, outside any nested one) did so far — its
   * statements, events and hooks — and goes on in it: cheaper than a nested savepoint when the
   * undo is the rare path (the idempotency step). After a failed statement, PostgreSQL takes no
   * other statement in the savepoint before this.
   */
  rollback(): Promise<void>;
  /** Runs `fn` after the transaction committed (after its events were fanned out), unless this write is undone. */
  afterCommit(fn: () => void): void;
}

export type WriteOp<T> = (ctx: WriteContext) => Promise<T> | T;

interface Pending {
  readonly op: WriteOp<unknown>;
  /** The span of the request that queued it, when traces are recorded. */
  readonly span: Span | undefined;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

export interface WriteQueueStats {
  readonly transactions: number;
  readonly writes: number;
  readonly largestBatch: number;
  /** Batches that ran again in the safe mode (a write threw or undid itself in the fast mode). */
  readonly safeReruns: number;
  /** Writes waiting for the next transaction. */
  readonly queued: number;
  /** Batches that ran again from the start after the store aborted their transaction (a deadlock between processes). */
  readonly retries: number;
}

/** What one savepoint level produced; merged into its parent when it is released. */
interface Frame {
  readonly events: SessionEvent[];
  readonly hooks: Array<() => void>;
}

/** A savepoint level of the safe mode: also the session heads it moved, with their values before. */
interface SafeFrame extends Frame {
  readonly heads: Array<readonly [string, PendingHead | undefined]>;
}

const newFrame = (): SafeFrame => ({ events: [], hooks: [], heads: [] });

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Batches that start in the safe mode after one needed it. */
const SAFE_MODE_BATCHES = 8;

/** Runs of one batch when the store keeps aborting its transaction (PostgreSQL deadlocks). */
const MAX_ATTEMPTS = 5;

export class WriteQueue {
  private pending: Pending[] = [];
  private scheduled = false;
  /** The batch being written (PostgreSQL: across turns of the event loop), if any. */
  private running: Promise<void> | undefined;
  private closed = false;
  private transactions = 0;
  private writes = 0;
  private largestBatch = 0;
  private safeReruns = 0;
  private retries = 0;
  /** Batches still to run in the safe mode from the start. */
  private safeBatches = 0;
  private readonly flushNow = () => {
    this.scheduled = false;
    this.running = this.flush().finally(() => {
      this.running = undefined;
      if (this.pending.length > 0) this.schedule();
    });
  };

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly onCommitted: (events: readonly SessionEvent[]) => void,
    private readonly logger: Logger,
    /** Told how long each committed transaction took to run and commit, seconds. */
    private readonly observeCommit: (seconds: number) => void = () => undefined,
  ) {}

  /** Queues a write; settles after its transaction committed (or failed). */
  submit<T>(op: WriteOp<T>): Promise<T> {
    if (this.closed) return Promise.reject(new LineUpError("store_write_failed", "the server is shutting down"));
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ op, span: recordingSpan(), resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  stats(): WriteQueueStats {
    return { transactions: this.transactions, writes: this.writes, largestBatch: this.largestBatch, safeReruns: this.safeReruns, retries: this.retries, queued: this.pending.length };
  }

  /** Refuses new writes, then commits what is queued. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.running !== undefined || this.pending.length > 0) {
      if (this.running === undefined) this.flushNow();
      await this.running;
    }
  }

  private schedule(): void {
    if (this.scheduled || this.running !== undefined) return;
    this.scheduled = true;
    setImmediate(this.flushNow);
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    const now = this.clock.now();
    const started = performance.now();
    // The transaction's span: a child of the first write's request, linked to the others' (a no-op without a provider).
    const traced = batch.filter((item) => item.span !== undefined).map((item) => item.span!);
    const span = startSpan("store.commit", { kind: SpanKind.INTERNAL, attributes: () => ({ "lineup.writes": batch.length }), ...(traced.length === 0 ? {} : { parent: traced[0]!, links: traced.slice(1) }) });
    let run: { outcomes: Outcome[]; committed: Frame } | undefined;
    for (let attempt = 1; run === undefined; attempt++) {
      try {
        if (this.safeBatches > 0) {
          this.safeBatches--;
        } else {
          run = await this.runFast(batch, now);
          if (run === undefined) {
            this.safeReruns++;
            this.safeBatches = SAFE_MODE_BATCHES;
          }
        }
        run ??= await this.runSafe(batch, now);
      } catch (error) {
        if (this.db.transient(error) && attempt < MAX_ATTEMPTS) {
          this.retries++;
          continue;
        }
        this.logger.error("write transaction failed", { error: describe(error), writes: batch.length });
        const failure = new LineUpError("store_write_failed", "the write could not be stored; nothing of it was applied", { cause: error });
        endSpan(span, failure);
        for (const item of batch) item.reject(failure);
        return;
      }
    }
    endSpan(span);
    this.observeCommit((performance.now() - started) / 1000);
    this.transactions++;
    this.writes += batch.length;
    this.largestBatch = Math.max(this.largestBatch, batch.length);
    try {
      this.onCommitted(run.committed.events);
    } catch (error) {
      this.logger.error("fan-out failed", { error: describe(error) });
    }
    for (const hook of run.committed.hooks) {
      try {
        hook();
      } catch (error) {
        this.logger.error("after-commit hook failed", { error: describe(error) });
      }
    }
    const outcomes = run.outcomes;
    for (let i = 0; i < batch.length; i++) {
      const outcome = outcomes[i]!;
      if (outcome.ok) batch[i]!.resolve(outcome.value);
      else batch[i]!.reject(outcome.error);
    }
  }

  /**
   * Every write straight in the transaction, committed only if none threw or undid itself;
   * otherwise the transaction is rolled back and undefined returned (the batch goes to `runSafe`).
   * Throws when the transaction itself failed.
   */
  private async runFast(batch: readonly Pending[], now: string): Promise<{ outcomes: Outcome[]; committed: Frame } | undefined> {
    const db = this.db;
    const committed: Frame = { events: [], hooks: [] };
    const outcomes: Outcome[] = [];
    // A write that wants a savepoint (or to undo itself) leaves the fast mode; the flag holds even if
    // the write catches what is thrown here.
    let needsSavepoints = false;
    const fallBack = (): never => {
      needsSavepoints = true;
      throw new SafeModeNeeded();
    };
    const ctx: WriteContext = {
      db,
      now,
      append: async (sessionId, kind, actor, data) => {
        const event = await appendEvent(db, sessionId, kind, actor, data, now);
        committed.events.push(event);
        return event;
      },
      savepoint: async () => fallBack(),
      rollback: async () => fallBack(),
      afterCommit: (fn) => void committed.hooks.push(fn),
    };
    dropHeads(db);
    // No savepoint in this mode, so the events can wait and go in together (PostgreSQL: one round trip).
    deferEventInserts(db, true);
    await db.begin();
    try {
      for (const item of batch) {
        outcomes.push({ ok: true, value: await item.op(ctx) });
        if (needsSavepoints) throw new SafeModeNeeded();
      }
    } catch (error) {
      deferEventInserts(db, false);
      // The store may have rolled the whole transaction back already (SQLITE_FULL, I/O error), or
      // aborted it for a deadlock: then the batch fails (or runs again); otherwise it runs again in the safe mode.
      const lost = !db.inTransaction || db.transient(error);
      await this.rollbackAll();
      if (lost) throw error instanceof SafeModeNeeded ? new Error("the write transaction was rolled back by the store") : error;
      return undefined;
    }
    try {
      await this.commit();
    } finally {
      deferEventInserts(db, false);
    }
    return { outcomes, committed };
  }

  /** Each write in its own savepoint: a write that throws is undone alone. Throws when the transaction itself failed. */
  private async runSafe(batch: readonly Pending[], now: string): Promise<{ outcomes: Outcome[]; committed: Frame }> {
    const db = this.db;
    const outcomes: Outcome[] = [];
    const committed: Frame = { events: [], hooks: [] };
    let frames: SafeFrame[] = [];
    // Undoing a savepoint undoes the heads it moved and forgets the sessions it saw.
    const undone = (frame: SafeFrame) => {
      for (let i = frame.heads.length - 1; i >= 0; i--) setPendingHead(db, frame.heads[i]![0], frame.heads[i]![1]);
      sessionBindingsRolledBack(db);
    };
    // The store may have rolled the whole transaction back already (SQLITE_FULL, I/O error), or aborted it for a deadlock.
    const lost = (error: unknown) => !db.inTransaction || db.transient(error);
    const savepoint = async <T>(fn: () => Promise<T>): Promise<T> => {
      frames.push(newFrame());
      await db.run("SAVEPOINT lineup_write");
      try {
        const value = await fn();
        await db.run("RELEASE lineup_write");
        const frame = frames.pop()!;
        const parent = frames[frames.length - 1]!;
        parent.events.push(...frame.events);
        parent.hooks.push(...frame.hooks);
        parent.heads.push(...frame.heads);
        return value;
      } catch (error) {
        const frame = frames.pop()!;
        if (error instanceof TransactionLost) throw error;
        if (lost(error)) throw new TransactionLost(error);
        await db.run("ROLLBACK TO lineup_write");
        undone(frame);
        await db.run("RELEASE lineup_write");
        throw error;
      }
    };
    const ctx: WriteContext = {
      db,
      now,
      append: async (sessionId, kind, actor, data) => {
        const before = pendingHead(db, sessionId);
        const event = await appendEvent(db, sessionId, kind, actor, data, now);
        const frame = frames[frames.length - 1]!;
        frame.events.push(event);
        frame.heads.push([sessionId, before]);
        return event;
      },
      savepoint,
      rollback: async () => {
        if (!db.inTransaction) throw new TransactionLost(new Error("the transaction was rolled back by the store"));
        await db.run("ROLLBACK TO lineup_write");
        const frame = frames[frames.length - 1]!;
        undone(frame);
        frame.events.length = 0;
        frame.hooks.length = 0;
        frame.heads.length = 0;
      },
      afterCommit: (fn) => void frames[frames.length - 1]!.hooks.push(fn),
    };
    dropHeads(db);
    await db.begin();
    try {
      for (const item of batch) {
        const own = newFrame();
        frames = [own];
        try {
          outcomes.push({ ok: true, value: await savepoint(async () => item.op(ctx)) });
          committed.events.push(...own.events);
          committed.hooks.push(...own.hooks);
        } catch (error) {
          if (error instanceof TransactionLost) throw error.cause;
          outcomes.push({ ok: false, error });
        }
      }
    } catch (error) {
      await this.rollbackAll();
      throw error;
    }
    await this.commit();
    return { outcomes, committed };
  }

  /** Stores the session heads the batch moved, then commits. */
  private async commit(): Promise<void> {
    try {
      await writeHeads(this.db);
      await this.db.commit();
    } catch (error) {
      await this.rollbackAll();
      throw error;
    }
    sessionBindingsCommitted(this.db);
  }

  /** Ends the transaction without keeping anything (the store may have ended it already). */
  private async rollbackAll(): Promise<void> {
    await this.db.rollback();
    dropHeads(this.db);
    sessionBindingsRolledBack(this.db);
  }
}

/** Thrown inside the fast mode to leave it: the batch runs again with a savepoint per write. */
class SafeModeNeeded extends Error {
  constructor() {
    super("the batch runs again with a savepoint per write");
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
