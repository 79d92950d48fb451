/**
 * Spec section 12 (the acceptance checklist) as named tests, for the boxes no other test proves end to
 * end: each runs the real Runtime in memory against the FakeAppServer with signed bundles and asserts
 * what the agent, an app or the shell observes. docs/acceptance.md maps every box to its tests.
 */
import { describe, expect, it } from "vitest";
import type { AppManifest, JsonObject } from "@lineup/protocol";
import { createMemoryStore, RUNTIME_COLLECTIONS, RUNTIME_SCHEMA, type AgentAppMessage, type MemoryStoreData } from "../src/index.js";
import { whiteboardManifest } from "./apps-fixtures.js";
import { agentInvokes, device, onlineDevice, publishedInventories, serve, signedBundle, toolOutputs } from "./helpers/apps-harness.js";
import { createMemoryStoreData, FakeAppServer, settle, until } from "./helpers/runtime-harness.js";

let envelopeCounter = 0;
/** An agent envelope of `type` in session `sessionId` with the given scope (fields left out stay out). */
function agentEnvelope(server: FakeAppServer, sessionId: string, scope: Record<string, unknown> | undefined, extra: Record<string, unknown> = {}): void {
  const envelope: Record<string, unknown> = {
    v: 1,
    id: `spec12-${++envelopeCounter}`,
    type: "lineup.message",
    timestamp: "2026-11-30T06:00:00.000Z",
    sender: { kind: "agent", id: "agent-1" },
    target: { kind: "app", app_scope: "chat" },
    payload: { format: "text", text: `message ${envelopeCounter}` },
    ...extra,
  };
  if (scope !== undefined) envelope["scope"] = scope;
  server.agentEnvelope(sessionId, envelope as JsonObject);
}

const texts = (messages: readonly AgentAppMessage[]): string[] => messages.filter((m) => m.type === "lineup.message").map((m) => (m.payload as { text: string }).text);

/** The audit records in `data`, read back from the store after the device stopped. */
async function auditRecords(data: MemoryStoreData): Promise<{ type: string; code?: string; subject?: string; conversation_id?: string }[]> {
  const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
  const rows = await store.range(RUNTIME_COLLECTIONS.audit, {});
  await store.close();
  return rows.map((row) => row.value as { type: string; code?: string; subject?: string });
}

/** The whiteboard app that also takes the agent's plain messages addressed to it. */
const listeningWhiteboard = (): AppManifest => whiteboardManifest("1.0.0", { agent_subscriptions: [{ type: "lineup.message", scope: "app" }] } as Partial<AppManifest>);

/** A whiteboard whose `board.present` must be in front (an extension the agent brings up over chat). */
const presentingWhiteboard = (): AppManifest => {
  const m = whiteboardManifest();
  return {
    ...m,
    tools: [
      ...(m.tools ?? []),
      {
        method: "board.present",
        contract_version: "1",
        input_schema: { type: "object" },
        output_schema: { type: "object" },
        call_model: "command",
        activation_requirement: "foreground_required",
      },
    ],
  } as AppManifest;
};

describe("spec 12 消息与隔离 (messages and isolation)", () => {
  // A missing or malformed scope is refused earlier, by the session-event schema in the sync driver —
  // but there it is dropped without moving the cursor, which wedges the conversation (see
  // docs/acceptance.md, box 1): only the refusals the filter chain makes are tested end to end here.
  it("1 scope: a routable message whose conversation_id is another conversation's is refused, audited, and reaches no app", async () => {
    const data = createMemoryStoreData();
    const { server, d } = await onlineDevice({ data });

    agentEnvelope(server, "s-1", { app_scope: "chat", conversation_id: "s-2" }, { payload: { format: "text", text: "claims s-2" } });
    agentEnvelope(server, "s-1", { app_scope: "notes", conversation_id: "s-1" }, { target: { kind: "app", app_scope: "notes" }, payload: { format: "text", text: "for an app that is not installed" } });
    agentEnvelope(server, "s-1", { app_scope: "chat", conversation_id: "s-1" }, { payload: { format: "text", text: "valid" } });
    await until(() => texts(d.received).length === 1, 3_000, "the valid message");
    await settle();
    expect(texts(d.received)).toEqual(["valid"]);
    expect(texts((await d.runtime.appPort("chat").listMessages({})).messages)).toEqual(["valid"]);
    expect(await d.runtime.verifyAudit()).toMatchObject({ ok: true });
    await d.stop();

    const refusals = (await auditRecords(data)).filter((r) => r.type === "ingress.agent.refused").map((r) => r.code);
    expect(refusals).toEqual(["scope_mismatch", "app_not_installed"]);
    // The agent hears about the message for the app that is not installed (a notice in the conversation, shown in
    // chat too); not about the one claiming another conversation: that sender is not who this conversation trusts.
    const notices = server.applied.flatMap((w) => {
      const envelope = w.params["envelope"] as { type?: string; correlation?: { reply_to?: string }; payload?: { code?: string; level?: string } } | undefined;
      return w.method === "agentSession/envelope/send" && envelope?.type === "lineup.runtime.notice" ? [{ ...envelope.payload, reply_to: envelope.correlation?.reply_to }] : [];
    });
    expect(notices).toEqual([expect.objectContaining({ level: "warning", code: "app_not_installed", reply_to: expect.stringMatching(/^spec12-/) })]);
  });

  it("2 isolation: an app receives neither another app's nor another conversation's agent messages", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    server.createSession({ session_id: "s-2", agent_id: "agent-1" });
    const d = await device(server);
    await d.runtime.whenOnline();
    await d.runtime.appManager.install(await signedBundle(listeningWhiteboard()), { approved: true });
    const board: AgentAppMessage[] = [];
    d.runtime.appPort("whiteboard").subscribeMessages({ include_pending: true }, (m) => void board.push(m));
    const settingsSeen: AgentAppMessage[] = [];
    d.runtime.appPort("settings").subscribeMessages({ include_pending: true }, (m) => void settingsSeen.push(m));

    agentEnvelope(server, "s-1", { app_scope: "chat", conversation_id: "s-1" }, { payload: { format: "text", text: "for chat in s-1" } });
    agentEnvelope(server, "s-1", { app_scope: "whiteboard", conversation_id: "s-1" }, { target: { kind: "app", app_scope: "whiteboard" }, payload: { format: "text", text: "for the board in s-1" } });
    agentEnvelope(server, "s-2", { app_scope: "whiteboard", conversation_id: "s-2" }, { target: { kind: "app", app_scope: "whiteboard" }, payload: { format: "text", text: "for the board in s-2" } });
    // Addressed to the board but claiming the other conversation from inside s-1.
    agentEnvelope(server, "s-1", { app_scope: "whiteboard", conversation_id: "s-2" }, { target: { kind: "app", app_scope: "whiteboard" }, payload: { format: "text", text: "cross-conversation" } });
    await until(() => board.length >= 2 && texts(d.received).length >= 1, 3_000, "deliveries");
    await settle();

    expect(texts(d.received)).toEqual(["for chat in s-1"]);
    expect(board.map((m) => [m.conversation_id, (m.payload as { text: string }).text])).toEqual([
      ["s-1", "for the board in s-1"],
      ["s-2", "for the board in s-2"],
    ]);
    for (const m of board) expect(m.app_scope).toBe("whiteboard");
    expect(settingsSeen).toEqual([]);
    // History is as isolated as live delivery.
    const chatHistory = await d.runtime.appPort("chat").listMessages({});
    expect(texts(chatHistory.messages)).toEqual(["for chat in s-1"]);
    const boardHistory = await d.runtime.appPort("whiteboard").listMessages({ conversation_id: "s-1" });
    expect(texts(boardHistory.messages)).toEqual(["for the board in s-1"]);
    await d.stop();
  });
  // The agent re-sending an envelope id at a new seq wedges the conversation (docs/acceptance.md,
  // box 3), so this test does not send one.
  it("3 inbox: messages that arrive while the app is not running are recovered from the inbox after a restart, once each", async () => {
    const data = createMemoryStoreData();
    const { server, d: first } = await onlineDevice({ data, install: listeningWhiteboard() });
    // Nobody runs the whiteboard: no subscriber. Two messages for it.
    const toBoard = { target: { kind: "app", app_scope: "whiteboard" } };
    agentEnvelope(server, "s-1", { app_scope: "whiteboard", conversation_id: "s-1" }, { ...toBoard, id: "board-1", payload: { format: "text", text: "first" } });
    agentEnvelope(server, "s-1", { app_scope: "whiteboard", conversation_id: "s-1" }, { ...toBoard, id: "board-2", payload: { format: "text", text: "second" } });
    await until(() => first.runtime.conversations.list()[0]?.status === "live", 3_000, "live");
    await settle();
    await first.stop();

    const second = await device(server, data, "r1");
    await second.runtime.whenOnline();
    const board: AgentAppMessage[] = [];
    second.runtime.appPort("whiteboard").subscribeMessages({ include_pending: true }, (m) => void board.push(m));
    await until(() => board.length >= 2, 3_000, "recovered from the inbox");
    await settle();
    expect(texts(board)).toEqual(["first", "second"]);
    expect(new Set(board.map((m) => m.message_id)).size).toBe(2);
    await second.stop();

    // Delivered once is delivered: the next start redelivers nothing, the history still has both.
    const third = await device(server, data, "r2");
    await third.runtime.whenOnline();
    const again: AgentAppMessage[] = [];
    third.runtime.appPort("whiteboard").subscribeMessages({ include_pending: true }, (m) => void again.push(m));
    await settle();
    expect(again).toEqual([]);
    expect(texts((await third.runtime.appPort("whiteboard").listMessages({ conversation_id: "s-1" })).messages)).toEqual(["first", "second"]);
    await third.stop();
  });
});

describe("spec 12 应用管理 (app management)", () => {
  it("4 visibility: enable, disable and remove change what the agent may call and raise the inventory revision", async () => {
    const { server, d } = await onlineDevice({ install: whiteboardManifest() });
    serve(d.runtime, "whiteboard", () => ({ shapes: 0 }));
    await until(() => publishedInventories(server).length === 1, 3_000, "revision 1");

    await d.runtime.appManager.disable("whiteboard");
    await until(() => publishedInventories(server).length === 2, 3_000, "revision 2");
    await d.runtime.appManager.enable("whiteboard");
    await until(() => publishedInventories(server).length === 3, 3_000, "revision 3");
    agentInvokes(server, "after-enable", "whiteboard", "board.summary", {}, 3);
    await until(() => toolOutputs(server, "after-enable").some(([type]) => type === "lineup.tool.result"), 3_000, "a call at revision 3");
    agentInvokes(server, "at-disabled-revision", "whiteboard", "board.summary", {}, 2);
    await until(() => toolOutputs(server, "at-disabled-revision").length > 0, 3_000, "refusal");
    expect(toolOutputs(server, "at-disabled-revision")).toEqual([["lineup.tool.error", expect.objectContaining({ code: "stale_inventory_revision" })]]);

    expect((await d.runtime.appManager.remove("whiteboard", { confirmed: true })).status).toBe("succeeded");
    await until(() => publishedInventories(server).length === 4, 3_000, "revision 4");
    expect(publishedInventories(server)).toEqual([
      { revision: 1, methods: ["whiteboard/board.create", "whiteboard/board.summary"] },
      { revision: 2, methods: [] },
      { revision: 3, methods: ["whiteboard/board.create", "whiteboard/board.summary"] },
      { revision: 4, methods: [] },
    ]);
    agentInvokes(server, "after-remove", "whiteboard", "board.summary", {}, 4);
    await until(() => toolOutputs(server, "after-remove").length > 0, 3_000, "refusal after remove");
    expect(toolOutputs(server, "after-remove")).toEqual([["lineup.tool.error", expect.objectContaining({ code: "app_not_installed" })]]);
    await d.stop();
  });

  it("5 default fallback: a disabled or removed default app falls back to chat; a broken one is refused when it loads", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const data = createMemoryStoreData();
    const d = await device(server, data);
    await d.runtime.appManager.install(await signedBundle(whiteboardManifest()), { approved: true });
    expect((await d.runtime.appManager.setDefaultApp("whiteboard")).status).toBe("succeeded");
    expect(d.runtime.apps.defaultApp()).toBe("whiteboard");

    await d.runtime.appManager.disable("whiteboard");
    expect(d.runtime.apps.defaultApp()).toBe("chat");
    expect(d.runtime.appManager.defaultApp()).toBe("chat");
    await d.runtime.appManager.enable("whiteboard");
    expect((await d.runtime.appManager.setDefaultApp("whiteboard")).status).toBe("succeeded");
    await d.stop();

    // Broken on disk: its stored bundle is gone. The Runtime refuses to open it (the shell then shows
    // chat); removing it makes chat the default again.
    const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
    for (const row of await store.range(RUNTIME_COLLECTIONS.bundles, {})) await store.commit([{ op: "delete", collection: RUNTIME_COLLECTIONS.bundles, key: row.key }]);
    await store.close();
    const again = await device(server, data, "r1");
    const opened = again.runtime.appManager.launch({ app_scope: again.runtime.apps.defaultApp(), foreground: true }).then((i) => again.runtime.instances.entry(i.instance_id));
    await expect(opened).rejects.toMatchObject({ code: expect.stringMatching(/^(bundle_|store_)/) });
    await again.runtime.appManager.remove("whiteboard", { confirmed: true });
    expect(again.runtime.apps.defaultApp()).toBe("chat");
    expect(again.runtime.appManager.getApp("chat")?.is_default).toBe(true);
    await again.stop();
  });

  it("6 wind-down: disable and remove close instances, empty the focus stack, end calls and delete private data", async () => {
    const data = createMemoryStoreData();
    const { server, d } = await onlineDevice({ data, install: presentingWhiteboard() });
    const instance = await d.runtime.appManager.launch({ app_scope: "whiteboard", conversation_id: "s-1" });
    await d.runtime.instances.ready(instance.instance_id);
    expect(d.runtime.instances.snapshot()).toMatchObject({ foreground: instance.instance_id, focus_stack: [instance.instance_id] });
    // A call the app holds (no handler answers it) and private data.
    d.runtime.appPort("whiteboard").registerToolHandler({ call() {}, cancel() {} }, instance.instance_id);
    agentInvokes(server, "held", "whiteboard", "board.create", { title: "x" }, 1);
    await until(() => toolOutputs(server, "held").some(([, p]) => p["status"] === "accepted"), 3_000, "accepted");
    expect((await d.runtime.appPort("whiteboard").sessionData("s-1").replace({ data: { shapes: [1] }, expected_revision: 0 })).ok).toBe(true);

    await d.runtime.appManager.disable("whiteboard");
    await until(() => toolOutputs(server, "held").some(([type]) => type === "lineup.tool.error"), 3_000, "the held call ends");
    expect(toolOutputs(server, "held").at(-1)).toEqual(["lineup.tool.error", expect.objectContaining({ code: "app_disabled" })]);
    const view = d.runtime.instances.snapshot();
    expect(view.focus_stack).toEqual([]);
    expect(view.foreground).toBeUndefined();
    expect(view.instances.every((i) => i.status === "closing" || i.status === "closed")).toBe(true);
    // The app's port can no longer report for the ended call.
    await expect(d.runtime.appPort("whiteboard").reportTool("held", { kind: "result", result: { board_id: "late" } }, instance.instance_id)).rejects.toMatchObject({ code: "call_not_active" });
    expect(toolOutputs(server, "held").filter(([type]) => type === "lineup.tool.result")).toEqual([]);

    expect((await d.runtime.appManager.remove("whiteboard", { confirmed: true })).status).toBe("succeeded");
    expect(d.runtime.instances.snapshot().focus_stack).toEqual([]);
    await d.stop();
    const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
    expect(await store.count(RUNTIME_COLLECTIONS.sessionData)).toBe(0);
    expect(await store.count(RUNTIME_COLLECTIONS.bundles)).toBe(0);
    const live = (await store.range(RUNTIME_COLLECTIONS.instances, {})).map((r) => r.value as { status?: string; app_scope?: string }).filter((i) => i.app_scope === "whiteboard" && i.status !== "closed");
    expect(live).toEqual([]);
    await store.close();
  });

  it("7 focus: an extension the agent brings to the front backgrounds the foreground instance, and focus returns when it ends", async () => {
    const { server, d } = await onlineDevice({ install: presentingWhiteboard() });
    const chat = await d.runtime.appManager.launch({ app_scope: "chat" });
    await d.runtime.instances.ready(chat.instance_id);
    expect(d.runtime.instances.snapshot().foreground).toBe(chat.instance_id);

    agentInvokes(server, "present", "whiteboard", "board.present", {}, 1);
    await until(() => d.runtime.instances.snapshot().instances.some((i) => i.app_scope === "whiteboard"), 3_000, "the extension launches");
    const board = d.runtime.instances.snapshot().instances.find((i) => i.app_scope === "whiteboard")!;
    expect(d.runtime.instances.snapshot().instances.find((i) => i.instance_id === chat.instance_id)?.status).toBe("backgrounded");
    serve(d.runtime, "whiteboard", () => ({}), board.instance_id);
    await d.runtime.instances.ready(board.instance_id);
    await until(() => toolOutputs(server, "present").some(([type]) => type === "lineup.tool.result"), 3_000, "the call runs in front");
    expect(d.runtime.instances.snapshot()).toMatchObject({ foreground: board.instance_id, focus_stack: [chat.instance_id, board.instance_id] });

    await d.runtime.appManager.closeInstance(board.instance_id);
    await d.runtime.instances.closed(board.instance_id);
    const back = d.runtime.instances.snapshot();
    expect(back.focus_stack).toEqual([chat.instance_id]);
    expect(back.foreground).toBe(chat.instance_id);
    expect(back.instances.find((i) => i.instance_id === chat.instance_id)?.status).toBe("active");
    await d.stop();
  });
});

describe("spec 12 工具与能力 (tools and capabilities)", () => {
  it("8 inventory: the agent can call only tools in the current inventory, with arguments its schema accepts", async () => {
    const { server, d } = await onlineDevice({ install: whiteboardManifest() });
    const seen = serve(d.runtime, "whiteboard", () => ({ shapes: 0 }));
    await until(() => publishedInventories(server).length === 1, 3_000, "inventory");

    const cases: [string, string, string, JsonObject, number, string][] = [
      ["unknown-method", "whiteboard", "board.delete_everything", {}, 1, "tool_not_visible"],
      ["unknown-app", "notes", "note.add", {}, 1, "app_not_installed"],
      ["core-app", "settings", "settings.get", {}, 1, "tool_not_visible"],
      ["missing-arg", "whiteboard", "board.create", {}, 1, "invalid_arguments"],
      ["extra-arg", "whiteboard", "board.create", { title: "x", admin: true }, 1, "invalid_arguments"],
      ["future-revision", "whiteboard", "board.summary", {}, 2, "stale_inventory_revision"],
    ];
    for (const [id, app, method, args, revision] of cases) agentInvokes(server, id, app, method, args, revision);
    const terminal = (id: string) => toolOutputs(server, id).find(([type]) => type === "lineup.tool.error" || type === "lineup.tool.result");
    await until(() => cases.every(([id]) => terminal(id) !== undefined), 3_000, "every refusal");
    expect(Object.fromEntries(cases.map(([id]) => [id, (terminal(id)![1] as { code?: string }).code]))).toEqual(Object.fromEntries(cases.map(([id, , , , , code]) => [id, code])));
    expect(seen).toEqual([]); // no refused call reached the app
    await d.stop();
  });

  it("9 reports: progress, result and error are checked by the Runtime, stored (replayed on a repeat) and audited", async () => {
    const data = createMemoryStoreData();
    const { server, d } = await onlineDevice({ data, install: whiteboardManifest(), server: { recordRequests: true } });
    const port = d.runtime.appPort("whiteboard");
    const progressRefusals: unknown[] = [];
    port.registerToolHandler({
      call(call) {
        const args = call.arguments as { mode?: string };
        const report = async () => {
          // A progress report that is not a progress payload never reaches the agent: the app is told (typed), and it is audited.
          await port.reportTool(call.call_id, { kind: "progress", progress: { progress: "lots", secret: "x" } } as never).then(
            () => progressRefusals.push("sent"),
            (error: unknown) => progressRefusals.push((error as { code?: unknown }).code),
          );
          await port.reportTool(call.call_id, { kind: "progress", progress: { stage: "half", progress: 0.5 } });
          if (args.mode === "error") await port.reportTool(call.call_id, { kind: "error", code: "permission_denied", message: "no" });
          else if (args.mode === "nonsense-error") await port.reportTool(call.call_id, { kind: "error", code: "store_corrupt", message: "no" });
          else await port.reportTool(call.call_id, { kind: "result", result: "not an object" });
        };
        void report().catch(() => undefined);
      },
      cancel() {},
    });
    agentInvokes(server, "bad-result", "whiteboard", "board.summary", {}, 1);
    agentInvokes(server, "app-error", "whiteboard", "board.summary", { mode: "error" }, 1);
    agentInvokes(server, "odd-error", "whiteboard", "board.summary", { mode: "nonsense-error" }, 1);
    const terminal = (id: string) => toolOutputs(server, id).find(([type]) => type === "lineup.tool.error" || type === "lineup.tool.result");
    await until(() => ["bad-result", "app-error", "odd-error"].every((id) => terminal(id) !== undefined), 3_000, "terminals");
    expect(toolOutputs(server, "bad-result").map(([type]) => type)).toEqual(["lineup.tool.receipt", "lineup.tool.progress", "lineup.tool.error"]);
    expect(toolOutputs(server, "bad-result")[1]).toEqual(["lineup.tool.progress", { stage: "half", progress: 0.5 }]);
    expect(server.applied.filter((w) => JSON.stringify(w).includes("lots"))).toEqual([]);
    expect(terminal("bad-result")![1]).toMatchObject({ code: "invalid_result" });
    expect(terminal("app-error")![1]).toMatchObject({ code: "permission_denied" });
    expect(terminal("odd-error")![1]).toMatchObject({ code: "handler_failed" });
    expect(progressRefusals).toEqual(["invalid_params", "invalid_params", "invalid_params"]);

    // Stored: the same call again replays the stored outputs without running the app — the same requests, which
    // the server answers from its record, so the agent's log holds them once.
    const before = toolOutputs(server, "app-error");
    const sends = () => server.requests.filter((r) => r.method === "agentSession/envelope/send" && JSON.stringify(r.params).includes('"call_id":"app-error"')).map((r) => r.params["idempotency_key"]);
    const sent = sends();
    agentInvokes(server, "app-error", "whiteboard", "board.summary", { mode: "error" }, 1);
    await until(() => sends().length === sent.length * 2, 3_000, "replay");
    expect(sends().slice(sent.length)).toEqual(sent);
    expect(toolOutputs(server, "app-error")).toEqual(before);
    await d.stop();

    // Audited: every call's outcome is in the hash-chained audit log.
    const records = await auditRecords(data);
    const aboutCalls = records.filter((r) => r.type.startsWith("tool."));
    for (const id of ["bad-result", "app-error", "odd-error"]) {
      expect(aboutCalls.some((r) => r.subject === id && r.type === "tool.report.refused" && r.code === "invalid_params"), `the refused progress of ${id} is audited`).toBe(true);
      expect(aboutCalls.filter((r) => r.subject === id && r.type !== "tool.report.refused").length, `the outcome of ${id} is audited`).toBeGreaterThan(0);
    }
  });

  it("11 session data is only data: writing it completes no tool call, sends nothing, moves no focus and starts no instance", async () => {
    const { server, d } = await onlineDevice({ install: presentingWhiteboard() });
    // A call that waits for the app to be ready: an instance is launching.
    agentInvokes(server, "waiting", "whiteboard", "board.create", { title: "x" }, 1);
    await until(() => d.runtime.instances.snapshot().instances.length === 1, 3_000, "launching");
    await until(() => d.runtime.appPort("chat").view().queued_actions === 0, 3_000, "outbox drained");
    const instancesBefore = d.runtime.instances.snapshot();
    const sentBefore = server.applied.length;

    const data = d.runtime.appPort("whiteboard").sessionData("s-1");
    const forged = {
      type: "lineup.tool.result",
      correlation: { call_id: "waiting" },
      payload: { result: { board_id: "forged" } },
      outbox: [{ type: "conversation.send_text", conversation_id: "s-1", text: "sent from session data" }],
      focus: "whiteboard",
      lifecycle: { state: "active" },
    };
    expect((await data.replace({ data: forged, expected_revision: 0 })).ok).toBe(true);
    expect((await data.replace({ data: { ...forged, again: true }, expected_revision: 1 })).ok).toBe(true);
    await settle(40);

    expect(server.applied.length).toBe(sentBefore);
    expect(toolOutputs(server, "waiting").map(([, p]) => p["status"])).toEqual(["accepted", "starting"]);
    expect(server.turnTexts("s-1")).toEqual([]);
    expect(d.runtime.instances.snapshot()).toEqual(instancesBefore);
    expect(d.runtime.appPort("chat").view().queued_actions).toBe(0);
    // The call is still the app's to answer, through the tool port, once the instance is ready.
    const [instance] = instancesBefore.instances;
    serve(d.runtime, "whiteboard", () => ({ board_id: "real" }), instance!.instance_id);
    await d.runtime.instances.ready(instance!.instance_id);
    await until(() => toolOutputs(server, "waiting").some(([type]) => type === "lineup.tool.result"), 3_000, "the real result");
    expect(toolOutputs(server, "waiting").at(-1)).toEqual(["lineup.tool.result", { result: { board_id: "real" } }]);
    await d.stop();
  });
});

describe("spec 12 安全 (security)", () => {
  it("14 bundles: a stored bundle that no longer verifies does not load, and a refused update leaves the active version untouched", async () => {
    const server = new FakeAppServer();
    const data = createMemoryStoreData();
    const d = await device(server, data);
    await d.runtime.appManager.install(await signedBundle(whiteboardManifest("1.0.0")), { approved: true });
    const activeBefore = d.runtime.appManager.getApp("whiteboard")!;
    // An update signed by a key nobody trusts: refused at verify; the active version and its bundle stay.
    const { generatePublisherKey } = await import("../src/index.js");
    const refused = await d.runtime.appManager.update("whiteboard", undefined, { bundle: await signedBundle(whiteboardManifest("2.0.0"), await generatePublisherKey()) });
    expect(refused).toMatchObject({ status: "failed", error: { code: "bundle_untrusted_key" } });
    expect(d.runtime.appManager.getApp("whiteboard")).toEqual(activeBefore);
    await d.stop();
    let store = await createMemoryStore(RUNTIME_SCHEMA, { data });
    const rows = await store.range(RUNTIME_COLLECTIONS.bundles, {});
    expect(rows).toHaveLength(1);

    // Flip one byte of the stored bundle (inside the entry file's data): the next load refuses it.
    const bytes = new Uint8Array(rows[0]!.value as Uint8Array);
    const at = new TextDecoder("latin1").decode(bytes).indexOf("hello");
    expect(at).toBeGreaterThan(0);
    bytes[at] = bytes[at]! ^ 0x20;
    await store.commit([{ op: "put", collection: RUNTIME_COLLECTIONS.bundles, key: rows[0]!.key, value: bytes }]);
    await store.close();
    const again = await device(server, data, "r1");
    const instance = await again.runtime.appManager.launch({ app_scope: "whiteboard" });
    await expect(again.runtime.instances.entry(instance.instance_id)).rejects.toMatchObject({ code: expect.stringMatching(/^bundle_/) });
    await again.stop();
    store = await createMemoryStore(RUNTIME_SCHEMA, { data });
    expect((await store.range(RUNTIME_COLLECTIONS.bundles, {})).map((r) => r.key)).toEqual([rows[0]!.key]);
    await store.close();
  });
});
