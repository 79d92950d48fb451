import { describe, expect, it } from "vitest";
import { createGroupCommitter, createMemoryStore, withFaults, type RuntimeStore, type StoreWrite } from "../src/index.js";
import { expectStoreError } from "./store-test-helpers.js";

const SCHEMA = { collections: ["log"], migrations: [] };
const put = (key: string, value: number): StoreWrite => ({ op: "put", collection: "log", key, value });
const keyOf = (i: number): string => `s${String(i).padStart(3, "0")}`;

/**
 * Holds every commit until the test releases it, recording the batches: the test decides when a commit
 * becomes durable and can check that no submitter was told so earlier.
 */
function gatedStore(inner: RuntimeStore) {
  const batches: StoreWrite[][] = [];
  const waiting: Array<() => Promise<void>> = [];
  const store: RuntimeStore = {
    ...inner,
    commit(batch) {
      batches.push([...batch]);
      return new Promise<void>((resolve, reject) => {
        waiting.push(() => inner.commit(batch).then(resolve, reject));
      });
    },
  };
  /** Lets the oldest held commit reach the inner store, then lets promise callbacks run. */
  const release = async (): Promise<void> => {
    await waiting.shift()!();
    await settle();
  };
  return { store, batches, release, inFlight: () => waiting.length };
}

/** Lets every queued promise callback run (macrotask boundary). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("group commit", () => {
  it("merges 200 concurrent submits into far fewer commits, preserving order", async () => {
    const inner = await createMemoryStore(SCHEMA);
    let commits = 0;
    const counting: RuntimeStore = { ...inner, commit: (batch) => ((commits += 1), inner.commit(batch)) };
    const committer = createGroupCommitter(counting);

    const resolvedOrder: number[] = [];
    await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        committer.submit([put(keyOf(i), i), put("last", i)]).then(() => resolvedOrder.push(i)),
      ),
    );
    expect(commits).toBeLessThanOrEqual(2);
    expect(resolvedOrder).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(await inner.count("log")).toBe(201);
    expect(await inner.get("log", "last")).toBe(199); // the last submit's write applied last
  });

  it("resolves each submitter only after the commit holding its writes is durable", async () => {
    const inner = await createMemoryStore(SCHEMA);
    const gate = gatedStore(inner);
    const committer = createGroupCommitter(gate.store);
    const settled = new Set<number>();
    const submit = (i: number): Promise<void> => committer.submit([put(keyOf(i), i)]).then(() => void settled.add(i));

    const first = submit(0);
    await settle();
    expect(gate.batches).toHaveLength(1); // the first submit commits at once, alone
    const rest = Array.from({ length: 199 }, (_, i) => submit(i + 1));
    await settle();
    expect(gate.inFlight()).toBe(1); // one commit at a time
    expect(settled.size).toBe(0);
    expect(await inner.count("log")).toBe(0);

    await gate.release();
    await first;
    expect([...settled]).toEqual([0]);
    expect(gate.batches).toHaveLength(2); // everything submitted meanwhile, in one commit
    expect(gate.batches[1]!.map((write) => (write as { key: string }).key)).toEqual(Array.from({ length: 199 }, (_, i) => keyOf(i + 1)));
    expect(settled.size).toBe(1);

    await gate.release();
    await Promise.all(rest);
    expect(settled.size).toBe(200);
    expect(await inner.count("log")).toBe(200);
  });

  it("caps merged commits at maxBatchWrites but never splits one submitted batch", async () => {
    const inner = await createMemoryStore(SCHEMA);
    const sizes: number[] = [];
    const committer = createGroupCommitter({ commit: (batch) => (sizes.push(batch.length), inner.commit(batch)) }, { maxBatchWrites: 10 });
    const big = Array.from({ length: 25 }, (_, i) => put(`big${String(i).padStart(2, "0")}`, i));
    await Promise.all([
      ...Array.from({ length: 95 }, (_, i) => committer.submit([put(keyOf(i), i)])),
      committer.submit(big),
      committer.submit([put("after-big", 1)]),
    ]);
    expect(sizes).toContain(25);
    expect(sizes.filter((size) => size !== 25).every((size) => size <= 10)).toBe(true);
    expect(sizes.length).toBeLessThan(20);
    expect(await inner.count("log")).toBe(95 + 25 + 1);
  });

  it("rejects every submitter of a failed commit, applies nothing, and then commits the next ones", async () => {
    const inner = await createMemoryStore(SCHEMA);
    const faulty = withFaults(inner, { failAt: 1, code: "store_write_failed" });
    const committer = createGroupCommitter(faulty);

    const failed = Array.from({ length: 10 }, (_, i) => expectStoreError(committer.submit([put(keyOf(i), i)]), "store_write_failed"));
    await Promise.all(failed);
    expect(faulty.commitCount).toBe(1); // all ten were in the one failed commit
    expect(await inner.count("log")).toBe(0);

    await Promise.all(Array.from({ length: 5 }, (_, i) => committer.submit([put(keyOf(100 + i), i)])));
    expect(await inner.count("log")).toBe(5);
  });

  it("fails only the submitter whose batch is malformed; the others in its group still commit in order", async () => {
    const inner = await createMemoryStore(SCHEMA);
    const committer = createGroupCommitter(inner);
    const results = await Promise.allSettled([
      committer.submit([put("a", 1), put("shared", 1)]),
      committer.submit([put("b", 2), put("bad key\n", 2)]),
      committer.submit([{ op: "put", collection: "unknown", key: "c", value: 3 }]),
      committer.submit([put("d", 4), put("shared", 4)]),
    ]);
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "rejected", "fulfilled"]);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: "store_invalid_key" });
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ code: "store_unknown_collection" });
    expect((await inner.range("log")).map((entry) => entry.key)).toEqual(["a", "d", "shared"]);
    expect(await inner.get("log", "shared")).toBe(4);
  });

  it("passes store_closed to submitters after the store closed", async () => {
    const inner = await createMemoryStore(SCHEMA);
    const committer = createGroupCommitter(inner);
    await inner.close();
    await expectStoreError(committer.submit([put("a", 1)]), "store_closed");
  });
});
