/**
 * The platform defaults of the Clock and IdSource ports: the one core file allowed to touch the real
 * clock, timers and randomness (the platform-neutral test allows exactly this file).
 */
import type { Clock, IdSource } from "./ports.js";

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(ms, fn) {
    const handle = setTimeout(fn, ms);
    return () => clearTimeout(handle);
  },
};

/**
 * Ids `<prefix>-<time base36>-<counter base36>-<16 random hex>`: sortable within a run, unique across runs.
 * The random part is drawn once per source: time and counter already tell ids of one run apart, and
 * nothing uses these ids as secrets (bridge nonces and tokens have their own randomness).
 */
export function createSystemIds(): IdSource {
  let counter = 0;
  const bytes = new Uint8Array(8);
  globalThis.crypto.getRandomValues(bytes);
  const run = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return {
    next(prefix) {
      counter += 1;
      return `${prefix}-${Date.now().toString(36)}-${counter.toString(36)}-${run}`;
    },
    random: () => Math.random(),
  };
}
