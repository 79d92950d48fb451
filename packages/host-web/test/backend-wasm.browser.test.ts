/**
 * Issue 20 "Back-end runtime → wasm" in Chromium: the browser's runner (a dedicated Worker from a blob: URL, under the
 * Web Reference Host's own page policy) answers calls, and ends a module that spins, traps or runs out of memory
 * with the same typed errors as on the Node host, serving the next call on a fresh module; it refuses a module that
 * imports what back-ends are not given, cancels, stops, is overloaded past its limit — and under a page policy that
 * allows no worker, says the module cannot start instead of hanging.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../../test/support/chromium.js";
import { compileBackend } from "../../runtime/test/helpers/assemblyscript.js";
import { watModule } from "../../runtime/test/helpers/wat.js";

let server: Server | undefined;
let close: (() => Promise<void>) | undefined;
let page: Page;
let browser: Browser;
let hostile = "";
let textModule = "";
let forbidden = "";
let origin = "";

/** The host page's own policy, read from its index.html: the runner must work under exactly it. */
const hostPolicy = (): string => /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(readFileSync(resolve(import.meta.dirname, "../index.html"), "utf8"))![1]!.replace(/connect-src [^;]+/, "connect-src 'self'");

beforeAll(async () => {
  hostile = Buffer.from(await compileBackend(fileURLToPath(new URL("../../runtime/test/fixtures/wasm/hostile.asc.ts", import.meta.url)), 64)).toString("base64");
  textModule = Buffer.from(await watModule()).toString("base64");
  forbidden = Buffer.from(await watModule("(memory 1)", `(import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))`)).toString("base64");
  const bundle = await build({ entryPoints: [resolve(import.meta.dirname, "browser/wasm-backend.entry.ts")], bundle: true, write: false, format: "esm", platform: "browser", target: "es2022", conditions: ["source"] });
  const script = bundle.outputFiles[0]!.text;
  server = createServer((req, res) => {
    if (req.url === "/suite.js") {
      res.writeHead(200, { "content-type": "text/javascript" });
      res.end(script);
    } else {
      // /no-workers: the host page's policy as it was before wasm back-ends (no worker of any kind).
      const policy = req.url === "/no-workers" ? hostPolicy().replace(/worker-src [^;]+/, "worker-src 'none'") : hostPolicy();
      res.writeHead(200, { "content-type": "text/html", "content-security-policy": policy });
      res.end('<!doctype html><script type="module" src="/suite.js"></script>');
    }
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  browser = await launchChromium();
  close = async () => {
    await browser?.close();
    await new Promise<void>((r) => server!.close(() => r()));
  };
  page = await browser.newPage();
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await page.goto(`${origin}/`);
  await page.waitForFunction(() => typeof (window as { wasmRunner?: unknown }).wasmRunner === "object");
  await page.evaluate((module) => (window as unknown as { wasmRunner: { load(m: string, l: object): void } }).wasmRunner.load(module, { memory_mb: 4, call_timeout_ms: 500 }), hostile);
}, 90_000);

afterAll(async () => close?.());

interface PageRunner {
  load(module: string, limits: object, name?: string, restart?: object): void;
  call(method: string, params: unknown, name?: string, abortAfterMs?: number): Promise<unknown>;
  overload(name: string): Promise<unknown[]>;
  stop(name?: string): Promise<string>;
}
type Api = { wasmRunner: PageRunner };
const call = (method: string, params: unknown = null) => page.evaluate(([m, p]) => (window as unknown as Api).wasmRunner.call(m as string, p), [method, params] as const);
const load = (module: string, name: string, limits: object = { memory_mb: 4, call_timeout_ms: 500 }) => page.evaluate(([m, n, l]) => (window as unknown as Api).wasmRunner.load(m, l, n), [module, name, limits] as const);
const callOn = (name: string, method: string, params: unknown = null, abortAfterMs?: number) =>
  page.evaluate(([n, m, p, a]) => (window as unknown as Api).wasmRunner.call(m, p, n, a), [name, method, params, abortAfterMs] as const);

describe("a wasm back-end in Chromium, under the host page's policy", () => {
  it("answers calls and keeps its state between them", async () => {
    expect(await call("echo", { a: 1 })).toEqual({ ok: true, value: { params: { a: 1 }, calls: 1 } });
    expect(await call("echo", "b")).toEqual({ ok: true, value: { params: "b", calls: 2 } });
  });

  it("kills a module that spins, traps or runs out of memory, and serves the next call afresh", async () => {
    const started = Date.now();
    expect(await call("spin")).toMatchObject({ ok: false, code: "operation_expired" });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await call("echo", 1)).toEqual({ ok: true, value: { params: 1, calls: 1 } });
    expect(await call("trap")).toMatchObject({ ok: false, code: "handler_failed", reason: "trap" });
    expect(await call("grow")).toMatchObject({ ok: false, code: "handler_failed", reason: "memory_limit" });
    expect(await call("garbage")).toMatchObject({ ok: false, code: "invalid_result", reason: "protocol_violation" });
    expect(await call("echo", 2)).toMatchObject({ ok: true, value: { params: 2 } });
  });

  it("refuses a module that imports what back-ends are not given, naming it", async () => {
    await load(forbidden, "forbidden");
    expect(await callOn("forbidden", "echo", 1)).toMatchObject({ ok: false, code: "handler_failed", reason: "start_failed", message: expect.stringMatching(/wasi_snapshot_preview1\.fd_write/) });
  });

  it("cancels a running call, is overloaded past its limit, and stops", async () => {
    await load(textModule, "text", { memory_mb: 4, call_timeout_ms: 5_000, max_concurrent_calls: 1 });
    expect(await callOn("text", "echo", { word: "grün" })).toEqual({ ok: true, value: { word: "grün" } });
    const started = Date.now();
    expect(await callOn("text", "spin", null, 100)).toMatchObject({ ok: false, code: "request_cancelled" });
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(await callOn("text", "oob")).toMatchObject({ ok: false, code: "handler_failed", reason: "trap" });
    expect(await page.evaluate(() => (window as unknown as Api).wasmRunner.overload("text"))).toEqual([
      expect.objectContaining({ ok: false, code: "overloaded" }),
      { ok: true, value: 1 },
    ]);
    expect(await page.evaluate(() => (window as unknown as Api).wasmRunner.stop("text"))).toBe("stopped");
    expect(await callOn("text", "echo", 1)).toMatchObject({ ok: false, code: "handler_failed", reason: "stopped" });
  });

  it("under a page policy that allows no worker, says the module cannot start", async () => {
    const strict = await browser.newPage();
    try {
      await strict.goto(`${origin}/no-workers`);
      await strict.waitForFunction(() => typeof (window as { wasmRunner?: unknown }).wasmRunner === "object");
      await strict.evaluate((m) => (window as unknown as Api).wasmRunner.load(m, { memory_mb: 4, call_timeout_ms: 500 }), textModule);
      const outcome = await strict.evaluate(() => (window as unknown as Api).wasmRunner.call("echo", 1));
      expect(outcome).toMatchObject({ ok: false, code: "handler_failed", reason: "start_failed", message: expect.stringMatching(/Content Security Policy|Content-Security-Policy/i) });
    } finally {
      await strict.close();
    }
  });
});
