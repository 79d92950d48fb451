/**
 * The loop's pipeline: the next turn is read and computed while the turn ahead of it commits, through
 * that turn's staged writes; nothing is published before its own commit; a failed commit throws away
 * the turn computed on top of it, whose inputs run again from the committed state.
 */
import { describe, expect, it } from "vitest";
import { loopOn, messageEvent } from "./helpers/loop-fixtures.js";
import type { RuntimeInput } from "../src/coordination/inputs.js";
import fc from "fast-check";
import { collapseWrites, Overlay } from "../src/coordination/loop.js";
import type { RuntimeState } from "../src/coordination/state.js";
import { inboxKey, listPendingMessageIds } from "../src/persistence/inbox.js";
import { RUNTIME_COLLECTIONS as C } from "../src/persistence/runtime-schema.js";
import { createMemoryStore, RUNTIME_SCHEMA, StoreError, type RuntimeStore, type StoreKeyRef, type StoreWrite } from "../src/index.js";

/** A store whose commits wait for the test: a batch becomes visible to reads only when released. */
async function gatedStore() {
  const inner = await createMemoryStore(RUNTIME_SCHEMA);
  const waiting: { batch: readonly StoreWrite[]; release(): Promise<void>; fail(error: StoreError): void }[] = [];
  const reads: StoreKeyRef[][] = [];
  const store: RuntimeStore = {
    ...inner,
    getMany(keys) {
      reads.push([...keys]);
      return inner.getMany(keys);
    },
    commit(batch) {
      return new Promise<void>((resolve, reject) => {
        waiting.push({
          batch,
          async release() {
            await inner.commit(batch);
            resolve();
          },
          fail: reject,
        });
      });
    },
  };
  return { store, waiting, reads, inner };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 5));


describe("loop pipeline", () => {
  it("reads and computes the next turn while a commit is in flight, through its writes, and publishes each turn only after its own commit", async () => {
    const gated = await gatedStore();
    const published: RuntimeState[] = [];
    const loop = loopOn(gated.store, { onState: (next) => published.push(next) });
    const settled: string[] = [];
    const first = loop.post(messageEvent(4, "e-1")).then(() => settled.push("event 4"));
    await settle();
    expect(gated.waiting).toHaveLength(1);

    // Posted while turn 1 commits: the acknowledge needs s-1:4, which only turn 1's staged writes hold.
    const second = Promise.all([
      loop.post(messageEvent(5, "e-2")).then(() => settled.push("event 5")),
      loop.post({ kind: "acknowledge", app_scope: "chat", message_ids: ["s-1:4"] }).then(() => settled.push("ack 4")),
    ]);
    await settle();
    // Turn 2 has been read already: every key it needs (the log chunk, s-1:4's inbox and pending rows)
    // was answered from turn 1's staged writes, or is known absent behind them, so the store was asked
    // only for the pending row, which turn 1 did not write.
    expect(gated.reads).toHaveLength(2);
    const turn2Reads = gated.reads[1]!.map((ref) => `${ref.collection} ${ref.key}`);
    expect(turn2Reads).toEqual([`${C.inboxPending} ${inboxKey("chat", "s-1", 4)}`]);
    // … but its commit waits for turn 1's, and nothing is published or settled yet.
    expect(gated.waiting).toHaveLength(1);
    expect(published).toHaveLength(0);
    expect(settled).toEqual([]);

    await gated.waiting[0]!.release();
    await first;
    await settle();
    expect(published.map((s) => s.conversations.get("s-1")?.cursor)).toEqual([4]);
    expect(settled).toEqual(["event 4"]);
    expect(gated.waiting).toHaveLength(2);

    await gated.waiting[1]!.release();
    await second;
    expect(published.map((s) => s.conversations.get("s-1")?.cursor)).toEqual([4, 5]);
    expect(loop.turns).toBe(2);
    // What a reader of the store observes: both messages stored, s-1:4 acknowledged, s-1:5 still pending.
    expect(await gated.inner.get(C.inbox, inboxKey("chat", "s-1", 4))).toMatchObject({ message_id: "s-1:4" });
    expect(await listPendingMessageIds(gated.inner)).toEqual(["s-1:5"]);
    expect(await gated.inner.get(C.cursors, "s-1")).toEqual({ seq: 5, active_at: "2026-11-30T06:00:00.000Z" });
    await loop.close();
  });

  it("a failed commit throws away the turn computed on top of it: its inputs run again from the committed state", async () => {
    const gated = await gatedStore();
    const published: RuntimeState[] = [];
    const loop = loopOn(gated.store, { onState: (next) => published.push(next) });
    const event = loop.post(messageEvent(4, "e-1"));
    await settle();
    // Computed on top of turn 1, this acknowledge succeeds; once turn 1 fails it must be not_found.
    const ack = loop.post({ kind: "acknowledge", app_scope: "chat", message_ids: ["s-1:4"] });
    await settle();
    gated.waiting[0]!.fail(new StoreError("store_write_failed", "disk full"));
    await expect(event).rejects.toMatchObject({ code: "store_write_failed" });
    await expect(ack).rejects.toMatchObject({ code: "not_found" });
    // The acknowledge ran again as a turn of its own that wrote nothing; the state is the one before turn 1.
    expect(gated.waiting).toHaveLength(1);
    expect(loop.state.conversations.get("s-1")?.cursor).toBe(3);
    expect(published.map((s) => s.conversations.get("s-1")?.cursor)).toEqual([3]);
    expect(await gated.inner.range(C.inbox)).toEqual([]);
    expect(await gated.inner.range(C.audit)).toEqual([]);

    // The log flows on from the committed state: event 4 again is accepted and stored.
    const again = loop.post(messageEvent(4, "e-1"));
    await settle();
    await gated.waiting.at(-1)!.release();
    await again;
    expect(await gated.inner.get(C.inbox, inboxKey("chat", "s-1", 4))).toMatchObject({ message_id: "s-1:4" });
    expect(loop.state.conversations.get("s-1")?.cursor).toBe(4);
    await loop.close();
  });
});

describe("loop cache of collections only it writes", () => {
  it("answers reads of a committed log chunk from memory, and its duplicate check with it", async () => {
    const gated = await gatedStore();
    const loop = loopOn(gated.store, { cachedCollections: [C.logChunks] });
    const commitNext = async (input: RuntimeInput) => {
      const settled = loop.post(input);
      await settle();
      await gated.waiting.at(-1)!.release();
      await settled;
    };
    await commitNext(messageEvent(4, "e-1"));
    // The first turn read the chunk from the store; the next ones do not.
    expect(gated.reads.flat().filter((ref) => ref.collection === C.logChunks)).toHaveLength(1);
    await commitNext(messageEvent(5, "e-2"));
    await commitNext(messageEvent(6, "e-1"));
    expect(gated.reads.flat().filter((ref) => ref.collection === C.logChunks)).toHaveLength(1);
    // e-1 again was refused from the cached chunk, and the store holds what the cache said.
    expect(await gated.inner.get(C.inbox, inboxKey("chat", "s-1", 6))).toBeUndefined();
    expect(await gated.inner.get(C.inbox, inboxKey("chat", "s-1", 5))).toMatchObject({ message_id: "s-1:5" });
    expect((await gated.inner.range(C.audit)).map(({ value }) => (value as { code?: string }).code)).toEqual(["duplicate_message"]);
    await loop.close();
  });
});

describe("collapseWrites", () => {
  it("keeps only the last write of each key, in order, for small and large batches alike", () => {
    fc.assert(
      fc.property(fc.array(fc.record({ op: fc.constantFrom("put" as const, "delete" as const), collection: fc.constantFrom("a", "b"), key: fc.constantFrom("1", "2", "3", "4", "5", "6", "7", "8", "9") }), { maxLength: 60 }), (raw) => {
        const writes: StoreWrite[] = raw.map((w, i) => (w.op === "put" ? { op: "put", collection: w.collection, key: w.key, value: i } : { op: "delete", collection: w.collection, key: w.key }));
        const expected = writes.filter((w, i) => !writes.slice(i + 1).some((later) => (later as { key: string }).key === (w as { key: string }).key && later.collection === w.collection));
        expect(collapseWrites(writes)).toEqual(expected);
      }),
    );
  });
});

describe("loop overlay", () => {
  it("answers as the store will: last write wins, a range delete removes what was staged before it", () => {
    const overlay = new Overlay();
    overlay.stage({ op: "put", collection: C.inbox, key: "chat/s-1/1", value: { n: 1 } });
    overlay.stage({ op: "put", collection: C.inbox, key: "board/s-1/1", value: { n: 2 } });
    overlay.stage({ op: "deleteRange", collection: C.inbox, range: { prefix: "chat/" } });
    overlay.stage({ op: "put", collection: C.inbox, key: "chat/s-1/2", value: { n: 3 } });
    overlay.stage({ op: "delete", collection: C.inbox, key: "board/s-1/1" });
    expect(overlay.lookup({ collection: C.inbox, key: "chat/s-1/1" })).toEqual({ value: undefined });
    expect(overlay.lookup({ collection: C.inbox, key: "chat/s-1/9" })).toEqual({ value: undefined });
    expect(overlay.lookup({ collection: C.inbox, key: "chat/s-1/2" })).toEqual({ value: { n: 3 } });
    expect(overlay.lookup({ collection: C.inbox, key: "board/s-1/1" })).toEqual({ value: undefined });
    // Another collection, or a key outside the range, is not the overlay's to answer.
    expect(overlay.lookup({ collection: C.inboxPending, key: "chat/s-1/1" })).toBeUndefined();
    expect(overlay.lookup({ collection: C.inbox, key: "board/s-1/2" })).toBeUndefined();
  });

  it("gives the same answers searched write by write (small turns) as indexed (large ones), against a model", () => {
    const collections = [C.inbox, C.inboxPending];
    const keys = ["chat/1", "chat/2", "chat/10", "board/1", "board/2"];
    const write = fc.oneof(
      fc.record({ op: fc.constant("put" as const), collection: fc.constantFrom(...collections), key: fc.constantFrom(...keys), value: fc.integer() }),
      fc.record({ op: fc.constant("delete" as const), collection: fc.constantFrom(...collections), key: fc.constantFrom(...keys) }),
      fc.record({ op: fc.constant("deleteRange" as const), collection: fc.constantFrom(...collections), range: fc.record({ prefix: fc.constantFrom("chat/", "board/", "chat/1") }) }),
    );
    fc.assert(
      fc.property(fc.array(write, { maxLength: 80 }), (writes) => {
        const overlay = new Overlay();
        // The model: the last write that touches a key (a range touches every key in it) decides.
        const model = new Map<string, { value: unknown }>();
        for (const w of writes) {
          overlay.stage(w.op === "put" ? { ...w, value: { n: w.value } } : w);
          if (w.op === "deleteRange") {
            for (const key of keys) if (key.startsWith(w.range.prefix)) model.set(`${w.collection}|${key}`, { value: undefined });
          } else model.set(`${w.collection}|${w.key}`, { value: w.op === "put" ? { n: w.value } : undefined });
        }
        for (const collection of collections) {
          for (const key of keys) expect(overlay.lookup({ collection, key })).toEqual(model.get(`${collection}|${key}`));
        }
      }),
      { numRuns: 300 },
    );
  });
});
