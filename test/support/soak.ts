/**
 * The two sizes of the seeded property, model and crash tests: a quick one in `npm test` and a long one
 * under `LINEUP_SOAK=1` (`npm run test:soak`). A test that grows by ten needs ten times the time, so its
 * time limit is derived from the work it is given, not left at Vitest's default.
 */

/** Whether this run is the soak. */
export const SOAK = process.env["LINEUP_SOAK"] === "1";

/** `quick` in `npm test`, `soak` under LINEUP_SOAK=1. */
export function soakSized<T>(quick: T, soak: T): T {
  return SOAK ? soak : quick;
}

/**
 * How much more time per unit a soak gets than `npm test`: a soak runs for many minutes on a shared machine,
 * where the load changes under it (the S1 model's 10,000 runs took 171 s on one busy 2-core machine and more
 * than 400 s on another, against 11 s for its 1,000).
 */
const SOAK_HEADROOM = 4;

/**
 * The time limit of a test doing `work` units (runs, runs × commands, kills), given `quickLimitMs`, the
 * limit that holds for its `npm test` size of `quickWork` units: the same time per unit (`SOAK_HEADROOM`
 * times as much under the soak), never less.
 */
export function timeLimitFor(work: number, quickWork: number, quickLimitMs: number): number {
  return Math.max(quickLimitMs, Math.ceil((quickLimitMs * work * (SOAK ? SOAK_HEADROOM : 1)) / quickWork));
}
