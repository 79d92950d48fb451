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
 * The time limit of a test doing `work` units (runs, runs × commands, kills), given `quickLimitMs`, the
 * limit that holds for its `npm test` size of `quickWork` units: the same time per unit, never less.
 */
export function timeLimitFor(work: number, quickWork: number, quickLimitMs: number): number {
  return Math.max(quickLimitMs, Math.ceil((quickLimitMs * work) / quickWork));
}
