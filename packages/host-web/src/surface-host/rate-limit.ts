/**
 * A token bucket for messages from a sandboxed app: `burst` messages at once, refilled at `perSecond`.
 * Pure apart from the injected clock, so its arithmetic is tested directly.
 */
export interface RateLimit {
  readonly perSecond: number;
  readonly burst: number;
}

export interface TokenBucket {
  /** Takes one token; false when the app is over its rate (the message is refused). */
  take(): boolean;
}

export function createTokenBucket(limit: RateLimit, now: () => number): TokenBucket {
  let tokens = limit.burst;
  let last = now();
  return {
    take() {
      const t = now();
      tokens = Math.min(limit.burst, tokens + ((t - last) / 1000) * limit.perSecond);
      last = t;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
  };
}
