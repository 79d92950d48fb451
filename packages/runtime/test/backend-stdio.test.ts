import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { LineUpError, type BackendDeclaration, type JsonValue } from "@lineup/protocol";
import type { BackendRunner } from "../src/index.js";
import { createStdioRunner, networkNamespaceAvailable } from "../src/node/index.js";

// Issue 20 "Back-end runtime → stdio-jsonrpc" (RELIABILITY K1): the host starts an app's program as a child process
// under its sandbox and supervises it. A hostile program — reading the Runtime's database or host files, opening a
// socket, starting a process, allocating without bound, looping forever, writing garbage — is refused or killed
// within its limit with a typed error, and the next call is served.

const ANSWER = `
import { createInterface } from "node:readline";
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
let next = 1; const waiting = new Map();
const host = (method, params) => { const id = "h" + next++; send({ jsonrpc: "2.0", id, method: "host." + method, params }); return new Promise((resolve, reject) => waiting.set(id, { resolve, reject })); };
const handlers = {};
export const on = (name, fn) => { handlers[name] = fn; };
createInterface({ input: process.stdin }).on("line", async (line) => {
  const m = JSON.parse(line);
  if (m.method === undefined) { const w = waiting.get(m.id); waiting.delete(m.id); if (m.error) w.reject(m.error); else w.resolve(m.result); return; }
  if (m.id === undefined) return;
  try { send({ jsonrpc: "2.0", id: m.id, result: await handlers[m.method](m.params, host) }); }
  catch (e) { send({ jsonrpc: "2.0", id: m.id, error: { code: -32000, message: String(e && e.message || e), data: { code: e && e.code || "handler_failed" } } }); }
});
`;
/** A program: the little JSON-RPC loop above, then `body`, which registers its methods with `on(name, fn)`. */
const program = (body: string): Uint8Array => new TextEncoder().encode(`${ANSWER.replace("export const on", "const on")}\n${body}\n`);

let dataDir: string;
let listener: Server;
let connections = 0;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "lineup-stdio-"));
  writeFileSync(join(dataDir, "runtime.db"), "the Runtime's database");
  listener = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
});
afterAll(async () => {
  await new Promise<void>((resolve) => listener.close(() => resolve()));
  rmSync(dataDir, { recursive: true, force: true });
});

const runners: BackendRunner[] = [];
afterEach(async () => {
  for (const r of runners.splice(0)) await r.stop();
});

const hostCalls: { method: string; params: JsonValue }[] = [];
function runner(entry: Uint8Array, extra: Partial<BackendDeclaration> = {}): BackendRunner {
  const declaration = { id: `b${runners.length}`, plane: "client-local", protocol: "stdio-jsonrpc", runtime: "node", entry: "main.mjs", methods: [{ name: "x" }], limits: { memory_mb: 64, call_timeout_ms: 1_500, max_concurrent_calls: 2 }, restart: { policy: "on-failure", max_restarts: 5, backoff_ms: 10 }, ...extra } as BackendDeclaration;
  const made = createStdioRunner({
    app_scope: "journal",
    declaration,
    entry,
    dataDir,
    ...(process.env["STDIO_DEBUG"] ? { diagnostics: (e: unknown) => console.log(String(e)) } : {}),
    hostCalls: async (method, params) => {
      hostCalls.push({ method, params });
      if (method === "storage.put") return { bytes: 10, records: 1 };
      throw new LineUpError("capability_not_declared", `no ${method}`);
    },
  });
  runners.push(made);
  return made;
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; reason?: unknown; message: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LineUpError);
  return { code: (error as LineUpError).code, reason: (error as LineUpError).data?.["reason"], message: (error as LineUpError).message };
}

describe("a stdio-jsonrpc back-end on the Node host", () => {
  it("answers calls, asks the host through its checks, and passes its own refusals on", async () => {
    const r = runner(program(`on("add", (p) => p.a + p.b); on("save", async (p, host) => host("storage.put", { collection: "entries", key: p.day, value: {} })); on("peek", async (p, host) => host("capability.request", {})); on("no", () => { throw Object.assign(new Error("not today"), { code: "invalid_params" }); });`));
    expect(await r.call("add", { a: 2, b: 3 })).toBe(5);
    expect(await r.call("save", { day: "2026-12-01" })).toEqual({ bytes: 10, records: 1 });
    expect(hostCalls.at(-1)).toEqual({ method: "storage.put", params: { collection: "entries", key: "2026-12-01", value: {} } });
    expect((await refusal(r.call("peek", {}))).code).toBe("handler_failed");
    expect(await refusal(r.call("no", {}))).toMatchObject({ code: "invalid_params", message: "not today" });
  });

  it("gives the program none of the host's environment, and no file outside its own folders", async () => {
    process.env["LINEUP_SECRET"] = "s3cret";
    try {
      const r = runner(program(`
        import("node:fs").then((fs) => {
          const tryRead = (path) => { try { return fs.readFileSync(path, "utf8"); } catch (e) { return "refused:" + (e.code || e.message); } };
          on("env", () => Object.keys(process.env).sort());
          on("read", (p) => tryRead(p.path));
          on("write", (p) => { try { fs.writeFileSync(p.path, "x"); return "written"; } catch (e) { return "refused:" + (e.code || e.message); } });
        });`));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const env = (await r.call("env", null)) as string[];
      expect(env).not.toContain("LINEUP_SECRET");
      expect(env.filter((k) => !["PATH", "HOME", "TMPDIR", "LANG"].includes(k))).toEqual([]);
      expect(await r.call("read", { path: join(dataDir, "runtime.db") })).toMatch(/^refused:ERR_ACCESS_DENIED/);
      expect(await r.call("read", { path: "/etc/passwd" })).toMatch(/^refused:ERR_ACCESS_DENIED/);
      expect(await r.call("write", { path: join(dataDir, "planted.txt") })).toMatch(/^refused:ERR_ACCESS_DENIED/);
      expect(await r.call("write", { path: "./own-file.txt" })).toBe("written");
    } finally {
      delete process.env["LINEUP_SECRET"];
    }
  });

  it("starts no process and reaches no socket", async () => {
    const r = runner(program(`
      on("fork", async () => { try { (await import("node:child_process")).execSync("echo hi"); return "ran"; } catch (e) { return "refused:" + (e.code || e.message); } });
      on("connect", (p) => import("node:net").then((net) => new Promise((resolve) => {
        const s = net.connect(p.port, "127.0.0.1");
        s.on("connect", () => { s.destroy(); resolve("connected"); });
        s.on("error", (e) => resolve("refused:" + e.code));
      })));`));
    expect(await r.call("fork", null)).toMatch(/^refused:ERR_ACCESS_DENIED/);
    const connected = await r.call("connect", { port: (listener.address() as AddressInfo).port });
    if (networkNamespaceAvailable()) {
      expect(connected).toMatch(/^refused:/);
      expect(connections).toBe(0);
    } else {
      console.log("unshare -rn is not available here: a stdio back-end can open sockets (docs/security.md)");
    }
  });

  it("kills a program that loops forever, allocates without bound, writes garbage or exits, and serves the next call", async () => {
    const r = runner(program(`on("spin", () => { for (;;) {} }); on("grow", () => { const keep = []; for (;;) keep.push(Buffer.alloc(1 << 20, 1)); }); on("garbage", () => { process.stdout.write("this is not JSON\\n"); return new Promise(() => {}); }); on("exit", () => process.exit(3)); on("ok", () => "ok");`));
    const started = Date.now();
    expect((await refusal(r.call("spin", null))).code).toBe("operation_expired");
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(await r.call("ok", null)).toBe("ok");
    expect(await refusal(r.call("grow", null))).toMatchObject({ code: "handler_failed" });
    expect(await r.call("ok", null)).toBe("ok");
    expect(await refusal(r.call("garbage", null))).toMatchObject({ code: "handler_failed", reason: "protocol_violation" });
    expect(await r.call("ok", null)).toBe("ok");
    expect(await refusal(r.call("exit", null))).toMatchObject({ code: "handler_failed", reason: "crashed" });
    expect(await r.call("ok", null)).toBe("ok");
  }, 30_000);

  it("stops restarting past max_restarts, and is overloaded past its concurrent calls", async () => {
    const r = runner(program(`on("exit", () => process.exit(1)); on("wait", () => new Promise((resolve) => setTimeout(() => resolve("done"), 300)));`), { restart: { policy: "on-failure", max_restarts: 1, backoff_ms: 10 } });
    const a = r.call("wait", null);
    const b = r.call("wait", null);
    expect((await refusal(r.call("wait", null))).code).toBe("overloaded");
    expect([await a, await b]).toEqual(["done", "done"]);
    expect((await refusal(r.call("exit", null))).reason).toBe("crashed");
    expect((await refusal(r.call("exit", null))).reason).toBe("crashed");
    expect(await refusal(r.call("wait", null))).toMatchObject({ code: "handler_failed", reason: "restart_limit" });
    await r.stop();
    expect(await refusal(r.call("wait", null))).toMatchObject({ reason: "stopped" });
  }, 20_000);
});
