import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { LineUpError, bytesToBase64, type AppManifest, type JsonObject } from "@lineup/protocol";
import { LOCAL_BACKENDS_PATH, createLocalBackendService, type LocalBackendService } from "../src/node/index.js";
import { createLocalBackendsClient, type LocalBackendSocket, type LocalBackendsClient } from "../src/browser/index.js";
import { LOCAL_BACKENDS_SUBPROTOCOL, MAX_LOCAL_FILE_BYTES, createWirePeer, type WirePeer } from "../src/backends/local-service-wire.js";
import { sha256Hex } from "../src/app-lifecycle/bundle/digest.js";
import type { BackendStartSpec } from "../src/backends/runner.js";
import { agentInvokes, onlineDevice, publishedInventories, signedBundle, toolOutputs } from "./helpers/apps-harness.js";
import { until, type Device } from "./helpers/runtime-harness.js";
import { BUDGET_ALLOCATOR, HOSTILE, HOSTILE_LOADED_TIMEOUT_MS, hostileManifest, npmServerFiles, npmServerManifest } from "./helpers/mcp-servers.js";

// Issue 22 item 3's missing path: a page Runtime (the web and desktop hosts) runs no processes, so the host's Node
// process runs its MCP and stdio back-ends through the local back-end service. Here the Runtime is given the page's
// runners (`createLocalBackendsClient`, over `ws` instead of the browser's WebSocket) and the service runs on a real
// loopback HTTP server: a real MCP server from npm answers the agent through it, a hostile one is contained and typed,
// and the service refuses what a page or a stranger must not make it do.


let dataDir: string;
let http: Server;
let service: LocalBackendService;
let origin: string;
let url: string;
let budget: { manifest: AppManifest; files: Record<string, string> };

beforeAll(async () => {
  dataDir = realpathSync(mkdtempSync(join(tmpdir(), "lineup-local-backends-")));
  http = createServer((_req, res) => res.writeHead(404).end());
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const port = (http.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  url = `ws://127.0.0.1:${port}${LOCAL_BACKENDS_PATH}`;
  service = createLocalBackendService({ dataDir, origins: [origin] });
  http.on("upgrade", (req, socket, head) => {
    if (!service.handleUpgrade(req, socket, head)) socket.destroy();
  });
  budget = { manifest: (await npmServerManifest(BUDGET_ALLOCATOR, "budget")).manifest, files: npmServerFiles(BUDGET_ALLOCATOR) };
}, 60_000);
afterAll(async () => {
  await service.close();
  await new Promise<void>((resolve) => http.close(() => resolve()));
  rmSync(dataDir, { recursive: true, force: true });
});

/** The page's client over `ws`, presenting `origin`; `sockets` collects what it opened. */
function client(sockets: WebSocket[] = [], secret = service.secret): LocalBackendsClient {
  return createLocalBackendsClient({
    url,
    secret,
    profile: "lineup-runtime:test",
    socket: (target, protocols) => {
      const socket = new WebSocket(target, protocols, { origin });
      sockets.push(socket);
      return socket as unknown as LocalBackendSocket;
    },
  });
}

/** A raw connection to the service (a page or a stranger), as a wire peer; rejects with the HTTP status of a refused upgrade. */
function connect(options: { origin?: string; protocols?: string[] } = {}): Promise<{ peer: WirePeer; socket: WebSocket }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${url}?profile=raw`, options.protocols ?? [LOCAL_BACKENDS_SUBPROTOCOL, `secret.${service.secret}`], { origin: options.origin ?? origin });
    socket.on("unexpected-response", (_req, res) => reject(new Error(`refused ${res.statusCode}`)));
    socket.on("error", reject);
    socket.on("open", () => {
      const peer = createWirePeer({ send: (text) => socket.send(text), handle: async () => ({}) });
      socket.on("message", (data: Buffer) => peer.receive(data.toString("utf8")));
      socket.on("close", () => peer.close(new LineUpError("handler_failed", "closed")));
      resolve({ peer, socket });
    });
  });
}

const refusal = async (promise: Promise<unknown>): Promise<{ code: string; reason?: unknown; message: string }> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LineUpError);
  const e = error as LineUpError;
  return { code: e.code, message: e.message, ...(e.data?.["reason"] === undefined ? {} : { reason: e.data["reason"] }) };
};

describe("the local back-end service", () => {
  let d: Device | undefined;
  let local: LocalBackendsClient | undefined;
  afterEach(async () => {
    await d?.stop();
    local?.close();
    d = undefined;
    local = undefined;
  });

  let calls = 0;
  const agentCall = async (server: Awaited<ReturnType<typeof onlineDevice>>["server"], app: string, method: string, args: JsonObject = {}) => {
    const callId = `local-${++calls}`;
    agentInvokes(server, callId, app, method, args, publishedInventories(server).at(-1)!.revision);
    const terminal = () => toolOutputs(server, callId).filter(([type]) => type === "lineup.tool.result" || type === "lineup.tool.error");
    await until(() => terminal().length > 0, 30_000, `the end of ${app}/${method}`);
    // One terminal output per call, whatever the server or the channel did.
    expect(terminal()).toHaveLength(1);
    return terminal()[0]!;
  };

  it("runs a real MCP server from npm for a page Runtime: the agent's call gets the server's result, and its view is read", async () => {
    local = client();
    const online = await onlineDevice({ extra: { backends: local.runners } });
    d = online.d;
    expect(await d.runtime.appManager.install(await signedBundle(budget.manifest, undefined, undefined, budget.files), { approved: true })).toMatchObject({ status: "succeeded" });
    await until(() => publishedInventories(online.server).some((i) => i.methods.includes("budget/budget.get_budget_data")), 5_000, "the inventory with the MCP tool");

    const [type, payload] = await agentCall(online.server, "budget", "budget.get_budget_data");
    expect(type).toBe("lineup.tool.result");
    const result = payload["result"] as { structuredContent: { config: { categories: unknown[] } } };
    expect(result.structuredContent.config.categories.length).toBeGreaterThan(0);

    const view = await d.runtime.appPort("budget").readMcpView("budget.get_budget_data");
    expect(JSON.stringify(view)).toContain("<html");
  }, 90_000);

  it("contains a hostile MCP server: typed errors through the service, and the other app goes on", async () => {
    local = client();
    const online = await onlineDevice({ extra: { backends: local.runners } });
    d = online.d;
    for (const [manifest, files] of [[budget.manifest, budget.files], [hostileManifest(HOSTILE_LOADED_TIMEOUT_MS), { "server/index.mjs": HOSTILE }]] as const) {
      expect(await d.runtime.appManager.install(await signedBundle(manifest, undefined, undefined, files), { approved: true })).toMatchObject({ status: "succeeded" });
    }
    await until(() => publishedInventories(online.server).some((i) => i.methods.includes("hostile/hostile.hang") && i.methods.includes("budget/budget.get_budget_data")), 5_000, "the inventory");

    expect((await agentCall(online.server, "hostile", "hostile.ok"))[0]).toBe("lineup.tool.result");
    const garbage = await agentCall(online.server, "hostile", "hostile.garbage");
    expect([garbage[0], garbage[1]["code"], String(garbage[1]["message"])]).toEqual(["lineup.tool.error", "handler_failed", expect.stringContaining("not a JSON-RPC 2.0 message")]);
    const badshape = await agentCall(online.server, "hostile", "hostile.badshape");
    expect([badshape[0], badshape[1]["code"], String(badshape[1]["message"])]).toEqual(["lineup.tool.error", "handler_failed", expect.stringContaining("invalid_result")]);
    const hang = await agentCall(online.server, "hostile", "hostile.hang");
    expect([hang[0], hang[1]["code"]]).toEqual(["lineup.tool.error", "operation_expired"]);
    // Restarted for the next call; the other app's server never noticed.
    expect((await agentCall(online.server, "hostile", "hostile.ok"))[0]).toBe("lineup.tool.result");
    expect((await agentCall(online.server, "budget", "budget.get_budget_data"))[0]).toBe("lineup.tool.result");
  }, 120_000);

  it("refuses a connection from another origin, without the secret, or with a wrong one", async () => {
    await expect(connect({ origin: "http://evil.example" })).rejects.toThrow("refused 403");
    await expect(connect({ origin: "null" })).rejects.toThrow("refused 403");
    await expect(connect({ protocols: [LOCAL_BACKENDS_SUBPROTOCOL] })).rejects.toThrow("refused 401");
    await expect(connect({ protocols: [LOCAL_BACKENDS_SUBPROTOCOL, `secret.${"0".repeat(64)}`] })).rejects.toThrow("refused 401");
    // The page's client with a wrong secret: its call fails typed, nothing runs.
    local = client([], "f".repeat(64));
    const runner = local.runners["mcp-stdio"]!(hostileSpec());
    expect(await refusal(runner.call("ok", {}))).toMatchObject({ code: "handler_failed", reason: "disconnected" });
  }, 30_000);

  it("refuses an oversized file, a file under another digest, a start without its files or with an unsafe scope, and a call after stop", async () => {
    const { peer, socket } = await connect();
    try {
      const big = new Uint8Array(MAX_LOCAL_FILE_BYTES + 1);
      expect(await refusal(peer.request("files.put", { hash: await sha256Hex(big), data: bytesToBase64(big) }))).toMatchObject({ code: "message_too_large" });
      const entry = new TextEncoder().encode(HOSTILE);
      const hash = await sha256Hex(entry);
      expect(await refusal(peer.request("files.put", { hash: "0".repeat(64), data: bytesToBase64(entry) }))).toMatchObject({ code: "bundle_hash_mismatch" });
      expect(await peer.request("files.missing", { hashes: [hash] })).toEqual({ missing: [hash] });
      const declaration = hostileManifest(HOSTILE_LOADED_TIMEOUT_MS).backends![0]! as unknown as JsonObject;
      const start = { runner: "r1", app_scope: "hostile", declaration, entry: hash, files: { "index.mjs": hash } };
      expect(await refusal(peer.request("backend.start", start))).toMatchObject({ code: "not_found" });
      await peer.request("files.put", { hash, data: bytesToBase64(entry) });
      expect(await peer.request("files.missing", { hashes: [hash] })).toEqual({ missing: [] });
      expect(await refusal(peer.request("backend.start", { ...start, app_scope: "../../etc" }))).toMatchObject({ code: "invalid_params", message: expect.stringContaining("app_scope") });
      expect(await refusal(peer.request("backend.start", { ...start, files: { "../escape.mjs": hash } }))).toMatchObject({ code: "invalid_params" });
      expect(await refusal(peer.request("backend.start", { ...start, declaration: { ...declaration, protocol: "wasm" } }))).toMatchObject({ code: "unsupported_on_host" });
      await peer.request("backend.start", start);
      expect(await peer.request("backend.call", { runner: "r1", method: "ok", params: {} })).toMatchObject({ structuredContent: { pid: expect.any(Number) } });
      await peer.request("backend.stop", { runner: "r1" });
      expect(await refusal(peer.request("backend.call", { runner: "r1", method: "ok", params: {} }))).toMatchObject({ code: "handler_failed", reason: "stopped" });
      expect(await refusal(peer.request("backend.call", { runner: "r2", method: "ok", params: {} }))).toMatchObject({ code: "not_found" });
      expect(await refusal(peer.request("backend.kill", {}))).toMatchObject({ code: "method_not_found" });
    } finally {
      socket.close();
    }
  }, 30_000);

  it("carries a program's requests to the page's hostCalls, their answers and refusals back, and its log to the page's diagnostics", async () => {
    local = client();
    const hostCalls: [string, unknown][] = [];
    const diagnostics: string[] = [];
    const runner = local.runners["stdio-jsonrpc"]!({
      app_scope: "journal",
      declaration: { id: "relay", plane: "client-local", protocol: "stdio-jsonrpc", runtime: "node", entry: "backends/relay.mjs", methods: [{ name: "x" }], limits: { call_timeout_ms: 5_000 } },
      entry: new TextEncoder().encode(RELAY),
      hostCalls: async (method, params) => {
        hostCalls.push([method, params]);
        if (method === "storage.put") return { bytes: 10, records: 1 };
        throw new LineUpError("capability_not_declared", `no ${method}`);
      },
      diagnostics: (error, context) => diagnostics.push(`${context}: ${error instanceof Error ? error.message : String(error)}`),
    });
    expect(await runner.call("storage.put", { collection: "entries", key: "2026-12-01", value: {} })).toEqual({ bytes: 10, records: 1 });
    expect(await refusal(runner.call("capability.request", { name: "net.fetch" }))).toMatchObject({ code: "capability_not_declared" });
    expect(hostCalls).toEqual([
      ["storage.put", { collection: "entries", key: "2026-12-01", value: {} }],
      ["capability.request", { name: "net.fetch" }],
    ]);
    expect(await runner.call("say", { text: "hello from the program" })).toBe(true);
    await until(() => diagnostics.some((d) => d.includes("hello from the program")), 10_000, "the program's log line");
    await runner.stop();
  }, 30_000);

  it("a dropped connection ends the call in flight with a typed error, and the next call reconnects and starts the program again", async () => {
    const sockets: WebSocket[] = [];
    local = client(sockets);
    const runner = local.runners["mcp-stdio"]!(hostileSpec(10_000));
    const first = (await runner.call("ok", {})) as { structuredContent: { pid: number } };
    const hanging = runner.call("hang", {});
    await new Promise((resolve) => setTimeout(resolve, 200));
    sockets[0]!.terminate();
    expect(await refusal(hanging)).toMatchObject({ code: "handler_failed", reason: "disconnected" });
    const second = (await runner.call("ok", {})) as { structuredContent: { pid: number } };
    expect(sockets).toHaveLength(2);
    // The service stopped the first connection's program when the connection went.
    expect(second.structuredContent.pid).not.toBe(first.structuredContent.pid);
    expect(() => process.kill(first.structuredContent.pid, 0)).toThrow();
    await runner.stop();
    expect(await refusal(runner.call("ok", {}))).toMatchObject({ code: "handler_failed", reason: "stopped" });
  }, 60_000);
});

/** A stdio program that hands each call to the host as the request of the same name (`say` logs its text instead). */
const RELAY = `
import { createInterface } from "node:readline";
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
const waiting = new Map(); let next = 1;
createInterface({ input: process.stdin }).on("line", async (line) => {
  const m = JSON.parse(line);
  if (m.method === undefined) { const w = waiting.get(m.id); waiting.delete(m.id); return m.error ? w.reject(m.error) : w.resolve(m.result); }
  if (m.id === undefined) return;
  if (m.method === "say") { send({ jsonrpc: "2.0", method: "log", params: { level: "warn", message: m.params.text } }); return send({ jsonrpc: "2.0", id: m.id, result: true }); }
  const id = "h" + next++;
  send({ jsonrpc: "2.0", id, method: "host." + m.method, params: m.params });
  try { send({ jsonrpc: "2.0", id: m.id, result: await new Promise((resolve, reject) => waiting.set(id, { resolve, reject })) }); }
  catch (e) { send({ jsonrpc: "2.0", id: m.id, error: { code: -32000, message: e.message, data: { code: e.data.code } } }); }
});
`;

/** The hostile server's start spec, as the page's back-end service makes it. */
function hostileSpec(callTimeoutMs = HOSTILE_LOADED_TIMEOUT_MS): BackendStartSpec {
  const declaration = hostileManifest(callTimeoutMs).backends![0]!;
  const entry = new TextEncoder().encode(HOSTILE);
  return {
    app_scope: "hostile",
    declaration,
    entry,
    files: new Map([["index.mjs", entry]]),
    hostCalls: async () => null,
  };
}
