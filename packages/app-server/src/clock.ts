/** Time and ids, injected so tests can pin them. */
import { randomUUID } from "node:crypto";

export interface Clock {
  /** RFC 3339 UTC timestamp. */
  now(): string;
  /** Milliseconds, for timers. */
  nowMs(): number;
}

export const systemClock: Clock = {
  now: () => new Date().toISOString(),
  nowMs: () => Date.now(),
};

export interface IdSource {
  /** A new opaque id with a readable prefix (`s-…`, `t-…`). */
  next(prefix: string): string;
}

export const randomIds: IdSource = { next: (prefix) => `${prefix}-${randomUUID()}` };
