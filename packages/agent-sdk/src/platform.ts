/**
 * Time, ids and randomness are injected (ARCHITECTURE.md section 3), so reconnect backoff, tool
 * call timeouts and every id the agent writes can be replayed in a test.
 */

export type TimerHandle = unknown;

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** Fresh opaque ids (grammar: `[A-Za-z0-9][A-Za-z0-9._:~-]*`, ≤ 128). */
export interface IdSource {
  /** A new id, unique for the life of the agent; `prefix` makes logs readable. */
  next(prefix: string): string;
}

/** A number in [0, 1); jitter only. */
export type Random = () => number;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};

/** UUID-based ids from WebCrypto (Node 20 and browsers both have `crypto.randomUUID`). */
export const randomIds: IdSource = {
  next: (prefix) => `${prefix}-${globalThis.crypto.randomUUID()}`,
};

/** Deterministic ids for tests and replays: `<prefix>-<n>`. */
export function sequentialIds(start = 1): IdSource {
  let n = start;
  return { next: (prefix) => `${prefix}-${n++}` };
}

export function isoTimestamp(clock: Clock): string {
  return new Date(clock.now()).toISOString();
}
