/**
 * The order of a person's conversations: the order they were started in, on every device and across restarts.
 * The AppServer lists sessions newest first, and the store gives records back by key (a conversation id); the
 * Runtime adds a listed conversation it did not know oldest first, and restores them by their start time, so
 * `conversations.list()` and the views list them oldest first, each with `created_at`. Each also says when the person
 * or the agent last said something in it (`active_at`, the AppServer's time of that event), which the chat lists by.
 */
import { describe, expect, it } from "vitest";
import { createMemoryStore, createMemoryStoreData, createRuntime, RUNTIME_SCHEMA } from "../src/index.js";
import { createFakeClock, createSequentialIds, FakeAppServer } from "../src/testing/index.js";
import { until } from "../../../test/support/temp-dirs.js";
import { isActivityEvent, type JsonObject, type SessionEvent } from "@lineup/protocol";
import type { Conversation } from "../src/coordination/state.js";
import type { Transport } from "../src/index.js";
import { withActivity } from "../src/coordination/turns.js";

describe("the order of conversations", () => {
  it("is the order they were started in: listed from the server, started here, and after a restart", async () => {
    const server = new FakeAppServer();
    // Ids that sort against their start: by key, "zeta" would come last and "alpha" first.
    for (const id of ["zeta", "mid", "alpha"]) server.createSession({ session_id: id, agent_id: "agent-1", title: id });
    const store = await createMemoryStore(RUNTIME_SCHEMA);
    // This device's clock is after the server's sessions were started.
    const options = { store, transport: server.transport, serverUrl: "mem://", token: server.deviceToken, clock: createFakeClock(Date.UTC(2026, 11, 1)), ids: createSequentialIds(), relistIntervalMs: 0 };
    const first = createRuntime(options);
    await first.start();
    await first.whenOnline();
    const started = await first.conversations.start({ agent_id: "agent-1", workspace_id: "w-1", title: "started here" });
    const listed = first.conversations.list();
    expect(listed.map((c) => c.title)).toEqual(["zeta", "mid", "alpha", "started here"]);
    expect(listed.every((c) => typeof c.created_at === "string")).toBe(true);
    expect(listed.map((c) => c.created_at)).toEqual([...listed.map((c) => c.created_at)].sort());
    await until(() => server.sessions.has(started.conversation_id), 3_000, "the conversation started on the server");
    await first.stop();

    const again = createRuntime({ ...options, ids: createSequentialIds({ run: "again" }) });
    await again.start();
    expect(again.conversations.list().map((c) => c.title)).toEqual(["zeta", "mid", "alpha", "started here"]);
    await again.whenOnline();
    expect(again.conversations.list().map((c) => c.title)).toEqual(["zeta", "mid", "alpha", "started here"]);
    await again.stop();
    await store.close();
  });

  it("says when something was last said in each, from the log's times: kept across a restart, never moved back, not by tool traffic", async () => {
    let serverNow = Date.UTC(2026, 10, 30, 6, 0, 0);
    const server = new FakeAppServer({ now: () => new Date((serverNow += 1000)).toISOString() });
    for (const id of ["quiet", "talked", "asked"]) server.createSession({ session_id: id, agent_id: "agent-1", title: id });
    const data = createMemoryStoreData();
    const options = { transport: server.transport, serverUrl: "mem://", token: server.deviceToken, clock: createFakeClock(Date.UTC(2026, 11, 1)), ids: createSequentialIds(), relistIntervalMs: 0 };
    const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
    const first = createRuntime({ ...options, store });
    await first.start();
    await first.whenOnline();
    const activeAt = (runtime: typeof first) => Object.fromEntries(runtime.conversations.list().map((c) => [c.conversation_id, c.active_at]));
    expect(activeAt(first)).toEqual({ quiet: undefined, talked: undefined, asked: undefined });

    const said = server.agentSays("talked", "hello");
    const asked = server.agentRequestsAction("asked", { action_id: "a-1", kind: "approval", prompt: "May I?" });
    await until(() => activeAt(first)["asked"] !== undefined && activeAt(first)["talked"] !== undefined, 3_000, "both applied");
    expect(activeAt(first)).toEqual({ quiet: undefined, talked: said.created_at, asked: asked.created_at });

    // Tool traffic and an inventory published in it are not something said.
    server.agentEnvelope("talked", { v: 1, id: "inv-1", type: "lineup.tool.invoke", timestamp: said.created_at, sender: { kind: "agent", id: "agent-1" }, target: { kind: "app", app_scope: "nothing-here" }, scope: { app_scope: "nothing-here", conversation_id: "talked" }, correlation: { call_id: "c-1", inventory_revision: "1" }, payload: { method: "x.y", arguments: {} } });
    server.append("talked", "inventory.published", { role: "device", id: "another-device" }, { revision: 7, tools: [] });
    // Applied, with the tool error this device answers the invoke with (its own envelope, not something said either).
    const events = () => server.sessions.get("talked")!.events;
    const applied = async () => events().length === 5 && ((await store.get("cursors", "talked")) as { seq: number } | undefined)?.seq === 5;
    const deadline = Date.now() + 3_000;
    while (!(await applied())) {
      if (Date.now() > deadline) throw new Error(`the tool traffic was never applied: ${JSON.stringify(await store.get("cursors", "talked"))} of ${JSON.stringify(events().map((e) => e.kind))}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(activeAt(first)["talked"]).toBe(said.created_at);
    expect((events()[4]!.data as { envelope: { type: string } }).envelope.type).toBe("lineup.tool.error");
    expect(await store.get("cursors", "talked")).toEqual({ seq: 5, active_at: said.created_at });
    await first.stop();

    // Restarted on the same data, before it is online: what was applied is what it says.
    const again = createRuntime({ ...options, ids: createSequentialIds({ run: "again" }), store: await createMemoryStore(RUNTIME_SCHEMA, { data }) });
    await again.start();
    expect(activeAt(again)).toEqual({ quiet: undefined, talked: said.created_at, asked: asked.created_at });
    await again.whenOnline();
    const later = server.agentSays("quiet", "now you");
    await until(() => activeAt(again)["quiet"] !== undefined, 3_000, "applied");
    expect(activeAt(again)).toEqual({ quiet: later.created_at, talked: said.created_at, asked: asked.created_at });
    await again.stop();
  });

  it("on a new device, is the session list's before any log is read: stored with the cursor, kept offline, the same once the logs are applied", async () => {
    let serverNow = Date.UTC(2026, 10, 30, 6, 0, 0);
    const server = new FakeAppServer({ now: () => new Date((serverNow += 1000)).toISOString() });
    for (const id of ["busy", "quiet"]) server.createSession({ session_id: id, agent_id: "agent-1", title: id });
    // Started first, spoken in last.
    const said = server.agentSays("busy", "still here");
    expect(server.sessions.get("busy")!.session.active_at).toBe(said.created_at);
    // A connection on which no subscription reaches the server: the list is all this device hears.
    const listOnly: Transport = {
      async open(url) {
        const connection = await server.transport.open(url);
        return {
          send(text) {
            // One request, or a batch of them: the subscriptions are left out.
            const parsed = JSON.parse(text) as { method?: string } | { method?: string }[];
            const onward = (Array.isArray(parsed) ? parsed : [parsed]).filter((request) => request.method !== "agentSession/subscribe");
            if (onward.length > 0) connection.send(Array.isArray(parsed) ? JSON.stringify(onward) : text);
          },
          onMessage: (listener) => connection.onMessage(listener),
          onClose: (listener) => connection.onClose(listener),
          close: (code, reason) => connection.close(code, reason),
        };
      },
    };
    const data = createMemoryStoreData();
    const options = { serverUrl: "mem://", token: server.deviceToken, clock: createFakeClock(Date.UTC(2026, 11, 1)), relistIntervalMs: 0 };
    const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
    const fresh = createRuntime({ ...options, store, transport: listOnly, ids: createSequentialIds() });
    await fresh.start();
    await until(() => fresh.conversations.list().length === 2, 3_000, "the list");
    const seen = (runtime: typeof fresh) => Object.fromEntries(runtime.conversations.list().map((c) => [c.conversation_id, c.active_at]));
    expect(seen(fresh)).toEqual({ busy: said.created_at, quiet: undefined });
    expect(await store.get("cursors", "busy")).toEqual({ seq: 0, active_at: said.created_at });
    expect(await store.get("cursors", "quiet")).toBeUndefined();
    await fresh.stop();

    // Restarted with no network: what the list said is still known.
    const offline: Transport = { open: () => Promise.reject(new Error("no network")) };
    const restarted = createRuntime({ ...options, store: await createMemoryStore(RUNTIME_SCHEMA, { data }), transport: offline, ids: createSequentialIds({ run: "offline" }) });
    await restarted.start();
    expect(seen(restarted)).toEqual({ busy: said.created_at, quiet: undefined });
    await restarted.stop();

    // Online at last: the logs applied say the same.
    const online = createRuntime({ ...options, store: await createMemoryStore(RUNTIME_SCHEMA, { data }), transport: server.transport, ids: createSequentialIds({ run: "online" }) });
    await online.start();
    await online.whenOnline();
    expect(seen(online)).toEqual({ busy: said.created_at, quiet: undefined });
    await online.stop();
    const stored = await createMemoryStore(RUNTIME_SCHEMA, { data });
    expect([await stored.get("cursors", "busy"), await stored.get("cursors", "quiet")]).toEqual([{ seq: said.seq, active_at: said.created_at }, { seq: 1 }]);
  });

  it("counts a turn or an action asked for or answered and a message; an earlier time never moves it back", () => {
    const conversation: Conversation = { conversation_id: "c", app_scope: "chat", agent_id: "a", workspace_id: "w", origin: "server", cursor: 0, following: { status: "live" }, unread: 0 };
    const event = (kind: SessionEvent["kind"], created_at: string, data: JsonObject = {}) => ({ session_id: "c", seq: 1, kind, created_at, actor: { role: "agent", id: "a" }, data }) as SessionEvent;
    const isActivity = (e: SessionEvent) => isActivityEvent(e.kind, e.data);
    for (const kind of ["turn.started", "turn.completed", "turn.failed", "action.required", "action.responded"] as const) expect(isActivity(event(kind, "2026-12-07T10:00:00.000Z"))).toBe(true);
    for (const kind of ["session.started", "turn.activated", "turn.updated", "turn.cancelled", "inventory.published", "artifact.added", "evidence.exported"] as const) expect(isActivity(event(kind, "2026-12-07T10:00:00.000Z"))).toBe(false);
    expect(isActivity(event("envelope", "t", { envelope: { type: "lineup.message" } }))).toBe(true);
    expect(isActivity(event("envelope", "t", { envelope: { type: "lineup.tool.result" } }))).toBe(false);
    const said = withActivity(conversation, event("turn.completed", "2026-12-07T10:00:00.000Z"));
    expect(said.active_at).toBe("2026-12-07T10:00:00.000Z");
    expect(withActivity(said, event("turn.started", "2026-12-07T09:00:00.000Z"))).toBe(said);
    expect(withActivity(said, event("turn.updated", "2026-12-07T11:00:00.000Z"))).toBe(said);
    expect(withActivity(said, event("action.required", "2026-12-07T11:00:00.000Z")).active_at).toBe("2026-12-07T11:00:00.000Z");
  });
});
