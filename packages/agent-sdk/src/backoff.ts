/**
 * Reconnect delays: exponential backoff with "equal jitter" — half the delay is fixed, half is
 * random — so a fleet of agents that lost the same server does not come back in lockstep.
 */

export interface BackoffOptions {
  /** Delay before the first retry, ms. Default 250. */
  readonly initialMs?: number;
  /** Upper bound of any delay, ms. Default 10 000. */
  readonly maxMs?: number;
  /** Growth per attempt. Default 2. */
  readonly factor?: number;
}

/** The delay before retry number `attempt` (0-based). `random` is in [0, 1). Pure. */
export function backoffDelay(attempt: number, random: number, options: BackoffOptions = {}): number {
  const initial = options.initialMs ?? 250;
  const max = options.maxMs ?? 10_000;
  const factor = options.factor ?? 2;
  const ceiling = Math.min(max, initial * factor ** Math.max(0, Math.min(attempt, 60)));
  return Math.round(ceiling / 2 + (ceiling / 2) * Math.min(Math.max(random, 0), 1));
}
