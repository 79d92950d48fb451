import type { Session, SessionEvent } from "@lineup/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AsyncQueue, Emitter, RpcClient, SessionState, backoffDelay, memoryTransport, type Connection } from "../src/index.js";

describe("backoffDelay", () => {
  it("grows exponentially, stays within [ceiling/2, ceiling] and never exceeds the maximum", () => {
    const options = { initialMs: 100, maxMs: 1_000 };
    expect(backoffDelay(0, 0, options)).toBe(50);
    expect(backoffDelay(0, 0.999999, options)).toBe(100);
    expect(backoffDelay(2, 0, options)).toBe(200);
    for (let attempt = 0; attempt < 100; attempt++) {
      for (const r of [0, 0.3, 0.99]) {
        const d = backoffDelay(attempt, r, options);
        expect(d).toBeGreaterThanOrEqual(50);
        expect(d).toBeLessThanOrEqual(1_000);
      }
    }
    expect(backoffDelay(50, 0.5, options)).toBe(750);
  });
});

describe("Emitter", () => {
  it("a throwing listener does not stop the others; its error goes to diagnostics", () => {
    const errors: unknown[] = [];
    const emitter = new Emitter<number>((d) => errors.push(d.error));
    const got: number[] = [];
    emitter.on(() => {
      throw new Error("boom");
    });
    const sub = emitter.on((n) => got.push(n));
    emitter.fire(1);
    sub.dispose();
    emitter.fire(2);
    expect(got).toEqual([1]);
    expect(errors).toHaveLength(2);
  });
});

describe("AsyncQueue", () => {
  it("yields buffered then pushed items, and ends", async () => {
    const q = new AsyncQueue<number>();
    q.push(1);
    const out: number[] = [];
    const consumed = (async () => {
      for await (const n of q) out.push(n);
    })();
    q.push(2);
    q.end();
    q.push(3);
    await consumed;
    expect(out).toEqual([1, 2]);
  });

  it("keeps every pending next() when several wait at once, in call order", async () => {
    const q = new AsyncQueue<string>();
    const iterator = q[Symbol.asyncIterator]();
    const first = iterator.next();
    const second = iterator.next();
    const third = iterator.next();
    q.push("a");
    q.push("b");
    q.end();
    expect(await Promise.all([first, second, third])).toEqual([
      { value: "a", done: false },
      { value: "b", done: false },
      { value: undefined, done: true },
    ]);
  });

  it("carries undefined as an item, buffered or handed to a waiter", async () => {
    const q = new AsyncQueue<number | undefined>();
    q.push(undefined);
    q.push(1);
    const iterator = q[Symbol.asyncIterator]();
    expect(await iterator.next()).toEqual({ value: undefined, done: false });
    expect(await iterator.next()).toEqual({ value: 1, done: false });
    const waiting = iterator.next();
    q.push(undefined);
    expect(await waiting).toEqual({ value: undefined, done: false });
    q.end();
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
  });

  it("matches its model: the n-th next() gets the n-th item pushed before end(), then done", async () => {
    type Step = { kind: "push"; value: number | undefined } | { kind: "next" } | { kind: "end" };
    const step = fc.oneof(
      fc.record({ kind: fc.constant("push" as const), value: fc.option(fc.integer(), { nil: undefined }) }),
      fc.constant({ kind: "next" as const }),
      fc.constant({ kind: "end" as const }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps: Step[]) => {
        const q = new AsyncQueue<number | undefined>();
        const iterator = q[Symbol.asyncIterator]();
        const delivered: Array<Promise<IteratorResult<number | undefined>>> = [];
        const model: Array<number | undefined> = [];
        let ended = false;
        for (const s of steps) {
          if (s.kind === "push") {
            q.push(s.value);
            if (!ended) model.push(s.value);
          } else if (s.kind === "next") delivered.push(iterator.next());
          else {
            q.end();
            ended = true;
          }
        }
        q.end();
        const results = await Promise.all(delivered);
        results.forEach((result, n) => {
          expect(result).toEqual(n < model.length ? { value: model[n], done: false } : { value: undefined, done: true });
        });
      }),
      { numRuns: 300 },
    );
  });
});

describe("RpcClient", () => {
  async function pair(): Promise<{ client: RpcClient; server: Connection }> {
    let server!: Connection;
    const transport = memoryTransport((s) => (server = s));
    const client = new RpcClient(await transport.connect("memory://x"), { defaultTimeoutMs: 30 });
    return { client, server };
  }

  it("correlates responses by id, maps error data to a LineUpError, and times out", async () => {
    const { client, server } = await pair();
    server.onMessage((text) => {
      const request = JSON.parse(text) as { id: number; method: string };
      if (request.method === "ok") server.send(JSON.stringify({ jsonrpc: "2.0", id: request.id, result: { fine: true } }));
      if (request.method === "bad") server.send(JSON.stringify({ jsonrpc: "2.0", id: request.id, error: { code: -32004, message: "no session s", data: { code: "session_not_found", message: "no session s", retryable: false } } }));
    });
    const [good, bad, silent] = await Promise.allSettled([client.request("ok", {}), client.request("bad", {}), client.request("silent", {})]);
    expect(good).toEqual({ status: "fulfilled", value: { fine: true } });
    expect(bad.status === "rejected" && bad.reason.code).toBe("session_not_found");
    expect(silent.status === "rejected" && silent.reason.code).toBe("request_timeout");
    expect(client.pendingCount).toBe(0);
  });

  it("rejects every pending request when the connection closes, and refuses new ones", async () => {
    const { client, server } = await pair();
    const pending = client.request("never", {}, { timeoutMs: 10_000 });
    server.close(1006, "gone");
    await expect(pending).rejects.toMatchObject({ code: "request_cancelled", data: { connection_closed: true } });
    await expect(client.request("after", {})).rejects.toMatchObject({ code: "request_cancelled" });
  });

  it("ignores frames with forbidden keys instead of throwing", async () => {
    const { client, server } = await pair();
    const seen: string[] = [];
    client.onNotification((n) => seen.push(n.method));
    server.send('{"jsonrpc":"2.0","method":"x","params":{"__proto__":{"polluted":1}}}');
    server.send('{"jsonrpc":"2.0","method":"y","params":{}}');
    await new Promise((r) => setTimeout(r, 5));
    expect(seen).toEqual(["y"]);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });
});

describe("SessionState", () => {
  const session: Session = { session_id: "s", app_scope: "chat", workspace_id: "w", owner_user_id: "u", agent_id: "a", state: "active", created_at: "2026-01-01T00:00:00Z", last_seq: 0, inventory_revision: 0 };
  const event = (seq: number): SessionEvent =>
    ({ session_id: "s", seq, kind: "inventory.published", created_at: "2026-01-01T00:00:00Z", actor: { role: "device", id: "d" }, data: { revision: seq, tools: [] } }) as unknown as SessionEvent;

  it("applies each seq once and in order; duplicates and gaps change nothing", () => {
    const state = new SessionState(session);
    expect(state.apply(event(1)).status).toBe("applied");
    expect(state.apply(event(1)).status).toBe("duplicate");
    expect(state.apply(event(3))).toEqual({ status: "gap", expected: 2 });
    expect(state.lastSeq).toBe(1);
    expect(state.apply(event(2)).status).toBe("applied");
    expect(state.inventory?.revision).toBe(2);
    expect(state.setInventory({ revision: 1, tools: [] })).toBe(false);
  });
});
