/**
 * One token bucket for every rate the project bounds: `burst` events at once, refilled at `perSecond`. Pure apart
 * from the injected clock (milliseconds), so its arithmetic is tested directly. Used for a sandboxed app's bridge
 * messages, an MCP server's unsolicited messages, and pairing-code guesses per address.
 */
export interface RateLimit {
  readonly perSecond: number;
  readonly burst: number;
}

export interface TokenBucket {
  /** Takes one token; false when over the rate (the event is refused and takes nothing). */
  take(): boolean;
  /** Milliseconds until the next token is available: 0 when one is available now. */
  waitMs(): number;
  /** True when the bucket is full again, so whoever keeps many buckets may forget this one. */
  idle(): boolean;
}

export function createTokenBucket(limit: RateLimit, now: () => number): TokenBucket {
  let tokens = limit.burst;
  let last = now();
  const refill = (): void => {
    const t = now();
    tokens = Math.min(limit.burst, tokens + ((t - last) / 1000) * limit.perSecond);
    last = t;
  };
  return {
    take() {
      refill();
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
    waitMs() {
      refill();
      return tokens >= 1 ? 0 : Math.ceil(((1 - tokens) / limit.perSecond) * 1000);
    },
    idle() {
      refill();
      return tokens >= limit.burst;
    },
  };
}
