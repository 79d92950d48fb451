/**
 * A small JSON-RPC test client over a real WebSocket, and a real server on an ephemeral port with a
 * temp data dir — on SQLite, or on PostgreSQL when the test project says so (`LINEUP_TEST_STORE`):
 * then every server gets a database of its own on the run's throwaway cluster (postgres-setup.ts).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { APP_SERVER_PROTOCOL_VERSION, type ServerLimits } from "@lineup/protocol";
import { afterAll, beforeAll, inject } from "vitest";
import WebSocket from "ws";
import { spawnAppServer } from "../../../test/support/app-server-process.js";
import { createDatabase } from "../../../test/support/postgres.js";
import { slack } from "../../../test/support/soak.js";
import { silentLogger, startAppServer, type AppServerHandle } from "../src/index.js";
import type { Clock } from "../src/clock.js";
import pg from "pg";
import { openStore, type Store } from "../src/store/database.js";
import type { SqliteDb } from "../src/store/sql.js";

export type Frame = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test frames are inspected loosely

export function tempDir(prefix = "lineup-app-server-"): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** The store the tests of this run use. */
export const TEST_STORE: "sqlite" | "postgres" = process.env["LINEUP_TEST_STORE"] === "postgres" ? "postgres" : "sqlite";

/** On PostgreSQL: a new, empty database's URL; on SQLite: undefined (the store is the data dir's file). */
export async function freshDatabase(): Promise<string | undefined> {
  return TEST_STORE === "postgres" ? createDatabase(inject("postgresUrl")) : undefined;
}

/** A fresh store of the run's kind, opened directly (no server), and how to close and delete it. */
export async function openTestStore(): Promise<{ store: Store; db: string | undefined; dataDir: string; dispose(): Promise<void> }> {
  const dir = tempDir();
  const db = await freshDatabase();
  const store = await openStore({ dataDir: dir.path, db });
  return {
    store,
    db,
    dataDir: dir.path,
    async dispose() {
      await store.close();
      dir.remove();
    },
  };
}

/** A second look at a server's store (another connection, committed state only), for tests that check what is at rest. */
export async function probeStore(server: { readonly dataDir: string; readonly db: string | undefined }): Promise<Store> {
  return openStore({ dataDir: server.dataDir, db: server.db });
}

/**
 * A store fault to switch on and off: SQLite turns the writer's connection query-only; PostgreSQL
 * stops taking connections to the database and drops the open ones. Either way no transaction can
 * start or commit until the fault clears.
 */
export function storeFault(opened: { readonly store: Store; readonly db: string | undefined }): { on(): Promise<void>; off(): Promise<void> } {
  const { store, db } = opened;
  if (db === undefined) {
    const raw = (store.writer as SqliteDb).raw;
    return { on: async () => void raw.pragma("query_only = ON"), off: async () => void raw.pragma("query_only = OFF") };
  }
  const name = new URL(db).pathname.slice(1);
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: inject("postgresUrl") });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  return {
    on: async () => {
      await admin(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      await admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`);
    },
    off: () => admin(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`),
  };
}

export interface TestServer extends AppServerHandle {
  readonly dataDir: string;
  /** The PostgreSQL URL of the server's store; undefined on SQLite. */
  readonly db: string | undefined;
  /** Close and delete the data dir. */
  dispose(): Promise<void>;
}

/** `dataDir` and `db` name an existing store (a restart); without them the server gets a fresh one. */
export async function startTestServer(options: { limits?: Partial<ServerLimits>; dataDir?: string; db?: string; heartbeatIntervalMs?: number; clock?: Clock } = {}): Promise<TestServer> {
  const dir = options.dataDir === undefined ? tempDir() : undefined;
  const dataDir = options.dataDir ?? dir!.path;
  const db = options.db ?? (options.dataDir === undefined ? await freshDatabase() : undefined);
  const server = await startAppServer({
    dataDir,
    logger: silentLogger,
    ...(db === undefined ? {} : { db }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.heartbeatIntervalMs === undefined ? {} : { heartbeatIntervalMs: options.heartbeatIntervalMs }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  return Object.assign(server, {
    dataDir,
    db,
    async dispose() {
      await server.close();
      dir?.remove();
    },
  });
}

const serverProcesses: ChildProcess[] = [];

/** The server in a process of its own (test/support/app-server-process.ts), killed after the file if still running. */
export async function startServerProcess(options: { readonly dataDir: string; readonly db: string | undefined }): Promise<{ child: ChildProcess; url: string }> {
  const started = await spawnAppServer(options);
  serverProcesses.push(started.child);
  return started;
}

/** Kills every server process the file started that still runs. */
export function stopServerProcesses(): void {
  for (const child of serverProcesses.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}

export { exited } from "../../../test/support/app-server-process.js";

/** The dev device and the demo agent connected to one test server. */
export interface DevAndAgent {
  readonly server: TestServer;
  readonly device: TestClient;
  readonly agent: TestClient;
}

/**
 * For one test file: a test server with the dev device and the demo agent connected, started before its
 * tests and closed after them. `take` receives them once they are up (assign them to the file's variables).
 */
export function connectDevAndAgent(take: (world: DevAndAgent) => void, options: Parameters<typeof startTestServer>[0] = {}): void {
  let world: DevAndAgent | undefined;
  beforeAll(async () => {
    const server = await startTestServer(options);
    world = { server, device: await TestClient.open(server, server.devCredentials!.device_token), agent: await TestClient.open(server, server.devCredentials!.agent_token) };
    take(world);
  });
  afterAll(async () => {
    if (world === undefined) return;
    await world.device.close();
    await world.agent.close();
    await world.server.dispose();
  });
}

export class RpcError extends Error {
  constructor(readonly error: { code: number; message: string; data?: Frame }) {
    super(`${error.code} ${error.data?.code ?? ""}: ${error.message}`);
  }
  get lineupCode(): string | undefined {
    return this.error.data?.code;
  }
}

interface Waiter {
  readonly predicate: (frame: Frame) => boolean;
  readonly resolve: (frame: Frame) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

export class TestClient {
  /** Every frame received, parsed, in order. */
  readonly frames: Frame[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private readIndex = 0;
  private nextId = 1;
  private waiters: Waiter[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data) => {
      const frame = JSON.parse(String(data)) as Frame;
      this.frames.push(frame);
      for (const w of [...this.waiters]) {
        if (w.predicate(frame)) {
          clearTimeout(w.timer);
          this.waiters = this.waiters.filter((x) => x !== w);
          w.resolve(frame);
        }
      }
    });
    this.closed = new Promise((resolve) => ws.on("close", (code, reason) => resolve({ code, reason: String(reason) })));
  }

  static async connect(url: string): Promise<TestClient> {
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    return new TestClient(ws);
  }

  /** Connects and initializes with `token`. */
  static async open(server: { url: string }, token: string): Promise<TestClient> {
    const client = await TestClient.connect(server.url);
    await client.call("initialize", { protocol_version: APP_SERVER_PROTOCOL_VERSION, client_info: { name: "test" }, token });
    client.notify("initialized");
    client.skipReceived();
    return client;
  }

  sendRaw(data: string | Buffer, binary = false): void {
    this.ws.send(data, { binary });
  }

  notify(method: string, params?: unknown): void {
    this.sendRaw(JSON.stringify(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params }));
  }

  /** Sends a request and resolves with its whole response object. */
  request(method: string, params?: unknown, timeoutMs = 10_000): Promise<Frame> {
    const id = this.nextId++;
    const response = this.waitFor((f) => !Array.isArray(f) && f.id === id && ("result" in f || "error" in f), timeoutMs);
    this.sendRaw(JSON.stringify(params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params }));
    return response;
  }

  /** The result, or throws RpcError. */
  async call(method: string, params?: unknown, timeoutMs?: number): Promise<Frame> {
    const response = await this.request(method, params, timeoutMs);
    if ("error" in response) throw new RpcError(response.error);
    return response.result;
  }

  /** The LineUp code of a refused call (fails the test if the call succeeds). */
  async refusal(method: string, params?: unknown): Promise<string> {
    const response = await this.request(method, params);
    if (!("error" in response)) throw new Error(`${method} unexpectedly succeeded: ${JSON.stringify(response.result).slice(0, 200)}`);
    return response.error.data?.code;
  }

  /** Resolves with the first frame (already received or future) matching `predicate`, within `timeoutMs` (longer under the soak: `slack`). */
  waitFor(predicate: (frame: Frame) => boolean, timeoutMs = 10_000): Promise<Frame> {
    const found = this.frames.find(predicate);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.timer !== timer);
        reject(new Error(`no matching frame within ${timeoutMs} ms`));
      }, slack(timeoutMs));
      this.waiters.push({ predicate, resolve, reject, timer });
    });
  }

  /** Makes `nextFrame` start after everything received so far. */
  skipReceived(): void {
    this.readIndex = this.frames.length;
  }

  /** The next frame in arrival order (raw conformance tests). */
  async nextFrame(timeoutMs = 5_000): Promise<Frame> {
    const index = this.readIndex++;
    if (index < this.frames.length) return this.frames[index];
    return this.waitFor(() => this.frames.length > index, timeoutMs).then(() => this.frames[index]);
  }

  /** `agentSession/event` params received for a session, in arrival order. */
  events(sessionId: string): Frame[] {
    return this.frames.filter((f) => f.method === "agentSession/event" && f.params.session_id === sessionId).map((f) => f.params);
  }

  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    this.ws.close();
    await this.closed;
  }
}

/** A key unique within the test run. */
let keyCounter = 0;
export const key = (prefix = "k") => `${prefix}-${++keyCounter}-${Math.random().toString(36).slice(2, 8)}`;

export const START = (sessionId: string, extra: Record<string, unknown> = {}) => ({
  idempotency_key: key("start"),
  session_id: sessionId,
  app_scope: "chat",
  workspace_id: "w-1",
  agent_id: "demo-agent",
  ...extra,
});

export function agentEnvelope(sessionId: string, id: string, agentId = "demo-agent"): Record<string, unknown> {
  return {
    v: 1,
    id,
    type: "lineup.message",
    timestamp: "2026-08-06T10:00:00.000Z",
    sender: { kind: "agent", id: agentId },
    target: { kind: "app", app_scope: "chat" },
    scope: { app_scope: "chat", conversation_id: sessionId },
    payload: { format: "text", text: `message ${id}` },
  };
}

/** One sample of a Prometheus text exposition. */
export interface MetricSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/**
 * Scrapes `GET /metrics` and parses the Prometheus text format strictly: every line is a HELP, a TYPE
 * or a sample of a family declared before it, with a number value. Throws on anything else.
 */
export async function scrapeMetrics(server: { httpUrl: string }): Promise<{ samples: MetricSample[]; types: Map<string, string>; value(name: string, labels?: Record<string, string>): number | undefined }> {
  const response = await fetch(`${server.httpUrl}/metrics`);
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  if (!/^text\/plain; version=0\.0\.4/.test(response.headers.get("content-type") ?? "")) throw new Error(`/metrics content-type ${response.headers.get("content-type")}`);
  const text = await response.text();
  if (!text.endsWith("\n")) throw new Error("the exposition must end with a newline");
  const types = new Map<string, string>();
  const helps = new Set<string>();
  const samples: MetricSample[] = [];
  for (const line of text.slice(0, -1).split("\n")) {
    let m: RegExpMatchArray | null;
    if ((m = line.match(/^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) \S.*$/))) helps.add(m[1]!);
    else if ((m = line.match(/^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/))) types.set(m[1]!, m[2]!);
    else if ((m = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*)\})? (\S+)$/))) {
      const name = m[1]!;
      const family = types.has(name) ? name : name.replace(/_(bucket|sum|count)$/, "");
      if (!types.has(family) || !helps.has(family)) throw new Error(`sample of an undeclared family: ${line}`);
      const value = m[3] === "+Inf" ? Infinity : Number(m[3]);
      if (Number.isNaN(value)) throw new Error(`not a number: ${line}`);
      const labels = Object.fromEntries([...(m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]));
      samples.push({ name, labels, value });
    } else throw new Error(`not Prometheus text: ${JSON.stringify(line)}`);
  }
  const value = (name: string, labels: Record<string, string> = {}) =>
    samples.find((s) => s.name === name && Object.keys(labels).length === Object.keys(s.labels).length && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
  return { samples, types, value };
}

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly url: string;
  /** Everything the process wrote so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or signal) once the process ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs the AppServer bin in a child process on `dataDir` and an ephemeral port; adds it to `children` (for the test's cleanup). */
export async function spawnServer(dataDir: string, children: ChildProcess[], args: readonly string[] = []): Promise<ServerProcess> {
  const repoRoot = resolve(import.meta.dirname, "..", "..", "..");
  const bin = join(import.meta.dirname, "..", "src", "bin.ts");
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", bin, "--data", dataDir, "--port", "0", ...args], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) => child.once("exit", (code, signal) => resolveExit({ code, signal })));
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr.slice(-2000)}`)), slack(20_000));
    const look = () => {
      const m = /listening on (ws:\/\/\S+)/.exec(stdout);
      if (m === null) return;
      clearTimeout(timer);
      child.stdout!.off("data", look);
      resolveUrl(m[1]!);
    };
    child.stdout!.on("data", look);
    void exited.then(({ code }) => reject(new Error(`server exited with ${code}: ${stderr.slice(-2000)}`)));
  });
  return { child, url, stdout: () => stdout, stderr: () => stderr, exited };
}

/** One admin JSON-RPC request to `POST /admin` (with the server's admin token, or `token`; null: none): the HTTP status and the parsed reply. */
export async function adminRequest(server: { httpUrl: string; adminToken: string | undefined }, method: string, params: unknown = {}, token: string | null | undefined = server.adminToken): Promise<{ status: number; body: Frame }> {
  const response = await fetch(`${server.httpUrl}/admin`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token === undefined || token === null ? {} : { authorization: `Bearer ${token}` }) },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return { status: response.status, body: await response.json() };
}

/** The result of an admin request, or throws RpcError. */
export async function adminCall(server: { httpUrl: string; adminToken: string | undefined }, method: string, params: unknown = {}): Promise<Frame> {
  const { body } = await adminRequest(server, method, params);
  if ("error" in body) throw new RpcError(body.error);
  return body.result;
}
