import { expect } from "vitest";
import { StoreError, type StoreErrorCode } from "../src/index.js";

/** Awaits `promise`, expects it to reject with a StoreError of `code`, and returns that error. */
export async function expectStoreError(promise: Promise<unknown>, code: StoreErrorCode): Promise<StoreError> {
  const outcome = await promise.then(
    (value: unknown) => ({ resolved: value }),
    (error: unknown) => ({ rejected: error }),
  );
  if (!("rejected" in outcome)) throw new Error(`expected a rejection with ${code}, but it resolved with ${JSON.stringify(outcome.resolved)}`);
  expect(outcome.rejected).toBeInstanceOf(StoreError);
  expect((outcome.rejected as StoreError).code).toBe(code);
  return outcome.rejected as StoreError;
}

/** mulberry32: a tiny seeded PRNG, so "random" test schedules replay identically. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
