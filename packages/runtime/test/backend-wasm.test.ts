import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { LineUpError, type BackendDeclaration, type JsonValue } from "@lineup/protocol";
import type { BackendRunner } from "../src/index.js";
import { createNodeWasmRunner } from "../src/node/index.js";
import { checkWasmModule } from "../src/backends/wasm-abi.js";
import { compileBackend } from "./helpers/assemblyscript.js";
import { wasmFromText, watModule } from "./helpers/wat.js";
import { slack } from "../../../test/support/soak.js";

// Issue 20 "Back-end runtime → wasm" on the Node host: a module in a worker thread, JSON in and out, whose only
// imports are the host's; every way it can misbehave ends that call with a typed error within its limit, and the
// next call is served (or, with `restart: never`, refused).

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/wasm/${name}`, import.meta.url));
let hostile: Uint8Array;
let forbidden: Uint8Array;
let search: Uint8Array;

beforeAll(async () => {
  [hostile, forbidden, search] = await Promise.all([compileBackend(fixture("hostile.asc.ts"), 64), compileBackend(fixture("forbidden.asc.ts")), compileBackend(fileURLToPath(new URL("../../../apps/journal/backends/search.asc.ts", import.meta.url)), 256)]);
}, slack(60_000));

const runners: BackendRunner[] = [];
afterEach(async () => {
  for (const r of runners.splice(0)) await r.stop();
});

/**
 * The limits of a module whose test is not about its time (the default): a first call also starts its worker and
 * compiles the module, which a loaded machine can hold past a few hundred milliseconds.
 */
const ROOMY_LIMITS = { memory_mb: 4, call_timeout_ms: slack(10_000), max_concurrent_calls: 3 };
/**
 * The limits of a module whose test is about a call's time: a call that spins must end by its limit, not because its
 * worker took longer than the limit to load, which took more than 400 ms on a loaded 2-core machine.
 */
const SHORT_LIMITS = { memory_mb: 4, call_timeout_ms: slack(2_000), max_concurrent_calls: 3 };

function runner(entry: Uint8Array, extra: Partial<BackendDeclaration> = {}, diagnostics?: (error: unknown, context: string) => void): BackendRunner {
  const declaration = { id: "b", plane: "client-local", protocol: "wasm", entry: "b.wasm", methods: [{ name: "echo" }], limits: ROOMY_LIMITS, restart: { policy: "on-failure", backoff_ms: 20 }, ...extra } as BackendDeclaration;
  const made = createNodeWasmRunner({ app_scope: "journal", declaration, entry, hostCalls: async () => null, ...(diagnostics === undefined ? {} : { diagnostics }) });
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
    const r = runner(search, { limits: { ...ROOMY_LIMITS, memory_mb: 16 } });
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
    const r = runner(hostile, { limits: SHORT_LIMITS });
    const started = Date.now();
    expect(await refusal(r.call("spin", {}))).toEqual({ code: "operation_expired", reason: undefined });
    expect(Date.now() - started).toBeLessThan(slack(5_000));
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
    const r = runner(hostile, { limits: { ...SHORT_LIMITS, max_concurrent_calls: 2 } });
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

    const never = runner(hostile, { restart: { policy: "never", max_restarts: 5, backoff_ms: 20 } });
    expect((await refusal(never.call("trap", {}))).code).toBe("handler_failed");
    expect(await refusal(never.call("echo", 1))).toEqual({ code: "handler_failed", reason: "restart_limit" });
    const values: JsonValue[] = [];
    expect(values).toEqual([]);
  });
});

// The ABI to the letter, with modules written in WebAssembly text: one that dispatches on its method's first letter
// (echo, log, an out-of-bounds load, grow until refused, a bad length, spin) and shapes the host must refuse.
async function failure(promise: Promise<unknown>): Promise<LineUpError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LineUpError);
  return error as LineUpError;
}

describe("the wasm ABI, with modules in WebAssembly text", () => {
  it("passes the params alone in and the result out, and sends its log lines to the diagnostics, bounded", async () => {
    const lines: string[] = [];
    const r = runner(await watModule(), {}, (error, context) => {
      if (context === "back-end log") lines.push((error as Error).message);
    });
    expect(await r.call("echo", { text: "zwölf Wörter", n: [1, 2] })).toEqual({ text: "zwölf Wörter", n: [1, 2] });
    expect(await r.call("echo", null)).toBeNull();
    expect(lines).toEqual(["wasm back-end journal/b: echo", "wasm back-end journal/b: echo"]);
    lines.length = 0;
    expect(await r.call("log", 7)).toBe(7);
    expect(lines).toHaveLength(65);
    expect(lines.at(-1)).toMatch(/more than 64 lines in one call/);
  });

  it("runs a module whose own memory maximum is under its limit, and refuses one that asks for more than its limit at the start", async () => {
    expect(await runner(await watModule("(memory 1 2)")).call("echo", [1])).toEqual([1]);
    const greedy = runner(await watModule("(memory 100)"));
    const error = await failure(greedy.call("echo", 1));
    expect(error.code).toBe("handler_failed");
    expect(error.data?.["reason"]).toBe("start_failed");
    expect(error.message).toMatch(/asks for 100 pages \(6\.3 MiB\) of memory at the start; this back-end may have 64 \(4 MiB\)/);
    // It would fail the same way again: the runner is failed, and says why.
    expect(greedy.status()).toBe("failed");
    expect((await failure(greedy.call("echo", 1))).message).toBe(error.message);
  });

  it("refuses what the ABI does not give: other imports, a memory of its own, shared memory, missing exports", async () => {
    const cases: [Uint8Array, RegExp][] = [
      [await watModule("(memory 1)", `(import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))`), /imports wasi_snapshot_preview1\.fd_write, which wasm back-ends are not given/],
      [await watModule("(memory 1)", `(import "env" "now" (func (result f64)))`), /imports env\.now/],
      [await watModule("(memory 1 4 shared)"), /memory is shared/],
      [await watModule("(memory 1)", "", ""), /does not export the function lineup_call/],
      [await wasmFromText(`(module (memory (export "memory") 1) (func (export "lineup_alloc") (param i32) (result i32) (i32.const 8)) (func (export "lineup_call") (param i32 i32 i32 i32) (result i32) (i32.const 8)))`), /must import its memory as env\.memory/],
    ];
    for (const [bytes, message] of cases) {
      const error = await failure(runner(bytes).call("echo", 1));
      expect([error.code, error.data?.["reason"]]).toEqual(["handler_failed", "start_failed"]);
      expect(error.message).toMatch(message);
      // The host can check a module before it ever starts a worker, with the same words.
      const thrown = (() => {
        try {
          checkWasmModule(new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>), { memory_mb: 4 }, bytes);
          return undefined;
        } catch (e) {
          return e as LineUpError;
        }
      })();
      expect(thrown?.message).toMatch(message);
      expect(thrown?.data?.["reason"]).toBe("start_failed");
    }
    const fine = await watModule("(memory 1 2)");
    expect(checkWasmModule(new WebAssembly.Module(fine as Uint8Array<ArrayBuffer>), { memory_mb: 4 }, fine)).toEqual({ initial_pages: 1, maximum_pages: 2 });
  });

  it("ends a start function that never returns within the call's time: start_failed, for good", async () => {
    const r = runner(await watModule("(memory 1)", "(func $forever (loop $l (br $l))) (start $forever)"), { limits: { memory_mb: 4, call_timeout_ms: slack(300) } });
    const started = Date.now();
    const error = await failure(r.call("echo", 1));
    expect([error.code, error.data?.["reason"]]).toEqual(["handler_failed", "start_failed"]);
    expect(error.message).toContain(`did not start within ${slack(300)} ms`);
    expect(Date.now() - started).toBeLessThan(slack(5_000));
    expect((await failure(r.call("echo", 1))).data?.["reason"]).toBe("start_failed");
  });

  it("tells a trap from running out of memory and from a broken answer, and serves the next call afresh", async () => {
    const r = runner(await watModule());
    const oob = await failure(r.call("oob", null));
    expect([oob.code, oob.data?.["reason"]]).toEqual(["handler_failed", "trap"]);
    expect(oob.message).toMatch(/out of bounds/);
    expect(await r.call("echo", "a")).toBe("a");
    const grown = await failure(r.call("grow", null));
    expect([grown.code, grown.data?.["reason"]]).toEqual(["handler_failed", "memory_limit"]);
    expect(await r.call("echo", "b")).toBe("b");
    const bad = await failure(r.call("badlen", null));
    expect([bad.code, bad.data?.["reason"]]).toEqual(["invalid_result", "protocol_violation"]);
    expect(await r.call("echo", "c")).toBe("c");
    expect(r.status()).toBe("running");
  });

  it("restarts on failure after its backoff, up to max_restarts, then stays failed", async () => {
    const r = runner(await watModule(), { restart: { policy: "on-failure", max_restarts: 1, backoff_ms: 150 } });
    expect((await failure(r.call("oob", null))).data?.["reason"]).toBe("trap");
    expect(r.status()).toBe("restarting");
    const before = Date.now();
    expect(await r.call("echo", 1)).toBe(1);
    expect(Date.now() - before).toBeGreaterThanOrEqual(140);
    expect((await failure(r.call("oob", null))).data?.["reason"]).toBe("trap");
    expect(r.status()).toBe("failed");
    expect((await failure(r.call("echo", 1))).data?.["reason"]).toBe("restart_limit");
  });

  it("with restart never, refuses the calls queued behind the one that failed", async () => {
    const r = runner(await watModule(), { limits: SHORT_LIMITS, restart: { policy: "never" } });
    const spin = r.call("spin", null);
    const queued = r.call("echo", 1);
    expect((await failure(spin)).code).toBe("operation_expired");
    const refused = await failure(queued);
    expect([refused.code, refused.data?.["reason"]]).toEqual(["handler_failed", "restart_limit"]);
    expect(r.status()).toBe("failed");
  });

  it("cancels a queued call at once, and a call aborted before it starts never runs", async () => {
    const r = runner(await watModule(), { limits: SHORT_LIMITS });
    let spinDone = false;
    const spin = r.call("spin", null).finally(() => (spinDone = true));
    const controller = new AbortController();
    const queued = r.call("echo", 1, { signal: controller.signal });
    controller.abort();
    expect((await failure(queued)).code).toBe("request_cancelled");
    expect(spinDone).toBe(false);
    expect((await failure(spin)).code).toBe("operation_expired");
    // Aborted while the fresh worker loads: it ends at once, and the next call is served.
    const again = new AbortController();
    const loading = r.call("spin", null, { signal: again.signal });
    again.abort();
    expect((await failure(loading)).code).toBe("request_cancelled");
    expect(await r.call("echo", 2)).toBe(2);
  });

  it("stops while the module starts, and refuses calls too large to send", async () => {
    const r = runner(await watModule());
    expect((await failure(r.call("echo", "x".repeat(1_100_000)))).code).toBe("message_too_large");
    const pending = r.call("echo", 1);
    await r.stop();
    expect((await failure(pending)).data?.["reason"]).toBe("stopped");
    expect(r.status()).toBe("stopped");
    expect((await failure(r.call("echo", 1))).data?.["reason"]).toBe("stopped");
    await r.stop();
  });
});
