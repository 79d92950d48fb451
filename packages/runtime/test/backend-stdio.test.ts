import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { LineUpError, type BackendDeclaration, type JsonValue } from "@lineup/protocol";
import type { BackendRunner } from "../src/index.js";
import { createStdioRunner, fileSystemViewAvailable, networkNamespaceAvailable } from "../src/node/index.js";
import { LineSplitter, MAX_STDIO_LINE_BYTES, classifyStdioMessage, restartDelay } from "../src/node/stdio-backend.js";
import { slack } from "../../../test/support/soak.js";

// Issue 20 "Back-end runtime → stdio-jsonrpc" (RELIABILITY K1): the host starts an app's program as a child process
// under its sandbox and supervises it. A hostile program — reading the Runtime's database or host files, opening a
// socket, starting a process, allocating without bound, looping forever, writing garbage, exiting mid-call — is
// refused or killed within its limit with a typed error, and the next call is served where the policy restarts.

/** The program side of the wire, as a back-end author would write it: a JSON-RPC loop over stdin/stdout. */
const PRELUDE = `
import { createInterface } from "node:readline";
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
let next = 1; const waiting = new Map(); const cancelled = [];
const host = (method, params, prefix = "host.") => { const id = "h" + next++; send({ jsonrpc: "2.0", id, method: prefix + method, params }); return new Promise((resolve, reject) => waiting.set(id, { resolve, reject })); };
const handlers = { pid: () => process.pid, cancelled: () => cancelled };
const on = (name, fn) => { handlers[name] = fn; };
createInterface({ input: process.stdin }).on("line", async (line) => {
  const m = JSON.parse(line);
  if (m.method === "$/cancel") { cancelled.push(m.params.id); return; }
  if (m.method === undefined) { const w = waiting.get(m.id); waiting.delete(m.id); if (m.error) w.reject(m.error); else w.resolve(m.result); return; }
  if (m.id === undefined) return;
  try { send({ jsonrpc: "2.0", id: m.id, result: await handlers[m.method](m.params, host) }); }
  catch (e) { send({ jsonrpc: "2.0", id: m.id, error: { code: -32000, message: String((e && e.message) || e), data: { code: (e && e.data && e.data.code) || (e && e.code) || "handler_failed" } } }); }
});
`;
/** A program: the loop above, then `body`, which registers its methods with `on(name, fn)`. */
const program = (body: string): Uint8Array => new TextEncoder().encode(`${PRELUDE}\n${body}\n`);

let dataDir: string;
let listener: Server;
let connections = 0;
beforeAll(async () => {
  dataDir = realpathSync(mkdtempSync(join(tmpdir(), "lineup-stdio-")));
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
  await Promise.all(runners.splice(0).map((r) => r.stop()));
});

interface Made {
  readonly r: BackendRunner;
  readonly id: string;
  readonly diagnostics: string[];
  readonly hostCalls: { method: string; params: JsonValue }[];
}

/**
 * The limits of a program whose test is not about its time (the default): a first call also starts the program
 * under the sandbox, which a loaded machine can hold past a second.
 */
const ROOMY_LIMITS = { memory_mb: 64, call_timeout_ms: slack(10_000), max_concurrent_calls: 3 };
/**
 * The limits of a program whose test is about a call's time: a call past two seconds kills it. A program's start is
 * its first call's, and on 2 cores busy with the rest of the suite a start took more than a second.
 */
const SHORT_LIMITS = { memory_mb: 64, call_timeout_ms: slack(2_000), max_concurrent_calls: 3 };

let made = 0;
function runner(entry: Uint8Array, extra: Partial<BackendDeclaration> = {}): Made {
  const id = `b${made++}`;
  const declaration = {
    id,
    plane: "client-local",
    protocol: "stdio-jsonrpc",
    runtime: "node",
    entry: "backends/main.mjs",
    methods: [{ name: "x" }],
    limits: ROOMY_LIMITS,
    restart: { policy: "on-failure", max_restarts: 10, backoff_ms: 10 },
    ...extra,
  } as BackendDeclaration;
  const diagnostics: string[] = [];
  const hostCalls: { method: string; params: JsonValue }[] = [];
  const r = createStdioRunner({
    app_scope: "journal",
    declaration,
    entry,
    dataDir,
    diagnostics: (e: unknown, context: string) => {
      diagnostics.push(`${context}: ${e instanceof Error ? e.message : String(e)}`);
      if (process.env["STDIO_DEBUG"]) console.log(context, String(e));
    },
    hostCalls: async (method, params) => {
      hostCalls.push({ method, params });
      if (method === "storage.put") return { bytes: 10, records: 1 };
      throw new LineUpError("capability_not_declared", `no ${method}`);
    },
  });
  runners.push(r);
  return { r, id, diagnostics, hostCalls };
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; reason?: unknown; message: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LineUpError);
  return { code: (error as LineUpError).code, reason: (error as LineUpError).data?.["reason"], message: (error as LineUpError).message };
}

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + slack(ms);
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("the stdio wire's pieces", () => {
  it("tells JSON-RPC 2.0 messages from anything else", () => {
    expect(classifyStdioMessage({ jsonrpc: "2.0", id: 1, result: null })).toEqual({ kind: "result", id: 1, result: null });
    expect(classifyStdioMessage({ jsonrpc: "2.0", id: "h1", method: "host.storage.get", params: { key: "k" } })).toMatchObject({ kind: "request", id: "h1" });
    expect(classifyStdioMessage({ jsonrpc: "2.0", method: "log", params: { level: "info", message: "m" } })).toMatchObject({ kind: "notification", method: "log" });
    expect(classifyStdioMessage({ jsonrpc: "2.0", id: 2, error: { code: -32000, message: "no", data: { code: "not_found" } } })).toMatchObject({ kind: "error", id: 2 });
    for (const bad of [null, [], "x", 3, { id: 1, result: 1 }, { jsonrpc: "1.0", id: 1, result: 1 }, { jsonrpc: "2.0", id: 1 }, { jsonrpc: "2.0", id: 1, result: 1, error: { code: 1, message: "" } }, { jsonrpc: "2.0", id: 1, error: "no" }, { jsonrpc: "2.0", id: 1, error: { code: 1.5, message: "m" } }, { jsonrpc: "2.0", id: {}, result: 1 }, { jsonrpc: "2.0", method: 7 }, { jsonrpc: "2.0", id: [1], method: "m" }]) {
      expect(classifyStdioMessage(bad)).toBeUndefined();
    }
  });

  it("cuts lines across chunks without splitting characters, and refuses a line past its limit", () => {
    const splitter = new LineSplitter(16);
    const text = Buffer.from('{"a":"é"}\n{"b":1}\n{"c"');
    expect(splitter.push(text.subarray(0, 7))).toEqual([]);
    const lines = splitter.push(text.subarray(7)) as Buffer[];
    expect(lines.map((b) => b.toString("utf8"))).toEqual(['{"a":"é"}', '{"b":1}']);
    expect((splitter.push(Buffer.from(":2}\n")) as Buffer[]).map(String)).toEqual(['{"c":2}']);
    expect(splitter.push(Buffer.from("0123456789"))).toEqual([]);
    expect(splitter.push(Buffer.from("0123456789"))).toBe("overflow");
    expect(new LineSplitter(4).push(Buffer.from("12345\n"))).toBe("overflow");
  });

  it("backs off from backoff_ms, doubling, capped at a minute", () => {
    expect([1, 2, 3, 4].map((n) => restartDelay(500, n))).toEqual([500, 1_000, 2_000, 4_000]);
    expect(restartDelay(500, 12)).toBe(60_000);
    expect(restartDelay(500, 1_000)).toBe(60_000);
  });
});

describe("a stdio-jsonrpc back-end on the Node host", () => {
  it("answers calls in any order, relays its requests to the host, passes refusals on with their codes, and logs", async () => {
    const { r, diagnostics, hostCalls } = runner(
      program(`
        on("add", (p) => p.a + p.b);
        on("slow", () => new Promise((resolve) => setTimeout(() => resolve("slow"), 200)));
        on("save", (p, host) => host("storage.put", { collection: "entries", key: p.day, value: {} }));
        on("peek", (p, host) => host("capability.request", { name: "net.fetch" }));
        on("other", (p, host) => host("thing", {}, "other."));
        on("no", () => { throw Object.assign(new Error("not today"), { code: "invalid_params" }); });
        on("weird", () => { throw Object.assign(new Error("odd"), { code: "no_such_code" }); });
        on("say", (p) => { send({ jsonrpc: "2.0", method: "log", params: { level: "warn", message: p.text } }); return true; });`),
    );
    expect(r.status()).toBe("idle");
    expect(await r.call("add", { a: 2, b: 3 })).toBe(5);
    expect(r.status()).toBe("running");
    const slow = r.call("slow", null);
    expect(await r.call("add", { a: 1, b: 1 })).toBe(2);
    expect(await slow).toBe("slow");
    expect(await r.call("save", { day: "2026-12-01" })).toEqual({ bytes: 10, records: 1 });
    expect(hostCalls).toEqual([{ method: "storage.put", params: { collection: "entries", key: "2026-12-01", value: {} } }]);
    expect(await refusal(r.call("peek", null))).toMatchObject({ code: "capability_not_declared", message: "no capability.request" });
    expect(hostCalls.at(-1)).toEqual({ method: "capability.request", params: { name: "net.fetch" } });
    expect((await refusal(r.call("other", null))).code).toBe("method_not_found");
    expect(hostCalls).toHaveLength(2);
    expect(await refusal(r.call("no", {}))).toMatchObject({ code: "invalid_params", message: "not today" });
    expect((await refusal(r.call("weird", {}))).code).toBe("handler_failed");
    expect(await r.call("say", { text: "hello from the program" })).toBe(true);
    await until(() => diagnostics.some((d) => d.includes("[warn] hello from the program")));

    // The wrappers (unshare, prlimit) exec: the program is the host's own child, the pid read and killed.
    const pid = (await r.call("pid", null)) as number;
    const proc = readFileSync(`/proc/${pid}/status`, "utf8");
    expect(proc).toMatch(/^Name:\s+node$/m);
    expect(proc).toMatch(new RegExp(`^PPid:\\s+${process.pid}$`, "m"));
  });

  it("gives the program none of the host's environment, and no file outside its own folders", async () => {
    // Stubbed, and set back as they were after: other files may share this process (vitest.config.ts).
    vi.stubEnv("LINEUP_SECRET", "s3cret");
    vi.stubEnv("OPENAI_API_KEY", "sk-test");
    vi.stubEnv("NODE_OPTIONS", "--max-http-header-size=16384");
    try {
      const entry = program(`
        import * as fs from "node:fs";
        const tryRead = (path) => { try { return fs.readFileSync(path, "utf8"); } catch (e) { return "refused:" + (e.code || e.message); } };
        const tryWrite = (path) => { try { fs.writeFileSync(path, "x"); return "written"; } catch (e) { return "refused:" + (e.code || e.message); } };
        on("env", () => ({ env: process.env, cwd: process.cwd(), self: new URL(import.meta.url).pathname }));
        on("read", (p) => tryRead(p.path));
        on("write", (p) => tryWrite(p.path));
        on("link", (p) => { try { fs.symlinkSync(p.target, "./link"); return tryRead("./link"); } catch (e) { return "refused:" + (e.code || e.message); } });`);
      const { r, id } = runner(entry);
      const seen = (await r.call("env", null)) as { env: Record<string, string>; cwd: string; self: string };
      const workDir = join(dataDir, "app-work", "journal", id);
      expect(seen.env).toEqual({ PATH: "/usr/bin:/bin", HOME: workDir, TMPDIR: workDir, LANG: "C.UTF-8" });
      expect(seen.cwd).toBe(workDir);
      expect(statSync(workDir).mode & 0o777).toBe(0o700);
      const codePath = join(dataDir, "app-backends", "journal", id, createHash("sha256").update(entry).digest("hex"), "main.mjs");
      expect(seen.self).toBe(codePath);
      expect(readFileSync(codePath)).toEqual(Buffer.from(entry));

      const db = (await r.call("read", { path: join(dataDir, "runtime.db") })) as string;
      expect(db).toMatch(/^refused:ERR_ACCESS_DENIED/);
      expect(db).not.toContain("database");
      const passwd = (await r.call("read", { path: "/etc/passwd" })) as string;
      expect(passwd).toMatch(/^refused:ERR_ACCESS_DENIED/);
      expect(passwd).not.toContain("root:");
      expect(await r.call("read", { path: `/proc/${process.pid}/environ` })).toMatch(/^refused:ERR_ACCESS_DENIED/);
      expect(await r.call("link", { target: join(dataDir, "runtime.db") })).toMatch(/^refused:ERR_ACCESS_DENIED/);
      expect(await r.call("write", { path: join(dataDir, "planted.txt") })).toMatch(/^refused:ERR_ACCESS_DENIED/);
      expect(existsSync(join(dataDir, "planted.txt"))).toBe(false);
      expect(await r.call("write", { path: codePath })).toMatch(/^refused:ERR_ACCESS_DENIED/);
      expect(await r.call("write", { path: "./own-file.txt" })).toBe("written");
      expect(await r.call("read", { path: "./own-file.txt" })).toBe("x");
      expect(readFileSync(join(workDir, "own-file.txt"), "utf8")).toBe("x");
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("starts no process, worker or addon, and reaches no socket", async () => {
    const { r, diagnostics } = runner(
      program(`
        import * as cp from "node:child_process";
        import { Worker } from "node:worker_threads";
        const attempt = (f) => { try { f(); return "ran"; } catch (e) { return "refused:" + (e.code || e.message); } };
        on("exec", () => attempt(() => cp.execSync("echo hi")));
        on("spawn", () => attempt(() => cp.spawn("/bin/sh", ["-c", "true"])));
        on("fork", () => attempt(() => cp.fork(new URL(import.meta.url).pathname)));
        on("worker", () => attempt(() => new Worker("1", { eval: true })));
        on("addon", () => attempt(() => process.dlopen({ exports: {} }, "/usr/lib/x86_64-linux-gnu/libc.so.6")));
        on("connect", (p) => import("node:net").then((net) => new Promise((resolve) => {
          const s = net.connect(p.port, "127.0.0.1");
          s.on("connect", () => { s.destroy(); resolve("connected"); });
          s.on("error", (e) => resolve("refused:" + e.code));
        })));`),
    );
    for (const method of ["exec", "spawn", "fork", "worker"]) expect(await r.call(method, null)).toMatch(/^refused:ERR_ACCESS_DENIED/);
    expect(await r.call("addon", null)).toMatch(/^refused:ERR_(DLOPEN_DISABLED|ACCESS_DENIED)/);
    const connected = await r.call("connect", { port: (listener.address() as AddressInfo).port });
    if (networkNamespaceAvailable()) {
      expect(connected).toMatch(/^refused:/);
      expect(connections).toBe(0);
      expect(diagnostics.join("\n")).not.toContain("network namespace");
    } else {
      // The reduced guarantee where unshare -rn does not work: said in the diagnostics (docs/security.md).
      expect(diagnostics.join("\n")).toContain("without a network namespace of its own");
    }
  });

  it("reaches no Unix socket of the host by its path where it has a file-system view of its own, and sees no folder but its own (docs/security.md)", async () => {
    // Socket files outside the program's folders, as /run/docker.sock, a D-Bus bus or an ssh-agent socket would be:
    // one beside its folders in the Runtime's data, one in the host's temporary folder.
    const paths = [join(dataDir, `host-${made}.sock`), join(tmpdir(), `lineup-host-${process.pid}-${made}.sock`)];
    let reached = 0;
    const hosts = paths.map(() =>
      createServer((socket) => {
        reached += 1;
        socket.destroy();
      }),
    );
    await Promise.all(hosts.map((host, i) => new Promise<void>((resolve) => host.listen(paths[i], resolve))));
    try {
      const { r, id, diagnostics } = runner(
        program(`
          on("connect", (p) => import("node:net").then((net) => new Promise((resolve) => {
            const s = net.connect(p.path);
            s.on("connect", () => { s.destroy(); resolve("connected"); });
            s.on("error", (e) => resolve("refused:" + e.code));
          })));
          on("cwd", () => process.cwd());`),
      );
      const viewed = fileSystemViewAvailable();
      // A Node whose permission model has --allow-net refuses every socket (the runner grants no network).
      const netPermission = process.allowedNodeEnvironmentFlags.has("--allow-net");
      for (const path of paths) expect(await r.call("connect", { path })).toMatch(viewed || netPermission ? /^refused:/ : /^connected$/);
      expect(reached).toBe(viewed || netPermission ? 0 : paths.length);
      // Its working folder is where it runs, at the path it has on the host.
      expect(await r.call("cwd", null)).toBe(join(realpathSync(dataDir), "app-work", "journal", id));
      if (viewed) expect(diagnostics.join("\n")).not.toContain("file-system view");
      // Where the view cannot be made (no mount namespace, no chroot), the reduced guarantee is said.
      else expect(diagnostics.join("\n")).toMatch(/without a (file-system view|network namespace) of its own/);
    } finally {
      await Promise.all(hosts.map((host) => new Promise<void>((resolve) => host.close(() => resolve()))));
    }
  });

  it("kills a program that loops, allocates without bound, writes garbage or exits mid-call — and serves the next call", async () => {
    const { r } = runner(
      program(`
        on("ok", () => "ok");
        on("wait", () => new Promise(() => {}));
        on("spin", () => { for (;;) {} });
        on("buffers", () => { const keep = []; for (;;) keep.push(Buffer.alloc(1 << 20, 1)); });
        on("heap", () => { const keep = []; for (;;) keep.push(new Array(1000).fill(Math.random())); });
        on("garbage", () => { process.stdout.write("this is not JSON\\n"); return new Promise(() => {}); });
        on("json", () => { process.stdout.write(JSON.stringify({ hello: "world" }) + "\\n"); return new Promise(() => {}); });
        on("flood", () => { process.stdout.write("x".repeat(${MAX_STDIO_LINE_BYTES + 1024})); return new Promise(() => {}); });
        on("exit", () => process.exit(3));`),
      { limits: SHORT_LIMITS },
    );
    expect(await r.call("ok", null)).toBe("ok");
    const started = Date.now();
    const spin = refusal(r.call("spin", null));
    // Sent after the spinning call (its deadline later): it ends with the kill, not by its own time.
    const bystander = refusal(r.call("wait", null));
    expect((await spin).code).toBe("operation_expired");
    expect(Date.now() - started).toBeLessThan(slack(4_000));
    expect(await bystander).toMatchObject({ code: "handler_failed", reason: "crashed" });
    expect(await r.call("ok", null)).toBe("ok");
    for (const [method, reason] of [
      ["buffers", "memory_limit"],
      ["heap", "memory_limit"],
      ["garbage", "protocol_violation"],
      ["json", "protocol_violation"],
      ["flood", "protocol_violation"],
      ["exit", "crashed"],
    ] as const) {
      expect(await refusal(r.call(method, null)), method).toMatchObject({ code: "handler_failed", reason });
      expect(await r.call("ok", null)).toBe("ok");
    }
    expect(r.status()).toBe("running");
  }, slack(20_000));

  it("fails only the call whose answer is too large, cancels without a kill, and is overloaded past its calls in flight", async () => {
    const { r } = runner(
      program(`
        on("big", () => "x".repeat(1024 * 1024 + 10));
        on("wait", (p) => new Promise((resolve) => setTimeout(() => resolve("done"), p.ms)));`),
      { limits: { ...SHORT_LIMITS, max_concurrent_calls: 2 } },
    );
    const pid = await r.call("pid", null);
    expect((await refusal(r.call("big", null))).code).toBe("invalid_result");
    expect(await r.call("pid", null)).toBe(pid);

    const controller = new AbortController();
    const cancelled = r.call("wait", { ms: 5_000 }, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    expect((await refusal(cancelled)).code).toBe("request_cancelled");
    // The $/cancel went down the pipe before this call: the program has seen it.
    expect(await r.call("cancelled", null)).toHaveLength(1);
    expect(await r.call("pid", null)).toBe(pid);

    const a = r.call("wait", { ms: 200 });
    const b = r.call("wait", { ms: 200 });
    expect((await refusal(r.call("wait", { ms: 1 }))).code).toBe("overloaded");
    expect([await a, await b]).toEqual(["done", "done"]);
    expect(await r.call("pid", null)).toBe(pid);
  });

  it("restarts after a backoff that doubles, then is failed past max_restarts", async () => {
    const { r, diagnostics } = runner(program(`on("ok", () => "ok"); on("exit", () => process.exit(1));`), { restart: { policy: "on-failure", max_restarts: 2, backoff_ms: 200 } });
    expect(await r.call("ok", null)).toBe("ok");
    for (const backoff of [200, 400]) {
      expect((await refusal(r.call("exit", null))).reason).toBe("crashed");
      expect(r.status()).toBe("restarting");
      const crashed = Date.now();
      expect(await r.call("ok", null)).toBe("ok");
      expect(Date.now() - crashed).toBeGreaterThanOrEqual(backoff - 20);
    }
    expect((await refusal(r.call("exit", null))).reason).toBe("crashed");
    expect(r.status()).toBe("failed");
    expect(await refusal(r.call("ok", null))).toMatchObject({ code: "handler_failed", reason: "restart_limit" });
    expect(diagnostics.some((d) => d.includes("not restarted (after 2 restarts)"))).toBe(true);
  });

  it("follows the policy: never fails at the first crash; a clean exit ends an on-failure program and restarts an always one", async () => {
    const never = runner(program(`on("exit", () => process.exit(1)); on("ok", () => "ok");`), { restart: { policy: "never" } }).r;
    expect((await refusal(never.call("exit", null))).reason).toBe("crashed");
    expect(await refusal(never.call("ok", null))).toMatchObject({ code: "handler_failed", reason: "restart_limit" });

    const bye = `on("ok", () => "ok"); on("bye", () => { setTimeout(() => process.exit(0), 20); return "bye"; });`;
    const onFailure = runner(program(bye)).r;
    expect(await onFailure.call("bye", null)).toBe("bye");
    await until(() => onFailure.status() === "stopped");
    expect(await refusal(onFailure.call("ok", null))).toMatchObject({ code: "handler_failed", reason: "stopped" });

    const always = runner(program(bye), { restart: { policy: "always", max_restarts: 1, backoff_ms: 10 } }).r;
    expect(await always.call("bye", null)).toBe("bye");
    await until(() => always.status() === "restarting");
    expect(await always.call("bye", null)).toBe("bye");
    await until(() => always.status() === "failed");
    expect(await refusal(always.call("ok", null))).toMatchObject({ reason: "restart_limit" });
  });

  it("stops: the call in flight and later ones end stopped, a program deaf to SIGTERM is killed, stop is idempotent", async () => {
    const { r } = runner(program(`process.on("SIGTERM", () => {}); on("wait", () => new Promise(() => {}));`));
    const pid = (await r.call("pid", null)) as number;
    const inFlight = r.call("wait", null);
    const started = Date.now();
    const first = r.stop();
    const second = r.stop();
    expect(await refusal(inFlight)).toMatchObject({ code: "handler_failed", reason: "stopped" });
    await Promise.all([first, second]);
    expect(Date.now() - started).toBeLessThan(slack(3_000));
    expect(alive(pid)).toBe(false);
    expect(r.status()).toBe("stopped");
    expect(await refusal(r.call("pid", null))).toMatchObject({ code: "handler_failed", reason: "stopped" });
    await r.stop();
  });

  it("refuses to start a declaration it cannot run safely", async () => {
    const { r } = runner(program(""), { entry: "backends/main.py" });
    expect(r.status()).toBe("failed");
    expect(await refusal(r.call("pid", null))).toMatchObject({ code: "handler_failed", reason: "start_failed" });
  });
});

/** A local-http program: calls arrive as HTTP on the socket the host names; its requests to the host go over its stdio. */
const HTTP_PRELUDE = `
import { createServer } from "node:http";
import { createInterface } from "node:readline";
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
let next = 1; const waiting = new Map();
const host = (method, params) => { const id = "h" + next++; send({ jsonrpc: "2.0", id, method: "host." + method, params }); return new Promise((resolve, reject) => waiting.set(id, { resolve, reject })); };
createInterface({ input: process.stdin }).on("line", (line) => { const m = JSON.parse(line); const w = waiting.get(m.id); if (w) { waiting.delete(m.id); if (m.error) w.reject(m.error); else w.resolve(m.result); } });
const handlers = { pid: () => process.pid };
const on = (name, fn) => { handlers[name] = fn; };
const answer = (res, body) => { res.writeHead(200, { "content-type": "application/json" }); res.end(JSON.stringify(body)); };
const server = createServer((req, res) => {
  let text = "";
  req.on("data", (c) => (text += c));
  req.on("end", async () => {
    const m = JSON.parse(text);
    try { const result = await handlers[m.method](m.params, m, res); if (!res.headersSent) answer(res, { jsonrpc: "2.0", id: m.id, result }); }
    catch (e) { answer(res, { jsonrpc: "2.0", id: m.id, error: { code: -32000, message: String((e && e.message) || e), data: { code: (e && e.code) || "handler_failed" } } }); }
  });
});
const listen = () => server.listen(process.env.LINEUP_HTTP_SOCKET);
`;
const httpProgram = (body: string, listen = "listen();"): Uint8Array => new TextEncoder().encode(`${HTTP_PRELUDE}\n${body}\n${listen}\n`);

describe("a local-http back-end", () => {
  it("is served its calls over HTTP on a socket in its working folder, once it listens, and asks the host over its stdio", async () => {
    const { r, id, hostCalls } = runner(
      httpProgram(
        `
        on("echo", (params, request) => ({ params, key: request.idempotency_key ?? null, socket: process.env.LINEUP_HTTP_SOCKET, env: Object.keys(process.env).sort() }));
        on("save", (params) => host("storage.put", { collection: "entries", key: params.day, value: { title: params.title } }));`,
        // It takes a while to listen: the first call waits for it.
        "setTimeout(listen, 300);",
      ),
      { protocol: "local-http" },
    );
    const echoed = (await r.call("echo", { day: "2026-12-01" }, { idempotency_key: "workflow:run-1:import~1" })) as { params: unknown; key: string; socket: string; env: string[] };
    expect(echoed).toEqual({ params: { day: "2026-12-01" }, key: "workflow:run-1:import~1", socket: join(dataDir, "app-work", "journal", id, "http.sock"), env: ["HOME", "LANG", "LINEUP_HTTP_SOCKET", "PATH", "TMPDIR"] });
    expect(await r.call("save", { day: "2026-12-01", title: "Monday" })).toEqual({ bytes: 10, records: 1 });
    expect(hostCalls).toEqual([{ method: "storage.put", params: { collection: "entries", key: "2026-12-01", value: { title: "Monday" } } }]);
  });

  it("fails a call past its time when the program never listens, kills one that answers garbage, and fails only the call of an HTTP error", async () => {
    const silent = runner(httpProgram("", ""), { protocol: "local-http", limits: { memory_mb: 64, call_timeout_ms: slack(500), max_concurrent_calls: 3 } });
    expect((await refusal(silent.r.call("pid", null))).code).toBe("operation_expired");

    const { r } = runner(
      httpProgram(`
        on("garbage", (params, request, res) => { res.writeHead(200); res.end("not json"); });
        on("other", (params, request, res) => { res.writeHead(200); res.end(JSON.stringify({ jsonrpc: "2.0", id: request.id + 1, result: 1 })); });
        on("status", (params, request, res) => { res.writeHead(503); res.end(); });
        on("wait", () => new Promise(() => {}));`),
      { protocol: "local-http" },
    );
    const first = await r.call("pid", null);
    expect(await refusal(r.call("garbage", null))).toMatchObject({ code: "handler_failed", reason: "protocol_violation" });
    const second = await r.call("pid", null);
    expect(second).not.toBe(first);
    // An answer that is another call's is not this call's answer.
    expect(await refusal(r.call("other", null))).toMatchObject({ code: "handler_failed", reason: "protocol_violation" });
    const third = await r.call("pid", null);
    expect(await refusal(r.call("status", null))).toMatchObject({ code: "handler_failed", reason: "http_status" });
    expect(await r.call("pid", null)).toBe(third);
    // A cancelled call gives its request up; the program lives on.
    const controller = new AbortController();
    const waiting = r.call("wait", null, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect((await refusal(waiting)).code).toBe("request_cancelled");
    expect(await r.call("pid", null)).toBe(third);
  });
});
