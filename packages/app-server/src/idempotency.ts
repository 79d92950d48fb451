/**
 * Idempotent writes (RELIABILITY R3, Stripe-style):
 * - same principal + key + body → the first stored outcome, replayed (a stored failure too);
 * - same key + different body → `idempotency_conflict`, nothing written;
 * - concurrent duplicates coalesce on the in-flight write and execute once.
 *
 * The outcome record is written in the same transaction as the write's effects, so an acknowledged
 * outcome and its events are durable together, and a crashed, unacknowledged write left no record
 * and is executed on retry. Refusals of the operation itself (non-retryable codes) are stored;
 * retryable failures are not, so a retry may succeed. The record's primary key is the arbiter
 * across server processes too: on PostgreSQL a second process inserting the same key waits for the
 * first one's transaction, then finds the key taken and replays its outcome.
 */
import { ERROR_CODES, LineUpError, type JsonObject, type JsonValue, type ProtocolError } from "@lineup/protocol";
import { canonicalJsonOfMembers } from "./json-text.js";
import { sha256Hex, type Principal } from "./store/principals.js";
import type { Awaitable } from "./store/sql.js";
import type { WriteContext, WriteQueue } from "./write-queue.js";

type Outcome = { readonly ok: true; readonly result: JsonValue } | { readonly ok: false; readonly error: ProtocolError };

interface StoredRecord {
  readonly body_sha256: string;
  readonly outcome: string;
}

/**
 * SHA-256 of the canonical JSON of the method and params without `idempotency_key` and `after_key`:
 * `canonicalJson({ method, params: body })`. Neither is part of the body: a retry may chain to another
 * predecessor, or to none, and is still the same request. The members' canonical JSON is remembered
 * (json-text.ts): the event the write appends reuses it.
 */
export function bodyFingerprint(method: string, params: { readonly idempotency_key: string; readonly after_key?: string }): string {
  const { idempotency_key: _key, after_key: _after, ...body } = params as unknown as JsonObject;
  // canonicalJson({ method, params: body }): "method" sorts before "params".
  return sha256Hex(`{"method":${JSON.stringify(method)},"params":${canonicalJsonOfMembers(body)}}`);
}

function replay(outcome: Outcome): JsonValue {
  if (outcome.ok) return outcome.result;
  throw new LineUpError(outcome.error.code, outcome.error.message, outcome.error.path === undefined ? undefined : { path: outcome.error.path });
}

function conflict(key: string): LineUpError {
  return new LineUpError("idempotency_conflict", `idempotency key ${key} was used with a different request`);
}

function asStorableFailure(error: unknown): ProtocolError | undefined {
  if (!(error instanceof LineUpError)) return undefined;
  return ERROR_CODES[error.code].retryable ? undefined : error.toProtocolError();
}

async function hasRecord(ctx: WriteContext, principal: Principal, key: string): Promise<boolean> {
  return (await ctx.db.get("SELECT 1 FROM idempotency WHERE principal = ? AND idempotency_key = ?", [principal.key, key])) !== undefined;
}

function storedRecord(ctx: WriteContext, principal: Principal, key: string): Awaitable<StoredRecord | undefined> {
  return ctx.db.get<StoredRecord>("SELECT body_sha256, outcome FROM idempotency WHERE principal = ? AND idempotency_key = ?", [principal.key, key]);
}

/** The stored outcome of the key, or `idempotency_conflict` when it was stored for another body. */
function storedOutcome(stored: StoredRecord, fingerprint: string, key: string): Outcome {
  if (stored.body_sha256 !== fingerprint) throw conflict(key);
  return JSON.parse(stored.outcome) as Outcome;
}

export class IdempotentWrites {
  private readonly inflight = new Map<string, { fingerprint: string; promise: Promise<JsonValue> }>();

  constructor(private readonly writes: WriteQueue) {}

  /** Concurrent duplicates share the in-flight promise; the same key with another body while in flight is a conflict. */
  private coalesce(principal: Principal, key: string, fingerprint: string, start: () => Promise<Outcome>): Promise<JsonValue> {
    const slot = `${principal.key}\n${key}`;
    const inflight = this.inflight.get(slot);
    if (inflight !== undefined) return inflight.fingerprint === fingerprint ? inflight.promise : Promise.reject(conflict(key));
    const promise = start().then(
      (outcome) => {
        this.inflight.delete(slot);
        return replay(outcome);
      },
      (error: unknown) => {
        this.inflight.delete(slot);
        throw error;
      },
    );
    // Set before the write can settle: the queue commits on a later turn of the event loop.
    this.inflight.set(slot, { fingerprint, promise });
    return promise;
  }

  /**
   * Runs `write` once for (principal, params.idempotency_key). Everything runs inside the
   * group-commit transaction, in queue order, so it sees every write queued before it: first
   * `precheck` (visibility: a refusal there stores nothing, so a caller learns nothing by a key),
   * then the stored outcome (replayed, or `idempotency_conflict` for another body), then the
   * predecessor named by `params.after_key` (no stored outcome → `predecessor_pending`, nothing
   * stored), then `write`. (Without `after_key` the stored outcome is looked up by inserting the new
   * record after `write`; when the key is taken, `write` is undone, so the effect is the order above.)
   * Throwing a LineUpError from `write` refuses it and undoes its effects; a non-retryable refusal
   * is stored and replayed like a success.
   */
  run<P extends { readonly idempotency_key: string; readonly after_key?: string }>(
    principal: Principal,
    method: string,
    params: P,
    write: (ctx: WriteContext) => Promise<unknown>,
    precheck?: (ctx: WriteContext) => Promise<void>,
  ): Promise<JsonValue> {
    const key = params.idempotency_key;
    if (params.after_key === key) return Promise.reject(new LineUpError("invalid_params", "after_key names this write itself: it must name an earlier write", { path: "/after_key" }));
    const fingerprint = bodyFingerprint(method, params);
    return this.coalesce(principal, key, fingerprint, () =>
      this.writes.submit(async (ctx): Promise<Outcome> => {
        await precheck?.(ctx);
        const after = params.after_key;
        if (after !== undefined && !(await hasRecord(ctx, principal, after))) {
          const stored = await storedRecord(ctx, principal, key);
          if (stored !== undefined) return storedOutcome(stored, fingerprint, key);
          throw new LineUpError("predecessor_pending", `the write with idempotency key ${after} has no outcome yet: send it first, then this one again`, { path: "/after_key" });
        }
        // Optimistic: a key is almost always new, so the write runs first and the record's INSERT is
        // the lookup. When the key is taken (a retry, or a duplicate earlier in this transaction),
        // the write is undone and the stored outcome decides — as if it had been read first.
        let outcome: Outcome;
        try {
          outcome = { ok: true, result: (await write(ctx)) as JsonValue };
        } catch (error) {
          const failure = asStorableFailure(error);
          // Undone first: after a failed statement PostgreSQL reads nothing more in the savepoint.
          await ctx.rollback();
          if (failure === undefined) {
            const stored = await storedRecord(ctx, principal, key);
            if (stored === undefined) throw error;
            return storedOutcome(stored, fingerprint, key);
          }
          outcome = { ok: false, error: failure };
        }
        const inserted = await ctx.db.run("INSERT INTO idempotency (principal, idempotency_key, method, body_sha256, outcome, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING", [
          principal.key,
          key,
          method,
          fingerprint,
          JSON.stringify(outcome),
          ctx.now,
        ]);
        if (inserted.changes === 1) return outcome;
        await ctx.rollback();
        return storedOutcome((await storedRecord(ctx, principal, key))!, fingerprint, key);
      }),
    );
  }
}
