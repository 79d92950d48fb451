import { describe, expect, it } from "vitest";
import { LineUpError, RUNTIME_SDK_FEATURES, type JsonValue, type SessionEvent } from "@lineup/protocol";
import { CORE_MANIFESTS } from "../src/app-lifecycle/core-manifests.js";
import { freshAppsState } from "../src/coordination/state.js";
import { inventoryFor } from "../src/coordination/inventories.js";
import { PersistentMap } from "../src/core/persistent-map.js";
import { CHUNK_SEQS, chunkKey, chunkOf, DEDUP_CHUNKS, dedupChunkKeys, withEnvelope } from "../src/persistence/log-chunks.js";
import {
  backoffDelay,
  chainAudit,
  CoreAppRegistry,
  createMemoryStore,
  createRpcClient,
  filterEvent,
  isLegalTransition,
  LIFECYCLE_TRANSITIONS,
  NO_INSTANCES,
  nextSendable,
  RUNTIME_SCHEMA,
  transition,
  verifyAuditChain,
  type AuditRecord,
  type Conversation,
  type OutboxEntry,
  type RuntimeState,
  type StoreWrite,
  type TransitionEnv,
} from "../src/index.js";
import { createFakeClock, createPair, createSequentialIds } from "../src/testing/index.js";
import { createDeadlineTimer, MAX_TIMER_WAIT_MS } from "../src/coordination/deadline-timer.js";

const conversation: Conversation = {
  conversation_id: "s-1",
  app_scope: "chat",
  agent_id: "agent-1",
  workspace_id: "w-1",
  origin: "server",
  cursor: 3,
  following: { status: "live" },
  unread: 0,
};

const envelopeEvent = (seq: number, envelope: Record<string, unknown>, actor = "agent-1"): SessionEvent =>
  ({ session_id: "s-1", seq, kind: "envelope", created_at: "2026-11-30T06:00:00.000Z", actor: { role: "agent", id: actor }, data: { envelope } }) as unknown as SessionEvent;

const message = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  v: 1,
  id: "e-1",
  type: "lineup.message",
  timestamp: "2026-11-30T06:00:00.000Z",
  sender: { kind: "agent", id: "agent-1" },
  target: { kind: "app", app_scope: "chat" },
  scope: { app_scope: "chat", conversation_id: "s-1" },
  payload: { format: "text", text: "hi" },
  ...over,
});

const apps = new CoreAppRegistry();
const ctx = (reads = new Map<string, unknown>(), cursor?: number) => ({ conversation: cursor === undefined ? conversation : { ...conversation, cursor }, reads: reads as never, apps, instances: NO_INSTANCES, now: () => "2026-11-30T06:00:00.000Z" });

describe("lifecycle table", () => {
  it("follows spec 3.3 and nothing else", () => {
    const path = ["created", "restoring", "authenticating", "synchronizing", "online", "reconnecting", "authenticating", "synchronizing", "online", "stopping", "stopped"] as const;
    for (let i = 1; i < path.length; i++) expect(isLegalTransition(path[i - 1]!, path[i]!), `${path[i - 1]} → ${path[i]}`).toBe(true);
    expect(isLegalTransition("created", "online")).toBe(false);
    expect(isLegalTransition("restoring", "online")).toBe(false);
    expect(isLegalTransition("reconnecting", "online")).toBe(false);
    expect(isLegalTransition("stopped", "restoring")).toBe(false);
    for (const [from, targets] of Object.entries(LIFECYCLE_TRANSITIONS)) {
      if (from !== "stopping" && from !== "stopped") expect(targets, from).toContain("stopping");
    }
  });
});

describe("filter chain (spec 5.3)", () => {
  const cases: [string, SessionEvent, string][] = [
    ["duplicate seq", envelopeEvent(3, message()), "duplicate_message"],
    ["gap", envelopeEvent(5, message()), "out_of_order"],
    ["unknown version", envelopeEvent(4, message({ v: 2 })), "envelope_unsupported_version"],
    ["unknown type", envelopeEvent(4, message({ type: "lineup.nope" })), "envelope_unknown_type"],
    ["bad scope", envelopeEvent(4, message({ scope: { app_scope: "Chat!", conversation_id: "s-1" } })), "scope_invalid"],
    ["bad payload", envelopeEvent(4, message({ payload: { format: "text" } })), "payload_invalid"],
    ["other agent as actor", envelopeEvent(4, message(), "agent-2"), "unknown_agent"],
    ["other agent as sender", envelopeEvent(4, message({ sender: { kind: "agent", id: "agent-2" } })), "unknown_agent"],
    ["other conversation", envelopeEvent(4, message({ scope: { app_scope: "chat", conversation_id: "s-2" } })), "scope_mismatch"],
    ["app not installed", envelopeEvent(4, message({ target: { kind: "app", app_scope: "whiteboard" }, scope: { app_scope: "whiteboard", conversation_id: "s-1" } })), "app_not_installed"],
    ["instance not owned", envelopeEvent(4, message({ scope: { app_scope: "chat", conversation_id: "s-1", instance_id: "i-9" } })), "not_owner"],
    ["not subscribed", envelopeEvent(4, message({ target: { kind: "app", app_scope: "settings" }, scope: { app_scope: "settings", conversation_id: "s-1" } })), "not_subscribed"],
  ];
  it.each(cases)("%s → %s", (_name, event, code) => {
    const outcome = filterEvent(event, ctx());
    expect(outcome.kind).not.toBe("accepted");
    if (outcome.kind !== "accepted" && outcome.kind !== "tool") expect(outcome.refusal.code).toBe(code);
  });

  it("refuses an envelope id already applied, consuming its position", () => {
    const outcome = filterEvent(envelopeEvent(4, message()), ctx(new Map([[`log-chunks\u0000${chunkKey("s-1", 0)}`, withEnvelope({}, "e-1", 2)]])));
    expect(outcome).toMatchObject({ kind: "refused", refusal: { code: "duplicate_message" } });
  });

  it("looks for an envelope id in the event's log chunk and the seven before it, not further", () => {
    const at = (seq: number, seenAt: number) =>
      filterEvent(envelopeEvent(seq, message()), ctx(new Map([[`log-chunks\u0000${chunkKey("s-1", chunkOf(seenAt))}`, withEnvelope({}, "e-1", seenAt)]]), seq - 1));
    const seq = 2_100;
    expect(dedupChunkKeys("s-1", seq)).toHaveLength(DEDUP_CHUNKS);
    // The oldest seq still looked at: the first of the chunk DEDUP_CHUNKS - 1 before the event's.
    const oldest = (chunkOf(seq) - (DEDUP_CHUNKS - 1)) * CHUNK_SEQS;
    expect(at(seq, seq - 1)).toMatchObject({ kind: "refused", refusal: { code: "duplicate_message" } });
    expect(at(seq, oldest)).toMatchObject({ kind: "refused", refusal: { code: "duplicate_message" } });
    expect(at(seq, oldest - 1)).toMatchObject({ kind: "accepted" });
  });

  it("adapts a legacy lineup.v1 message at ingress", () => {
    const legacy = { type: "lineup.v1.message", id: "l-1", from: { role: "agent", id: "agent-1" }, conversation_id: "s-1", payload: { text: "old" } };
    const outcome = filterEvent(envelopeEvent(4, legacy), ctx());
    if (outcome.kind === "refused") expect.fail(`${outcome.refusal.code}: ${outcome.refusal.message}`);
    expect(outcome).toMatchObject({ kind: "accepted", recipients: ["chat"], draft: { type: "lineup.message" } });
  });

  it("accepts a chat message for chat, and shows tool traffic of any app to chat as cards", () => {
    expect(filterEvent(envelopeEvent(4, message()), ctx())).toMatchObject({ kind: "accepted", recipients: ["chat"] });
    const result = {
      ...message({ type: "lineup.tool.result", sender: { kind: "runtime", id: "rt-1" }, target: { kind: "runtime", app_scope: "runtime" } }),
      scope: { app_scope: "whiteboard", conversation_id: "s-1" },
      correlation: { call_id: "c-1" },
      payload: { result: {} },
    };
    const event = { ...envelopeEvent(4, result), actor: { role: "device", id: "d-1" } } as SessionEvent;
    expect(filterEvent(event, ctx())).toMatchObject({ kind: "accepted", recipients: ["chat"] });
  });
});

const env: TransitionEnv = {
  host: { features: Object.keys(RUNTIME_SDK_FEATURES), capabilities: [], appPolicy: {}, inventoryPolicy: {} },
  now: () => 0,
  newId: (() => {
    let n = 0;
    return (p: string) => `${p}-${++n}`;
  })(),
};
const base = (over: Partial<RuntimeState> = {}): RuntimeState => ({
  lifecycle: { status: "synchronizing" },
  runtime_id: "rt-1",
  identity: {},
  conversations: PersistentMap.of([["s-1", { ...conversation, following: { status: "catching_up" } }]]),
  outbox: PersistentMap.empty(),
  next_outbox_order: 0,
  ...freshAppsState(CORE_MANIFESTS, 0),
  ...over,
});

describe("transitions", () => {
  it("stores an event with its cursor in one result, and delivers nothing before the seam", () => {
    const result = transition(base(), { kind: "event", event: envelopeEvent(4, message()) }, new Map(), env);
    expect(result.deliveries).toEqual([]);
    // The envelope id goes into the event's log chunk, the display message's pending mark into its chunk's unseen marks.
    expect(result.writes.map((w) => `${w.op}:${w.collection}`)).toEqual(["put:cursors", "put:log-chunks", "put:inbox", "put:inbox-unseen"]);
    expect(result.writes.find((w) => w.collection === "log-chunks")).toMatchObject({ key: chunkKey("s-1", 0), value: withEnvelope({}, "e-1", 4) });
    expect(result.writes.find((w) => w.collection === "inbox-unseen")).toMatchObject({ key: chunkKey("s-1", 0), value: { chat: [4] } });
    expect(result.state.conversations.get("s-1")?.cursor).toBe(4);
  });

  it("goes online at the last seam and flushes the stored messages then", () => {
    const result = transition(base(), { kind: "caught_up", session_id: "s-1", seq: 3 }, new Map(), env);
    expect(result.state.lifecycle.status).toBe("online");
    expect(result.deliveries).toEqual([{ kind: "flush" }]);
    expect(result.effects.map((e) => e.kind)).toContain("outbox.flush");
  });

  it("refuses an illegal lifecycle move and changes nothing", () => {
    const state = base({ lifecycle: { status: "created" } });
    const result = transition(state, { kind: "lifecycle", to: { status: "online", since: 0 } }, new Map(), env);
    expect(result.error?.code).toBe("invalid_state");
    expect(result.state).toBe(state);
  });

  it("holds the identity a connect reports at once and says when it changed; identity.save writes it", () => {
    const known = base({ lifecycle: { status: "authenticating", attempt: 0 }, identity: { user_id: "u-1", device_id: "d-1" } });
    const same = transition(known, { kind: "lifecycle", to: { status: "synchronizing" }, identity: { user_id: "u-1", device_id: "d-1" } }, new Map(), env);
    expect(same.error).toBeUndefined();
    expect(same.writes).toEqual([]);
    expect(same.reply).toBeUndefined();
    expect(same.state.lifecycle.status).toBe("synchronizing");
    // A changed identity holds from this turn on; this turn writes nothing, so going online never waits on its commit.
    const moved = transition(known, { kind: "lifecycle", to: { status: "synchronizing" }, identity: { user_id: "u-1", device_id: "d-2" } }, new Map(), env);
    expect(moved.writes).toEqual([]);
    expect(moved.reply).toEqual({ identity_changed: true });
    expect(moved.state.identity).toEqual({ user_id: "u-1", device_id: "d-2" });
    const saved = transition(moved.state, { kind: "identity.save" }, new Map(), env);
    expect(saved.writes).toEqual([{ op: "put", collection: "meta", key: "identity", value: { user_id: "u-1", device_id: "d-2" } }]);
    expect(saved.state).toBe(moved.state);
  });

  it("a gap resubscribes from the cursor and does not move it", () => {
    const result = transition(base(), { kind: "event", event: envelopeEvent(9, message()) }, new Map(), env);
    expect(result.effects).toEqual([{ kind: "subscribe", session_id: "s-1", after_seq: 3 }]);
    expect(result.writes).toEqual([]);
    expect(result.audit[0]?.code).toBe("out_of_order");
  });

  it("a refused event still moves the cursor (its refusal is its outcome) and is audited", () => {
    const result = transition(base(), { kind: "event", event: envelopeEvent(4, message({ type: "lineup.nope" })) }, new Map(), env);
    expect(result.writes.map((w) => w.collection)).toEqual(["cursors"]);
    expect(result.audit).toMatchObject([{ type: "ingress.agent.refused", code: "envelope_unknown_type" }]);
  });

  it("a dispatch is stored with an idempotency key and answered with a receipt", () => {
    const result = transition(base(), { kind: "dispatch", app_scope: "chat", action: { type: "conversation.send_text", conversation_id: "s-1", text: "yo" } }, new Map(), env);
    expect(result.writes.map((w) => w.collection)).toEqual(["outbox"]);
    expect(result.reply).toMatchObject({ status: "queued", conversation_id: "s-1" });
    expect(result.audit[0]?.type).toBe("ingress.user.action");
    const refused = transition(base(), { kind: "dispatch", app_scope: "chat", action: { type: "conversation.send_text", conversation_id: "nope", text: "yo" } }, new Map(), env);
    expect(refused.error?.code).toBe("conversation_unknown");
  });
});

describe("outbox order", () => {
  const entry = (order: number, conversation_id: string, status: "pending" | "failed" = "pending"): OutboxEntry =>
    ({ order, conversation_id, app_scope: "chat", receipt_id: `r${order}`, action_type: "x", accepted_at: "", method: "agentSession/turn/start", params: {}, status }) as OutboxEntry;
  const inFlight = (entries: Record<string, number[]>) => new Map(Object.entries(entries).map(([c, orders]) => [c, new Set(orders)]));
  it("stop-and-wait: sends the oldest pending entry of each conversation with nothing in flight", () => {
    const entries = [entry(3, "b"), entry(1, "a", "failed"), entry(2, "a"), entry(4, "a"), entry(5, "c")];
    expect(nextSendable(entries, { inFlight: inFlight({ c: [5] }) }).map((e) => e.order)).toEqual([2, 3]);
  });

  it("skips entries whose outcome is being committed, and answers oldest first whatever the outbox's own order", () => {
    const entries = [entry(9, "c"), entry(7, "b"), entry(4, "a"), entry(8, "b"), entry(6, "a")];
    expect(nextSendable(entries, { inFlight: new Map() }).map((e) => e.order)).toEqual([4, 7, 9]);
    // 4 was applied by the server and is being settled: the next of its conversation may go.
    expect(nextSendable(entries, { inFlight: inFlight({ b: [7] }), settling: new Set([4]) }).map((e) => e.order)).toEqual([6, 9]);
    expect(nextSendable([], { inFlight: new Map() })).toEqual([]);
  });

  it("pipelined: up to the depth per conversation, in order, never past an entry that is held or not sent", () => {
    const entries = [entry(1, "a"), entry(2, "a"), entry(3, "a"), entry(4, "a"), entry(5, "b"), entry(6, "a", "failed"), entry(7, "a")];
    expect(nextSendable(entries, { inFlight: new Map(), depth: 3 }).map((e) => e.order)).toEqual([1, 2, 3, 5]);
    // 1 and 2 in flight: the depth has room for two more of a (the failed 6 is skipped).
    expect(nextSendable(entries, { inFlight: inFlight({ a: [1, 2] }), depth: 4 }).map((e) => e.order)).toEqual([3, 4, 5]);
    expect(nextSendable(entries, { inFlight: inFlight({ a: [1, 2] }), depth: 8 }).map((e) => e.order)).toEqual([3, 4, 5, 7]);
    // 2 came back refused while 1 and 3 are in flight: 2 is sent again (everything before it is in flight), nothing after 3 overtakes.
    expect(nextSendable(entries, { inFlight: inFlight({ a: [1, 3] }), depth: 3 }).map((e) => e.order)).toEqual([2, 5]);
    // A held entry stops its conversation there, whatever the depth.
    const held = (e: OutboxEntry) => e.order === 2;
    expect(nextSendable(entries, { inFlight: inFlight({ a: [1] }), held, depth: 8 }).map((e) => e.order)).toEqual([5]);
    expect(nextSendable(entries, { inFlight: inFlight({ a: [1, 3] }), held, depth: 8 }).map((e) => e.order)).toEqual([5]);
  });

  it("sends an upload chunk alone: nothing beside it in flight, nothing behind it", () => {
    const put = (order: number, conversation_id: string) => ({ ...entry(order, conversation_id), method: "artifact/put" }) as OutboxEntry;
    const entries = [entry(1, "a"), put(2, "a"), put(3, "a"), entry(4, "a"), entry(5, "b")];
    expect(nextSendable(entries, { inFlight: new Map(), depth: 8 }).map((e) => e.order)).toEqual([1, 5]);
    expect(nextSendable(entries, { inFlight: inFlight({ a: [1] }), depth: 8 }).map((e) => e.order)).toEqual([5]);
    expect(nextSendable(entries.slice(1), { inFlight: new Map(), depth: 8 }).map((e) => e.order)).toEqual([2, 5]);
    expect(nextSendable(entries.slice(1), { inFlight: inFlight({ a: [2] }), depth: 8 }).map((e) => e.order)).toEqual([5]);
    expect(nextSendable(entries.slice(2), { inFlight: new Map(), depth: 8 }).map((e) => e.order)).toEqual([3, 5]);
  });

  it("never has more than the limit in flight over all conversations: the oldest go, each conversation's a prefix", () => {
    const entries = [entry(1, "a"), entry(2, "b"), entry(3, "a"), entry(4, "b"), entry(5, "c"), entry(6, "a")];
    expect(nextSendable(entries, { inFlight: new Map(), depth: 8, limit: 4 }).map((e) => e.order)).toEqual([1, 2, 3, 4]);
    expect(nextSendable(entries, { inFlight: inFlight({ a: [1], b: [2] }), depth: 8, limit: 4 }).map((e) => e.order)).toEqual([3, 4]);
    expect(nextSendable(entries, { inFlight: inFlight({ a: [1, 3], b: [2, 4] }), depth: 8, limit: 4 })).toEqual([]);
  });
});

describe("audit chain", () => {
  it("verifies an intact chain and finds an edited record", async () => {
    const store = await createMemoryStore(RUNTIME_SCHEMA);
    const first = await chainAudit({ next: 0, hash: "0".repeat(64) }, [{ type: "a" }, { type: "b", code: "not_owner" }], 0);
    await store.commit(first.writes);
    const second = await chainAudit(first.head, [{ type: "c" }], 1);
    await store.commit(second.writes);
    expect(await verifyAuditChain(store, 2)).toEqual({ ok: true, records: 3 });
    const [record] = await store.range("audit", { limit: 1, gt: "0000000000000000" });
    await store.commit([{ op: "put", collection: "audit", key: record!.key, value: { ...(record!.value as object), type: "forged" } }]);
    expect(await verifyAuditChain(store)).toMatchObject({ ok: false, index: 0 });
  });

  it("finds every kind of tampering within and between batches", async () => {
    const head = { next: 0, hash: "0".repeat(64) };
    const first = await chainAudit(head, [{ type: "a" }, { type: "b" }, { type: "c" }], 0);
    const second = await chainAudit(first.head, [{ type: "d" }, { type: "e" }], 1);
    const third = await chainAudit(second.head, [{ type: "f" }], 2);
    const writes = [...first.writes, ...second.writes, ...third.writes];
    const records = writes.map((write) => (write as unknown as { value: AuditRecord }).value);
    const put = (record: AuditRecord): StoreWrite => ({ op: "put", collection: "audit", key: String(record.index).padStart(16, "0"), value: record as unknown as JsonValue });
    const verdict = async (edit: (records: AuditRecord[]) => AuditRecord[]) => {
      const store = await createMemoryStore(RUNTIME_SCHEMA);
      await store.commit(edit(records.map((record) => ({ ...record }))).map(put));
      return verifyAuditChain(store, 2);
    };
    expect(await verdict((all) => all)).toEqual({ ok: true, records: 6 });
    // A record in the middle of a batch edited: its batch fails, named by its first record.
    expect(await verdict((all) => all.map((r) => (r.index === 1 ? { ...r, detail: "edited" } : r)))).toMatchObject({ ok: false, index: 0 });
    // Two records of a batch swapped, indexes and all.
    expect(await verdict((all) => all.map((r) => (r.index === 3 ? { ...all[4]!, index: 3 } : r.index === 4 ? { ...all[3]!, index: 4 } : r)))).toMatchObject({ ok: false, index: 3 });
    // A record removed from a batch and the later ones renumbered.
    expect(await verdict((all) => all.filter((r) => r.index !== 1).map((r, index) => ({ ...r, index })))).toMatchObject({ ok: false, index: 0 });
    // A batch split in two: its last record moved to a batch of its own.
    expect(await verdict((all) => all.map((r) => (r.index === 2 ? { ...r, prev: first.head.hash } : r)))).toMatchObject({ ok: false, index: 0 });
    // The last batch's hash set to what a forger computed for its own content, without the batch before it.
    expect(await verdict((all) => all.map((r) => (r.index === 5 ? { ...r, prev: head.hash } : r)))).toMatchObject({ ok: false, index: 5 });
  });
});

describe("backoff", () => {
  it("is full jitter under an exponential, capped ceiling", () => {
    expect(backoffDelay(0, () => 0.999, { baseMs: 100 })).toBeLessThan(100);
    expect(backoffDelay(3, () => 0.999, { baseMs: 100 })).toBeLessThan(800);
    expect(backoffDelay(3, () => 0.999, { baseMs: 100 })).toBeGreaterThanOrEqual(700);
    expect(backoffDelay(50, () => 0.999, { baseMs: 100, capMs: 1_000 })).toBeLessThan(1_000);
    expect(backoffDelay(5, () => 0)).toBe(0);
  });
});

describe("rpc client", () => {
  const setup = () => {
    const clock = createFakeClock();
    const [client, server] = createPair();
    const seen: string[] = [];
    server.onMessage((text) => seen.push(text));
    const notes: unknown[] = [];
    const rpc = createRpcClient(client, { clock, diagnostics: () => undefined, notifications: { "agentSession/caughtUp": (p) => void notes.push(p) }, defaultTimeoutMs: 1_000 });
    return { clock, server, seen, rpc, notes };
  };
  const flush = () => new Promise((resolve) => setImmediate(resolve));

  it("correlates responses, turns wire errors into LineUp codes and dispatches notifications", async () => {
    const { server, seen, rpc, notes } = setup();
    const read = rpc.request("agentSession/read", { session_id: "s-1" });
    const list = rpc.request("agentSession/list", {});
    await flush();
    const [a, b] = seen.map((t) => JSON.parse(t) as { id: number });
    server.send(JSON.stringify({ jsonrpc: "2.0", id: b!.id, result: { sessions: [] } }));
    server.send(JSON.stringify({ jsonrpc: "2.0", id: a!.id, error: { code: -32004, message: "no session", data: { code: "session_not_found", message: "no session s-1" } } }));
    server.send(JSON.stringify({ jsonrpc: "2.0", method: "agentSession/caughtUp", params: { session_id: "s-1", seq: 2 } }));
    await expect(list).resolves.toEqual({ sessions: [] });
    await expect(read).rejects.toMatchObject({ code: "session_not_found", message: "no session s-1" });
    await flush();
    expect(notes).toEqual([{ session_id: "s-1", seq: 2 }]);
  });

  it("times out on the injected clock, aborts, and rejects everything pending on close", async () => {
    const { clock, rpc } = setup();
    const late = rpc.request("agentSession/list", {});
    clock.advance(1_000);
    await expect(late).rejects.toMatchObject({ code: "request_timeout" });
    const controller = new AbortController();
    const aborted = rpc.request("agentSession/list", {}, { signal: controller.signal });
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ code: "request_cancelled" });
    const pending = rpc.request("agentSession/list", {});
    rpc.close();
    await expect(pending).rejects.toBeInstanceOf(LineUpError);
    await expect(pending).rejects.toMatchObject({ code: "request_cancelled" });
    expect(clock.pendingTimers).toBe(0);
  });

  it("times each request out at its own deadline, shorter ones first, answered ones never", async () => {
    const { clock, server, seen, rpc } = setup();
    const outcomes: string[] = [];
    const track = (name: string, request: Promise<unknown>) =>
      request.then(
        () => outcomes.push(`${name} ok`),
        (error: LineUpError) => outcomes.push(`${name} ${error.code}`),
      );
    const first = track("first", rpc.request("agentSession/list", {}));
    clock.advance(400);
    const short = track("short", rpc.request("agentSession/list", {}, { timeoutMs: 100 }));
    const answered = track("answered", rpc.request("agentSession/list", {}));
    await flush();
    clock.advance(100);
    await flush();
    expect(outcomes).toEqual(["short request_timeout"]);
    server.send(JSON.stringify({ jsonrpc: "2.0", id: (JSON.parse(seen[2]!) as { id: number }).id, result: { sessions: [] } }));
    await flush();
    clock.advance(500);
    await flush();
    expect(outcomes).toEqual(["short request_timeout", "answered ok", "first request_timeout"]);
    // A request made after the others waited the whole default, from when it was made.
    const later = track("later", rpc.request("agentSession/list", {}));
    clock.advance(999);
    await flush();
    expect(outcomes).not.toContain("later request_timeout");
    clock.advance(1);
    await Promise.all([first, short, answered, later]);
    expect(outcomes.at(-1)).toBe("later request_timeout");
  });
});

describe("tool deadline timer", () => {
  /** A state whose calls in flight end by these deadlines (ms from the clock's start). */
  const start = Date.UTC(2026, 10, 30, 6, 0, 0);
  const calls = (...deadlines: number[]) =>
    base({ tools: { ...base().tools, calls: Object.fromEntries(deadlines.map((d, i) => [`c-${i}`, { call_id: `c-${i}`, phase: "running", deadline_at: start + d }])) } } as unknown as Partial<RuntimeState>);

  it("ticks once at each deadline that is due, and sets no timer for a call ending before the one set", () => {
    const clock = createFakeClock(start);
    let set = 0;
    const counted = { ...clock, setTimer: (ms: number, fn: () => void) => (set++, clock.setTimer(ms, fn)) };
    const ticks: number[] = [];
    const timer = createDeadlineTimer({ clock: counted, fire: () => ticks.push(clock.now() - start) });
    timer.arm(calls(100));
    timer.arm(calls(100, 300));
    timer.arm(calls(300));
    expect(set).toBe(1);
    // The timer set for 100 fires with nothing due and sets itself for 300, without a tick.
    clock.advance(150);
    expect(ticks).toEqual([]);
    expect(set).toBe(2);
    // An earlier deadline replaces the timer set.
    timer.arm(calls(300, 200));
    expect(set).toBe(3);
    expect(clock.pendingTimers).toBe(1);
    clock.advance(50);
    expect(ticks).toEqual([200]);
    // The tick's commit ended the call due at 200: the next one is 300.
    timer.arm(calls(300));
    clock.advance(100);
    expect(ticks).toEqual([200, 300]);
    // Every call ended before the timer fires: it is cleared at once, so an idle Runtime holds no timer.
    timer.arm(calls(500));
    timer.arm(calls());
    expect(clock.pendingTimers).toBe(0);
    clock.advance(1_000);
    expect(ticks).toEqual([200, 300]);
    expect(clock.pendingTimers).toBe(0);
  });

  it("a call with no time limit gets no tick: the timer waits its longest and sets itself again", () => {
    const clock = createFakeClock(start);
    const waits: number[] = [];
    const counted = { ...clock, setTimer: (ms: number, fn: () => void) => (waits.push(ms), clock.setTimer(ms, fn)) };
    const ticks: number[] = [];
    const timer = createDeadlineTimer({ clock: counted, fire: () => ticks.push(clock.now() - start) });
    timer.arm(calls(Number.MAX_SAFE_INTEGER - start));
    expect(waits).toEqual([MAX_TIMER_WAIT_MS]);
    clock.advance(MAX_TIMER_WAIT_MS);
    expect(ticks).toEqual([]);
    expect(waits).toEqual([MAX_TIMER_WAIT_MS, MAX_TIMER_WAIT_MS]);
    // The call ends: no timer is left ~24.8 days out to keep a process alive.
    timer.arm(calls());
    expect(clock.pendingTimers).toBe(0);
  });

  it("sets nothing without calls in flight, and stop cancels the timer set", () => {
    const clock = createFakeClock(start);
    const ticks: number[] = [];
    const timer = createDeadlineTimer({ clock, fire: () => ticks.push(clock.now() - start) });
    timer.arm(calls());
    expect(clock.pendingTimers).toBe(0);
    timer.arm(calls(100));
    timer.stop();
    expect(clock.pendingTimers).toBe(0);
    clock.advance(200);
    expect(ticks).toEqual([]);
  });
});

describe("ids", () => {
  it("the sequential fake replays the same stream for the same seed", () => {
    const a = createSequentialIds({ seed: 7 });
    const b = createSequentialIds({ seed: 7 });
    expect([a.random(), a.random(), a.next("x")]).toEqual([b.random(), b.random(), b.next("x")]);
  });
});

describe("the inventory an agent sees in a conversation", () => {
  it("is computed once for the conversations the policy says nothing of, and apart for one it names", () => {
    const named: TransitionEnv = { ...env, host: { ...env.host, inventoryPolicy: { conversations: { "s-2": { allowed_apps: [] } } } } };
    const state = base();
    const first = inventoryFor(state, named, "agent-1", "s-1");
    expect(inventoryFor(state, named, "agent-1", "s-3")).toBe(first);
    const narrowed = inventoryFor(state, named, "agent-1", "s-2");
    expect(narrowed).not.toBe(first);
    expect(narrowed.apps.length).toBeLessThan(first.apps.length);
    // Another agent: its own.
    expect(inventoryFor(state, named, "agent-2", "s-1")).not.toBe(first);
  });
});

describe("a listing of sessions", () => {
  it("adds the ones this device did not know oldest first, and subscribes the most recently started first", () => {
    const session = (id: string, minute: number) => ({ session_id: id, app_scope: "chat", workspace_id: "w-1", owner_user_id: "u-1", agent_id: "agent-1", state: "active", created_at: `2026-12-07T09:${String(minute).padStart(2, "0")}:00.000Z`, last_seq: 1, inventory_revision: 0 }) as const;
    const state = base({ conversations: PersistentMap.empty() });
    // The server lists newest first.
    const result = transition(state, { kind: "sessions.listed", sessions: [session("s-c", 3), session("s-b", 2), session("s-a", 1)] }, new Map(), env);
    expect([...result.state.conversations.keys()]).toEqual(["s-a", "s-b", "s-c"]);
    expect(result.effects.filter((e) => e.kind === "subscribe").map((e) => (e as { session_id: string }).session_id)).toEqual(["s-c", "s-b", "s-a"]);
  });

  it("subscribes the one where something was last said first, as the chat lists them", () => {
    const session = (id: string, minute: number, activeMinute?: number) => ({ session_id: id, app_scope: "chat", workspace_id: "w-1", owner_user_id: "u-1", agent_id: "agent-1", state: "active", created_at: `2026-12-07T09:${String(minute).padStart(2, "0")}:00.000Z`, ...(activeMinute === undefined ? {} : { active_at: `2026-12-07T10:${String(activeMinute).padStart(2, "0")}:00.000Z` }), last_seq: 1, inventory_revision: 0 }) as const;
    const state = base({ conversations: PersistentMap.empty() });
    // s-a, the oldest, was spoken in last; s-c after s-b; s-d, started last, is quiet (its start is before both).
    const result = transition(state, { kind: "sessions.listed", sessions: [session("s-d", 4), session("s-c", 3, 20), session("s-b", 2, 10), session("s-a", 1, 30)] }, new Map(), env);
    expect(result.effects.filter((e) => e.kind === "subscribe").map((e) => (e as { session_id: string }).session_id)).toEqual(["s-a", "s-c", "s-b", "s-d"]);
  });
});
