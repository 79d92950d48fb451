/**
 * `idempotent: false` runs at most once (spec 7.1, issue 21), with a real kill: a child process runs the
 * Runtime on SQLite against the real AppServer; the agent calls a tool; the app's handler starts (it writes
 * `RAN <call_id>`) and the process SIGKILLs itself before the result — between dispatch and result. The
 * parent restarts it on the same database and checks, from the agent's session log and the handler's lines:
 * exactly one terminal outcome for the call, `handler_failed`, and zero re-runs. An `idempotent: true` tool
 * killed the same way is delivered again and ends with its result: the difference is the declaration.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppManifest, AppScope } from "@lineup/protocol";
import { silentLogger, startAppServer, type AppServerHandle } from "@lineup/app-server";
import { publisherKey, signedBundle } from "./helpers/apps-harness.js";
import { RawAgent } from "./helpers/raw-agent.js";

const CHILD = fileURLToPath(new URL("./fixtures/at-most-once-child.ts", import.meta.url));
const APP_SCOPE = "counter";

const tool = (method: string, idempotent: boolean) => ({
  method,
  contract_version: "1",
  input_schema: { type: "object" },
  output_schema: { type: "object", required: ["added"], properties: { added: { const: true } } },
  call_model: "command",
  // Runs without an instance, so the call goes straight to the app's handler.
  activation_requirement: "activation_not_required",
  idempotent,
});

const MANIFEST = {
  format: "lineup.app.v1",
  app_scope: APP_SCOPE as AppScope,
  version: "1.0.0",
  runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1"] },
  entrypoints: [{ id: "main", kind: "primary" }],
  tools: [tool("counter.add", false), tool("counter.touch", true)],
} as AppManifest;

const work = mkdtempSync(join(tmpdir(), "lineup-at-most-once-"));
const bundle = fileURLToPath(new URL(`../test-output/at-most-once-child-${process.pid}.mjs`, import.meta.url));
const bundlePath = join(work, "counter.lineup");
let server: AppServerHandle;
let trustedKey: { key_id: string; public_key: string };

beforeAll(async () => {
  await build({ entryPoints: [CHILD], bundle: true, platform: "node", format: "esm", target: "node20", conditions: ["source"], external: ["better-sqlite3", "ws"], outfile: bundle, logLevel: "silent" });
  server = await startAppServer({ dataDir: join(work, "server"), port: 0, logger: silentLogger });
  const key = await publisherKey();
  trustedKey = key.trustedKey;
  writeFileSync(bundlePath, await signedBundle(MANIFEST, key));
}, 60_000);

afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
  rmSync(bundle, { force: true });
});

/** A child Runtime; `lines` fills as it writes, `exited` resolves with its signal. */
function startChild(config: Record<string, unknown>): { child: ChildProcess; lines: string[]; exited: Promise<NodeJS.Signals | null>; stderr: () => string } {
  const child = spawn(process.execPath, [bundle, JSON.stringify(config)], { cwd: fileURLToPath(new URL("../../..", import.meta.url)), stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    const parts = stdout.split("\n");
    stdout = parts.pop()!;
    lines.push(...parts);
  });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const guard = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("close", () => (clearTimeout(guard), resolve(child.signalCode))));
  return { child, lines, exited, stderr: () => stderr };
}

async function until(check: () => boolean | Promise<boolean>, ms: number, what: string | (() => string)): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${typeof what === "string" ? what : what()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The `lineup.tool.*` envelopes in the session's log for `callId`, as `[type, payload]`. */
async function toolLog(agent: RawAgent, sessionId: string, callId: string): Promise<[string, Record<string, unknown>][]> {
  const out: [string, Record<string, unknown>][] = [];
  for (let after = 0; ; ) {
    const page = await agent.call<{ events: { seq: number; kind: string; data: { envelope?: { type: string; correlation?: { call_id?: string }; payload: Record<string, unknown> } } }[]; has_more: boolean }>("agentSession/events/read", { session_id: sessionId, after_seq: after });
    for (const e of page.events) {
      const envelope = e.data.envelope;
      if (e.kind === "envelope" && envelope !== undefined && envelope.type !== "lineup.tool.invoke" && envelope.correlation?.call_id === callId) out.push([envelope.type, envelope.payload]);
    }
    if (!page.has_more || page.events.length === 0) break;
    after = page.events.at(-1)!.seq;
  }
  return out;
}

const terminal = (log: [string, Record<string, unknown>][]) => log.filter(([type]) => type === "lineup.tool.result" || type === "lineup.tool.error");

/** Kills the child between dispatch and result of `method`, restarts it, and returns what the agent and the handler saw. */
async function killBetweenDispatchAndResult(point: string, method: string): Promise<{ terminals: [string, Record<string, unknown>][]; runs: number }> {
  server.admin.createUser(`u-${point}`);
  const token = server.admin.createDevice(`d-${point}`, `u-${point}`);
  const sessionId = `${point}-s`;
  const device = await RawAgent.connect(server.url, token);
  await device.call("agentSession/start", { idempotency_key: `start-${sessionId}`, session_id: sessionId, app_scope: "chat", workspace_id: "w-1", agent_id: "demo-agent" });
  device.close();
  const dataDir = mkdtempSync(join(work, `${point}-`));
  const config = { dataDir, url: server.url, token, bundlePath, trustedKey, appScope: APP_SCOPE };
  const agent = await RawAgent.connect(server.url, server.devCredentials!.agent_token);
  const callId = `${point}-call`;
  try {
    const first = startChild({ ...config, killOnCall: true });
    await until(() => first.lines.includes("READY"), 20_000, () => `the first run ready (${first.stderr().slice(-1500)})`);
    let revision: number | undefined;
    await until(async () => {
      revision = (await agent.call<{ inventory: { revision: number } | null }>("inventory/read", { session_id: sessionId })).inventory?.revision;
      return revision !== undefined && revision > 0;
    }, 10_000, "the inventory with the app's tools");
    await agent.call("agentSession/envelope/send", {
      session_id: sessionId,
      idempotency_key: `invoke-${callId}`,
      envelope: {
        v: 1,
        id: `inv-${callId}`,
        type: "lineup.tool.invoke",
        timestamp: "2026-12-06T02:00:00.000Z",
        sender: { kind: "agent", id: "demo-agent" },
        target: { kind: "app", app_scope: APP_SCOPE },
        scope: { app_scope: APP_SCOPE, conversation_id: sessionId },
        correlation: { call_id: callId, inventory_revision: String(revision) },
        payload: { method, arguments: {} },
      },
    });
    expect(await first.exited).toBe("SIGKILL");
    expect(first.lines.filter((l) => l === `RAN ${callId}`)).toHaveLength(1);

    const second = startChild({ ...config, killOnCall: false });
    try {
      await until(() => second.lines.includes("READY"), 20_000, () => `the second run ready (${second.stderr().slice(-1500)})`);
      await until(async () => terminal(await toolLog(agent, sessionId, callId)).length > 0, 15_000, "the call's terminal outcome");
      // Time for a redelivery to show, if there were one.
      await new Promise((r) => setTimeout(r, 300));
      const terminals = terminal(await toolLog(agent, sessionId, callId));
      return { terminals, runs: [...first.lines, ...second.lines].filter((l) => l === `RAN ${callId}`).length };
    } finally {
      second.child.kill("SIGKILL");
      await second.exited;
    }
  } finally {
    agent.close();
  }
}

describe("idempotent: false runs at most once across a kill (real process, SQLite, AppServer)", () => {
  it("killed between dispatch and result: one terminal outcome, handler_failed, and zero re-runs", async () => {
    const { terminals, runs } = await killBetweenDispatchAndResult("once", "counter.add");
    expect(terminals).toEqual([["lineup.tool.error", expect.objectContaining({ code: "handler_failed" })]]);
    expect(runs).toBe(1);
  }, 90_000);

  it("an idempotent tool killed the same way is delivered again and ends with its one result", async () => {
    const { terminals, runs } = await killBetweenDispatchAndResult("again", "counter.touch");
    expect(terminals).toEqual([["lineup.tool.result", { result: { added: true } }]]);
    expect(runs).toBe(2);
  }, 90_000);
});
