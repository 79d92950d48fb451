import { StoreError } from "./store-error.js";
import type { RuntimeStore } from "./store.js";

export type InjectedFaultCode = "store_write_failed" | "store_quota_exceeded";

export interface FaultPlan {
  /** Which commit fails first, counting from 1 from when the plan is installed. */
  readonly failAt: number;
  /** Default `store_write_failed`. */
  readonly code?: InjectedFaultCode;
  /** `once` (default): only that commit fails. `persistent`: it and every later commit fail until `clearFaults()`. */
  readonly mode?: "once" | "persistent";
}

export interface FaultyStore extends RuntimeStore {
  /** Commits attempted through this wrapper, failed ones included. */
  readonly commitCount: number;
  /** Replaces the current plan; its `failAt` counts from now. */
  injectFaults(plan: FaultPlan): void;
  /** Every later commit goes through to the wrapped store. */
  clearFaults(): void;
}

/**
 * Wraps a store so that chosen commits fail the way a full or failing disk makes them fail: rejected with
 * a StoreError and nothing applied (the wrapped store never sees them). Reads and close pass through.
 * For tests of the reliability paths; never used on a production path.
 */
export function withFaults(store: RuntimeStore, plan?: FaultPlan): FaultyStore {
  let commitCount = 0;
  let active: { failAt: number; code: InjectedFaultCode; persistent: boolean } | undefined;

  const injectFaults = (next: FaultPlan): void => {
    if (!(Number.isSafeInteger(next.failAt) && next.failAt >= 1)) {
      throw new StoreError("store_invalid_value", `failAt must be a positive integer, got ${String(next.failAt)}`);
    }
    active = { failAt: commitCount + next.failAt, code: next.code ?? "store_write_failed", persistent: next.mode === "persistent" };
  };
  if (plan !== undefined) injectFaults(plan);

  return {
    get commitCount() {
      return commitCount;
    },
    injectFaults,
    clearFaults() {
      active = undefined;
    },
    commit(batch) {
      commitCount += 1;
      const fault = active;
      if (fault !== undefined && (commitCount === fault.failAt || (fault.persistent && commitCount > fault.failAt))) {
        if (!fault.persistent) active = undefined;
        return Promise.reject(new StoreError(fault.code, `injected fault on commit #${commitCount}`));
      }
      return store.commit(batch);
    },
    get: (collection, key) => store.get(collection, key),
    getMany: (keys) => store.getMany(keys),
    range: (collection, query) => store.range(collection, query),
    count: (collection, range) => store.count(collection, range),
    close: () => store.close(),
  };
}
