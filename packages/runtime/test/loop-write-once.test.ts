/**
 * The Runtime's write-once rows go through the loop like every other write: a tool call's result card and the
 * shipped publisher keys this store has seen. The loop decides each against what the store (and the turn's
 * earlier inputs) already hold, so a second writer finds the row and writes nothing.
 */
import { describe, expect, it } from "vitest";
import type { JsonValue } from "@lineup/protocol";
import { loopOn } from "./helpers/loop-fixtures.js";
import { RUNTIME_COLLECTIONS as C } from "../src/persistence/runtime-schema.js";
import { createMemoryStore, RUNTIME_SCHEMA, type RuntimeStore, type StoreWrite } from "../src/index.js";

/** A memory store that records each commit's batch. */
async function recordingStore(): Promise<{ store: RuntimeStore; commits: (readonly StoreWrite[])[] }> {
  const inner = await createMemoryStore(RUNTIME_SCHEMA);
  const commits: (readonly StoreWrite[])[] = [];
  return { store: { ...inner, commit: (batch) => (commits.push(batch), inner.commit(batch)) }, commits };
}

const card = (title: string): JsonValue => ({ call_id: "c-1", app_scope: "whiteboard", data: { data: { title }, revision: 1 } });

describe("write-once rows in the loop", () => {
  it("keeps a call's first result card: a second one, in the same turn or a later one, writes nothing", async () => {
    const { store } = await recordingStore();
    const loop = loopOn(store);
    // Posted in the same tick: one turn, where the second sees the first's staged write.
    await Promise.all([loop.post({ kind: "result_card", call_id: "c-1", card: card("first") }), loop.post({ kind: "result_card", call_id: "c-1", card: card("second") })]);
    await loop.post({ kind: "result_card", call_id: "c-1", card: card("third") });
    expect(await store.get(C.resultCards, "c-1")).toEqual(card("first"));
    await loop.close();
  });

  it("trusts each shipped key once, in the commit that notes it as seen, and never again after the person removes it", async () => {
    const { store, commits } = await recordingStore();
    const loop = loopOn(store);
    const shipped = { key_id: "k-1", public_key: "AAAA", label: "dev" };
    await loop.post({ kind: "settings", change: { type: "shipped_publishers", keys: [shipped] } });
    expect(loop.state.trusted_publishers.map((k) => k.key_id)).toEqual(["k-1"]);
    const trusting = commits.find((batch) => batch.some((w) => w.op === "put" && w.collection === C.settings && w.key === "trusted-publishers"));
    expect(trusting?.some((w) => w.op === "put" && w.collection === C.meta && w.key === "shipped-publishers")).toBe(true);
    expect(await store.get(C.meta, "shipped-publishers")).toEqual(["k-1"]);

    await loop.post({ kind: "settings", change: { type: "distrust", key_id: "k-1" } });
    await loop.post({ kind: "settings", change: { type: "shipped_publishers", keys: [shipped, { key_id: "k-2", public_key: "BBBB" }] } });
    expect(loop.state.trusted_publishers.map((k) => k.key_id)).toEqual(["k-2"]);
    expect(await store.get(C.meta, "shipped-publishers")).toEqual(["k-1", "k-2"]);
    await loop.close();
  });
});
