/**
 * RELIABILITY R1 (crash sweep, inbound) and R2 (outbox across kill + server restart) on the Node host:
 * a child process runs the Runtime on SQLite against the real AppServer and SIGKILLs itself right before
 * or right after its k-th store commit (or the parent kills it at a random moment); the parent restarts
 * it (and, every few points, the server) until it has caught up, and checks after every run:
 *
 * - lost: routable server events missing from the inbox (acknowledged events lost) — must be 0;
 * - duplicated: a message delivered again in a later run although its acknowledgement was committed — 0;
 * - unexpected: a delivered message the store does not hold — 0;
 * - the cursor never moves back; `PRAGMA integrity_check` is ok; the audit chain verifies;
 * - R2: every text whose dispatch was acknowledged is applied by the server exactly once, in order.
 *
 * `npm test`: a seeded 20 points. `LINEUP_SOAK=1`: every commit boundary (before and after) plus 200
 * random points.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger, startAppServer, type AppServerHandle } from "@lineup/app-server";
import { RUNTIME_SCHEMA, verifyAuditChain } from "../src/index.js";
import { openSqliteStore } from "../src/node/index.js";
import { listPendingMessageIds } from "../src/persistence/inbox.js";
import { RawAgent } from "./helpers/raw-agent.js";
import { seededRandom } from "./store-test-helpers.js";
import { SOAK, slack } from "../../../test/support/soak.js";

const CHILD = fileURLToPath(new URL("./fixtures/runtime-crash-child.ts", import.meta.url));
const MESSAGES_PER_SESSION = 6;
const TEXTS = 4;

const work = mkdtempSync(join(tmpdir(), "lineup-runtime-crash-"));
// Inside the repository (git-ignored), so the bundle resolves better-sqlite3 and ws from node_modules.
const bundle = fileURLToPath(new URL(`../test-output/runtime-crash-child-${process.pid}.mjs`, import.meta.url));
let server: AppServerHandle;
let port = 0;
let agentToken = "";

beforeAll(async () => {
  // One bundle, so each child starts in ~100 ms instead of compiling TypeScript on every start.
  await build({ entryPoints: [CHILD], bundle: true, platform: "node", format: "esm", target: "node20", conditions: ["source"], external: ["better-sqlite3", "ws"], outfile: bundle, logLevel: "silent" });
  server = await startAppServer({ dataDir: join(work, "server"), port: 0, logger: silentLogger });
  port = Number(new URL(server.url).port);
  agentToken = server.devCredentials!.agent_token;
}, slack(60_000));

afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
  rmSync(bundle, { force: true });
});

interface RunResult {
  readonly lines: string[];
  readonly killed: boolean;
  readonly commits: number | undefined;
}

async function runChild(config: Record<string, unknown>, killAfterMs?: number): Promise<RunResult> {
  const child = spawn(process.execPath, [bundle, JSON.stringify(config)], { cwd: fileURLToPath(new URL("../../..", import.meta.url)), stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), killAfterMs);
  const guard = setTimeout(() => child.kill("SIGKILL"), slack(20_000));
  const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
  clearTimeout(timer);
  clearTimeout(guard);
  const lines = stdout.split("\n").slice(0, -1);
  const done = lines.find((l) => l.startsWith("DONE "));
  if (code !== 0 && child.signalCode !== "SIGKILL") throw new Error(`child failed (${code}): ${stderr}`);
  if (child.signalCode === "SIGKILL" && done === undefined && killAfterMs === undefined && config["killAt"] === 0) throw new Error(`child hung: ${JSON.stringify(config)}\n${stdout.slice(-2000)}\n${stderr.slice(-4000)}`);
  return { lines, killed: child.signalCode === "SIGKILL", commits: done === undefined ? undefined : Number(done.slice(5)) };
}

/** A fresh user with one device and two sessions full of agent messages (and a card each). */
async function provision(point: string): Promise<{ token: string; sessions: string[] }> {
  await server.admin.createUser(`u-${point}`);
  const token = await server.admin.createDevice(`d-${point}`, `u-${point}`);
  const device = await RawAgent.connect(server.url, token);
  const agent = await RawAgent.connect(server.url, agentToken);
  const sessions = [`${point}-a`, `${point}-b`];
  for (const id of sessions) {
    await device.call("agentSession/start", { idempotency_key: `start-${id}`, session_id: id, app_scope: "chat", workspace_id: "w-1", agent_id: "demo-agent" });
    for (let i = 0; i < MESSAGES_PER_SESSION; i++) {
      await agent.call("agentSession/envelope/send", {
        session_id: id,
        idempotency_key: `m-${id}-${i}`,
        envelope: { v: 1, id: `m-${id}-${i}`, type: "lineup.message", timestamp: "2026-11-30T06:00:00.000Z", sender: { kind: "agent", id: "demo-agent" }, target: { kind: "app", app_scope: "chat" }, scope: { app_scope: "chat", conversation_id: id }, payload: { format: "text", text: `message ${i}` } },
      });
    }
    await agent.call("agentSession/action/request", { session_id: id, idempotency_key: `act-${id}`, kind: "approval", prompt: "Proceed?" });
  }
  device.close();
  agent.close();
  return { token, sessions };
}

async function serverLog(sessions: readonly string[]): Promise<Map<string, { seq: number; kind: string; text?: string }[]>> {
  const agent = await RawAgent.connect(server.url, agentToken);
  const logs = new Map<string, { seq: number; kind: string; text?: string }[]>();
  for (const id of sessions) {
    const events: { seq: number; kind: string; text?: string }[] = [];
    for (let after = 0; ; ) {
      const page = await agent.call<{ events: { seq: number; kind: string; data: { turn?: { input: { text?: string } } } }[]; has_more: boolean }>("agentSession/events/read", { session_id: id, after_seq: after });
      for (const e of page.events) events.push({ seq: e.seq, kind: e.kind, ...(e.data.turn?.input.text === undefined ? {} : { text: e.data.turn.input.text }) });
      if (!page.has_more || page.events.length === 0) break;
      after = page.events.at(-1)!.seq;
    }
    logs.set(id, events);
  }
  agent.close();
  return logs;
}

async function restartServer(): Promise<void> {
  await server.close();
  server = await startAppServer({ dataDir: join(work, "server"), port, logger: silentLogger });
}

interface Tally {
  lost: number;
  duplicated: number;
  unexpected: number;
  cursorRegressions: number;
  integrityFailures: number;
  outboxViolations: number;
  runs: number;
}

/** Runs one crash point to completion and adds its findings to `tally`. */
async function crashPoint(point: string, kill: { killAt: number; killWhen: "before" | "after" } | { afterMs: number } | undefined, restart: boolean, tally: Tally): Promise<number | undefined> {
  const { token, sessions } = await provision(point);
  const dataDir = mkdtempSync(join(work, `${point}-`));
  const delivered = new Set<string>();
  const acknowledged: string[] = [];
  const cursors = new Map<string, number>();
  let commits: number | undefined;
  for (let run = 0; run < 12; run++) {
    // What the store holds before this run: pending messages may come again, acknowledged ones may not.
    const before = await openSqliteStore({ path: join(dataDir, "runtime.db"), schema: RUNTIME_SCHEMA });
    const pending = new Set(await listPendingMessageIds(before));
    await before.close();

    const logs = await serverLog(sessions);
    const heads = Object.fromEntries([...logs].map(([id, events]) => [id, events.length]));
    const texts = run === 0 ? Array.from({ length: TEXTS }, (_, i) => `${point}-t${i}`) : Array.from({ length: 2 }, (_, i) => `${point}-r${run}-t${i}`);
    const first = run === 0 ? kill : undefined;
    const config = {
      dataDir,
      url: server.url,
      token,
      conversation: sessions[0],
      texts,
      heads,
      killAt: first !== undefined && "killAt" in first ? first.killAt : 0,
      killWhen: first !== undefined && "killWhen" in first ? first.killWhen : "before",
    };
    const result = await runChild(config, first !== undefined && "afterMs" in first ? first.afterMs : undefined);
    tally.runs += 1;
    for (const line of result.lines) {
      if (line.startsWith("A ")) acknowledged.push(line.slice(2));
      if (!line.startsWith("D ")) continue;
      const id = line.slice(2);
      if (delivered.has(id) && !pending.has(id)) tally.duplicated += 1;
      delivered.add(id);
    }

    const after = await openSqliteStore({ path: join(dataDir, "runtime.db"), schema: RUNTIME_SCHEMA });
    if (!(await after.integrityCheck())) tally.integrityFailures += 1;
    if (!(await verifyAuditChain(after)).ok) tally.integrityFailures += 1;
    for (const { key, value } of await after.range("cursors")) {
      const seq = (value as { seq: number }).seq;
      if (seq < (cursors.get(key) ?? 0)) tally.cursorRegressions += 1;
      cursors.set(key, seq);
    }
    const inbox = new Set((await after.range("inbox")).map((e) => `${e.key.split("/")[1]}:${Number(e.key.split("/")[2])}`));
    await after.close();

    if (result.killed && restart) await restartServer();
    if (result.commits !== undefined) commits ??= result.commits;
    const finalLogs = await serverLog(sessions);
    const caughtUp = [...finalLogs].every(([id, events]) => (cursors.get(id) ?? 0) >= events.length);
    if (result.commits === undefined || !caughtUp) continue;

    // Final accounting for this point.
    for (const [id, events] of finalLogs) {
      for (const event of events) {
        const routable = event.kind === "envelope" || event.kind === "action.required" || event.kind === "turn.started" || event.kind === "action.responded";
        if (routable && !inbox.has(`${id}:${event.seq}`)) tally.lost += 1;
      }
    }
    for (const id of delivered) if (!inbox.has(id)) tally.unexpected += 1;
    const applied = finalLogs.get(sessions[0]!)!.filter((e) => e.kind === "turn.started").map((e) => e.text!);
    for (const text of acknowledged) if (applied.filter((t) => t === text).length !== 1) tally.outboxViolations += 1;
    const order = applied.filter((t) => acknowledged.includes(t));
    if (JSON.stringify(order) !== JSON.stringify(acknowledged)) tally.outboxViolations += 1;
    return commits;
  }
  throw new Error(`point ${point} never caught up`);
}

describe("crash sweep: R1 inbound + R2 outbound (Node host, SQLite FULL, real AppServer)", () => {
  it("loses nothing, duplicates nothing, never moves the cursor back, applies acknowledged actions once", async () => {
    const tally: Tally = { lost: 0, duplicated: 0, unexpected: 0, cursorRegressions: 0, integrityFailures: 0, outboxViolations: 0, runs: 0 };
    // A clean run measures how many commit boundaries a full sync has.
    const boundaries = (await crashPoint("p0", undefined, false, tally)) ?? 10;
    const random = seededRandom(0x51ee9);
    const points: ({ killAt: number; killWhen: "before" | "after" } | { afterMs: number })[] = [];
    if (SOAK) {
      for (let k = 1; k <= boundaries; k++) points.push({ killAt: k, killWhen: "before" }, { killAt: k, killWhen: "after" });
      for (let i = 0; i < 200; i++) points.push({ afterMs: 50 + Math.floor(random() * 400) });
    } else {
      for (let i = 0; i < 14; i++) points.push({ killAt: 1 + Math.floor(random() * boundaries), killWhen: random() < 0.5 ? "before" : "after" });
      for (let i = 0; i < 6; i++) points.push({ afterMs: 80 + Math.floor(random() * 300) });
    }
    for (const [i, point] of points.entries()) await crashPoint(`p${i + 1}`, point, i % 4 === 3, tally);
    console.log(`R1/R2 crash sweep: ${points.length} points over ${boundaries} commit boundaries, ${tally.runs} child runs:`, JSON.stringify(tally));
    expect(tally).toMatchObject({ lost: 0, duplicated: 0, unexpected: 0, cursorRegressions: 0, integrityFailures: 0, outboxViolations: 0 });
  }, slack(SOAK ? 450_000 : 120_000));
});
