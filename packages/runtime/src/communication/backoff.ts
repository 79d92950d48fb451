/**
 * The Runtime's reconnect policy: the protocol package's one backoff curve with full jitter (delay anywhere
 * in [0, min(cap, base·2^attempt))), so many devices reconnecting after a server restart spread out instead
 * of arriving together. The randomness comes from the injected IdSource, so a test replays the same delays.
 */
import { backoffDelay as curveDelay } from "@lineup/protocol";

export interface BackoffPolicy {
  /** First ceiling, ms. Default 250. */
  readonly baseMs?: number;
  /** Largest ceiling, ms. Default 30 000. */
  readonly capMs?: number;
  /** Consecutive failed attempts after which the Runtime reports `offline_degraded`. Default 5. */
  readonly degradedAfter?: number;
}

export const DEFAULT_BACKOFF: Required<BackoffPolicy> = { baseMs: 250, capMs: 30_000, degradedAfter: 5 };

/** The delay before reconnect attempt number `attempt` (0 for the first retry). */
export function backoffDelay(attempt: number, random: () => number, policy: BackoffPolicy = {}): number {
  const { baseMs, capMs } = { ...DEFAULT_BACKOFF, ...policy };
  return curveDelay(attempt, random(), { initialMs: baseMs, maxMs: capMs, jitter: "full" });
}
