/**
 * Log chunks (persistence/log-chunks.ts): the envelope ids and the display messages' pending marks of 256
 * seqs in one row. What a reader of the store, an app and a restarted Runtime observe: the migration from
 * the row-per-event layout, pending pages that merge both kinds of mark in order, and marks of a removed
 * app that never hold a page back.
 */
import { describe, expect, it } from "vitest";
import type { JsonValue } from "@lineup/protocol";
import { countPending, inboxKey, listPendingMessageIds, messageIdFor, readPendingPage, type AgentAppMessage } from "../src/persistence/inbox.js";
import { asMarks, chunkKey, chunkOf, CHUNK_SEQS, unseenOf, withEnvelope } from "../src/persistence/log-chunks.js";
import { RUNTIME_COLLECTIONS as C } from "../src/persistence/runtime-schema.js";
import { createMemoryStore, createMemoryStoreData, RUNTIME_SCHEMA, type RuntimeStore, type StoreSchema, type StoreWrite } from "../src/index.js";

const message = (appScope: string, conversationId: string, seq: number, delivery: "display" | "explicit_ack"): AgentAppMessage => ({
  message_id: messageIdFor(conversationId, seq),
  cursor: `${conversationId}/${String(seq).padStart(16, "0")}`,
  app_scope: appScope,
  conversation_id: conversationId,
  seq,
  type: delivery === "display" ? "lineup.message" : "lineup.interaction.request",
  delivery,
  sender: { kind: "agent", id: "agent-1" },
  created_at: "2026-11-30T06:00:00.000Z",
  payload: { text: `${appScope} ${conversationId} ${seq}` },
});

const inboxPut = (m: AgentAppMessage): StoreWrite => ({ op: "put", collection: C.inbox, key: inboxKey(m.app_scope, m.conversation_id, m.seq), value: m as unknown as JsonValue });
const pendingPut = (m: AgentAppMessage): StoreWrite => ({ op: "put", collection: C.inboxPending, key: inboxKey(m.app_scope, m.conversation_id, m.seq), value: { message_id: m.message_id } });

/** Every message of `app` pending, page by page, as an app subscribing with its backlog gets them. */
async function allPending(store: RuntimeStore, appScope: string, limit: number, conversationId?: string): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let afterKey: string | undefined;
  let pages = 0;
  for (;;) {
    const page = await readPendingPage(store, { appScope, limit, ...(conversationId === undefined ? {} : { conversationId }), ...(afterKey === undefined ? {} : { afterKey }) });
    pages += 1;
    ids.push(...page.messages.map((m) => m.message_id));
    if (page.next === undefined) return { ids, pages };
    afterKey = page.next;
  }
}

describe("migration 0003: envelope ids and display pending rows into log chunks", () => {
  it("moves them into chunks, keeps explicit-ack rows, and loses no pending message", async () => {
    const data = createMemoryStoreData();
    const v2: StoreSchema = { collections: RUNTIME_SCHEMA.collections.filter((c) => c !== C.logChunks), migrations: RUNTIME_SCHEMA.migrations.slice(0, 2) };
    const old = await createMemoryStore(v2, { data });
    const shown = message("chat", "s-1", 3, "display");
    const unseen = message("chat", "s-1", 300, "display");
    const card = message("chat", "s-1", 301, "explicit_ack");
    const other = message("board", "s/2", 7, "display");
    await old.commit([
      ...[shown, unseen, card, other].map(inboxPut),
      // s-1:3 was delivered (no pending row); the rest are pending.
      ...[unseen, card, other].map(pendingPut),
      { op: "put", collection: C.envelopeIds, key: "s-1/e-3", value: { seq: 3 } },
      { op: "put", collection: C.envelopeIds, key: "s-1/e-300", value: { seq: 300 } },
      { op: "put", collection: C.envelopeIds, key: "s/2/e-7", value: { seq: 7 } },
    ]);
    await old.close();

    const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
    expect(await store.range(C.envelopeIds)).toEqual([]);
    expect((await store.range(C.inboxPending)).map((row) => row.key)).toEqual([inboxKey("chat", "s-1", 301)]);
    expect(await store.get(C.logChunks, chunkKey("s-1", 0))).toEqual({ envelopes: [null, null, null, "e-3"] });
    expect(await store.get(C.logChunks, chunkKey("s-1", chunkOf(300)))).toEqual(withEnvelope({}, "e-300", 300));
    // Only chunks with a pending display message have unseen marks.
    expect(await store.get(C.inboxUnseen, chunkKey("s-1", 0))).toBeUndefined();
    expect(await store.get(C.inboxUnseen, chunkKey("s-1", chunkOf(300)))).toEqual({ chat: [300] });
    // A conversation id with a slash keeps it; the envelope id is what follows the last one.
    expect(await store.get(C.logChunks, chunkKey("s/2", 0))).toEqual({ envelopes: [null, null, null, null, null, null, null, "e-7"] });
    expect(await store.get(C.inboxUnseen, chunkKey("s/2", 0))).toEqual({ board: [7] });
    expect((await listPendingMessageIds(store)).sort()).toEqual(["s-1:300", "s-1:301", "s/2:7"]);
    expect(await countPending(store, "chat", "s-1")).toBe(2);
    await store.close();
  });
});

describe("migration 0004: unseen marks out of the log chunks", () => {
  it("moves the marks a first-form 0003 left in log chunks into inbox-unseen rows, keeping the envelope ids", async () => {
    const data = createMemoryStoreData();
    const v3: StoreSchema = { collections: RUNTIME_SCHEMA.collections.filter((c) => c !== C.inboxUnseen), migrations: RUNTIME_SCHEMA.migrations.slice(0, 3) };
    const old = await createMemoryStore(v3, { data });
    await old.commit([
      { op: "put", collection: C.logChunks, key: chunkKey("s-1", 0), value: { envelopes: [null, "e-1"], unseen: { chat: [1] } } },
      { op: "put", collection: C.logChunks, key: chunkKey("s-1", 1), value: { envelopes: ["e-64"] } },
    ]);
    await old.close();
    const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
    expect(await store.get(C.logChunks, chunkKey("s-1", 0))).toEqual({ envelopes: [null, "e-1"] });
    expect(await store.get(C.logChunks, chunkKey("s-1", 1))).toEqual({ envelopes: ["e-64"] });
    expect(await store.range(C.inboxUnseen)).toEqual([{ key: chunkKey("s-1", 0), value: { chat: [1] } }]);
    expect(await listPendingMessageIds(store)).toEqual(["s-1:1"]);
    await store.close();
  });
});

describe("pending pages over both kinds of mark", () => {
  it("merges explicit rows and display marks in inbox-key order, across conversations and chunks, page by page", async () => {
    const store = await createMemoryStore(RUNTIME_SCHEMA);
    const messages: AgentAppMessage[] = [];
    for (const conversationId of ["s-1", "s-2"]) {
      for (let seq = 1; seq <= 3 * CHUNK_SEQS; seq += 5) messages.push(message("chat", conversationId, seq, seq % 3 === 0 ? "explicit_ack" : "display"));
    }
    const chunks = new Map<string, { chat: number[] }>();
    for (const m of messages) {
      if (m.delivery === "display") {
        const key = chunkKey(m.conversation_id, chunkOf(m.seq));
        const marks = chunks.get(key) ?? { chat: [] };
        marks.chat.push(m.seq);
        chunks.set(key, marks);
      }
    }
    await store.commit([
      ...messages.map(inboxPut),
      ...messages.filter((m) => m.delivery === "explicit_ack").map(pendingPut),
      ...[...chunks].map(([key, value]): StoreWrite => ({ op: "put", collection: C.inboxUnseen, key, value })),
    ]);
    const expected = messages.map((m) => m.message_id);

    const paged = await allPending(store, "chat", 17);
    expect(paged.ids).toEqual(expected);
    expect(paged.pages).toBe(Math.floor(expected.length / 17) + 1);
    expect((await allPending(store, "chat", 1_000, "s-2")).ids).toEqual(expected.filter((id) => id.startsWith("s-2:")));
    expect(await countPending(store, "chat", "s-1")).toBe(expected.length / 2);
    await store.close();
  });

  it("a removed app's marks do not hold its next install's page back, and a restart drops them", async () => {
    const data = createMemoryStoreData();
    const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
    // Marks for board seqs 1–40 whose inbox rows were deleted with the app, then one new message at 41.
    const fresh = message("board", "s-1", 41, "display");
    await store.commit([inboxPut(fresh), { op: "put", collection: C.inboxUnseen, key: chunkKey("s-1", 0), value: { board: [...Array.from({ length: 40 }, (_, i) => i + 1), 41], chat: [5] } }]);
    expect((await allPending(store, "board", 10)).ids).toEqual(["s-1:41"]);
    await store.close();

    // A Runtime starting on this store, with no board installed, drops the board's marks and keeps chat's.
    const { createRuntime } = await import("../src/index.js");
    const { FakeAppServer } = await import("../src/testing/index.js");
    const server = new FakeAppServer();
    const reopened = await createMemoryStore(RUNTIME_SCHEMA, { data });
    const runtime = createRuntime({ store: reopened, transport: server.transport, serverUrl: "mem://test", token: server.deviceToken, relistIntervalMs: 0 });
    await runtime.start();
    await runtime.stop();
    expect(await reopened.get(C.inboxUnseen, chunkKey("s-1", 0))).toEqual({ chat: [5] });
    expect(unseenOf(asMarks(await reopened.get(C.inboxUnseen, chunkKey("s-1", 0))), "board")).toEqual([]);
    await reopened.close();
  });
});
