/**
 * Time and identity are injected into the core (ARCHITECTURE 3), so every behaviour can be replayed in a
 * test: nothing in the core reads a clock, draws a random number or starts a timer except through these.
 */

/** Wall time and timers. */
export interface Clock {
  /** Milliseconds since the Unix epoch. Never goes backwards within one Clock. */
  now(): number;
  /**
   * Calls `fn` once after at least `ms` milliseconds. Returns a cancel function; cancelling after the
   * timer fired, or twice, does nothing.
   */
  setTimer(ms: number, fn: () => void): () => void;
}

/** Fresh identifiers and the randomness the core needs (backoff jitter). */
export interface IdSource {
  /**
   * A new id that starts with `prefix` and matches the opaque id grammar (`[A-Za-z0-9][A-Za-z0-9._:~-]*`),
   * unique for the life of the device (so it can serve as an idempotency key across restarts).
   */
  next(prefix: string): string;
  /** A number in [0, 1) for jitter; deterministic in tests. */
  random(): number;
}

/** The last instant formatted: the inputs of one turn, and the records of one input, share their millisecond. */
let lastTimestamp: { ms: number; text: string } = { ms: Number.NaN, text: "" };

/** RFC 3339 UTC with milliseconds, from a Clock reading (formatting a given instant, never reading the clock). */
export function toTimestamp(ms: number): string {
  if (ms !== lastTimestamp.ms) lastTimestamp = { ms, text: new globalThis.Date(ms).toISOString() };
  return lastTimestamp.text;
}
