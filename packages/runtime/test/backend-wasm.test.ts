import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { LineUpError, type BackendDeclaration, type JsonValue } from "@lineup/protocol";
import type { BackendRunner } from "../src/index.js";
import { createNodeWasmRunner } from "../src/node/index.js";
import { compileBackend } from "./helpers/assemblyscript.js";

// Issue 20 "Back-end runtime → wasm" on the Node host: a module in a worker thread, JSON in and out, whose only
// imports are the host's; every way it can misbehave ends that call with a typed error within its limit, and the
// next call is served (or, with `restart: never`, refused).

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/wasm/${name}`, import.meta.url));
let hostile: Uint8Array;
let forbidden: Uint8Array;
let search: Uint8Array;

beforeAll(async () => {
  [hostile, forbidden, search] = await Promise.all([compileBackend(fixture("hostile.asc.ts"), 64), compileBackend(fixture("forbidden.asc.ts")), compileBackend(fileURLToPath(new URL("../../../apps/journal/backends/search.asc.ts", import.meta.url)), 256)]);
}, 60_000);

const runners: BackendRunner[] = [];
afterEach(async () => {
  for (const r of runners.splice(0)) await r.stop();
});

function runner(entry: Uint8Array, extra: Partial<BackendDeclaration> = {}): BackendRunner {
  const declaration = { id: "b", plane: "client-local", protocol: "wasm", entry: "b.wasm", methods: [{ name: "echo" }], limits: { memory_mb: 4, call_timeout_ms: 400, max_concurrent_calls: 3 }, ...extra } as BackendDeclaration;
  const made = createNodeWasmRunner({ app_scope: "journal", declaration, entry, hostCalls: async () => null });
  runners.push(made);
  return made;
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; reason?: unknown }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LineUpError);
  return { code: (error as LineUpError).code, reason: (error as LineUpError).data?.["reason"] };
}

describe("a wasm back-end on the Node host", () => {
  it("answers calls, keeps its state between them, and passes the module's own refusals on", async () => {
    const r = runner(hostile);
    expect(await r.call("echo", { a: [1, "two"] })).toEqual({ params: { a: [1, "two"] }, calls: 1 });
    expect(await r.call("echo", null)).toEqual({ params: null, calls: 2 });
    expect(await refusal(r.call("refuse", {}))).toEqual({ code: "invalid_params", reason: undefined });
    expect(r.status()).toBe("running");
  });

  it("runs the journal's search module", async () => {
    const r = runner(search, { limits: { memory_mb: 16, call_timeout_ms: 2_000 } });
    const entries = [
      { key: "2026-12-01", text: "A quiet Monday, quite quiet" },
      { key: "2026-12-02", text: "Busy Tuesday" },
      { key: "2026-12-03", text: "Monday's \"quiet\" again\nnew line, ünïcode" },
    ];
    expect(await r.call("search", { query: "qui mon", entries })).toEqual({ matches: [{ key: "2026-12-01", score: 4 }, { key: "2026-12-03", score: 2 }] });
    expect(await r.call("search", { query: "ünï", entries })).toEqual({ matches: [{ key: "2026-12-03", score: 1 }] });
    expect(await r.call("search", { query: "nothing", entries })).toEqual({ matches: [] });
  });

  it("kills a call that runs past its time, and serves the next on a fresh module", async () => {
    const r = runner(hostile);
    const started = Date.now();
    expect(await refusal(r.call("spin", {}))).toEqual({ code: "operation_expired", reason: undefined });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(await r.call("echo", 1)).toEqual({ params: 1, calls: 1 });
  });

  it("stops a module at its memory limit, a trap, and garbage: that call fails, the next is served", async () => {
    const r = runner(hostile);
    expect(await refusal(r.call("grow", {}))).toEqual({ code: "handler_failed", reason: "memory_limit" });
    expect(await refusal(r.call("trap", {}))).toEqual({ code: "handler_failed", reason: "trap" });
    expect(await refusal(r.call("garbage", {}))).toEqual({ code: "invalid_result", reason: "protocol_violation" });
    expect((await refusal(r.call("not_json", {}))).code).toBe("invalid_result");
    expect(await r.call("echo", "still here")).toMatchObject({ params: "still here" });
  });

  it("refuses a module that imports what back-ends are not given", async () => {
    const r = runner(forbidden);
    const error = await r.call("echo", {}).then(
      () => undefined,
      (e: unknown) => e as LineUpError,
    );
    expect(error?.code).toBe("handler_failed");
    expect(error?.data?.["reason"]).toBe("start_failed");
    expect(error?.message).toMatch(/wasi_snapshot_preview1\.fd_write/);
  });

  it("is overloaded past its concurrent calls, cancels, stops, and with restart never stays failed", async () => {
    const r = runner(hostile, { limits: { memory_mb: 4, call_timeout_ms: 400, max_concurrent_calls: 2 } });
    const first = r.call("spin", {});
    const second = r.call("echo", 2);
    expect((await refusal(r.call("echo", 3))).code).toBe("overloaded");
    expect((await refusal(first)).code).toBe("operation_expired");
    expect(await second).toMatchObject({ params: 2 });
    const controller = new AbortController();
    const cancelled = r.call("spin", {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect((await refusal(cancelled)).code).toBe("request_cancelled");
    await r.stop();
    expect(await refusal(r.call("echo", 1))).toEqual({ code: "handler_failed", reason: "stopped" });

    const never = runner(hostile, { restart: { policy: "never" } });
    expect((await refusal(never.call("trap", {}))).code).toBe("handler_failed");
    expect(await refusal(never.call("echo", 1))).toEqual({ code: "handler_failed", reason: "restart_limit" });
    const values: JsonValue[] = [];
    expect(values).toEqual([]);
  });
});
