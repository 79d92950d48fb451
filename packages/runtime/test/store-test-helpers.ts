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

export { seededRandom } from "../../../test/support/seeded-random.js";
