/**
 * The catalogue end to end on a real server: sessions, turns (enqueue, interrupt, cancel, complete
 * with an output schema), actions, inventory, tool calls as envelopes, artifacts, evidence packs.
 * Every event a subscribed agent receives is checked against the protocol's event schemas.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { validateSessionEvent, verifyEvidencePack, type SessionEvent } from "@lineup/protocol";
import { agentEnvelope, connectDevAndAgent, key, START, TestClient, type Frame, type TestServer } from "./helpers.js";

const sha256 = (b: string | Uint8Array) => createHash("sha256").update(b).digest("hex");

let server: TestServer;
let device: TestClient;
let agent: TestClient;
connectDevAndAgent((world) => ({ server, device, agent } = world), { limits: { max_chunk_bytes: 1024 } });

const kinds = async (sessionId: string) => ((await device.call("agentSession/events/read", { session_id: sessionId, after_seq: 0 })).events as SessionEvent[]).map((e) => e.kind);

describe("dev credentials", () => {
  it("are written to the data dir on first start and name a device and the demo agent", () => {
    const file = JSON.parse(readFileSync(join(server.dataDir, "dev-credentials.json"), "utf8")) as Record<string, string>;
    expect(file).toEqual({ device_token: server.devCredentials!.device_token, agent_token: server.devCredentials!.agent_token });
  });
});

describe("sessions", () => {
  it("start, resume, read, list with cursor", async () => {
    const started = await device.call("agentSession/start", START("s-flow-1", { title: "Trip", business_object_ref: { type: "trip", id: "42" } }));
    expect(started).toMatchObject({ created: true, session: { session_id: "s-flow-1", owner_user_id: "dev-user", agent_id: "demo-agent", last_seq: 1, title: "Trip" } });
    const resumed = await device.call("agentSession/start", START("s-flow-1", { title: "Trip" }));
    expect(resumed.created).toBe(false);
    expect(await device.refusal("agentSession/start", START("s-flow-1", { app_scope: "whiteboard" }))).toBe("invalid_state");
    expect(await device.refusal("agentSession/start", START("s-flow-x", { agent_id: "nobody" }))).toBe("not_found");
    const generated = await device.call("agentSession/start", { idempotency_key: key(), app_scope: "chat", workspace_id: "w-2", agent_id: "demo-agent" });
    expect(generated.session.session_id).toMatch(/^s-/);
    expect(await device.refusal("agentSession/read", { session_id: "s-flow-1", workspace_id: "w-2" })).toBe("session_not_found");
    expect((await agent.call("agentSession/read", { session_id: "s-flow-1", workspace_id: "w-1" })).session.title).toBe("Trip");
    const page1 = await device.call("agentSession/list", { limit: 1 });
    expect(page1.sessions).toHaveLength(1);
    const page2 = await device.call("agentSession/list", { limit: 1, cursor: page1.next_cursor });
    expect(page2.sessions[0].session_id).not.toBe(page1.sessions[0].session_id);
    expect(await device.refusal("agentSession/list", { cursor: "bogus" })).toBe("invalid_params");
    const w2 = await device.call("agentSession/list", { workspace_id: "w-2" });
    expect(w2.sessions.map((s: Frame) => s.session_id)).toEqual([generated.session.session_id]);
  });
});

describe("when something was last said", () => {
  it("each listed session carries the time of its newest turn, action or message; tool traffic, an inventory and a turn's progress leave it", async () => {
    const activeAt = async (sessionId: string) => ((await device.call("agentSession/list", {})).sessions as Frame[]).find((s) => s.session_id === sessionId)!.active_at as string | undefined;
    // Each step a few milliseconds after the one before, so that each has a time of its own.
    const tick = () => new Promise((resolve) => setTimeout(resolve, 3));
    const timeOf = async (sessionId: string, seq: number) => ((await device.call("agentSession/events/read", { session_id: sessionId, after_seq: seq - 1 })).events as SessionEvent[])[0]!.created_at;
    await device.call("agentSession/start", START("s-said"));
    expect(await activeAt("s-said")).toBeUndefined();
    const turn = await device.call("agentSession/turn/start", { session_id: "s-said", idempotency_key: key(), turn_id: "t-said", input: { text: "hello" } });
    const asked = await timeOf("s-said", turn.seq);
    expect(await activeAt("s-said")).toBe(asked);
    // A turn's progress, an inventory and a tool's envelope are not something said.
    await tick();
    await agent.call("agentSession/turn/update", { session_id: "s-said", turn_id: "t-said", idempotency_key: key(), text_delta: "Hel" });
    await device.call("inventory/publish", { session_id: "s-said", idempotency_key: key(), revision: 1, tools: [] });
    const status = { ...agentEnvelope("s-said", "env-status"), type: "lineup.status", payload: { state: "working" } };
    await agent.call("agentSession/envelope/send", { session_id: "s-said", idempotency_key: key(), envelope: status });
    expect(await activeAt("s-said")).toBe(asked);
    // The agent's message and its answer are; read alone too (agentSession/read) and by the agent.
    await tick();
    const message = await agent.call("agentSession/envelope/send", { session_id: "s-said", idempotency_key: key(), envelope: agentEnvelope("s-said", "env-said") });
    const said = await timeOf("s-said", message.seq);
    expect(said > asked).toBe(true);
    expect(await activeAt("s-said")).toBe(said);
    await tick();
    const done = await agent.call("agentSession/turn/complete", { session_id: "s-said", turn_id: "t-said", idempotency_key: key(), outcome: "completed", text: "Hello" });
    const answered = (await device.call("agentSession/events/read", { session_id: "s-said", after_seq: 0 })).events.find((e: SessionEvent) => e.kind === "turn.completed").created_at;
    expect(done).toBeDefined();
    expect(answered > said).toBe(true);
    expect(await activeAt("s-said")).toBe(answered);
    expect((await device.call("agentSession/read", { session_id: "s-said" })).session.active_at).toBe(answered);
    expect((await agent.call("agentSession/read", { session_id: "s-said" })).session.active_at).toBe(answered);
  });
});

describe("subscriptions in one batch", () => {
  it("are answered in one frame, before any event, caughtUp or presence of any of them; then each catches up in order", async () => {
    const ids = ["s-batch-1", "s-batch-2", "s-batch-3"];
    for (const id of ids) {
      await device.call("agentSession/start", START(id));
      await agent.call("agentSession/envelope/send", { session_id: id, idempotency_key: key(), envelope: agentEnvelope(id, `env-agent-${id}`) });
    }
    const reader = await TestClient.open(server, server.devCredentials!.device_token);
    try {
      const requests = ids.map((id, i) => ({ jsonrpc: "2.0", id: 100 + i, method: "agentSession/subscribe", params: { session_id: id, after_seq: 0 } }));
      const since = reader.frames.length;
      reader.sendRaw(JSON.stringify(requests));
      // The catch-ups run side by side (on PostgreSQL each reads its log on its own): every one is waited for.
      for (const id of ids) await reader.waitFor((f) => f.method === "agentSession/caughtUp" && f.params.session_id === id);
      const frames = reader.frames.slice(since);
      // The first frame is the reply: one array, each request answered.
      expect(Array.isArray(frames[0])).toBe(true);
      expect((frames[0] as Frame[]).map((answer) => [answer.id, answer.result.session_id, answer.result.head_seq])).toEqual(ids.map((id, i) => [100 + i, id, 2]));
      // Nothing of the subscriptions came before it, and each session's events came in order, then its caughtUp.
      expect(frames.slice(1).every((f) => !Array.isArray(f))).toBe(true);
      for (const id of ids) {
        const own = frames.slice(1).filter((f) => f.params?.session_id === id && f.method !== "agentSession/presence");
        expect(own.map((f) => (f.method === "agentSession/event" ? f.params.seq : f.method))).toEqual([1, 2, "agentSession/caughtUp"]);
      }
    } finally {
      await reader.close();
    }
  });
});

describe("turns", () => {
  it("enqueue runs one at a time; completing activates the next; interrupt cancels the open turns", async () => {
    await device.call("agentSession/start", START("s-turns"));
    await agent.call("agentSession/subscribe", { session_id: "s-turns", after_seq: 0 });
    const a = await device.call("agentSession/turn/start", { session_id: "s-turns", idempotency_key: key(), turn_id: "t-a", input: { text: "first" } });
    const b = await device.call("agentSession/turn/start", { session_id: "s-turns", idempotency_key: key(), turn_id: "t-b", input: { content: { n: 2 } } });
    expect([a.turn.state, b.turn.state]).toEqual(["running", "queued"]);
    expect(await agent.refusal("agentSession/turn/update", { session_id: "s-turns", turn_id: "t-b", idempotency_key: key(), text_delta: "no" })).toBe("invalid_state");
    await agent.call("agentSession/turn/update", { session_id: "s-turns", turn_id: "t-a", idempotency_key: key(), status: "working", text_delta: "Hel", progress: 0.5 });
    await agent.call("agentSession/turn/complete", { session_id: "s-turns", turn_id: "t-a", idempotency_key: key(), outcome: "completed", text: "Hello" });
    const read = await device.call("agentSession/read", { session_id: "s-turns" });
    expect(read.open_turns.map((t: Frame) => [t.turn_id, t.state])).toEqual([["t-b", "running"]]);
    await device.call("agentSession/turn/start", { session_id: "s-turns", idempotency_key: key(), turn_id: "t-c", input: { text: "queued" } });
    const d = await device.call("agentSession/turn/start", { session_id: "s-turns", idempotency_key: key(), turn_id: "t-d", input: { text: "now" }, queue: "interrupt" });
    expect(d.turn.state).toBe("running");
    expect(await device.refusal("agentSession/turn/cancel", { session_id: "s-turns", turn_id: "t-b", idempotency_key: key() })).toBe("invalid_state");
    await device.call("agentSession/turn/cancel", { session_id: "s-turns", turn_id: "t-d", idempotency_key: key(), reason: "stop" });
    expect(await kinds("s-turns")).toEqual([
      "session.started",
      "turn.started",
      "turn.started",
      "turn.updated",
      "turn.completed",
      "turn.activated",
      "turn.started",
      "turn.cancelled",
      "turn.cancelled",
      "turn.started",
      "turn.cancelled",
    ]);
    const events = await agent.waitFor((f) => f.method === "agentSession/event" && f.params.session_id === "s-turns" && f.params.seq === 11).then(() => agent.events("s-turns"));
    for (const e of events) expect(validateSessionEvent(e), `${e.kind}`).toMatchObject({ ok: true });
    expect(events.find((e: Frame) => e.kind === "turn.activated").actor.role).toBe("server");
    expect(events.filter((e: Frame) => e.kind === "turn.cancelled").map((e: Frame) => e.data.reason)).toEqual(["interrupted", "interrupted", "cancelled"]);
  });

  it("checks output against output_schema, and refuses a schema that is not one", async () => {
    await device.call("agentSession/start", START("s-schema"));
    const schema = { type: "object", required: ["summary"], properties: { summary: { type: "string" } }, additionalProperties: false };
    await device.call("agentSession/turn/start", { session_id: "s-schema", idempotency_key: key(), turn_id: "t-1", input: { text: "x" }, output_schema: schema });
    const bad = await agent.request("agentSession/turn/complete", { session_id: "s-schema", turn_id: "t-1", idempotency_key: key(), outcome: "completed", output: { summary: 3 } });
    expect(bad.error.data).toMatchObject({ code: "invalid_params", path: "/output/summary" });
    const done = await agent.call("agentSession/turn/complete", { session_id: "s-schema", turn_id: "t-1", idempotency_key: key(), outcome: "completed", output: { summary: "ok" } });
    expect(done.turn).toMatchObject({ state: "completed", output: { summary: "ok" } });
    const refused = await device.request("agentSession/turn/start", { session_id: "s-schema", idempotency_key: key(), input: { text: "x" }, output_schema: { type: "nonsense" } });
    expect(refused.error.data.code).toBe("manifest_invalid_tool_schema");
    expect(refused.error.data.path).toMatch(/^\/output_schema/);
  });
});

describe("actions", () => {
  it("the agent asks, the device answers once, with the answer checked against the action", async () => {
    await device.call("agentSession/start", START("s-act"));
    await device.call("agentSession/turn/start", { session_id: "s-act", idempotency_key: key(), turn_id: "t-1", input: { text: "plan" } });
    const { action } = await agent.call("agentSession/action/request", {
      session_id: "s-act",
      idempotency_key: key(),
      action_id: "pick",
      turn_id: "t-1",
      kind: "choice",
      prompt: "Which?",
      options: [
        { id: "a", label: "A" },
        { id: "b", label: "B" },
      ],
    });
    expect(action.state).toBe("pending");
    expect((await device.call("agentSession/read", { session_id: "s-act" })).pending_actions.map((a: Frame) => a.action_id)).toEqual(["pick"]);
    expect(await device.refusal("agentSession/action/respond", { session_id: "s-act", action_id: "pick", idempotency_key: key(), response: { outcome: "approved" } })).toBe("invalid_params");
    expect(await device.refusal("agentSession/action/respond", { session_id: "s-act", action_id: "pick", idempotency_key: key(), response: { outcome: "answered", choice_ids: ["z"] } })).toBe("invalid_params");
    const answered = await device.call("agentSession/action/respond", { session_id: "s-act", action_id: "pick", idempotency_key: key(), response: { outcome: "answered", choice_ids: ["b"] } });
    expect(answered.action).toMatchObject({ state: "responded", response: { outcome: "answered", choice_ids: ["b"] } });
    expect(await device.refusal("agentSession/action/respond", { session_id: "s-act", action_id: "pick", idempotency_key: key(), response: { outcome: "cancelled" } })).toBe("invalid_state");
    expect(await device.refusal("agentSession/action/respond", { session_id: "s-act", action_id: "nope", idempotency_key: key(), response: { outcome: "cancelled" } })).toBe("not_found");
    await agent.call("agentSession/action/request", {
      session_id: "s-act",
      idempotency_key: key(),
      action_id: "amount",
      kind: "input",
      prompt: "How much?",
      input_schema: { type: "object", required: ["amount"], properties: { amount: { type: "number" } } },
    });
    expect(await device.refusal("agentSession/action/respond", { session_id: "s-act", action_id: "amount", idempotency_key: key(), response: { outcome: "answered", data: { amount: "ten" } } })).toBe("invalid_params");
    await device.call("agentSession/action/respond", { session_id: "s-act", action_id: "amount", idempotency_key: key(), response: { outcome: "answered", data: { amount: 10 } } });
    expect(await kinds("s-act")).toEqual(["session.started", "turn.started", "action.required", "action.responded", "action.required", "action.responded"]);
  });
});

describe("inventory and tool calls", () => {
  const tool = { app_scope: "whiteboard", method: "board.create", contract_version: "1", title: "Create", description: "A board", input_schema: { type: "object" }, call_model: "command" };

  it("revisions only increase; the agent reads the latest and sees each publication in the log", async () => {
    await device.call("agentSession/start", START("s-inv"));
    expect((await agent.call("inventory/read", { session_id: "s-inv" })).inventory).toBeNull();
    await agent.call("agentSession/subscribe", { session_id: "s-inv", after_seq: 1 });
    // A tools-only publication (as devices sent before inventories carried apps) is kept and read as it came.
    await device.call("inventory/publish", { session_id: "s-inv", idempotency_key: key(), revision: 1, tools: [tool] });
    expect((await agent.call("inventory/read", { session_id: "s-inv" })).inventory).not.toHaveProperty("apps");
    expect(await device.refusal("inventory/publish", { session_id: "s-inv", idempotency_key: key(), revision: 1, tools: [] })).toBe("stale_inventory_revision");
    const app = { app_scope: "whiteboard", version: "1.0.0", kind: "installed", name: "Whiteboard", localized: { "zh-CN": { name: "白板" } }, entrypoints: [{ id: "canvas", kind: "primary", display_modes: ["foreground"] }] };
    const contents = { apps: [app], components: ["text", "markdown"], surfaces: ["foreground"], capabilities: ["notification.show"] };
    expect(await device.refusal("inventory/publish", { session_id: "s-inv", idempotency_key: key(), revision: 2, tools: [], apps: [app, app] })).toBe("invalid_params");
    expect(await device.refusal("inventory/publish", { session_id: "s-inv", idempotency_key: key(), revision: 2, tools: [], components: ["hologram"] })).toBe("invalid_params");
    await device.call("inventory/publish", { session_id: "s-inv", idempotency_key: key(), revision: 3, tools: [tool, { ...tool, method: "board.clear", title: "Clear" }], ...contents });
    const latest = await agent.call("inventory/read", { session_id: "s-inv" });
    expect(latest.inventory).toMatchObject({ revision: 3, seq: 3, ...contents });
    expect(latest.inventory.tools.map((t: Frame) => t.method)).toEqual(["board.create", "board.clear"]);
    await agent.waitFor((f) => f.method === "agentSession/event" && f.params.session_id === "s-inv" && f.params.seq === 3);
    expect(agent.events("s-inv").map((e: Frame) => [e.kind, e.data.revision])).toEqual([
      ["inventory.published", 1],
      ["inventory.published", 3],
    ]);
    expect(agent.events("s-inv").at(-1).data).toMatchObject(contents);
    const caps = await agent.call("capability/list", { session_id: "s-inv" });
    expect(caps.session).toMatchObject({ inventory_revision: 3 });
    expect(caps.methods).toContain("agentSession/turn/complete");
    expect(caps.methods).not.toContain("inventory/publish");
  });

  it("a tool call and its result travel as envelopes in the log; the server does not judge the call", async () => {
    const invoke = {
      v: 1,
      id: "env-call",
      type: "lineup.tool.invoke",
      timestamp: "2026-08-06T10:00:00.000Z",
      sender: { kind: "agent", id: "demo-agent" },
      target: { kind: "app", app_scope: "whiteboard" },
      scope: { app_scope: "whiteboard", conversation_id: "s-inv" },
      correlation: { call_id: "call-1", inventory_revision: "1" },
      payload: { method: "board.delete_everything", arguments: {} },
    };
    const sent = await agent.call("agentSession/envelope/send", { session_id: "s-inv", idempotency_key: key(), envelope: invoke });
    const result = {
      ...invoke,
      id: "env-result",
      type: "lineup.tool.error",
      sender: { kind: "runtime", id: "dev-device" },
      target: { kind: "runtime", app_scope: "runtime" },
      correlation: { call_id: "call-1", reply_to: "env-call" },
      payload: { code: "tool_not_visible", message: "not in the inventory" },
    };
    const back = await device.call("agentSession/envelope/send", { session_id: "s-inv", idempotency_key: key(), envelope: result });
    expect(back.seq).toBe(sent.seq + 1);
    await agent.waitFor((f) => f.method === "agentSession/event" && f.params.seq === back.seq && f.params.session_id === "s-inv");
    const received = agent.events("s-inv").filter((e: Frame) => e.kind === "envelope");
    expect(received.map((e: Frame) => e.data.envelope.type)).toEqual(["lineup.tool.invoke", "lineup.tool.error"]);
  });
});

describe("artifacts and evidence", () => {
  it("chunked upload, SHA-256 check, ranged read, and a verifiable evidence pack", async () => {
    await device.call("agentSession/start", START("s-art"));
    const content = Buffer.from(Array.from({ length: 2500 }, (_, i) => i % 251));
    const meta = { session_id: "s-art", artifact_id: "a-1", name: "data.bin", mime_type: "application/octet-stream", size: content.length, sha256: sha256(content) };
    const put = (offset: number, end: number, k = key()) => device.request("artifact/put", { ...meta, idempotency_key: k, offset, data: content.subarray(offset, end).toString("base64") });
    expect((await put(0, 1024)).result).toEqual({ artifact_id: "a-1", received: 1024, complete: false });
    expect((await put(2048, 2500)).error.data).toMatchObject({ code: "invalid_state", path: "/offset" });
    expect((await put(1024, 2048)).result.received).toBe(2048);
    expect(await device.refusal("artifact/read", { session_id: "s-art", artifact_id: "a-1" })).toBe("not_found");
    const last = await put(2048, 2500);
    expect(last.result).toMatchObject({ complete: true, artifact: { artifact_id: "a-1", size: 2500, sha256: meta.sha256 } });
    const chunks: Buffer[] = [];
    for (let offset = 0, eof = false; !eof; ) {
      const part = await agent.call("artifact/read", { session_id: "s-art", artifact_id: "a-1", offset, length: 1000 });
      chunks.push(Buffer.from(part.data, "base64"));
      offset += 1000;
      eof = part.eof;
    }
    expect(Buffer.concat(chunks).equals(content)).toBe(true);
    // A wrong hash is refused and the artifact stays incomplete.
    const other = Buffer.from("hello");
    const wrong = await device.request("artifact/put", { ...meta, artifact_id: "a-2", size: 5, sha256: sha256("other"), idempotency_key: key(), offset: 0, data: other.toString("base64") });
    expect(wrong.error.data).toMatchObject({ code: "invalid_params", path: "/sha256" });
    // Zero bytes.
    const empty = await device.call("artifact/put", { ...meta, artifact_id: "a-0", size: 0, sha256: sha256(""), idempotency_key: key(), offset: 0, data: "" });
    expect(empty.complete).toBe(true);
    // Attach it to a turn.
    await device.call("agentSession/turn/start", { session_id: "s-art", idempotency_key: key(), input: { text: "see file", attachments: [last.result.artifact] } });
    expect(await device.refusal("agentSession/turn/start", { session_id: "s-art", idempotency_key: key(), input: { attachments: [{ ...last.result.artifact, artifact_id: "a-2" }] } })).toBe("not_found");

    const exported = await agent.call("evidence/export", { session_id: "s-art", idempotency_key: key() });
    expect(exported.through_seq).toBe(4);
    const pack = await agent.call("artifact/read", { session_id: "s-art", artifact_id: exported.artifact.artifact_id, length: 1024 });
    const bytes: Buffer[] = [Buffer.from(pack.data, "base64")];
    for (let offset = 1024, eof = pack.eof; !eof; offset += 1024) {
      const part = await agent.call("artifact/read", { session_id: "s-art", artifact_id: exported.artifact.artifact_id, offset, length: 1024 });
      bytes.push(Buffer.from(part.data, "base64"));
      eof = part.eof;
    }
    const packBytes = Buffer.concat(bytes);
    expect(sha256(packBytes)).toBe(exported.artifact.sha256);
    const verified = verifyEvidencePack(JSON.parse(packBytes.toString("utf8")), sha256);
    expect(verified).toEqual({ ok: true, value: { session_id: "s-art", through_seq: 4, events: 4, artifacts: 2, artifacts_with_data: 2 } });
    expect(await kinds("s-art")).toEqual(["session.started", "artifact.added", "artifact.added", "turn.started", "evidence.exported"]);
    expect(await agent.refusal("evidence/export", { session_id: "s-art", idempotency_key: key(), through_seq: 99 })).toBe("cursor_invalid");
  });
});
