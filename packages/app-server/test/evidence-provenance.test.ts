/**
 * Evidence packs on a real server: the package provenance of tasks, tool results and artifacts an app
 * produced, and packs scoped to one agent task (its turns, ending at its last event).
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { verifyEvidencePack, type EvidencePack } from "@lineup/protocol";
import { connectDevAndAgent, key, START, type Frame, type TestClient } from "./helpers.js";

const sha256 = (b: string | Uint8Array) => createHash("sha256").update(b).digest("hex");

let device: TestClient;
let agent: TestClient;
connectDevAndAgent((world) => ({ device, agent } = world));

const WHITEBOARD = { app_scope: "whiteboard", app_version: "1.1.0", bundle_digest: `sha256:${"ab".repeat(32)}` };
const DASHBOARD = { app_scope: "task-dashboard", app_version: "0.3.0" };

const tool = (appScope: string, method: string, provenance?: object) => ({
  app_scope: appScope,
  method,
  contract_version: "1",
  title: method,
  description: "",
  input_schema: { type: "object" },
  call_model: "command",
  ...(provenance === undefined ? {} : { provenance }),
});

const taskOptions = (taskId: string, attempt: number, provenance: object = WHITEBOARD) => ({
  lineup_task: { task_id: taskId, attempt, entry: "tidy_board", provenance, requested_tools: [{ app_scope: "whiteboard", method: "board.tidy" }], knowledge: [], trace_id: `trace-${taskId}` },
});

function envelope(sessionId: string, id: string, type: string, fields: Record<string, unknown>): Record<string, unknown> {
  return { v: 1, id, type, timestamp: "2026-08-06T10:00:00.000Z", target: { kind: "runtime", app_scope: "runtime" }, scope: { app_scope: "whiteboard", conversation_id: sessionId }, ...fields };
}
const invoke = (sessionId: string, callId: string, method: string, appScope = "whiteboard") =>
  envelope(sessionId, `env-${callId}`, "lineup.tool.invoke", {
    sender: { kind: "agent", id: "demo-agent" },
    target: { kind: "app", app_scope: appScope },
    scope: { app_scope: appScope, conversation_id: sessionId },
    correlation: { call_id: callId, inventory_revision: "1" },
    payload: { method, arguments: {} },
  });
const result = (sessionId: string, callId: string, appScope = "whiteboard") =>
  envelope(sessionId, `env-${callId}-result`, "lineup.tool.result", {
    sender: { kind: "runtime", id: "dev-device" },
    scope: { app_scope: appScope, conversation_id: sessionId },
    correlation: { call_id: callId, reply_to: `env-${callId}` },
    payload: { result: { ok: true } },
  });
const decision = (sessionId: string, taskId: string, turnId: string) =>
  envelope(sessionId, `env-decision-${turnId}`, "lineup.task.decision", { sender: { kind: "app", id: "whiteboard" }, payload: { task_id: taskId, turn_id: turnId, decision: "rejected", reason: "too tight" } });

const send = (client: TestClient, sessionId: string, env: Record<string, unknown>) => client.call("agentSession/envelope/send", { session_id: sessionId, idempotency_key: key(), envelope: env });
const startTurn = (sessionId: string, turnId: string, options?: object) =>
  device.call("agentSession/turn/start", { session_id: sessionId, idempotency_key: key(), turn_id: turnId, input: { text: turnId }, ...(options === undefined ? {} : { options }) });
const complete = (sessionId: string, turnId: string) => agent.call("agentSession/turn/complete", { session_id: sessionId, turn_id: turnId, idempotency_key: key(), outcome: "completed", output: { done: turnId } });

async function readPack(sessionId: string, exported: Frame): Promise<EvidencePack> {
  const parts: Buffer[] = [];
  for (let offset = 0, eof = false; !eof; ) {
    const part = await device.call("artifact/read", { session_id: sessionId, artifact_id: exported.artifact.artifact_id, offset });
    const bytes = Buffer.from(part.data, "base64");
    parts.push(bytes);
    offset += bytes.byteLength;
    eof = part.eof;
  }
  const bytes = Buffer.concat(parts);
  expect(sha256(bytes)).toBe(exported.artifact.sha256);
  return JSON.parse(bytes.toString("utf8")) as EvidencePack;
}

const artifactPut = (client: TestClient, sessionId: string, artifactId: string, text: string, provenance?: object) =>
  client.request("artifact/put", {
    session_id: sessionId,
    idempotency_key: key(),
    artifact_id: artifactId,
    name: `${artifactId}.txt`,
    mime_type: "text/plain",
    size: Buffer.byteLength(text),
    sha256: sha256(text),
    offset: 0,
    data: Buffer.from(text).toString("base64"),
    ...(provenance === undefined ? {} : { provenance }),
  });

describe("provenance at the edges", () => {
  it("an inventory tool's provenance must be its own app's; only a device uploads with provenance; a task turn's options are checked", async () => {
    await device.call("agentSession/start", START("s-prov-edges"));
    const wrongApp = await device.request("inventory/publish", { session_id: "s-prov-edges", idempotency_key: key(), revision: 1, tools: [tool("whiteboard", "board.tidy", DASHBOARD)] });
    expect(wrongApp.error.data).toMatchObject({ code: "invalid_params", path: "/tools/0/provenance/app_scope" });
    const badDigest = await device.request("inventory/publish", { session_id: "s-prov-edges", idempotency_key: key(), revision: 1, tools: [tool("whiteboard", "board.tidy", { ...WHITEBOARD, bundle_digest: "md5:1" })] });
    expect(badDigest.error.data).toMatchObject({ code: "invalid_params" });
    expect((await artifactPut(agent, "s-prov-edges", "a-agent", "hi", WHITEBOARD)).error.data).toMatchObject({ code: "forbidden", path: "/provenance" });
    const badTask = await device.request("agentSession/turn/start", { session_id: "s-prov-edges", idempotency_key: key(), input: { text: "x" }, options: { lineup_task: { task_id: "task-x" } } });
    expect(badTask.error.data).toMatchObject({ code: "invalid_params" });
    expect(badTask.error.data.path).toMatch(/^\/options\/lineup_task/);
    // Other host options still pass through untouched.
    expect((await startTurn("s-prov-edges", "t-plain", { model: "small" })).turn.options).toEqual({ model: "small" });
  });

  it("an upload's provenance is fixed by its first chunk", async () => {
    await device.call("agentSession/start", START("s-prov-chunks"));
    const text = "0123456789";
    const meta = { session_id: "s-prov-chunks", artifact_id: "a-chunks", name: "a.txt", mime_type: "text/plain", size: 10, sha256: sha256(text) };
    const chunk = (offset: number, end: number, provenance?: object) =>
      device.request("artifact/put", { ...meta, idempotency_key: key(), offset, data: Buffer.from(text.slice(offset, end)).toString("base64"), ...(provenance === undefined ? {} : { provenance }) });
    expect((await chunk(0, 5, WHITEBOARD)).result).toMatchObject({ received: 5, complete: false });
    expect((await chunk(5, 10, { ...WHITEBOARD, app_version: "9.9.9" })).error.data).toMatchObject({ code: "invalid_state", path: "/provenance" });
    expect((await chunk(5, 10)).error.data).toMatchObject({ code: "invalid_state", path: "/provenance" });
    const done = await chunk(5, 10, WHITEBOARD);
    expect(done.result).toMatchObject({ complete: true });
    const events = (await device.call("agentSession/events/read", { session_id: "s-prov-chunks", after_seq: 0 })).events as Frame[];
    expect(events.at(-1)).toMatchObject({ kind: "artifact.added", data: { artifact: { artifact_id: "a-chunks" }, provenance: WHITEBOARD } });
  });
});

describe("evidence packs with provenance and task scope", () => {
  const S = "s-prov";
  const seqs: Record<string, number> = {};

  it("lists who made each task, tool result and artifact, and scopes a pack to one task's turns", async () => {
    await device.call("agentSession/start", START(S));
    seqs["inventory"] = (await device.call("inventory/publish", { session_id: S, idempotency_key: key(), revision: 1, tools: [tool("whiteboard", "board.tidy", WHITEBOARD), tool("notes", "notes.count")] })).seq;
    // Task 1, attempt 1: a tool call with provenance, one without, an artifact with provenance, then the app's rejection.
    seqs["t1"] = (await startTurn(S, "t-1", taskOptions("task-1", 1))).seq;
    await agent.call("agentSession/turn/update", { session_id: S, turn_id: "t-1", idempotency_key: key(), status: "working" });
    await send(agent, S, invoke(S, "call-1", "board.tidy"));
    seqs["call-1"] = (await send(device, S, result(S, "call-1"))).seq;
    await send(agent, S, invoke(S, "call-2", "notes.count", "notes"));
    await send(device, S, result(S, "call-2", "notes"));
    seqs["a-1"] = (await artifactPut(device, S, "a-1", "layout", WHITEBOARD)).result.seq;
    await artifactPut(device, S, "a-plain", "no provenance");
    await complete(S, "t-1");
    seqs["decision-1"] = (await send(device, S, decision(S, "task-1", "t-1"))).seq;
    // Task 2 runs between the attempts of task 1.
    seqs["t2"] = (await startTurn(S, "t-2", taskOptions("task-2", 1, DASHBOARD))).seq;
    await complete(S, "t-2");
    // Task 1, attempt 2, then an ordinary chat turn and another tool call outside any task.
    seqs["t3"] = (await startTurn(S, "t-3", taskOptions("task-1", 2))).seq;
    seqs["t3-done"] = (await complete(S, "t-3")).seq;
    await startTurn(S, "t-chat");
    await send(agent, S, invoke(S, "call-3", "board.tidy"));
    seqs["call-3"] = (await send(device, S, result(S, "call-3"))).seq;
    await complete(S, "t-chat");

    const whole = await device.call("evidence/export", { session_id: S, idempotency_key: key() });
    const wholePack = await readPack(S, whole);
    expect(verifyEvidencePack(wholePack, sha256)).toMatchObject({ ok: true, value: { through_seq: whole.through_seq } });
    expect(wholePack.scope).toBeUndefined();
    expect(wholePack.provenance).toEqual([
      { seq: seqs["t1"], kind: "task", subject: "task-1", provenance: WHITEBOARD },
      { seq: seqs["call-1"], kind: "tool_result", subject: "call-1", provenance: WHITEBOARD },
      { seq: seqs["a-1"], kind: "artifact", subject: "a-1", provenance: WHITEBOARD },
      { seq: seqs["t2"], kind: "task", subject: "task-2", provenance: DASHBOARD },
      { seq: seqs["t3"], kind: "task", subject: "task-1", provenance: WHITEBOARD },
      { seq: seqs["call-3"], kind: "tool_result", subject: "call-3", provenance: WHITEBOARD },
    ]);

    const task1 = await device.call("evidence/export", { session_id: S, idempotency_key: key(), task_id: "task-1" });
    expect(task1.through_seq).toBe(seqs["t3-done"]);
    const task1Pack = await readPack(S, task1);
    expect(verifyEvidencePack(task1Pack, sha256)).toMatchObject({ ok: true, value: { through_seq: seqs["t3-done"], events: seqs["t3-done"] } });
    expect(task1Pack.scope).toEqual({ task_id: "task-1", turn_ids: ["t-1", "t-3"] });
    expect(task1Pack.provenance.map((p) => [p.kind, p.subject])).toEqual([
      ["task", "task-1"],
      ["tool_result", "call-1"],
      ["artifact", "a-1"],
      ["task", "task-2"],
      ["task", "task-1"],
    ]);
    expect(task1Pack.artifacts.map((a) => a.artifact.artifact_id)).toEqual(["a-1", "a-plain"]);

    // A task whose last event is the app's decision: the pack ends there.
    const task2 = await device.call("evidence/export", { session_id: S, idempotency_key: key(), task_id: "task-2" });
    const task2Pack = await readPack(S, task2);
    expect(task2Pack.scope).toEqual({ task_id: "task-2", turn_ids: ["t-2"] });
    expect(verifyEvidencePack(task2Pack, sha256).ok).toBe(true);

    const events = (await device.call("agentSession/events/read", { session_id: S, after_seq: task1.seq - 1 })).events as Frame[];
    expect(events[0]).toMatchObject({ kind: "evidence.exported", data: { task_id: "task-1", through_seq: seqs["t3-done"] } });
  });

  it("ends a task's pack at the app's decision, and at a tool result that came after the turn", async () => {
    const T = "s-prov-late";
    await device.call("agentSession/start", START(T));
    await device.call("inventory/publish", { session_id: T, idempotency_key: key(), revision: 1, tools: [tool("whiteboard", "board.tidy", WHITEBOARD)] });
    await startTurn(T, "t-late", taskOptions("task-late", 1));
    await send(agent, T, invoke(T, "call-late", "board.tidy"));
    await complete(T, "t-late");
    const decided = await send(device, T, decision(T, "task-late", "t-late"));
    expect((await device.call("evidence/export", { session_id: T, idempotency_key: key(), task_id: "task-late" })).through_seq).toBe(decided.seq);
    const late = await send(device, T, result(T, "call-late"));
    await startTurn(T, "t-other");
    const exported = await device.call("evidence/export", { session_id: T, idempotency_key: key(), task_id: "task-late" });
    expect(exported.through_seq).toBe(late.seq);
    const pack = await readPack(T, exported);
    expect(verifyEvidencePack(pack, sha256).ok).toBe(true);
    expect(pack.provenance.at(-1)).toEqual({ seq: late.seq, kind: "tool_result", subject: "call-late", provenance: WHITEBOARD });
  });

  it("refuses an unknown task and a task with through_seq", async () => {
    expect((await device.request("evidence/export", { session_id: S, idempotency_key: key(), task_id: "task-none" })).error.data).toMatchObject({ code: "not_found", path: "/task_id" });
    expect((await device.request("evidence/export", { session_id: S, idempotency_key: key(), task_id: "task-1", through_seq: 2 })).error.data).toMatchObject({
      code: "invalid_params",
      path: "/through_seq",
    });
  });
});
