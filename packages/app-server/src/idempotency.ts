/**
 * Idempotent writes (RELIABILITY R3, Stripe-style):
 * - same principal + key + body → the first stored outcome, replayed (a stored failure too);
 * - same key + different body → `idempotency_conflict`, nothing written;
 * - concurrent duplicates coalesce on the in-flight write and execute once.
 *
 * The outcome record is written in the same transaction as the write's effects, so an acknowledged
 * outcome and its events are durable together, and a crashed, unacknowledged write left no record
 * and is executed on retry. Refusals of the operation itself (non-retryable codes) are stored;
 * retryable failures are not, so a retry may succeed.
 */
import { canonicalJson, ERROR_CODES, LineUpError, type JsonObject, type JsonValue, type ProtocolError } from "@lineup/protocol";
import { sha256Hex, type Principal } from "./store/principals.js";
import { stmt } from "./store/statements.js";
import type { WriteContext, WriteQueue } from "./write-queue.js";

type Outcome = { readonly ok: true; readonly result: JsonValue } | { readonly ok: false; readonly error: ProtocolError };

interface StoredRecord {
  readonly body_sha256: string;
  readonly outcome: string;
}

/** SHA-256 of the canonical JSON of the method and params without `idempotency_key`. */
export function bodyFingerprint(method: string, params: { readonly idempotency_key: string }): string {
  const { idempotency_key: _key, ...body } = params as unknown as JsonObject;
  return sha256Hex(canonicalJson({ method, params: body }));
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

export class IdempotentWrites {
  private readonly inflight = new Map<string, { fingerprint: string; promise: Promise<JsonValue> }>();

  constructor(private readonly writes: WriteQueue) {}

  /**
   * Runs `write` once for (principal, params.idempotency_key). Everything runs inside the
   * group-commit transaction, in queue order, so it sees every write queued before it: first
   * `precheck` (visibility: a refusal there stores nothing, so a caller learns nothing by a key),
   * then the stored outcome (replayed, or `idempotency_conflict` for another body), then `write`.
   * Throwing a LineUpError from `write` refuses it and undoes its effects; a non-retryable refusal
   * is stored and replayed like a success.
   */
  run<P extends { readonly idempotency_key: string }>(
    principal: Principal,
    method: string,
    params: P,
    write: (ctx: WriteContext) => unknown,
    precheck?: (ctx: WriteContext) => void,
  ): Promise<JsonValue> {
    const key = params.idempotency_key;
    const fingerprint = bodyFingerprint(method, params);
    const slot = `${principal.key}\n${key}`;
    const inflight = this.inflight.get(slot);
    if (inflight !== undefined) return inflight.fingerprint === fingerprint ? inflight.promise : Promise.reject(conflict(key));
    const promise = this.writes
      .submit((ctx): Outcome => {
        precheck?.(ctx);
        const stored = stmt(ctx.db, "SELECT body_sha256, outcome FROM idempotency WHERE principal = ? AND idempotency_key = ?").get(principal.key, key) as StoredRecord | undefined;
        if (stored !== undefined) {
          if (stored.body_sha256 !== fingerprint) throw conflict(key);
          return JSON.parse(stored.outcome) as Outcome;
        }
        let outcome: Outcome;
        try {
          outcome = { ok: true, result: ctx.savepoint(() => write(ctx)) as JsonValue };
        } catch (error) {
          const failure = asStorableFailure(error);
          if (failure === undefined) throw error;
          outcome = { ok: false, error: failure };
        }
        stmt(ctx.db, "INSERT INTO idempotency (principal, idempotency_key, method, body_sha256, outcome, created_at) VALUES (?, ?, ?, ?, ?, ?)").run(
          principal.key,
          key,
          method,
          fingerprint,
          JSON.stringify(outcome),
          ctx.now,
        );
        return outcome;
      })
      .then(replay);
    this.inflight.set(slot, { fingerprint, promise });
    const release = () => void this.inflight.delete(slot);
    promise.then(release, release);
    return promise;
  }
}
