/**
 * RELIABILITY R4 (I/O faults), R6 (cursor monotonicity) and S4 (runtime lifecycle under drops), in
 * process against the in-memory App Server. R1 and R2 (kill -9) are in runtime-crash.test.ts.
 */
import { describe, expect, it } from "vitest";
import { createMemoryStore, isLegalTransition, RUNTIME_SCHEMA, withFaults, type AgentAppMessage, type Lifecycle, type LifecycleStatus } from "../src/index.js";
import { createFakeClock, createMemoryStoreData, FakeAppServer, settle, startDevice, until } from "./helpers/runtime-harness.js";
import { listPendingMessageIds } from "../src/persistence/inbox.js";

async function heal(clock: ReturnType<typeof createFakeClock>, done: () => Promise<boolean> | boolean, describe: () => unknown = () => ""): Promise<void> {
  // Bounded in steps and in real time: WebCrypto digests (the audit chain) complete on the thread pool,
  // which a burst of fake-clock steps can outrun.
  const deadline = Date.now() + 5_000;
  for (let i = 0; i < 300 || Date.now() < deadline; i++) {
    if (await done()) return;
    clock.advance(500);
    await settle(10);
    if (i >= 300) await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`did not recover: ${JSON.stringify(describe())}`);
}

describe("R4: the k-th store write fails", () => {
  for (const mode of ["once", "persistent"] as const) {
    it(`fails ${mode}: typed error, all-or-nothing, writable again, nothing lost or doubled`, async () => {
      let sweptCommits = 0;
      for (let k = 1; k <= 14; k++) {
        const server = new FakeAppServer();
        server.createSession({ session_id: "s-1", agent_id: "agent-1" });
        for (let i = 0; i < 3; i++) server.agentSays("s-1", `before ${i}`);
        const clock = createFakeClock();
        const data = createMemoryStoreData();
        const store = withFaults(await createMemoryStore(RUNTIME_SCHEMA, { data }));
        const device = await startDevice(server, data, { clock, extra: { store, requestTimeoutMs: 1_000, backoff: { baseMs: 50, capMs: 400 } } });
        // Counted from just after restore: the k-th commit of connecting, syncing, ingesting and dispatching.
        store.injectFaults({ failAt: k, mode });
        const accepted: string[] = [];
        const refused: string[] = [];
        for (let i = 0; i < 6; i++) {
          if (i === 3) server.agentSays("s-1", "during");
          await settle(5);
          if (device.runtime.conversations.list().length === 0) continue;
          const text = `text ${i}`;
          await device.chat
            .dispatch({ type: "conversation.send_text", conversation_id: "s-1", text })
            .then(() => accepted.push(text))
            .catch((error: { code?: string }) => {
              expect(error.code).toBe("store_write_failed");
              refused.push(text);
            });
          if (mode === "persistent" && i === 4) store.clearFaults();
        }
        store.clearFaults();
        const reader = await createMemoryStore(RUNTIME_SCHEMA, { data });
        let last: unknown;
        await heal(clock, async () => {
          const view = device.chat.view();
          const cursor = ((await reader.get("cursors", "s-1")) as { seq?: number } | undefined)?.seq ?? 0;
          last = { cursor, outbox: await reader.range("outbox"), pending: await listPendingMessageIds(reader), applied: server.applied.length };
          return view.lifecycle.status === "online" && view.queued_actions === 0 && cursor === server.sessions.get("s-1")!.events.length && (await listPendingMessageIds(reader)).length === 0;
        }, () => ({ k, last, view: device.chat.view(), head: server.sessions.get("s-1")!.events.length, errors: device.errors.map((e) => String((e as { context: string; error: unknown }).context) + ": " + String((e as { error: unknown }).error)).slice(-60) }));
        // Only what was acknowledged reached the server, once each, in order; refused actions left no trace.
        expect(server.turnTexts("s-1"), `k=${k}`).toEqual(accepted);
        const history = (await reader.range("inbox")).map((e) => e.value as unknown as AgentAppMessage);
        const agentTexts = history.filter((m) => m.sender.kind === "agent").map((m) => (m.payload as { text: string }).text);
        expect(agentTexts, `k=${k}`).toEqual(["before 0", "before 1", "before 2", "during"]);
        expect(await device.runtime.verifyAudit()).toMatchObject({ ok: true });
        sweptCommits = Math.max(sweptCommits, store.commitCount);
        await reader.close();
        await device.stop();
      }
      expect(sweptCommits).toBeGreaterThan(14); // the sweep reached past the last injected fault
    }, 60_000);
  }
});

describe("R6: the cursor never moves back", () => {
  it("refuses a server whose head is behind the stored cursor, keeps the cursor, audits, and still goes online", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    server.createSession({ session_id: "s-2", agent_id: "agent-1" });
    for (let i = 0; i < 4; i++) server.agentSays("s-1", `m${i}`);
    const data = createMemoryStoreData();
    const first = await startDevice(server, data);
    await first.runtime.whenOnline();
    await until(() => first.received.length === 4);
    await first.stop();

    // The server lost s-1's tail (restored from an old backup): head 2 < stored cursor 5.
    const rolledBack = new FakeAppServer();
    rolledBack.createSession({ session_id: "s-1", agent_id: "agent-1" });
    rolledBack.agentSays("s-1", "m0");
    rolledBack.createSession({ session_id: "s-2", agent_id: "agent-1" });
    const second = await startDevice(rolledBack, data, { run: "r1" });
    await second.runtime.whenOnline();
    expect(second.runtime.conversations.list().find((c) => c.conversation_id === "s-1")?.status).toBe("unavailable");
    expect(second.runtime.conversations.list().find((c) => c.conversation_id === "s-2")?.status).toBe("live");
    await second.stop();
    const reader = await createMemoryStore(RUNTIME_SCHEMA, { data });
    expect(await reader.get("cursors", "s-1")).toEqual({ seq: 5, active_at: server.sessions.get("s-1")!.events[4]!.created_at });
    const audit = (await reader.range("audit")).map((e) => e.value as { type: string; code?: string });
    expect(audit).toContainEqual(expect.objectContaining({ type: "sync.subscribe_refused", code: "cursor_invalid" }));
    await reader.close();
  });

  it("ignores replayed (older) events and resyncs after a far-ahead one, committing cursor and rows together", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const data = createMemoryStoreData();
    const device = await startDevice(server, data);
    await device.runtime.whenOnline();
    server.agentSays("s-1", "one");
    server.agentSays("s-1", "two");
    await until(() => device.received.length === 2);
    // A misbehaving server pushes an old event again and one from the future (seq 9 of a 3-event log).
    const [connection] = [...(server as unknown as { connections: Set<{ conn: { send(t: string): void } }> }).connections];
    const old = server.sessions.get("s-1")!.events[1]!;
    connection!.conn.send(JSON.stringify({ jsonrpc: "2.0", method: "agentSession/event", params: old }));
    connection!.conn.send(JSON.stringify({ jsonrpc: "2.0", method: "agentSession/event", params: { ...old, seq: 9 } }));
    await settle(20);
    server.agentSays("s-1", "three");
    await until(() => device.received.length === 3);
    const reader = await createMemoryStore(RUNTIME_SCHEMA, { data });
    expect(await reader.get("cursors", "s-1")).toEqual({ seq: 4, active_at: server.sessions.get("s-1")!.events[3]!.created_at });
    expect(await reader.count("inbox", { prefix: "chat/s-1/" })).toBe(3);
    const codes = (await reader.range("audit")).map((e) => (e.value as { code?: string }).code);
    expect(codes).toEqual(expect.arrayContaining(["duplicate_message", "out_of_order"]));
    await reader.close();
    await device.stop();
  });
});

describe("S4: drop the connection at every lifecycle phase", () => {
  const phases: LifecycleStatus[] = ["authenticating", "synchronizing", "online"];
  it.each(phases)("dropped while %s: only legal transitions, no live delivery before catch-up, nothing lost", async (phase) => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    server.createSession({ session_id: "s-2", agent_id: "agent-1" });
    const data = createMemoryStoreData();
    // Stored state first.
    const seed = await startDevice(server, data);
    await seed.runtime.whenOnline();
    server.agentSays("s-1", "stored");
    await until(() => seed.received.length === 1);
    await seed.stop();
    server.agentSays("s-1", "while away");
    server.agentSays("s-2", "while away too");

    const clock = createFakeClock();
    const statuses: Lifecycle["status"][] = ["created"];
    let dropped = 0;
    const deliveredAt: string[] = [];
    const device = await startDevice(server, data, {
      clock,
      run: "r1",
      subscribe: false,
      beforeStart: (runtime) =>
        runtime.lifecycle.subscribe((l) => {
          statuses.push(l.status);
          // The first attempt's initialize goes out while the store is restored, a retry's once authenticating.
          if ((l.status === phase || (phase === "authenticating" && l.status === "restoring")) && dropped < 2) {
            dropped += 1;
            // While authenticating the socket may not be open yet: lose the initialize request instead.
            if (phase === "authenticating") server.dropNextRequests(1);
            else server.disconnectAll();
          }
        }),
    });
    device.chat.subscribeMessages({ include_pending: true }, (m) => {
      const conversation = device.runtime.conversations.list().find((c) => c.conversation_id === m.conversation_id);
      deliveredAt.push(`${device.runtime.lifecycle.snapshot().status}/${conversation?.status}`);
    });
    await heal(clock, () => deliveredAt.length >= 2 && device.runtime.lifecycle.snapshot().status === "online");
    server.agentSays("s-2", "live");
    await until(() => deliveredAt.length === 3);
    expect(dropped).toBeGreaterThan(0);
    for (let i = 1; i < statuses.length; i++) expect(isLegalTransition(statuses[i - 1]!, statuses[i]!), `${statuses[i - 1]} → ${statuses[i]}`).toBe(true);
    expect(statuses).toContain("reconnecting");
    expect(new Set(deliveredAt)).toEqual(new Set(["online/live"]));
    await device.stop();
  });
});
