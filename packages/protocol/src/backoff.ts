/**
 * The one retry curve of LineUp's clients: exponential growth from `initialMs` by `factor`, capped at
 * `maxMs`, with jitter so many clients that lost the same peer do not come back in lockstep.
 * - `"full"`: anywhere in [0, ceiling) — the widest spread (the Runtime's reconnects to its AppServer);
 * - `"equal"`: half the ceiling fixed, half random — never sooner than half (the agent SDK's reconnects
 *   and its model-provider retries).
 */
export interface BackoffOptions {
  /** The first ceiling, ms. Default 250. */
  readonly initialMs?: number;
  /** The largest ceiling, ms. Default 10 000. */
  readonly maxMs?: number;
  /** Growth per attempt. Default 2. */
  readonly factor?: number;
  /** Default `"equal"`. */
  readonly jitter?: "full" | "equal";
}

/** The delay before retry number `attempt` (0-based); `random` is in [0, 1). Pure. */
export function backoffDelay(attempt: number, random: number, options: BackoffOptions = {}): number {
  const initial = options.initialMs ?? 250;
  const max = options.maxMs ?? 10_000;
  const factor = options.factor ?? 2;
  const ceiling = Math.min(max, initial * factor ** Math.max(0, Math.min(attempt, 60)));
  const r = Math.min(Math.max(random, 0), 1);
  return options.jitter === "full" ? Math.floor(r * ceiling) : Math.round(ceiling / 2 + (ceiling / 2) * r);
}
