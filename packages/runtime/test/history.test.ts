import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryStore, RUNTIME_SCHEMA, type RuntimeStore } from "../src/index.js";
import { openSqliteStore } from "../src/node/index.js";
import { listHistory, type AgentMessagePage, type HistoryRequest } from "../src/persistence/history.js";
import { storeMessageWrites, type AgentAppMessage } from "../src/persistence/inbox.js";
import { padNumber } from "../src/persistence/runtime-schema.js";

function message(appScope: string, conversationId: string, seq: number): AgentAppMessage {
  return {
    message_id: `${conversationId}:${seq}`,
    cursor: `${conversationId}/${padNumber(seq)}`,
    app_scope: appScope,
    conversation_id: conversationId,
    seq,
    type: "lineup.message",
    delivery: "display",
    sender: { kind: "agent", id: "a" },
    created_at: "2026-11-30T07:00:00.000Z",
    payload: { format: "text", text: `m${seq}` },
  };
}

async function fill(store: RuntimeStore, appScope: string, conversationId: string, count: number): Promise<void> {
  const writes = Array.from({ length: count }, (_, i) => storeMessageWrites(message(appScope, conversationId, i + 1))).flat();
  if (writes.length > 0) await store.commit(writes);
}

const seqs = (page: AgentMessagePage): number[] => page.messages.map((m) => m.seq);
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const stores: [string, () => Promise<RuntimeStore>][] = [
  ["memory", () => createMemoryStore(RUNTIME_SCHEMA)],
  [
    "sqlite",
    () => {
      const dir = mkdtempSync(join(tmpdir(), "lineup-history-"));
      dirs.push(dir);
      return openSqliteStore({ path: join(dir, "store.db"), schema: RUNTIME_SCHEMA });
    },
  ],
];

describe.each(stores)("history paging (%s store)", (_name, open) => {
  /** Two conversations in "chat", one in another app, so prefixes and bounds are exercised. */
  async function seeded(): Promise<RuntimeStore> {
    const store = await open();
    await fill(store, "chat", "a", 7);
    await fill(store, "chat", "b", 23);
    await fill(store, "chat", "c", 4);
    await fill(store, "other", "b", 5);
    return store;
  }

  it("keeps the forward default unchanged", async () => {
    const store = await seeded();
    const first = await listHistory(store, "chat", { conversation_id: "b", limit: 10 });
    expect(seqs(first)).toEqual(range(1, 10));
    expect(first.prev_cursor).toBeUndefined();
    const second = await listHistory(store, "chat", { conversation_id: "b", after: first.next_cursor!, limit: 10 });
    expect(seqs(second)).toEqual(range(11, 20));
    const third = await listHistory(store, "chat", { conversation_id: "b", after: second.next_cursor!, limit: 10 });
    expect(seqs(third)).toEqual(range(21, 23));
    expect(third.next_cursor).toBeUndefined();
    await store.close();
  });

  it("opens at the latest page and walks backward with no gap and no duplicate", async () => {
    const store = await seeded();
    for (const limit of [1, 4, 5, 10, 22, 23, 24, 500]) {
      const collected: number[] = [];
      let page = await listHistory(store, "chat", { conversation_id: "b", latest: true, limit });
      expect(page.next_cursor).toBeUndefined();
      expect(seqs(page)).toEqual(range(Math.max(1, 24 - limit), 23));
      collected.unshift(...seqs(page));
      let reads = 1;
      while (page.prev_cursor !== undefined) {
        expect(page.prev_cursor).toBe(page.messages[0]!.cursor);
        page = await listHistory(store, "chat", { conversation_id: "b", before: page.prev_cursor, limit });
        reads += 1;
        expect(page.messages.length).toBeGreaterThan(0);
        expect(page.messages.length).toBeLessThanOrEqual(limit);
        expect(page.next_cursor).toBeUndefined();
        collected.unshift(...seqs(page));
      }
      expect(collected).toEqual(range(1, 23));
      expect(reads).toBe(Math.ceil(23 / limit));
    }
    await store.close();
  });

  it("returns the limit messages just before a cursor, ascending, at the boundaries", async () => {
    const store = await seeded();
    const cursor = (seq: number): string => `b/${padNumber(seq)}`;
    // Exactly `limit` older messages: a full page and no prev_cursor.
    const exact = await listHistory(store, "chat", { conversation_id: "b", before: cursor(6), limit: 5 });
    expect(seqs(exact)).toEqual(range(1, 5));
    expect(exact.prev_cursor).toBeUndefined();
    // One more than `limit`: prev_cursor at the page's oldest message.
    const more = await listHistory(store, "chat", { conversation_id: "b", before: cursor(7), limit: 5 });
    expect(seqs(more)).toEqual(range(2, 6));
    expect(more.prev_cursor).toBe(cursor(2));
    // Before the first message: empty, no cursors.
    expect(await listHistory(store, "chat", { conversation_id: "b", before: cursor(1), limit: 5 })).toEqual({ messages: [] });
    // A cursor past the end reads the latest messages; other conversations and apps never leak in.
    const past = await listHistory(store, "chat", { conversation_id: "b", before: cursor(99), limit: 3 });
    expect(seqs(past)).toEqual([21, 22, 23]);
    expect(past.messages.every((m) => m.app_scope === "chat" && m.conversation_id === "b")).toBe(true);
    // The default limit is 50; a short conversation is one page.
    expect(seqs(await listHistory(store, "chat", { conversation_id: "a", latest: true }))).toEqual(range(1, 7));
    await store.close();
  });

  it("pages backward across conversations of one app when no conversation is given", async () => {
    const store = await seeded();
    const latest = await listHistory(store, "chat", { latest: true, limit: 6 });
    expect(latest.messages.map((m) => m.message_id)).toEqual(["b:22", "b:23", "c:1", "c:2", "c:3", "c:4"]);
    let page = latest;
    let total = page.messages.length;
    while (page.prev_cursor !== undefined) {
      page = await listHistory(store, "chat", { before: page.prev_cursor, limit: 6 });
      total += page.messages.length;
    }
    expect(page.messages[0]!.message_id).toBe("a:1");
    expect(total).toBe(7 + 23 + 4);
    await store.close();
  });

  it("handles an empty conversation and an empty app", async () => {
    const store = await seeded();
    expect(await listHistory(store, "chat", { conversation_id: "none", latest: true })).toEqual({ messages: [] });
    expect(await listHistory(store, "chat", { conversation_id: "none", before: "none/0000000000000005" })).toEqual({ messages: [] });
    expect(await listHistory(store, "chat", { conversation_id: "none" })).toEqual({ messages: [] });
    expect(await listHistory(store, "empty-app", { latest: true })).toEqual({ messages: [] });
    await store.close();
  });

  it("refuses contradictory requests with invalid_params", async () => {
    const store = await seeded();
    const bad: HistoryRequest[] = [
      { conversation_id: "b", after: "b/0000000000000002", before: "b/0000000000000009" },
      { conversation_id: "b", latest: true, after: "b/0000000000000002" },
      { conversation_id: "b", latest: true, before: "b/0000000000000009" },
    ];
    for (const request of bad) await expect(listHistory(store, "chat", request)).rejects.toMatchObject({ name: "LineUpError", code: "invalid_params" });
    // `latest: false` is today's default.
    expect(seqs(await listHistory(store, "chat", { conversation_id: "b", latest: false, limit: 2 }))).toEqual([1, 2]);
    await store.close();
  });
});
