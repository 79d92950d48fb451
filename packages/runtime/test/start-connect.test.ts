/**
 * `start()` opens the connection and sends `initialize` while the store is read (sync-driver `preconnect`):
 * the handshake overlaps the restore, and nothing of it reaches the loop, or is left open, before `start()` runs.
 */
import { describe, expect, it } from "vitest";
import { StoreError, type RuntimeStore, type Transport, type TransportConnection } from "../src/index.js";
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
    let answered = false;
    const transport: Transport = {
      async open(url) {
        const connection = await server.transport.open(url);
        const listeners = new Set<(text: string) => void>();
        connection.onMessage((text) => {
          if ((JSON.parse(text) as { result?: { role?: string } }).result?.role !== undefined) answered = true;
          for (const listener of listeners) listener(text);
        });
        return {
          send(text) {
            const request = JSON.parse(text) as { id?: number; method?: string };
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
    };
    const device = await startDevice(server, createMemoryStoreData(), { extra: { transport } });
    await device.runtime.whenOnline();
    expect(device.runtime.conversations.list().map((c) => c.conversation_id)).toEqual(["s-1"]);
    // The server saw the handshake, then the list asked again: once, and nothing went wrong on the way.
    expect(server.requests.map((r) => r.method).slice(0, 2)).toEqual(["initialize", "agentSession/list"]);
    expect(device.errors).toEqual([]);
    await device.stop();
  }, 20_000);
});
