/**
 * The loop's batched reads: one `getMany` per turn for every key its inputs need, and the writes
 * staged by earlier inputs of the same turn still win over what was read before the turn.
 */
import { describe, expect, it } from "vitest";
import { loopOn, messageEvent } from "./helpers/loop-fixtures.js";
import type { RuntimeInput } from "../src/coordination/inputs.js";
import { inboxKey, listPendingMessageIds } from "../src/persistence/inbox.js";
import { chunkKey } from "../src/persistence/log-chunks.js";
import { RUNTIME_COLLECTIONS as C } from "../src/persistence/runtime-schema.js";
import { createMemoryStore, RUNTIME_SCHEMA, StoreError, type RuntimeStore, type StoreKeyRef } from "../src/index.js";

/** A memory store that records every read call the loop makes. */
async function recordingStore(failReads?: StoreError): Promise<{ store: RuntimeStore; getManyCalls: StoreKeyRef[][]; gets: number }> {
  const inner = await createMemoryStore(RUNTIME_SCHEMA);
  const recorded = { getManyCalls: [] as StoreKeyRef[][], gets: 0 };
  const store: RuntimeStore = {
    ...inner,
    get(collection, key) {
      recorded.gets += 1;
      return inner.get(collection, key);
    },
    getMany(keys) {
      recorded.getManyCalls.push([...keys]);
      return failReads === undefined ? inner.getMany(keys) : Promise.reject(failReads);
    },
  };
  return {
    store,
    get getManyCalls() {
      return recorded.getManyCalls;
    },
    get gets() {
      return recorded.gets;
    },
  };
}


/** Posts every input in the same tick, so they share one turn, and waits for all of them to settle. */
const postTogether = (loop: ReturnType<typeof loopOn>, inputs: readonly RuntimeInput[]) =>
  Promise.allSettled(inputs.map((input) => loop.post(input)));

describe("loop reads", () => {
  it("reads every key of a turn in one getMany, and an earlier input's staged write wins over the pre-read value", async () => {
    const recording = await recordingStore();
    const loop = loopOn(recording.store);
    const inbox4 = inboxKey("chat", "s-1", 4);

    const outcomes = await postTogether(loop, [
      // Stores s-1:4 in the inbox and records envelope e-1 …
      messageEvent(4, "e-1"),
      // … which this acknowledge reads: before the turn the store had no s-1:4, so only the overlay can
      // make it succeed (a pre-read value winning would refuse it with not_found).
      { kind: "acknowledge", app_scope: "chat", message_ids: ["s-1:4"] },
      // … and this event repeats e-1: only the overlay shows it as a duplicate.
      messageEvent(5, "e-1"),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "fulfilled", "fulfilled"]);
    expect(loop.turns).toBe(1);

    // One read for the whole turn, of every distinct key, and no per-key gets.
    expect(recording.gets).toBe(0);
    expect(recording.getManyCalls).toHaveLength(1);
    expect(new Set(recording.getManyCalls[0]!.map((ref) => `${ref.collection} ${ref.key}`))).toEqual(
      new Set([`${C.logChunks} ${chunkKey("s-1", 0)}`, `${C.inboxUnseen} ${chunkKey("s-1", 0)}`, `${C.inboxPending} ${inbox4}`, `${C.inbox} ${inbox4}`]),
    );
    expect(recording.getManyCalls[0]).toHaveLength(4); // the chunk's rows are read by all three inputs, fetched once

    // What a reader of the store observes: s-1:4 stored and acknowledged, the duplicate e-1 at seq 5 not stored.
    expect(await recording.store.get(C.inbox, inbox4)).toMatchObject({ message_id: "s-1:4" });
    expect(await listPendingMessageIds(recording.store)).toEqual([]);
    expect(await recording.store.get(C.inbox, inboxKey("chat", "s-1", 5))).toBeUndefined();
    // The duplicate is consumed (the cursor moves past it, so the log keeps flowing) and its refusal audited.
    expect(await recording.store.get(C.cursors, "s-1")).toEqual({ seq: 5, active_at: "2026-11-30T06:00:00.000Z" });
    expect(loop.state.conversations.get("s-1")?.cursor).toBe(5);
    expect((await recording.store.range(C.audit)).map(({ value }) => (value as { code?: string }).code)).toEqual(["duplicate_message"]);
    await loop.close();
  });

  it("uses values committed by earlier turns", async () => {
    const recording = await recordingStore();
    const loop = loopOn(recording.store);
    await loop.post(messageEvent(4, "e-1"));
    // A later turn repeats e-1: only the stored envelope-id record (read before the turn) refuses it.
    await postTogether(loop, [messageEvent(5, "e-1"), { kind: "acknowledge", app_scope: "chat", message_ids: ["s-1:4"] }]);
    expect(loop.turns).toBe(2);
    expect(recording.getManyCalls).toHaveLength(2);
    expect(await recording.store.get(C.inbox, inboxKey("chat", "s-1", 5))).toBeUndefined();
    expect((await recording.store.range(C.audit)).map(({ value }) => (value as { code?: string }).code)).toEqual(["duplicate_message"]);
    expect(await listPendingMessageIds(recording.store)).toEqual([]);
    await loop.close();
  });

  it("a failed read fails only the inputs that needed the store; the others commit", async () => {
    const recording = await recordingStore(new StoreError("store_read_failed", "disk gone"));
    const loop = loopOn(recording.store);
    const [event, caughtUp] = await postTogether(loop, [messageEvent(4, "e-1"), { kind: "caught_up", session_id: "s-1", seq: 3 }]);
    expect(event).toMatchObject({ status: "rejected", reason: { code: "store_read_failed" } });
    expect(caughtUp?.status).toBe("fulfilled");
    expect(loop.turns).toBe(1);
    expect(loop.state.conversations.get("s-1")?.cursor).toBe(3);
    expect(await recording.store.get(C.inbox, inboxKey("chat", "s-1", 4))).toBeUndefined();
    await loop.close();
  });
});
