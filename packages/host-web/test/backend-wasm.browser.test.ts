/**
 * Issue 20 "Back-end runtime → wasm" in Chromium: the browser's runner (a dedicated Worker from a blob: URL, under the
 * Web Reference Host's own page policy) answers calls, and ends a module that spins, traps or runs out of memory
 * with the same typed errors as on the Node host, serving the next call on a fresh module.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../../test/support/chromium.js";
import { compileBackend } from "../../runtime/test/helpers/assemblyscript.js";

let server: Server | undefined;
let close: (() => Promise<void>) | undefined;
let page: Page;
let hostile = "";

/** The host page's own policy, read from its index.html: the runner must work under exactly it. */
const hostPolicy = (): string => /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(readFileSync(resolve(import.meta.dirname, "../index.html"), "utf8"))![1]!.replace(/connect-src [^;]+/, "connect-src 'self'");

beforeAll(async () => {
  hostile = Buffer.from(await compileBackend(fileURLToPath(new URL("../../runtime/test/fixtures/wasm/hostile.asc.ts", import.meta.url)), 64)).toString("base64");
  const bundle = await build({ entryPoints: [resolve(import.meta.dirname, "browser/wasm-backend.entry.ts")], bundle: true, write: false, format: "esm", platform: "browser", target: "es2022", conditions: ["source"] });
  const script = bundle.outputFiles[0]!.text;
  server = createServer((req, res) => {
    if (req.url === "/suite.js") {
      res.writeHead(200, { "content-type": "text/javascript" });
      res.end(script);
    } else {
      res.writeHead(200, { "content-type": "text/html", "content-security-policy": hostPolicy() });
      res.end('<!doctype html><script type="module" src="/suite.js"></script>');
    }
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  const browser = await launchChromium();
  close = async () => {
    await browser.close();
    await new Promise<void>((r) => server!.close(() => r()));
  };
  page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  await page.waitForFunction(() => typeof (window as { wasmRunner?: unknown }).wasmRunner === "object");
  await page.evaluate((module) => (window as unknown as { wasmRunner: { load(m: string, l: object): void } }).wasmRunner.load(module, { memory_mb: 4, call_timeout_ms: 500 }), hostile);
}, 90_000);

afterAll(async () => close?.());

const call = (method: string, params: unknown = null) => page.evaluate(([m, p]) => (window as unknown as { wasmRunner: { call(m: string, p: unknown): Promise<unknown> } }).wasmRunner.call(m as string, p), [method, params] as const);

describe("a wasm back-end in Chromium, under the host page's policy", () => {
  it("answers calls and keeps its state between them", async () => {
    expect(await call("echo", { a: 1 })).toEqual({ ok: true, value: { params: { a: 1 }, calls: 1 } });
    expect(await call("echo", "b")).toEqual({ ok: true, value: { params: "b", calls: 2 } });
  });

  it("kills a module that spins, traps or runs out of memory, and serves the next call afresh", async () => {
    const started = Date.now();
    expect(await call("spin")).toEqual({ ok: false, code: "operation_expired" });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await call("echo", 1)).toEqual({ ok: true, value: { params: 1, calls: 1 } });
    expect(await call("trap")).toEqual({ ok: false, code: "handler_failed", reason: "trap" });
    expect(await call("grow")).toEqual({ ok: false, code: "handler_failed", reason: "memory_limit" });
    expect(await call("garbage")).toEqual({ ok: false, code: "invalid_result", reason: "protocol_violation" });
    expect(await call("echo", 2)).toMatchObject({ ok: true, value: { params: 2 } });
  });
});
