/**
 * Spec 12 box 3, "recovered from the Inbox, within bounds" (有界恢复): what bounds the Runtime applies
 * when an app that was not running gets its backlog back, observed at the store (every inbox read and
 * its `limit`) and at the app (what it receives, in which order).
 *
 * Each read is bounded, and so is the backlog itself:
 * - restoring reads no inbox message (one read of the pending rows counts each app's backlog);
 * - `subscribe({ include_pending: true })` reads the pending rows in pages of 200 (the DeliveryHub's
 *   page size) and hands each page to the app before it reads the next one;
 * - `list()` reads at most 500 messages per call (`MAX_HISTORY_PAGE`), whatever `limit` it is asked
 *   for, and gives a cursor for the rest.
 * - at most `maxPendingPerApp` (default 1,000) explicit-ack messages wait per app and conversation;
 *   past that, a new one is refused for the app with `inbox_full`, audited, and not stored.
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
import type { AppManifest } from "@lineup/protocol";
import { whiteboardManifest } from "./apps-fixtures.js";
import { publisherKey, signedBundle } from "./helpers/apps-harness.js";
import { createMemoryStoreData, FakeAppServer, settle, startDevice, until } from "./helpers/runtime-harness.js";

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
async function start(server: FakeAppServer, data: MemoryStoreData, run: string, maxPendingPerApp?: number): Promise<Run> {
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
    ...(maxPendingPerApp === undefined ? {} : { maxPendingPerApp }),
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
    // Restoring and catching up read no inbox message: one read of the pending rows counts each app's
    // backlog (which maxPendingPerApp bounds), and that is all.
    expect(second.log.filter((e) => e.kind !== "delivered")).toEqual([{ kind: "read", collection: C.inboxPending, limit: undefined }]);
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

describe("the backlog itself is bounded (spec 12 box 3)", () => {
  const LIMIT = 5;
  const refusals = async (data: MemoryStoreData) => {
    const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
    const audit = (await store.range(C.audit)).map(({ value }) => value as { type: string; code?: string; subject?: string; detail?: string });
    const cards = (await store.range(C.inbox)).map(({ value }) => (value as unknown as AgentAppMessage).payload as { action_id?: string }).flatMap((p) => (p.action_id === undefined ? [] : [p.action_id]));
    await store.close();
    return { refused: audit.filter((r) => r.type === "ingress.agent.refused" && r.code === "inbox_full"), cards };
  };
  const card = (server: FakeAppServer, i: number) => server.agentRequestsAction("s-1", { action_id: `a-${i}`, kind: "approval", prompt: `Approve step ${i}?` });
  /** A display message for chat: never bounded, counted in chat's unread badge until shown. */
  const note = (server: FakeAppServer, i: number) =>
    server.agentEnvelope("s-1", {
      v: 1, id: `note-${i}`, type: "lineup.message", timestamp: "2026-11-30T06:00:00.000Z",
      sender: { kind: "agent", id: "agent-1" }, target: { kind: "app", app_scope: "chat" },
      scope: { app_scope: "chat", conversation_id: "s-1" }, payload: { format: "text", text: `note ${i}` },
    });

  /** The Runtime's notices to the agent in the session (what it sent, e.g. `inbox_full`), oldest first. */
  const notices = (server: FakeAppServer) =>
    server.applied.flatMap((w) => {
      const envelope = w.params["envelope"] as { type?: string; correlation?: { reply_to?: string }; payload?: { code?: string; message?: string } } | undefined;
      return w.method === "agentSession/envelope/send" && envelope?.type === "lineup.runtime.notice" ? [{ code: envelope.payload?.code, message: envelope.payload?.message, reply_to: envelope.correlation?.reply_to }] : [];
    });

  it(`past ${LIMIT} waiting key messages, a new one is refused for the app with inbox_full (audited, not stored, the agent told); display messages still arrive; acknowledging makes room; the count survives a restart`, async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const data = createMemoryStoreData();
    const first = await start(server, data, "r0", LIMIT);
    // Chat's unread badge counts the waiting cards, the display messages and the Runtime's notices (shown in chat too).
    const unread = (run: Run) => run.runtime.conversations.list()[0]?.unread;
    const seqs = new Map<number, number>();
    const sendCard = (i: number) => seqs.set(i, card(server, i).seq);
    const subjects = (...cards: number[]) => cards.map((i) => `s-1#${seqs.get(i)}`);
    for (let i = 1; i <= LIMIT + 2; i++) sendCard(i);
    note(server, 1);
    // Five cards and the display message wait for chat; the sixth and seventh cards were refused, and for each the agent got a notice.
    await until(() => unread(first) === LIMIT + 3, 5_000, "five cards, the message and two notices stored");
    await settle();
    const chat = first.runtime.appPort("chat");
    const stored = (await chat.listMessages({ conversation_id: "s-1" })).messages;
    expect(stored.map((m) => (m.type === "lineup.message" ? "note" : m.type === "lineup.runtime.notice" ? "notice" : (m.payload as { action_id: string }).action_id))).toEqual([...expectedIds(1, LIMIT), "note", "notice", "notice"]);
    expect(notices(server)).toEqual([1, 2].map(() => ({ code: "inbox_full", message: expect.stringMatching(/^lineup\.action\.required \(event \d+\) was not delivered to chat: too many messages wait/), reply_to: undefined })));
    // Two cards acknowledged make room for two more; the third is refused again.
    for (const message of stored.slice(0, 2)) await chat.acknowledge(message.message_id);
    expect(unread(first)).toBe(LIMIT + 1);
    for (let i = LIMIT + 3; i <= LIMIT + 5; i++) sendCard(i);
    note(server, 2);
    await until(() => unread(first) === LIMIT + 5, 5_000, "two more cards, a message and a notice stored");
    await settle();
    await first.stop();
    let seen = await refusals(data);
    expect(seen.cards).toEqual([...expectedIds(1, LIMIT), "a-8", "a-9"]);
    expect(seen.refused.map((r) => r.subject)).toEqual(subjects(6, 7, 10));
    expect(seen.refused.every((r) => r.detail?.startsWith("chat has 5 messages waiting") === true && r.detail.includes("lineup.action.required"))).toBe(true);

    // After a restart the backlog is counted again from the store: still full, until a card is acknowledged.
    const second = await start(server, data, "r1", LIMIT);
    expect(unread(second)).toBe(LIMIT + 5);
    sendCard(LIMIT + 6);
    note(server, 3);
    await until(() => unread(second) === LIMIT + 7, 5_000, "the card refused (a notice), the message stored");
    await settle();
    const history = (await second.runtime.appPort("chat").listMessages({ conversation_id: "s-1" })).messages;
    const third = history.find((m) => (m.payload as { action_id?: string }).action_id === "a-3")!;
    await second.runtime.appPort("chat").acknowledge(third.message_id);
    sendCard(LIMIT + 7);
    note(server, 4);
    await until(() => unread(second) === LIMIT + 8, 5_000, "the card after an acknowledgement stored");
    await settle();
    await second.stop();
    seen = await refusals(data);
    expect(seen.refused.map((r) => r.subject)).toEqual(subjects(6, 7, 10, 11));
    expect(seen.cards).toEqual([...expectedIds(1, LIMIT), "a-8", "a-9", "a-12"]);
    expect(notices(server).map((n) => n.code)).toEqual(["inbox_full", "inbox_full", "inbox_full", "inbox_full"]);
  }, 30_000);

  it("an app's backlog goes with its inbox when the app is removed: installed again, it starts from zero", async () => {
    const key = await publisherKey();
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const data = createMemoryStoreData();
    const d = await startDevice(server, data, { subscribe: false, extra: { trustedPublishers: [key.trustedKey], maxPendingPerApp: 2 } });
    await d.runtime.whenOnline();
    const manifest = whiteboardManifest("1.0.0", { agent_subscriptions: [{ type: "lineup.app.state.patch", scope: "app" }] } as Partial<AppManifest>);
    const install = async () => expect((await d.runtime.appManager.install(await signedBundle(manifest, key), { approved: true })).status).toBe("succeeded");
    let n = 0;
    const patch = () =>
      server.agentEnvelope("s-1", {
        v: 1, id: `patch-${++n}`, type: "lineup.app.state.patch", timestamp: "2026-11-30T06:00:00.000Z",
        sender: { kind: "agent", id: "agent-1" }, target: { kind: "app", app_scope: "whiteboard" },
        scope: { app_scope: "whiteboard", conversation_id: "s-1" }, payload: { patch: { n } },
      });
    const waiting = async () => (await d.runtime.appPort("whiteboard").listMessages({ conversation_id: "s-1" })).messages.map((m) => (m.payload as { patch: { n: number } }).patch.n);
    // A display message for chat after the patches: once chat's unread badge shows it (and the Runtime's notices, which
    // chat shows too), the patches before it were handled.
    const handled = async (notes: number, noticesSoFar: number) => {
      note(server, notes);
      await until(() => d.runtime.conversations.list()[0]?.unread === notes + noticesSoFar, 5_000, `note ${notes}`);
    };

    await install();
    const seqs = [patch().seq, patch().seq, patch().seq];
    await handled(1, 1);
    expect(await waiting()).toEqual([1, 2]);

    expect((await d.runtime.appManager.remove("whiteboard", { confirmed: true })).status).toBe("succeeded");
    await install();
    for (let i = 0; i < 2; i++) patch();
    await handled(2, 1);
    expect(await waiting()).toEqual([4, 5]);
    await d.stop();
    const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
    const refused = (await store.range(C.audit)).map(({ value }) => value as { type: string; code?: string; subject?: string }).filter((r) => r.code === "inbox_full");
    await store.close();
    // Refused for the app once; the agent was told once, in reply to the envelope that did not fit.
    expect(refused.map((r) => `${r.type} ${r.subject}`)).toEqual([`ingress.agent.refused s-1#${seqs[2]}`, "ingress.agent.notified patch-3"]);
    expect(notices(server)).toEqual([{ code: "inbox_full", message: expect.stringMatching(/^lineup\.app\.state\.patch patch-3 was not delivered to whiteboard: /), reply_to: "patch-3" }]);
  });
});
