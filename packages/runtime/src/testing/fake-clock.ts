import type { Clock } from "../core/ports.js";

/** A Clock that moves only when told: `advance(ms)` fires due timers in time order. */
export interface FakeClock extends Clock {
  advance(ms: number): void;
  /** Timers not yet fired or cancelled. */
  readonly pendingTimers: number;
}

export function createFakeClock(startMs = Date.UTC(2026, 10, 30, 6, 0, 0)): FakeClock {
  let now = startMs;
  let nextId = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => now,
    setTimer(ms, fn) {
      const id = nextId++;
      timers.set(id, { at: now + Math.max(0, ms), fn });
      return () => {
        timers.delete(id);
      };
    },
    advance(ms) {
      const until = now + ms;
      for (;;) {
        let due: [number, { at: number; fn: () => void }] | undefined;
        for (const entry of timers) if (entry[1].at <= until && (due === undefined || entry[1].at < due[1].at)) due = entry;
        if (due === undefined) break;
        timers.delete(due[0]);
        now = Math.max(now, due[1].at);
        due[1].fn();
      }
      now = until;
    },
    get pendingTimers() {
      return timers.size;
    },
  };
}
