/**
 * The two sizes of the seeded property, model and crash tests: a quick one in `npm test` and a long one
 * under `LINEUP_SOAK=1` (`npm run test:soak`). A test that grows by ten needs ten times the time, so its
 * time limit is derived from the work it is given, not left at Vitest's default. And the one time factor
 * (`TIME_FACTOR`) by which every wait of a test may last longer under the soak, which runs for an hour on a
 * shared machine whose load changes under it.
 */

/** The environment, where there is one: a contract suite bundled for Chromium (`runSuiteInChromium`) has none. */
const env: Readonly<Record<string, string | undefined>> = typeof process === "undefined" ? {} : process.env;

/** Whether this run is the soak. */
export const SOAK = env["LINEUP_SOAK"] === "1";

/** `quick` in `npm test`, `soak` under LINEUP_SOAK=1. */
export function soakSized<T>(quick: T, soak: T): T {
  return SOAK ? soak : quick;
}

/**
 * How many times longer any wait of a test may last than in `npm test`: Vitest's test and hook limits
 * (vitest.config.ts), the tests' polling waits (`until`, `waitFor`) and the call limits they give back-ends and
 * clients (`slack`). 1 in `npm test`; 4 under the soak (the S1 model's 10,000 runs took 171 s on one busy 2-core
 * machine and more than 400 s on another, against 11 s for its 1,000); `LINEUP_TIME_FACTOR` (a number ≥ 1)
 * replaces either, for a run on a machine known to be loaded. What a test asserts does not change with it.
 */
export const TIME_FACTOR = timeFactor(env["LINEUP_TIME_FACTOR"]);

function timeFactor(raw: string | undefined): number {
  if (raw === undefined || raw === "") return SOAK ? 4 : 1;
  const factor = Number(raw);
  if (!Number.isFinite(factor) || factor < 1) throw new Error(`LINEUP_TIME_FACTOR must be a number ≥ 1, not ${JSON.stringify(raw)}`);
  return factor;
}

/** A time limit of `ms` in `npm test`, `TIME_FACTOR` times longer under the soak. */
export function slack(ms: number): number {
  return Math.ceil(ms * TIME_FACTOR);
}

/**
 * The time limit of a test doing `work` units (runs, runs × commands, kills), given `quickLimitMs`, the
 * limit that holds for its `npm test` size of `quickWork` units: the same time per unit (`TIME_FACTOR`
 * times as much under the soak), never less than `slack(quickLimitMs)`.
 */
export function timeLimitFor(work: number, quickWork: number, quickLimitMs: number): number {
  return slack(Math.max(quickLimitMs, (quickLimitMs * work) / quickWork));
}
