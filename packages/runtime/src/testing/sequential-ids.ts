import type { IdSource } from "../core/ports.js";

/** Ids `<prefix>-<run>-<n>` and a seeded random stream: the same seed replays the same run. */
export function createSequentialIds(options: { run?: string; seed?: number } = {}): IdSource {
  let n = 0;
  let state = (options.seed ?? 1) >>> 0 || 1;
  const run = options.run ?? "r0";
  return {
    next(prefix) {
      n += 1;
      return `${prefix}-${run}-${n}`;
    },
    random() {
      // xorshift32
      state ^= state << 13;
      state >>>= 0;
      state ^= state >>> 17;
      state ^= state << 5;
      state >>>= 0;
      return state / 0x1_0000_0000;
    },
  };
}
