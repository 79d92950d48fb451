import { StoreError, isStoreError, type StoreErrorCode } from "./store-error.js";
import type { RuntimeStore, StoreWrite } from "./store.js";

export interface GroupCommitOptions {
  /**
   * Most writes merged into one commit (default 1000). A single submitted batch larger than this still
   * commits whole and alone: splitting it would break its atomicity.
   */
  maxBatchWrites?: number;
}

export interface GroupCommitter {
  /**
   * Queues `batch` for the next commit. Batches submitted while a commit is in flight are merged, in
   * submit order, into the next single `store.commit`. Resolves only once the commit holding this batch
   * has resolved (is durable); rejects with that commit's StoreError otherwise, in which case nothing of
   * that merged commit was applied for anyone. The committer owns `batch` from here on: do not mutate it
   * until the promise settles.
   */
  submit(batch: readonly StoreWrite[]): Promise<void>;
}

interface Submission {
  readonly batch: readonly StoreWrite[];
  resolve(): void;
  reject(error: unknown): void;
}

/** Errors that belong to one submitter's bad input, not to the engine. */
const INPUT_ERRORS: ReadonlySet<StoreErrorCode> = new Set(["store_invalid_key", "store_invalid_value", "store_unknown_collection"]);

/**
 * Group commit: throughput under load from many inputs per transaction, with every submitter keeping
 * full durability. One commit is in flight at a time; merged commits are issued in submit order.
 */
export function createGroupCommitter(store: Pick<RuntimeStore, "commit">, options: GroupCommitOptions = {}): GroupCommitter {
  const maxBatchWrites = options.maxBatchWrites ?? 1000;
  if (!(Number.isSafeInteger(maxBatchWrites) && maxBatchWrites > 0)) {
    throw new StoreError("store_invalid_value", `maxBatchWrites must be a positive integer, got ${String(maxBatchWrites)}`);
  }
  const queue: Submission[] = [];
  let draining = false;

  const takeGroup = (): Submission[] => {
    const group = [queue.shift()!];
    let writes = group[0]!.batch.length;
    while (queue.length > 0 && writes + queue[0]!.batch.length <= maxBatchWrites) {
      const next = queue.shift()!;
      writes += next.batch.length;
      group.push(next);
    }
    return group;
  };

  const drain = async (): Promise<void> => {
    try {
      while (queue.length > 0) await commitGroup(store, takeGroup());
    } finally {
      draining = false;
    }
  };

  return {
    submit(batch) {
      if (!Array.isArray(batch)) {
        return Promise.reject(new StoreError("store_invalid_value", "a batch must be an array of writes"));
      }
      return new Promise<void>((resolve, reject) => {
        queue.push({ batch, resolve, reject });
        if (!draining) {
          draining = true;
          // Start on a microtask rather than now, so that a burst submitted in one tick shares the first
          // commit instead of the first submitter committing alone.
          void Promise.resolve().then(drain);
        }
      });
    },
  };
}

async function commitGroup(store: Pick<RuntimeStore, "commit">, group: readonly Submission[]): Promise<void> {
  try {
    await store.commit(group.flatMap((submission) => submission.batch));
    for (const submission of group) submission.resolve();
  } catch (error) {
    if (group.length > 1 && isStoreError(error) && INPUT_ERRORS.has(error.code)) {
      // One submitter's bad key or value must not fail everyone merged with it. The merged commit
      // applied nothing, so committing each batch alone, still in order, is what would have happened
      // without grouping.
      for (const submission of group) await commitGroup(store, [submission]);
      return;
    }
    for (const submission of group) submission.reject(error);
  }
}
