/**
 * The outbox pipelines a conversation's entries when the server announces ordered writes: several go in
 * one round trip, each naming the one sent before it (`after_key`), so the server applies them in outbox
 * order even when one of them fails and goes again. Without the feature the outbox is stop-and-wait.
 * The log's echo of an envelope the Runtime sent settles its entry, whether or not the answer comes; an
 * answer arriving while the echo is applied waits for it, and settles the entry itself if that commit fails.
 * Checked by what the server applied and in which order.
 */
import { describe, expect, it } from "vitest";
import { OUTBOX_PIPELINE_DEPTH, RUNTIME_COLLECTIONS, StoreError, type RuntimeStore } from "../src/index.js";
import { agentInvokes } from "./helpers/apps-harness.js";
import { createFakeClock, createMemoryStoreData, FakeAppServer, settle, startDevice, storedValues, until } from "./helpers/runtime-harness.js";

const send = (texts: readonly string[], dispatch: (text: string) => Promise<unknown>) => Promise.all(texts.map(dispatch));

async function world(options: { orderedWrites?: boolean } = {}) {
  const server = new FakeAppServer({ ...options, recordRequests: true });
  server.createSession({ session_id: "s-1", agent_id: "agent-1" });
  server.createSession({ session_id: "s-2", agent_id: "agent-1" });
  const clock = createFakeClock();
  const data = createMemoryStoreData();
  const device = await startDevice(server, data, { clock, extra: { requestTimeoutMs: 1_000, backoff: { baseMs: 50, capMs: 400, degradedAfter: 3 } } });
  await device.runtime.whenOnline();
  const text = (conversation: string) => (t: string) => device.chat.dispatch({ type: "conversation.send_text", conversation_id: conversation, text: t });
  return { server, clock, data, device, text };
}

const turnStarts = (server: FakeAppServer) => server.applied.filter((w) => w.method === "agentSession/turn/start");

describe("outbox pipelining (ordered writes)", () => {
  it("sends a conversation's entries without waiting for each answer: all reach the server while no response has come back", async () => {
    const { server, device, text } = await world();
    // Every response is lost: only pipelining lets more than one entry reach the server.
    server.dropNextResponses(5);
    await send(["one", "two", "three", "four", "five"], text("s-1"));
    await until(() => server.turnTexts("s-1").length === 5, 3_000, "five texts applied without an answer");
    expect(server.turnTexts("s-1")).toEqual(["one", "two", "three", "four", "five"]);
    // Each after the first named the one before it.
    const afterKeys = server.requests.filter((r) => r.method === "agentSession/turn/start").map((r) => r.params["after_key"]);
    expect(afterKeys[0]).toBeUndefined();
    const keys = turnStarts(server).map((w) => w.idempotency_key);
    expect(afterKeys.slice(1)).toEqual(keys.slice(0, 4));
    await device.stop();
  });

  it("keeps at most OUTBOX_PIPELINE_DEPTH (32) of a conversation in flight", async () => {
    const { server, device, text } = await world();
    server.dropNextResponses(40);
    await send(Array.from({ length: 40 }, (_, i) => `t${i}`), text("s-1"));
    await settle(50);
    expect(server.turnTexts("s-1")).toEqual(Array.from({ length: OUTBOX_PIPELINE_DEPTH }, (_, i) => `t${i}`));
    await device.stop();
  });

  it("a refused entry is not overtaken: the ones behind it are refused with predecessor_pending and everything lands once, in order", async () => {
    const { server, clock, device, text } = await world();
    server.refuseNextRequests(1);
    await send(["one", "two", "three"], text("s-1"));
    await settle(20);
    // The first was refused (retryable); the two behind it named it and were refused too: nothing applied.
    expect(server.turnTexts("s-1")).toEqual([]);
    const codes = server.requests.filter((r) => r.method === "agentSession/turn/start").map((r) => r.error);
    expect(codes).toEqual(["overloaded", "predecessor_pending", "predecessor_pending"]);
    clock.advance(1_000);
    await until(() => server.turnTexts("s-1").length === 3, 3_000, "all three applied after the retry");
    expect(server.turnTexts("s-1")).toEqual(["one", "two", "three"]);
    await until(() => device.chat.view().queued_actions === 0, 3_000, "the outbox empty");
    expect(new Set(turnStarts(server).map((w) => w.idempotency_key)).size).toBe(3);
    await device.stop();
  });

  it("a lost request: the entries behind it wait for it, then follow in order", async () => {
    const { server, clock, device, text } = await world();
    server.dropNextRequests(1);
    await send(["one", "two", "three"], text("s-1"));
    await settle(20);
    expect(server.turnTexts("s-1")).toEqual([]);
    // The lost one times out and goes again; the refused ones follow it.
    clock.advance(1_000);
    await settle(20);
    clock.advance(1_000);
    await until(() => server.turnTexts("s-1").length === 3, 3_000, "all three applied");
    expect(server.turnTexts("s-1")).toEqual(["one", "two", "three"]);
    await device.stop();
  });

  it("an entry refused for good with nothing stored is dropped, and the ones behind it go again without naming it", async () => {
    const { server, device, text } = await world();
    // Refused before any outcome is stored (as the server refuses an invisible session): the entries chained to it cannot apply until it is dropped.
    server.refuseNextRequests(1, "forbidden");
    await send(["lost", "two", "three"], text("s-1"));
    await until(() => server.turnTexts("s-1").length === 2, 3_000, "the two after the refused one applied");
    expect(server.turnTexts("s-1")).toEqual(["two", "three"]);
    const seen = server.requests.filter((r) => r.method === "agentSession/turn/start");
    expect(seen.slice(0, 3).map((r) => r.error)).toEqual(["forbidden", "predecessor_pending", "predecessor_pending"]);
    // Sent again: "two" names nothing (nothing before it is unanswered), "three" names "two".
    const again = seen.slice(3);
    expect(again.map((r) => r.error)).toEqual([undefined, undefined]);
    expect(again[0]!.params["after_key"]).toBeUndefined();
    expect(again[1]!.params["after_key"]).toBe(again[0]!.params["idempotency_key"]);
    await until(() => device.chat.view().queued_actions === 0, 3_000, "the outbox settled");
    await device.stop();
  });

  it("a conversation started here and its first texts go in one round trip, the texts chained to the start", async () => {
    const { server, device } = await world();
    server.dropNextResponses(3);
    const { conversation_id: id } = await device.runtime.conversations.start({ agent_id: "agent-1", workspace_id: "w-1", title: "New" });
    await send(["first", "second"], (text) => device.chat.dispatch({ type: "conversation.send_text", conversation_id: id, text }));
    await until(() => server.turnTexts(id).length === 2, 3_000, "the texts applied without any answer");
    const seen = server.requests.filter((r) => r.params["session_id"] === id);
    expect(seen.map((r) => r.method)).toEqual(["agentSession/start", "agentSession/turn/start", "agentSession/turn/start"]);
    expect(seen[1]!.params["after_key"]).toBe(seen[0]!.params["idempotency_key"]);
    await device.stop();
  });

  it("texts of a conversation whose start was refused for good are refused too, not left waiting", async () => {
    const { server, device } = await world();
    const { conversation_id: id } = await device.runtime.conversations.start({ agent_id: "no-such-agent", workspace_id: "w-1", title: "Refused" });
    await send(["lost"], (text) => device.chat.dispatch({ type: "conversation.send_text", conversation_id: id, text }));
    await until(() => device.chat.view().queued_actions === 0, 3_000, "nothing left queued");
    expect(server.sessions.has(id)).toBe(false);
    const seen = server.requests.filter((r) => r.params["session_id"] === id).map((r) => r.error);
    expect(seen).toEqual(["not_found", "session_not_found"]);
    await device.stop();
  });

  it("conversations do not wait for each other", async () => {
    const { server, device, text } = await world();
    server.dropNextRequests(1);
    await send(["a1", "a2"], text("s-1"));
    await send(["b1", "b2"], text("s-2"));
    await until(() => server.turnTexts("s-2").length === 2, 3_000, "the other conversation's texts applied");
    expect(server.turnTexts("s-1")).toEqual([]);
    await device.stop();
  });

  it("without the server's ordered writes it is stop-and-wait, and never sends after_key", async () => {
    const { server, clock, device, text } = await world({ orderedWrites: false });
    server.dropNextResponses(3);
    await send(["one", "two", "three"], text("s-1"));
    await settle(50);
    expect(server.turnTexts("s-1")).toEqual(["one"]);
    for (let i = 0; i < 6 && server.turnTexts("s-1").length < 3; i++) {
      clock.advance(1_000);
      await settle(30);
    }
    await until(() => server.turnTexts("s-1").length === 3, 3_000, "all three applied one at a time");
    expect(server.turnTexts("s-1")).toEqual(["one", "two", "three"]);
    expect(server.requests.some((r) => r.params["after_key"] !== undefined)).toBe(false);
    await device.stop();
  });

  it("the log's echo of an envelope the Runtime sent settles its outbox entry: lost answer, no second send", async () => {
    const { server, clock, data, device } = await world();
    // An invoke of a tool no app offers: the Runtime answers with a lineup.tool.error through its outbox.
    server.dropNextResponses(1);
    agentInvokes(server, "call-1", "nowhere", "nothing.here", {}, 1);
    const sends = () => server.requests.filter((r) => r.method === "agentSession/envelope/send");
    await until(() => (server.sessions.get("s-1")?.events ?? []).some((e) => (e.data as { envelope?: { type?: string } }).envelope?.type === "lineup.tool.error"), 3_000, "the error reply in the log");
    // Its answer was lost, but the echo in the log is the server's word: the entry is gone from the store.
    await settle(30);
    expect(await storedValues(data, RUNTIME_COLLECTIONS.outbox)).toEqual([]);
    // The request's time limit passes: nothing is left to send again.
    clock.advance(1_000);
    await settle(30);
    clock.advance(1_000);
    await settle(30);
    expect(sends()).toHaveLength(1);
    await device.stop();
  });

  it("an answer that arrives while the echo is applied waits for it; when the echo's commit fails, the answer settles the entry", async () => {
    const server = new FakeAppServer({ recordRequests: true });
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const clock = createFakeClock();
    const data = createMemoryStoreData();
    let failed = 0;
    // The first commit that removes an outbox entry (the echo's) fails; nothing of it is stored.
    const commit = (store: RuntimeStore) => (writes: Parameters<RuntimeStore["commit"]>[0]) => {
      if (failed === 0 && writes.some((w) => w.op === "delete" && w.collection === RUNTIME_COLLECTIONS.outbox)) {
        failed += 1;
        return Promise.reject(new StoreError("store_write_failed", "injected: the echo's commit"));
      }
      return store.commit(writes);
    };
    const failEchoOnce = (store: RuntimeStore): RuntimeStore =>
      new Proxy(store, {
        get: (target, key) => {
          if (key === "commit") return commit(target);
          const value: unknown = Reflect.get(target, key, target);
          return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
    const device = await startDevice(server, data, { clock, wrapStore: failEchoOnce });
    await device.runtime.whenOnline();
    agentInvokes(server, "call-1", "nowhere", "nothing.here", {}, 1);
    const sends = () => server.requests.filter((r) => r.method === "agentSession/envelope/send");
    await until(() => failed === 1, 3_000, "the echo's commit failed");
    // Without any timer (the resubscribe after the failure waits for its backoff), the answer settled it.
    for (let round = 0; round < 100 && (await storedValues(data, RUNTIME_COLLECTIONS.outbox)).length > 0; round++) await settle(5);
    expect(await storedValues(data, RUNTIME_COLLECTIONS.outbox)).toEqual([]);
    expect(sends()).toHaveLength(1);
    await device.stop();
  });
});
