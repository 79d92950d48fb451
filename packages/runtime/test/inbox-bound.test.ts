/**
 * Spec 12 box 3, "recovered from the Inbox, within bounds" (有界恢复): what bounds the Runtime applies
 * when an app that was not running gets its backlog back, observed at the store (every inbox read and
 * its `limit`) and at the app (what it receives, in which order).
 *
 * The bounds that exist are bounds on each read, never a bound on the backlog itself:
 * - restoring reads no inbox rows (it only counts chat's pending ones, for the unread badge);
 * - `subscribe({ include_pending: true })` reads the pending rows in pages of 200 (the DeliveryHub's
 *   page size) and hands each page to the app before it reads the next one;
 * - `list()` reads at most 500 messages per call (`MAX_HISTORY_PAGE`), whatever `limit` it is asked
 *   for, and gives a cursor for the rest.
 * How many messages may wait in an app's inbox is not bounded (docs/acceptance.md, box 3).
 *
 * "Key messages" here are `lineup.action.required` cards for chat: explicit-ack messages that stay
 * pending until the app acknowledges them.
 */
import { describe, expect, it } from "vitest";
import {
  createMemoryStore,
  createRuntime,
  RUNTIME_COLLECTIONS as C,
  RUNTIME_SCHEMA,
  type AgentAppMessage,
  type LineUpRuntime,
  type MemoryStoreData,
  type RuntimeStore,
} from "../src/index.js";
import { MAX_HISTORY_PAGE } from "../src/persistence/history.js";
import { createFakeClock, createSequentialIds } from "../src/testing/index.js";
import { createMemoryStoreData, FakeAppServer, settle, until } from "./helpers/runtime-harness.js";

/** The DeliveryHub's default page size for reading an app's pending backlog. */
const PENDING_PAGE = 200;
const BACKLOG = 650;

type Logged = { kind: "read"; collection: string; limit: number | undefined } | { kind: "count"; collection: string } | { kind: "delivered"; message_id: string };

/** `store`, with every read of the inbox collections written to `log` (gets are per row of a page, so not logged). */
function recordingStore(store: RuntimeStore, log: Logged[]): RuntimeStore {
  const inboxes = new Set<string>([C.inbox, C.inboxPending]);
  return {
    commit: (batch) => store.commit(batch),
    get: (collection, key) => store.get(collection, key),
    getMany: (keys) => store.getMany(keys),
    range(collection, query) {
      if (inboxes.has(collection)) log.push({ kind: "read", collection, limit: query?.limit });
      return store.range(collection, query);
    },
    count(collection, range) {
      if (inboxes.has(collection)) log.push({ kind: "count", collection });
      return store.count(collection, range);
    },
    close: () => store.close(),
  };
}

interface Run {
  readonly runtime: LineUpRuntime;
  readonly log: Logged[];
  stop(): Promise<void>;
}

/** A Runtime on `data` against `server` with nobody subscribed: chat is not running. */
async function start(server: FakeAppServer, data: MemoryStoreData, run: string): Promise<Run> {
  const log: Logged[] = [];
  const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
  const runtime = createRuntime({
    store: recordingStore(store, log),
    transport: server.transport,
    serverUrl: "mem://server",
    token: server.deviceToken,
    clock: createFakeClock(),
    ids: createSequentialIds({ run }),
    relistIntervalMs: 0,
  });
  await runtime.start();
  await runtime.whenOnline();
  await until(() => runtime.conversations.list()[0]?.status === "live", 5_000, "live");
  await settle();
  return {
    runtime,
    log,
    async stop() {
      await runtime.stop();
      await store.close();
    },
  };
}

/** Subscribes chat with its backlog and records each delivery in the run's log. */
function subscribeWithBacklog(run: Run): AgentAppMessage[] {
  const received: AgentAppMessage[] = [];
  run.runtime.appPort("chat").subscribeMessages({ include_pending: true }, (message) => {
    received.push(message);
    run.log.push({ kind: "delivered", message_id: message.message_id });
  });
  return received;
}

/** The log as runs: `read:<limit>` for a pending read, `<n> delivered` for consecutive deliveries. */
function shape(log: readonly Logged[]): string[] {
  const out: string[] = [];
  for (const entry of log) {
    if (entry.kind === "read") out.push(`read ${entry.collection} limit ${entry.limit ?? "none"}`);
    else if (entry.kind === "count") out.push(`count ${entry.collection}`);
    else {
      const last = out.at(-1);
      const n = last?.endsWith(" delivered") === true ? Number(last.split(" ")[0]) + 1 : 1;
      if (n > 1) out[out.length - 1] = `${n} delivered`;
      else out.push("1 delivered");
    }
  }
  return out;
}

/**
 * A server with session s-1 and the store `data` of a first run (r0, now stopped) that received
 * `BACKLOG` key messages for chat while chat was not running: the cards only reached its inbox.
 */
async function storeBacklog(): Promise<{ server: FakeAppServer; data: MemoryStoreData }> {
  const server = new FakeAppServer();
  server.createSession({ session_id: "s-1", agent_id: "agent-1" });
  const data = createMemoryStoreData();
  const first = await start(server, data, "r0");
  for (let i = 1; i <= BACKLOG; i++) server.agentRequestsAction("s-1", { action_id: `a-${i}`, kind: "approval", prompt: `Approve step ${i}?` });
  await until(() => first.runtime.conversations.list()[0]?.unread === BACKLOG, 20_000, "the backlog stored");
  await first.stop();
  return { server, data };
}

const actionIds = (messages: readonly AgentAppMessage[]): string[] => messages.map((m) => (m.payload as { action_id: string }).action_id);
const expectedIds = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => `a-${from + i}`);

describe("inbox recovery is bounded per read (spec 12 box 3)", () => {
  it(`a backlog of ${BACKLOG} key messages comes back after a restart in pages of ${PENDING_PAGE}, each page delivered before the next is read, once each`, async () => {
    const { server, data } = await storeBacklog();

    const second = await start(server, data, "r1");
    // Restoring and catching up read no inbox rows: they only counted chat's pending ones.
    expect(second.log.filter((e) => e.kind === "read")).toEqual([]);
    expect(second.log).toContainEqual({ kind: "count", collection: C.inboxPending });
    expect(second.runtime.conversations.list()[0]?.unread).toBe(BACKLOG);
    second.log.length = 0;

    const received = subscribeWithBacklog(second);
    await until(() => received.length === BACKLOG, 10_000, "the backlog delivered");
    await settle();
    expect(shape(second.log)).toEqual([
      `read ${C.inboxPending} limit ${PENDING_PAGE}`,
      `${PENDING_PAGE} delivered`,
      `read ${C.inboxPending} limit ${PENDING_PAGE}`,
      `${PENDING_PAGE} delivered`,
      `read ${C.inboxPending} limit ${PENDING_PAGE}`,
      `${PENDING_PAGE} delivered`,
      `read ${C.inboxPending} limit ${PENDING_PAGE}`,
      `${BACKLOG - 3 * PENDING_PAGE} delivered`,
    ]);
    expect(actionIds(received)).toEqual(expectedIds(1, BACKLOG));
    expect(new Set(received.map((m) => m.message_id)).size).toBe(BACKLOG);
    expect(received.every((m) => m.type === "lineup.action.required" && m.delivery === "explicit_ack")).toBe(true);

    // The app acknowledges all but the last 50; only those come back at the next start, in one page.
    for (const message of received.slice(0, 600)) await second.runtime.appPort("chat").acknowledge(message.message_id);
    await second.stop();

    const third = await start(server, data, "r2");
    expect(third.runtime.conversations.list()[0]?.unread).toBe(BACKLOG - 600);
    third.log.length = 0;
    const again = subscribeWithBacklog(third);
    await until(() => again.length === BACKLOG - 600, 10_000, "the unacknowledged rest");
    await settle();
    expect(actionIds(again)).toEqual(expectedIds(601, BACKLOG));
    expect(shape(third.log)).toEqual([`read ${C.inboxPending} limit ${PENDING_PAGE}`, `${BACKLOG - 600} delivered`]);
    await third.stop();
  }, 60_000);

  it(`list() reads at most ${MAX_HISTORY_PAGE} messages per call, whatever limit it is asked for, and pages on by cursor`, async () => {
    const { server, data } = await storeBacklog();

    const second = await start(server, data, "r1");
    const chat = second.runtime.appPort("chat");
    second.log.length = 0;
    const page = await chat.listMessages({ conversation_id: "s-1", limit: 1_000_000 });
    expect(page.messages).toHaveLength(MAX_HISTORY_PAGE);
    expect(actionIds(page.messages)).toEqual(expectedIds(1, MAX_HISTORY_PAGE));
    expect(page.next_cursor).toBeDefined();
    const rest = await chat.listMessages({ conversation_id: "s-1", after: page.next_cursor!, limit: 1_000_000 });
    expect(actionIds(rest.messages)).toEqual(expectedIds(MAX_HISTORY_PAGE + 1, BACKLOG));
    expect(rest.next_cursor).toBeUndefined();
    // Each call was one read of at most one page (plus one row, to tell whether more follow).
    expect(second.log).toEqual([
      { kind: "read", collection: C.inbox, limit: MAX_HISTORY_PAGE + 1 },
      { kind: "read", collection: C.inbox, limit: MAX_HISTORY_PAGE + 1 },
    ]);

    // The newest page and the default page are bounded the same way.
    const latest = await chat.listMessages({ conversation_id: "s-1", latest: true, limit: 10_000 });
    expect(actionIds(latest.messages)).toEqual(expectedIds(BACKLOG - MAX_HISTORY_PAGE + 1, BACKLOG));
    expect(latest.prev_cursor).toBeDefined();
    expect((await chat.listMessages({ conversation_id: "s-1" })).messages).toHaveLength(50);
    expect((await chat.listMessages({ conversation_id: "s-1", limit: 0 })).messages).toHaveLength(1);
    await second.stop();
  }, 60_000);
});
