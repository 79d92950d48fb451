/**
 * `lineup evidence verify` on packs exported from a real AppServer: an agent task with a tool call and an
 * artifact its app made, exported by task. The pack verifies and the report names who made what; a pack
 * whose provenance, events or scope were altered is refused with the pointer to the first problem — also
 * when the forger recomputed the digest.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { APP_SERVER_PROTOCOL_VERSION, canonicalJson, type EvidencePack, type JsonValue } from "@lineup/protocol";
import { silentLogger, startAppServer, type AppServerHandle } from "@lineup/app-server";
import { runCli, type CliIo } from "../src/index.js";

const sha256 = (b: string | Uint8Array) => createHash("sha256").update(b).digest("hex");

function capture(): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l) };
}

/** Just enough JSON-RPC over a WebSocket to write a session's events. */
class Rpc {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>(); // eslint-disable-line @typescript-eslint/no-explicit-any -- results are read loosely
  private constructor(private readonly ws: WebSocket) {
    ws.on("message", (data) => {
      const frame = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string; data?: { code?: string } } };
      const waiter = frame.id === undefined ? undefined : this.pending.get(frame.id);
      if (waiter === undefined) return;
      this.pending.delete(frame.id!);
      if (frame.error !== undefined) waiter.reject(new Error(`${frame.error.data?.code}: ${frame.error.message}`));
      else waiter.resolve(frame.result);
    });
  }
  static async open(url: string, token: string): Promise<Rpc> {
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    const rpc = new Rpc(ws);
    await rpc.call("initialize", { protocol_version: APP_SERVER_PROTOCOL_VERSION, client_info: { name: "cli-test" }, token });
    ws.send(JSON.stringify({ jsonrpc: "2.0", method: "initialized" }));
    return rpc;
  }
  call(method: string, params: Record<string, unknown>): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any -- results are read loosely
    const id = this.nextId++;
    const result = new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return result;
  }
  close(): void {
    this.ws.close();
  }
}

const WHITEBOARD = { app_scope: "whiteboard", app_version: "1.1.0", bundle_digest: `sha256:${"cd".repeat(32)}` };
const S = "s-cli-evidence";
let keys = 0;
const key = () => `k-${++keys}`;

const work = mkdtempSync(join(tmpdir(), "lineup-cli-evidence-"));
let server: AppServerHandle;
let device: Rpc;
let agent: Rpc;
let packFile: string;
let pack: EvidencePack;
let wholePack: EvidencePack;

function envelope(id: string, type: string, fields: Record<string, unknown>): Record<string, unknown> {
  return { v: 1, id, type, timestamp: "2026-08-06T10:00:00.000Z", target: { kind: "runtime", app_scope: "runtime" }, scope: { app_scope: "whiteboard", conversation_id: S }, ...fields };
}
const taskTurn = (turnId: string, attempt: number) => ({
  session_id: S,
  idempotency_key: key(),
  turn_id: turnId,
  input: { text: "tidy the board" },
  options: { lineup_task: { task_id: "task-tidy", attempt, entry: "tidy_board", provenance: WHITEBOARD, requested_tools: [{ app_scope: "whiteboard", method: "board.tidy" }], knowledge: [], trace_id: "trace-1" } },
});
const complete = (turnId: string) => agent.call("agentSession/turn/complete", { session_id: S, turn_id: turnId, idempotency_key: key(), outcome: "completed", output: { summary: "done" } });

beforeAll(async () => {
  server = await startAppServer({ dataDir: join(work, "server"), port: 0, logger: silentLogger });
  device = await Rpc.open(server.url, server.devCredentials!.device_token);
  agent = await Rpc.open(server.url, server.devCredentials!.agent_token);
  await device.call("agentSession/start", { idempotency_key: key(), session_id: S, app_scope: "chat", workspace_id: "w-1", agent_id: "demo-agent" });
  await device.call("inventory/publish", {
    session_id: S,
    idempotency_key: key(),
    revision: 1,
    tools: [{ app_scope: "whiteboard", method: "board.tidy", contract_version: "1", title: "Tidy", description: "", input_schema: { type: "object" }, call_model: "command", provenance: WHITEBOARD }],
  });
  await device.call("agentSession/turn/start", taskTurn("t-1", 1));
  await agent.call("agentSession/envelope/send", {
    session_id: S,
    idempotency_key: key(),
    envelope: envelope("env-invoke", "lineup.tool.invoke", {
      sender: { kind: "agent", id: "demo-agent" },
      target: { kind: "app", app_scope: "whiteboard" },
      correlation: { call_id: "call-tidy", inventory_revision: "1" },
      payload: { method: "board.tidy", arguments: {} },
    }),
  });
  await device.call("agentSession/envelope/send", {
    session_id: S,
    idempotency_key: key(),
    envelope: envelope("env-result", "lineup.tool.result", { sender: { kind: "runtime", id: "dev-device" }, correlation: { call_id: "call-tidy", reply_to: "env-invoke" }, payload: { result: { moved: 3 } } }),
  });
  const layout = "x,y\n24,24\n";
  await device.call("artifact/put", {
    session_id: S,
    idempotency_key: key(),
    artifact_id: "a-layout",
    name: "layout.csv",
    mime_type: "text/csv",
    size: layout.length,
    sha256: sha256(layout),
    offset: 0,
    data: Buffer.from(layout).toString("base64"),
    provenance: WHITEBOARD,
  });
  await complete("t-1");
  await device.call("agentSession/envelope/send", {
    session_id: S,
    idempotency_key: key(),
    envelope: envelope("env-decision", "lineup.task.decision", { sender: { kind: "app", id: "whiteboard" }, payload: { task_id: "task-tidy", turn_id: "t-1", decision: "rejected" } }),
  });
  await device.call("agentSession/turn/start", taskTurn("t-2", 2));
  await complete("t-2");
  await device.call("agentSession/turn/start", { session_id: S, idempotency_key: key(), turn_id: "t-chat", input: { text: "thanks" } });

  packFile = join(work, "task.evidence.json");
  writeFileSync(packFile, await exportPack({ task_id: "task-tidy" }));
  pack = JSON.parse(readFileSync(packFile, "utf8")) as EvidencePack;
  wholePack = JSON.parse((await exportPack({})).toString("utf8")) as EvidencePack;
}, 30_000);

async function exportPack(params: Record<string, unknown>): Promise<Buffer> {
  const exported = await device.call("evidence/export", { session_id: S, idempotency_key: key(), ...params });
  const parts: Buffer[] = [];
  for (let offset = 0, eof = false; !eof; ) {
    const part = await device.call("artifact/read", { session_id: S, artifact_id: exported.artifact.artifact_id, offset });
    const bytes = Buffer.from(part.data, "base64");
    parts.push(bytes);
    offset += bytes.byteLength;
    eof = part.eof;
  }
  return Buffer.concat(parts);
}

afterAll(async () => {
  device?.close();
  agent?.close();
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

/** A copy of the pack changed by `edit`, written to a file; `redigest` recomputes the digest as a forger would. */
function tampered(name: string, edit: (p: EvidencePack) => void, redigest = false, from: EvidencePack = pack): string {
  const copy = JSON.parse(JSON.stringify(from)) as EvidencePack;
  edit(copy);
  if (redigest) {
    const { digest: _old, ...body } = copy;
    copy.digest = sha256(canonicalJson(body as unknown as JsonValue));
  }
  const file = join(work, `${name}.json`);
  writeFileSync(file, JSON.stringify(copy));
  return file;
}

async function refusal(file: string): Promise<string> {
  const io = capture();
  expect(await runCli(["evidence", "verify", file], io)).toBe(1);
  expect(io.lines).toEqual([]);
  return io.errors.join("\n");
}

describe("lineup evidence verify", () => {
  it("verifies a task's pack and reports the session, the scope and who made each task, tool result and artifact", async () => {
    const io = capture();
    expect(await runCli(["evidence", "verify", packFile], io)).toBe(0);
    expect(io.errors).toEqual([]);
    const digest = WHITEBOARD.bundle_digest;
    expect(io.lines[0]).toMatch(new RegExp(`^verified x-\\S+: 10 events of session ${S} \\(app chat, agent demo-agent\\), through seq 10$`));
    expect(io.lines.slice(2)).toEqual([
      "  scope: task task-tidy, turns t-1, t-2",
      "tasks (2):",
      `  task-tidy at seq 3: whiteboard 1.1.0 ${digest}`,
      `  task-tidy at seq 9: whiteboard 1.1.0 ${digest}`,
      "tool results (1):",
      `  call-tidy at seq 5: whiteboard 1.1.0 ${digest}`,
      "artifacts (1, 1 with data):",
      `  a-layout layout.csv (text/csv, 10 bytes, sha256 ${sha256("x,y\n24,24\n")}): whiteboard 1.1.0 ${digest}`,
    ]);
  });

  it("--json prints the summary, the scope and the provenance list", async () => {
    const io = capture();
    expect(await runCli(["evidence", "verify", packFile, "--json"], io)).toBe(0);
    const report = JSON.parse(io.lines.join("\n")) as Record<string, unknown>;
    expect(report).toMatchObject({ ok: true, session_id: S, through_seq: pack.through_seq, events: pack.through_seq, scope: { task_id: "task-tidy", turn_ids: ["t-1", "t-2"] } });
    expect(report["provenance"]).toEqual(pack.provenance);
    expect((report["provenance"] as unknown[]).map((p) => (p as { kind: string }).kind)).toEqual(["task", "tool_result", "artifact", "task"]);
  });

  it("refuses changed provenance with its pointer, even with a recomputed digest", async () => {
    const edit = (p: EvidencePack) => {
      p.provenance[1]!.provenance.app_version = "6.6.6";
    };
    expect(await refusal(tampered("provenance", edit))).toMatch(/^refused: evidence_invalid at \/provenance\/1: /);
    expect(await refusal(tampered("provenance-redigested", edit, true))).toMatch(/^refused: evidence_invalid at \/provenance\/1: /);
    const dropped = tampered("provenance-dropped", (p) => p.provenance.splice(2, 1), true);
    expect(await refusal(dropped)).toMatch(/^refused: evidence_invalid at \/provenance\/2: /);
  });

  it("refuses a changed event with its pointer", async () => {
    const index = pack.events.findIndex((e) => e.event.kind === "artifact.added");
    const file = tampered("event", (p) => {
      (p.events[index]!.event.data as { provenance: { app_version: string } }).provenance.app_version = "6.6.6";
    });
    expect(await refusal(file)).toMatch(new RegExp(`^refused: evidence_invalid at /events/${index}/sha256: `));
  });

  it("refuses a scope that drops a turn of the task, or a task scope on events that run past the task", async () => {
    expect(await refusal(tampered("scope", (p) => p.scope!.turn_ids.pop(), true))).toMatch(/^refused: evidence_invalid at \/scope\/turn_ids: /);
    expect(wholePack.through_seq).toBeGreaterThan(pack.through_seq);
    const widened = tampered("widened", (p) => (p.scope = { task_id: "task-tidy", turn_ids: ["t-1", "t-2"] }), true, wholePack);
    expect(await refusal(widened)).toMatch(/^refused: evidence_invalid at \/through_seq: /);
    const otherTask = tampered("other-task", (p) => (p.scope = { task_id: "task-other", turn_ids: ["t-1"] }), true, wholePack);
    expect(await refusal(otherTask)).toMatch(/^refused: evidence_invalid at \/scope\/task_id: /);
  });

  it("--json prints a refusal as data; a missing file is exit 1 and a usage error exit 2", async () => {
    const io = capture();
    expect(await runCli(["evidence", "verify", tampered("json-refusal", (p) => p.scope!.turn_ids.pop(), true), "--json"], io)).toBe(1);
    expect(JSON.parse(io.lines.join("\n"))).toMatchObject({ ok: false, error: { code: "evidence_invalid", path: "/scope/turn_ids" } });
    const missing = capture();
    expect(await runCli(["evidence", "verify", join(work, "nope.json")], missing)).toBe(1);
    expect(missing.errors[0]).toMatch(/^cannot read /);
    const usage = capture();
    expect(await runCli(["evidence", "check", packFile], usage)).toBe(2);
    expect(usage.errors).toEqual(['lineup evidence: unknown subcommand "check"', "usage: lineup evidence verify PACK [--json]"]);
  });
});
