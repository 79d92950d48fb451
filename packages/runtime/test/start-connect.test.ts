/**
 * `start()` opens the connection and sends `initialize` while the store is read (sync-driver `preconnect`):
 * the handshake overlaps the restore, and nothing of it reaches the loop, or is left open, before `start()` runs.
 */
import { describe, expect, it } from "vitest";
import { StoreError, type RuntimeStore, type Transport, type TransportConnection } from "../src/index.js";
import { SUBSCRIPTIONS_CATCHING_UP } from "../src/communication/sync-driver.js";
import { createMemoryStoreData, FakeAppServer, settle, startDevice, until } from "./helpers/runtime-harness.js";

/** A gate the test opens (or fails) by hand. */
function gate(): { readonly passed: Promise<void>; open(): void; fail(error: Error): void } {
  let open!: () => void;
  let fail!: (error: Error) => void;
  const passed = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { passed, open, fail };
}

/**
 * `store` whose reads wait for `passed`: the Runtime's restore is held there. It does not say whether it is new (a
 * new store's restore would read nothing), so the restore reads it.
 */
function readsAfter(store: RuntimeStore, passed: Promise<void>): RuntimeStore {
  return new Proxy(store, {
    get(target, key) {
      if (key === "isNew") return undefined;
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== "function") return value;
      if (key !== "get" && key !== "range") return (value as (...args: unknown[]) => unknown).bind(target);
      return async (...args: unknown[]) => {
        await passed;
        return (value as (...args: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** The server's transport, with a way to put frames of the test's own on the client's connection. */
function injectable(transport: Transport): { readonly transport: Transport; inject(text: string): void } {
  const listeners = new Set<(text: string) => void>();
  return {
    transport: {
      async open(url) {
        const connection = await transport.open(url);
        const wrapped: TransportConnection = {
          send: (text) => connection.send(text),
          onMessage(listener) {
            listeners.add(listener);
            const off = connection.onMessage(listener);
            return () => {
              listeners.delete(listener);
              off();
            };
          },
          onClose: (listener) => connection.onClose(listener),
          close: (code, reason) => connection.close(code, reason),
        };
        return wrapped;
      },
    },
    inject(text) {
      for (const listener of listeners) listener(text);
    },
  };
}

/**
 * A stricter server's transport: every request before `initialize` is answered is refused `not_initialized` (the
 * reference AppServer holds it instead). `asked` records each subscription as asked before or after that answer. With
 * `holdUntilAsked`, nothing is heard until that many subscriptions were asked (the Runtime sends them once it runs).
 */
/** The requests a frame holds: one, or a JSON-RPC batch of them. */
function requestsIn(text: string): { id?: number; method?: string; params?: { session_id?: string } }[] {
  const parsed = JSON.parse(text) as ReturnType<typeof requestsIn>[number] | ReturnType<typeof requestsIn>;
  return Array.isArray(parsed) ? parsed : [parsed];
}

function strictServer(server: FakeAppServer, holdUntilAsked = 0): { readonly transport: Transport; readonly asked: string[] } {
  const asked: string[] = [];
  let answered = false;
  return {
    asked,
    transport: {
      async open(url) {
        const connection = await server.transport.open(url);
        const listeners = new Set<(text: string) => void>();
        const heard: string[] = [];
        const deliver = (text: string): void => {
          if ((JSON.parse(text) as { result?: { role?: string } }).result?.role !== undefined) answered = true;
          for (const listener of listeners) listener(text);
        };
        connection.onMessage((text) => {
          if (answered || asked.length >= holdUntilAsked) deliver(text);
          else heard.push(text);
        });
        return {
          send(text) {
            const requests = requestsIn(text);
            for (const request of requests) if (request.method === "agentSession/subscribe") asked.push(`${answered ? "after" : "before"} ${request.params?.session_id}`);
            // Nothing is batched before the handshake is answered (the server's batch limit is not known yet).
            if (requests.length > 1) expect(answered).toBe(true);
            const request = requests[0]!;
            if (holdUntilAsked > 0 && asked.length === holdUntilAsked && !answered) queueMicrotask(() => heard.splice(0).forEach(deliver));
            if (!answered && request.id !== undefined && request.method !== "initialize") {
              const refusal = { jsonrpc: "2.0", id: request.id, error: { code: -32006, message: "call initialize first", data: { code: "not_initialized", message: "call initialize first", retryable: false } } };
              queueMicrotask(() => listeners.forEach((listener) => listener(JSON.stringify(refusal))));
              return;
            }
            connection.send(text);
          },
          onMessage(listener) {
            listeners.add(listener);
            return () => listeners.delete(listener);
          },
          onClose: (listener) => connection.onClose(listener),
          close: (code, reason) => connection.close(code, reason),
        };
      },
    },
  };
}

describe("start(): the handshake while the store is read", () => {
  it("sends initialize and asks for the session list before the restore ends, asks nothing more until the Runtime runs, then goes online", async () => {
    const server = new FakeAppServer({ recordRequests: true });
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const restore = gate();
    const statuses: string[] = [];
    const starting = startDevice(server, createMemoryStoreData(), {
      wrapStore: (store) => readsAfter(store, restore.passed),
      beforeStart: (runtime) => void runtime.lifecycle.subscribe((l) => statuses.push(l.status)),
    });
    await until(() => server.requests.some((r) => r.method === "agentSession/list"), 3_000, "the session list asked for while restoring");
    await settle();
    expect(statuses).toEqual(["restoring"]);
    // The list's answer waits for the Runtime: nothing is subscribed to before it runs.
    expect(server.requests.map((r) => r.method)).toEqual(["initialize", "agentSession/list"]);
    restore.open();
    const device = await starting;
    await device.runtime.whenOnline();
    expect(statuses.filter((s, i) => s !== statuses[i - 1])).toEqual(["restoring", "authenticating", "synchronizing", "online"]);
    expect(device.runtime.conversations.list().map((c) => c.conversation_id)).toEqual(["s-1"]);
    await device.stop();
  }, 20_000);

  it("still refuses bad frames that arrive before the Runtime runs: a broken frame at once, a bad notification when it takes the connection over", async () => {
    const server = new FakeAppServer({ recordRequests: true });
    const wire = injectable(server.transport);
    const restore = gate();
    const errors: { error: unknown; context: string }[] = [];
    const starting = startDevice(server, createMemoryStoreData(), {
      wrapStore: (store) => readsAfter(store, restore.passed),
      extra: { transport: wire.transport, diagnostics: (error, context) => void errors.push({ error, context }) },
    });
    await until(() => server.requests.some((r) => r.method === "initialize"), 3_000, "initialize while restoring");
    await settle();
    wire.inject("{ not json");
    wire.inject(JSON.stringify({ jsonrpc: "2.0", method: "catalog/released", params: { release: { app_scope: 42 } } }));
    await settle();
    // The broken frame is refused by the decoder as it arrives; the notification waits for the Runtime to run.
    expect(errors.map((e) => e.context)).toEqual(["rpc inbound"]);
    restore.open();
    const device = await starting;
    await device.runtime.whenOnline();
    const refused = errors.find((e) => e.context === "catalog/released");
    expect(refused, "the early catalog/released was never checked").toBeDefined();
    expect((refused!.error as { code?: string }).code).toBe("invalid_params");
    await device.stop();
  }, 20_000);

  it("closes the connection it opened when the restore fails, and start() rejects with the store's error", async () => {
    const server = new FakeAppServer({ recordRequests: true });
    const restore = gate();
    const starting = startDevice(server, createMemoryStoreData(), { wrapStore: (store) => readsAfter(store, restore.passed) });
    await until(() => server.requests.some((r) => r.method === "initialize") && server.openConnections === 1, 3_000, "the early connection");
    restore.fail(new StoreError("store_read_failed", "the disk went away"));
    await expect(starting).rejects.toMatchObject({ code: "store_read_failed" });
    await until(() => server.openConnections === 0, 3_000, "the early connection closed");
  }, 20_000);

  it("connects while a store given still opening opens: initialize and the session list go out before it has opened, and it is read once it has", async () => {
    const server = new FakeAppServer({ recordRequests: true });
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const opening = gate();
    const starting = startDevice(server, createMemoryStoreData(), { wrapStore: async (store) => (await opening.passed, store) });
    await until(() => server.requests.some((r) => r.method === "agentSession/list"), 3_000, "the session list asked for while the store opens");
    await settle();
    expect(server.requests.map((r) => r.method)).toEqual(["initialize", "agentSession/list"]);
    opening.open();
    const device = await starting;
    await device.runtime.whenOnline();
    expect(device.runtime.conversations.list().map((c) => c.conversation_id)).toEqual(["s-1"]);
    await device.stop();
  }, 20_000);

  it("closes the connection it opened when the store given still opening fails to open, and start() rejects with that failure", async () => {
    const server = new FakeAppServer({ recordRequests: true });
    const opening = gate();
    const starting = startDevice(server, createMemoryStoreData(), { wrapStore: async () => (await opening.passed, Promise.reject(new StoreError("store_migration_failed", "a newer layout"))) });
    await until(() => server.requests.some((r) => r.method === "initialize") && server.openConnections === 1, 3_000, "the early connection");
    opening.open();
    await expect(starting).rejects.toMatchObject({ code: "store_migration_failed" });
    await until(() => server.openConnections === 0, 3_000, "the early connection closed");
  }, 20_000);

  it("sends the session list right behind initialize, before it hears the answer, and goes online on both answers", async () => {
    const server = new FakeAppServer({ recordRequests: true });
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    // The client's side of the connection: what it sends, and what it hears only when the test lets it.
    const sent: string[] = [];
    const heard = gate();
    const transport: Transport = {
      async open(url) {
        const connection = await server.transport.open(url);
        return {
          send(text) {
            sent.push((JSON.parse(text) as { method?: string }).method ?? "(answer)");
            connection.send(text);
          },
          onMessage: (listener) => connection.onMessage((text) => void heard.passed.then(() => listener(text))),
          onClose: (listener) => connection.onClose(listener),
          close: (code, reason) => connection.close(code, reason),
        };
      },
    };
    const starting = startDevice(server, createMemoryStoreData(), { extra: { transport } });
    await until(() => sent.length >= 2, 3_000, "the first frames sent");
    await settle();
    expect(sent).toEqual(["initialize", "agentSession/list"]);
    heard.open();
    const device = await starting;
    await device.runtime.whenOnline();
    expect(sent.slice(0, 3)).toEqual(["initialize", "agentSession/list", "initialized"]);
    expect(device.runtime.conversations.list().map((c) => c.conversation_id)).toEqual(["s-1"]);
    await device.stop();
  }, 20_000);

  it("asks for the list again after the handshake when a stricter server refused the early one with not_initialized", async () => {
    const server = new FakeAppServer({ recordRequests: true });
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    // A server that refuses every request before initialize is answered: the early list is refused, not held.
    const { transport } = strictServer(server);
    const device = await startDevice(server, createMemoryStoreData(), { extra: { transport } });
    await device.runtime.whenOnline();
    expect(device.runtime.conversations.list().map((c) => c.conversation_id)).toEqual(["s-1"]);
    // The server saw the handshake, then the list asked again: once, and nothing went wrong on the way.
    expect(server.requests.map((r) => r.method).slice(0, 2)).toEqual(["initialize", "agentSession/list"]);
    expect(device.errors).toEqual([]);
    await device.stop();
  }, 20_000);
});

/**
 * The client's side of each connection: the requests it sends (method and session), how many subscriptions each frame it
 * sends holds, and the frames it hears only once the test lets it.
 */
function watched(server: FakeAppServer): { readonly transport: Transport; readonly sent: string[]; readonly frames: number[]; hold(): void; release(): void } {
  const sent: string[] = [];
  const frames: number[] = [];
  let held: (() => void)[] | undefined;
  return {
    sent,
    frames,
    hold() {
      held ??= [];
    },
    release() {
      const waiting = held ?? [];
      held = undefined;
      for (const deliver of waiting) deliver();
    },
    transport: {
      async open(url) {
        const connection = await server.transport.open(url);
        return {
          send(text) {
            const requests = requestsIn(text);
            frames.push(requests.filter((request) => request.method === "agentSession/subscribe").length);
            for (const request of requests) {
              if (request.method !== undefined) sent.push(request.params?.session_id === undefined ? request.method : `${request.method} ${request.params.session_id}`);
            }
            connection.send(text);
          },
          onMessage: (listener) =>
            connection.onMessage((text) => {
              if (held === undefined) listener(text);
              else held.push(() => listener(text));
            }),
          onClose: (listener) => connection.onClose(listener),
          close: (code, reason) => connection.close(code, reason),
        };
      },
    },
  };
}

/** A server with `sessions`, and the data of a device that followed them all once and stopped (`online` runs before it stops). */
async function followedOnce(sessions: readonly string[], online?: (server: FakeAppServer, device: Awaited<ReturnType<typeof startDevice>>) => Promise<void>) {
  const server = new FakeAppServer();
  for (const id of sessions) server.createSession({ session_id: id, agent_id: "agent-1" });
  const data = createMemoryStoreData();
  const first = await startDevice(server, data);
  await first.runtime.whenOnline();
  await online?.(server, first);
  await first.stop();
  return { server, data };
}

describe("start() and reconnects: the conversations it follows subscribed right behind the handshake", () => {
  it("subscribes the conversations it restored with initialize and the list, before it hears anything, once each, and goes online with what they missed", async () => {
    const { server, data } = await followedOnce(["s-1", "s-2"], async (server, first) => {
      server.agentSays("s-1", "before the restart");
      await until(() => first.received.length === 1, 3_000, "the first message");
    });
    // Said while this device was off: the restart's subscriptions bring it.
    server.agentSays("s-2", "while it was off");

    const link = watched(server);
    link.hold();
    const starting = startDevice(server, data, { run: "r1", extra: { transport: link.transport } });
    await until(() => link.sent.length >= 4, 3_000, "the first requests");
    await settle();
    // After their stored cursors, the one where something was last said as far as this device knows first (s-1: s-2's
    // message came while it was off, and s-2 was started after it); nothing heard yet.
    expect(link.sent).toEqual(["initialize", "agentSession/list", "agentSession/subscribe s-1", "agentSession/subscribe s-2"]);
    link.release();
    const again = await starting;
    await again.runtime.whenOnline();
    await until(() => again.received.some((m) => JSON.stringify(m).includes("while it was off")), 3_000, "the message it missed");
    await settle();
    expect(again.received.filter((m) => JSON.stringify(m).includes("while it was off"))).toHaveLength(1);
    // Each subscribed once on the connection: the list's turn took the early requests over.
    expect(link.sent.filter((request) => request.startsWith("agentSession/subscribe"))).toEqual(["agentSession/subscribe s-1", "agentSession/subscribe s-2"]);
    expect(again.errors).toEqual([]);

    // A reconnect does the same, and what was said meanwhile arrives once.
    link.sent.length = 0;
    link.hold();
    again.runtime.dropConnection();
    await until(() => again.runtime.lifecycle.snapshot().status !== "online", 3_000, "offline");
    server.agentSays("s-1", "during the reconnect");
    again.runtime.reconnectNow();
    await until(() => link.sent.length >= 4, 3_000, "the reconnect's first requests");
    await settle();
    expect(link.sent).toEqual(["initialize", "agentSession/list", "agentSession/subscribe s-2", "agentSession/subscribe s-1"]);
    link.release();
    await again.runtime.whenOnline();
    await until(() => again.received.some((m) => JSON.stringify(m).includes("during the reconnect")), 3_000, "the message said during the reconnect");
    await settle();
    expect(again.received.filter((m) => JSON.stringify(m).includes("during the reconnect"))).toHaveLength(1);
    expect(link.sent.filter((request) => request.startsWith("agentSession/subscribe"))).toHaveLength(2);
    expect(again.errors).toEqual([]);
    await again.stop();
  }, 20_000);

  it("subscribes again after the handshake what a stricter server refused with not_initialized, and goes online", async () => {
    const { server, data } = await followedOnce(["s-1", "s-2"]);
    server.agentSays("s-1", "while it was off");
    // Every request before initialize's answer is refused; the answer is heard once both subscriptions were asked.
    const { transport, asked } = strictServer(server, 2);
    const again = await startDevice(server, data, { run: "r1", extra: { transport } });
    await again.runtime.whenOnline();
    await until(() => again.received.some((m) => JSON.stringify(m).includes("while it was off")), 3_000, "the message it missed");
    // Before the list, in the order this device knows (nothing said in either: the newer first); after it, in the list's
    // (something was said in s-1 while it was off).
    expect(asked).toEqual(["before s-2", "before s-1", "after s-1", "after s-2"]);
    expect(again.errors).toEqual([]);
    await again.stop();
  }, 20_000);

  it("sends them as one batch frame when the handshake was answered before the restore ended, and each in a frame of its own when it was not", async () => {
    const sessions = Array.from({ length: 80 }, (_, i) => `s-${String(i).padStart(2, "0")}`);
    const subscribed = (device: Awaited<ReturnType<typeof startDevice>>) => device.runtime.conversations.list().filter((c) => c.status === "live").length;

    // The store is read only once initialize's answer has come: the early subscriptions know the server's limits.
    const answeredFirst = await followedOnce(sessions);
    const slowStore = watched(answeredFirst.server);
    const restore = gate();
    const starting = startDevice(answeredFirst.server, answeredFirst.data, { run: "r1", extra: { transport: slowStore.transport }, wrapStore: (store) => readsAfter(store, restore.passed) });
    await until(() => slowStore.sent.includes("initialized"), 3_000, "initialize's answer heard");
    await settle();
    restore.open();
    const first = await starting;
    await first.runtime.whenOnline();
    // initialize, the list, initialized (sent on the answer), then the first SUBSCRIPTIONS_CATCHING_UP (64, the server's
    // max_batch too) in one frame.
    expect(slowStore.sent.slice(0, 3)).toEqual(["initialize", "agentSession/list", "initialized"]);
    expect(slowStore.frames.slice(0, 4)).toEqual([0, 0, 0, SUBSCRIPTIONS_CATCHING_UP]);
    expect(slowStore.frames.reduce((a, b) => a + b, 0)).toBe(sessions.length);
    await until(() => subscribed(first) === sessions.length, 3_000, "every conversation live");
    expect(first.errors).toEqual([]);
    await first.stop();

    // Taken over before the answer was heard: the limits are not known, so one subscription per frame right behind the handshake.
    const notAnswered = await followedOnce(sessions);
    const link = watched(notAnswered.server);
    link.hold();
    const again = startDevice(notAnswered.server, notAnswered.data, { run: "r1", extra: { transport: link.transport } });
    await until(() => link.frames.length >= 2 + SUBSCRIPTIONS_CATCHING_UP, 3_000, "the early subscriptions");
    await settle();
    expect(link.frames).toEqual([0, 0, ...Array.from({ length: SUBSCRIPTIONS_CATCHING_UP }, () => 1)]);
    link.release();
    const second = await again;
    await second.runtime.whenOnline();
    expect(link.frames.reduce((a, b) => a + b, 0)).toBe(sessions.length);
    await until(() => subscribed(second) === sessions.length, 3_000, "every conversation live");
    expect(second.errors).toEqual([]);
    await second.stop();
  }, 20_000);

  it("with more conversations than may catch up at once and new ones listed, subscribes each once on the connection", async () => {
    const { server, data } = await followedOnce(Array.from({ length: 80 }, (_, i) => `s-${String(i).padStart(2, "0")}`));
    // Ten more started on another device while this one was off: the list brings them, and they go first.
    for (let i = 80; i < 90; i++) server.createSession({ session_id: `s-${i}`, agent_id: "agent-1" });
    const link = watched(server);
    const again = await startDevice(server, data, { run: "r1", extra: { transport: link.transport } });
    await again.runtime.whenOnline();
    const subscribes = link.sent.filter((request) => request.startsWith("agentSession/subscribe"));
    expect(subscribes).toHaveLength(90);
    expect(new Set(subscribes).size).toBe(90);
    expect(again.runtime.conversations.list()).toHaveLength(90);
    expect(again.errors).toEqual([]);
    await again.stop();
  }, 20_000);
});
