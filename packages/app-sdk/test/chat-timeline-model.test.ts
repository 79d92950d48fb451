import type { AgentAppMessage } from "@lineup/app-sdk";
import { describe, expect, it } from "vitest";
import { EMPTY_TIMELINE, foldMessages, hasOpenTurn, markAnswered, summarizeAnswer, type TimelineRow } from "@lineup/app-sdk/chat";

let seq = 0;
function msg(type: string, payload: unknown, extra: Partial<AgentAppMessage> = {}): AgentAppMessage {
  seq += 1;
  return {
    message_id: `c-1:${seq}`,
    cursor: `c-1/${String(seq).padStart(16, "0")}`,
    app_scope: "chat",
    conversation_id: "c-1",
    seq,
    type,
    delivery: "display",
    sender: { kind: "agent", id: "demo-agent" },
    created_at: "2026-11-30T07:00:00.000Z",
    payload: payload as AgentAppMessage["payload"],
    ...extra,
  };
}

const kinds = (rows: readonly TimelineRow[]) => rows.map((r) => r.kind);

describe("the chat timeline fold", () => {
  it("renders the agent's message once: the completed turn's text is not a second message", () => {
    const user = msg("lineup.message", { format: "text", text: "hello" }, { sender: { kind: "user", id: "dev-user" } });
    const reply = msg("lineup.message", { format: "markdown", text: "**hi**" });
    const done = msg("lineup.turn.completed", { text: "**hi**" });
    const model = foldMessages(EMPTY_TIMELINE, [user, reply, done]);
    expect(model.rows).toMatchObject([
      { kind: "message", from: "user", format: "text", text: "hello" },
      { kind: "message", from: "agent", format: "markdown", text: "**hi**" },
    ]);
    expect(model.status).toBeUndefined();
  });

  it("knows when a turn is open, and shows a turn the person stopped as Stopped (an interrupted one says nothing)", () => {
    const user = msg("lineup.message", { format: "text", text: "go" }, { sender: { kind: "user", id: "u" }, turn_id: "t-1" });
    let model = foldMessages(EMPTY_TIMELINE, [user, msg("lineup.turn.update", { status: "working", label: "Drawing" }, { turn_id: "t-1" })]);
    expect(hasOpenTurn(model)).toBe(true);
    model = foldMessages(model, [msg("lineup.turn.cancelled", { reason: "cancelled" }, { turn_id: "t-1", sender: { kind: "user", id: "dev-device" } })]);
    expect(hasOpenTurn(model)).toBe(false);
    expect(model.status).toEqual({ state: "stopped" });
    expect(model.rows.at(-1)).toMatchObject({ kind: "notice", level: "info", text: "You stopped the agent." });
    // The person speaks again: the status line moves on.
    model = foldMessages(model, [msg("lineup.message", { format: "text", text: "again" }, { sender: { kind: "user", id: "u" }, turn_id: "t-2" })]);
    expect(model.status).toEqual({ state: "waiting_for_agent" });
    expect(hasOpenTurn(model)).toBe(true);
    // A newer message's `interrupt` ended it: no "stopped".
    model = foldMessages(model, [msg("lineup.turn.cancelled", { reason: "interrupted", by_turn_id: "t-3" }, { turn_id: "t-2" })]);
    expect(model.status).toBeUndefined();
    expect(model.rows.filter((r) => r.kind === "notice")).toHaveLength(1);
    expect(hasOpenTurn(model)).toBe(false);
  });

  it("a card the agent asked in a turn the person stopped can no longer be answered; a card of a later turn can", () => {
    const start = msg("lineup.message", { format: "text", text: "ask me something" }, { sender: { kind: "user", id: "u" }, turn_id: "t-20" });
    const asked = msg("lineup.interaction.request", { interaction_id: "i-20", kind: "input", prompt: "Your name?" }, { delivery: "explicit_ack" });
    const stop = msg("lineup.turn.cancelled", { reason: "cancelled" }, { turn_id: "t-20", sender: { kind: "user", id: "dev-device" } });
    const next = msg("lineup.message", { format: "text", text: "again" }, { sender: { kind: "user", id: "u" }, turn_id: "t-21" });
    const askedAgain = msg("lineup.interaction.request", { interaction_id: "i-21", kind: "input", prompt: "Your name?" }, { delivery: "explicit_ack" });
    const cards = (rows: readonly TimelineRow[]) => rows.flatMap((r) => (r.kind === "card" ? [[r.card.answer_key, r.answer?.outcome ?? "open"]] : []));
    const live = foldMessages(EMPTY_TIMELINE, [start, asked]);
    expect(cards(live.rows)).toEqual([["i-20", "open"]]);
    const stopped = foldMessages(live, [stop, next, askedAgain]);
    expect(cards(stopped.rows)).toEqual([["i-20", "stopped"], ["i-21", "open"]]);
    expect(stopped.rows.find((r) => r.kind === "card")).toMatchObject({ answer: { outcome: "stopped", summary: "you stopped the agent" } });
    // The same log in any order (history pages after live messages) folds to the same cards.
    expect(cards(foldMessages(foldMessages(EMPTY_TIMELINE, [stop, next, askedAgain]), [start, asked]).rows)).toEqual([["i-20", "stopped"], ["i-21", "open"]]);
    expect(cards(foldMessages(foldMessages(EMPTY_TIMELINE, [asked, stop, askedAgain]), [start, next]).rows)).toEqual([["i-20", "stopped"], ["i-21", "open"]]);
    // An interrupted turn (a newer message) closes nothing: its cards are the agent's to settle.
    const interrupted = foldMessages(EMPTY_TIMELINE, [
      msg("lineup.message", { format: "text", text: "x" }, { sender: { kind: "user", id: "u" }, turn_id: "t-30" }),
      msg("lineup.interaction.request", { interaction_id: "i-30", kind: "confirm", prompt: "Go?" }, { delivery: "explicit_ack" }),
      msg("lineup.turn.cancelled", { reason: "interrupted", by_turn_id: "t-31" }, { turn_id: "t-30" }),
    ]);
    expect(cards(interrupted.rows)).toEqual([["i-30", "open"]]);
  });

  it("a turn's end seen before its start (an older history page after live messages) leaves no open turn", () => {
    const start = msg("lineup.message", { format: "text", text: "old" }, { sender: { kind: "user", id: "u" }, turn_id: "t-9" });
    const end = msg("lineup.turn.completed", { text: "done" }, { turn_id: "t-9" });
    const model = foldMessages(foldMessages(EMPTY_TIMELINE, [end]), [start]);
    expect(hasOpenTurn(model)).toBe(false);
  });

  it("is idempotent per message_id and keeps seq order when history arrives after live messages", () => {
    const a = msg("lineup.message", { format: "text", text: "first" });
    const b = msg("lineup.message", { format: "text", text: "second" });
    const live = foldMessages(EMPTY_TIMELINE, [b]);
    const merged = foldMessages(live, [a, b]);
    expect(merged.rows.map((r) => (r.kind === "message" ? r.text : ""))).toEqual(["first", "second"]);
    expect(foldMessages(merged, [a, b])).toBe(merged);
  });

  it("follows the agent's status line: waiting for the agent after the user speaks, thinking once the agent says so, working, cleared when the turn ends", () => {
    let model = foldMessages(EMPTY_TIMELINE, [msg("lineup.message", { format: "text", text: "go" }, { sender: { kind: "user", id: "u" } })]);
    // Nothing says the agent is thinking until it does: it may not even be connected.
    expect(model.status).toEqual({ state: "waiting_for_agent" });
    model = foldMessages(model, [msg("lineup.turn.update", { status: "thinking" })]);
    expect(model.status).toEqual({ state: "thinking" });
    model = foldMessages(model, [msg("lineup.turn.update", { status: "working", label: "Using Whiteboard" })]);
    expect(model.status).toEqual({ state: "working", label: "Using Whiteboard" });
    model = foldMessages(model, [msg("lineup.status", { state: "working", label: "Drawing…" })]);
    expect(model.status).toEqual({ state: "working", label: "Drawing…" });
    model = foldMessages(model, [msg("lineup.turn.completed", { text: "done" })]);
    expect(model.status).toBeUndefined();
  });

  it("updates one task row in place as its progress arrives", () => {
    const model = foldMessages(EMPTY_TIMELINE, [
      msg("lineup.task.progress", { task_id: "t1", title: "Export", state: "running", progress: 0.25 }),
      msg("lineup.task.progress", { task_id: "t1", state: "running", progress: 0.75 }),
      msg("lineup.task.progress", { task_id: "t1", state: "completed", progress: 1 }),
    ]);
    expect(model.rows).toEqual([expect.objectContaining({ kind: "task", task_id: "t1", title: "Export", state: "completed", progress: 1 })]);
  });

  it("folds a tool call's receipt → progress → result into one card with one terminal outcome", () => {
    const corr = { correlation: { call_id: "call-1" }, sender: { kind: "runtime", id: "rt" }, app_scope: "whiteboard" };
    let model = foldMessages(EMPTY_TIMELINE, [msg("lineup.tool.receipt", { status: "accepted" }, corr)]);
    expect(model.rows).toMatchObject([{ kind: "tool", call_id: "call-1", phase: "received", app_scope: "whiteboard" }]);
    model = foldMessages(model, [msg("lineup.tool.progress", { progress: 0.5, message: "half way" }, corr)]);
    expect(model.rows).toMatchObject([{ phase: "running", progress: 0.5, message: "half way" }]);
    model = foldMessages(model, [msg("lineup.tool.result", { result: { ok: true } }, corr), msg("lineup.tool.error", { code: "handler_failed", message: "late" }, corr)]);
    expect(model.rows).toHaveLength(1);
    expect(model.rows[0]).toMatchObject({ phase: "succeeded" });
    // The last progress line is not how the call ended: the succeeded card drops it (and the late error changes nothing).
    expect(model.rows[0]).not.toHaveProperty("message");
    const failed = foldMessages(EMPTY_TIMELINE, [msg("lineup.tool.receipt", { status: "activation_failed", code: "activation_failed", message: "no app" }, { ...corr, correlation: { call_id: "call-2" } })]);
    expect(failed.rows[0]).toMatchObject({ phase: "failed", code: "activation_failed" });
  });

  it("tells the agent's task for a tool call (task_id = call_id) on the call's card: one card per call, in either order", () => {
    const corr = (callId: string) => ({ correlation: { call_id: callId }, sender: { kind: "runtime", id: "rt" }, app_scope: "pomodoro" });
    // The agent announces the call, then the Runtime's receipt, progress and result arrive.
    const announced = foldMessages(EMPTY_TIMELINE, [
      msg("lineup.message", { format: "text", text: "start a pomodoro" }, { sender: { kind: "user", id: "u" } }),
      msg("lineup.task.progress", { task_id: "call-7", title: "Pomodoro timer", state: "running", detail: "Calling pomodoro.start…" }),
      msg("lineup.tool.receipt", { status: "accepted" }, corr("call-7")),
    ]);
    expect(kinds(announced.rows)).toEqual(["message", "tool"]);
    expect(announced.rows[1]).toMatchObject({ kind: "tool", call_id: "call-7", title: "Pomodoro timer", detail: "Calling pomodoro.start…", phase: "received" });
    const done = foldMessages(announced, [
      msg("lineup.tool.progress", { message: "started" }, corr("call-7")),
      msg("lineup.task.progress", { task_id: "call-7", title: "Pomodoro timer", state: "running", detail: "started" }),
      msg("lineup.tool.result", { result: { outcome: "completed" } }, corr("call-7")),
      // The agent's word on the end does not decide the card's outcome; the Runtime's result did.
      msg("lineup.task.progress", { task_id: "call-7", title: "Pomodoro timer", state: "failed", detail: "gave up" }),
    ]);
    expect(kinds(done.rows)).toEqual(["message", "tool"]);
    expect(done.rows[1]).toMatchObject({ kind: "tool", title: "Pomodoro timer", phase: "succeeded" });
    // The Runtime's receipt first, the agent's task after it: the same single card.
    const receiptFirst = foldMessages(EMPTY_TIMELINE, [msg("lineup.tool.receipt", { status: "accepted" }, corr("call-8")), msg("lineup.task.progress", { task_id: "call-8", title: "Whiteboard", state: "running" })]);
    expect(receiptFirst.rows).toMatchObject([{ kind: "tool", call_id: "call-8", title: "Whiteboard", phase: "received" }]);
    // A Runtime-owned operation the person stopped ends with a result that says so: the card says Stopped, not done.
    const stopped = foldMessages(receiptFirst, [msg("lineup.tool.result", { result: { outcome: "interrupted", operation_id: "op-1", started_at: "2026-11-30T07:00:00.000Z", ends_at: "2026-11-30T07:25:00.000Z", ended_at: "2026-11-30T07:01:00.000Z", reason: "stopped by the user in the app" } }, corr("call-8"))]);
    expect(stopped.rows[0]).toMatchObject({ phase: "succeeded", interrupted: { reason: "stopped by the user in the app" } });
    // A result that merely has an outcome field is not an operation.
    expect(foldMessages(EMPTY_TIMELINE, [msg("lineup.tool.result", { result: { outcome: "interrupted" } }, corr("call-9"))]).rows[0]).not.toHaveProperty("interrupted");
    // A task that is not a call of this conversation stays a task.
    const other = foldMessages(receiptFirst, [msg("lineup.task.progress", { task_id: "export-1", title: "Export", state: "running" })]);
    expect(kinds(other.rows)).toEqual(["tool", "task"]);
  });

  it("names a tool call by the app's title for the tool from the Runtime's receipt when the agent gave it no task", () => {
    const corr = (callId: string) => ({ correlation: { call_id: callId }, sender: { kind: "runtime" as const, id: "rt" }, app_scope: "whiteboard" });
    const receipt = msg("lineup.tool.receipt", { status: "accepted", tool: { method: "board.export", title: "Export as PNG" } }, corr("call-1"));
    const named = foldMessages(EMPTY_TIMELINE, [receipt, msg("lineup.tool.result", { result: { ok: true } }, corr("call-1"))]);
    expect(named.rows).toMatchObject([{ kind: "tool", call_id: "call-1", tool_title: "Export as PNG", phase: "succeeded" }]);
    expect(named.rows[0]).not.toHaveProperty("title");
    // The agent's own name for the call stays beside it, whichever came first.
    const both = foldMessages(EMPTY_TIMELINE, [msg("lineup.task.progress", { task_id: "call-2", title: "Whiteboard", state: "running" }), msg("lineup.tool.receipt", { status: "accepted", tool: { method: "board.export", title: "Export as PNG" } }, corr("call-2"))]);
    expect(both.rows).toMatchObject([{ kind: "tool", call_id: "call-2", title: "Whiteboard", tool_title: "Export as PNG" }]);
  });

  it("turns interaction requests and action.required into cards; action.responded answers its card", () => {
    const choice = msg("lineup.interaction.request", { interaction_id: "i-1", kind: "choice", prompt: "Pick", options: [{ id: "a", label: "Apple" }, { id: "b", label: "Banana" }] }, { delivery: "explicit_ack" });
    const approval = msg("lineup.action.required", { action_id: "act-1", kind: "approval", prompt: "Delete it?", state: "pending" }, { delivery: "explicit_ack" });
    let model = foldMessages(EMPTY_TIMELINE, [choice, approval]);
    expect(kinds(model.rows)).toEqual(["card", "card"]);
    expect(model.rows[0]).toMatchObject({ card: { kind: "choice", via: "interaction", answer_key: "i-1", options: [{ id: "a" }, { id: "b" }] } });
    expect(model.rows[1]).toMatchObject({ card: { kind: "confirm", via: "action", answer_key: "act-1", confirm_label: "Approve" } });
    expect(model.status).toEqual({ state: "waiting_for_user" });
    model = foldMessages(model, [msg("lineup.action.responded", { action_id: "act-1", response: { outcome: "approved" } })]);
    expect(model.rows[1]).toMatchObject({ answer: { outcome: "approved", summary: "Approve" } });
    const row = model.rows[0]!;
    if (row.kind !== "card") throw new Error("expected a card");
    model = markAnswered(model, row.message_id, summarizeAnswer(row.card, { outcome: "answered", choice_ids: ["b"] }));
    expect(model.rows[0]).toMatchObject({ answer: { summary: "Banana" } });
  });

  it("shows a card the Runtime lists with an answer as answered (after a reload, or answered on another device)", () => {
    const choice = msg("lineup.interaction.request", { interaction_id: "i-2", kind: "choice", prompt: "Pick", options: [{ id: "a", label: "Apple" }, { id: "b", label: "Banana" }] }, { delivery: "explicit_ack", answer: { outcome: "answered", choice_ids: ["b"] } });
    const confirm = msg("lineup.interaction.request", { interaction_id: "i-3", kind: "confirm", prompt: "Go?" }, { delivery: "explicit_ack", answer: { outcome: "answered", confirmed: false } });
    const approval = msg("lineup.action.required", { action_id: "act-2", kind: "approval", prompt: "Delete it?" }, { delivery: "explicit_ack", answer: { outcome: "approved" } });
    const open = msg("lineup.action.required", { action_id: "act-3", kind: "input", prompt: "Name?" }, { delivery: "explicit_ack" });
    let model = foldMessages(EMPTY_TIMELINE, [choice, confirm, approval]);
    expect(model.rows.map((r) => (r.kind === "card" ? r.answer : undefined))).toEqual([
      { outcome: "answered", summary: "Banana" },
      { outcome: "answered", summary: "Cancel" },
      { outcome: "approved", summary: "Approve" },
    ]);
    expect(model.status).toBeUndefined();
    model = foldMessages(model, [open]);
    expect(model.rows[3]).not.toHaveProperty("answer");
    expect(model.status).toEqual({ state: "waiting_for_user" });
  });

  it("shows artifacts, notices and failed turns; ignores types it does not know and malformed payloads", () => {
    const model = foldMessages(EMPTY_TIMELINE, [
      msg("lineup.artifact", { artifact: { artifact_id: "art-1", name: "board.png", mime_type: "image/png", size: 2048, sha256: "0".repeat(64) } }),
      msg("lineup.runtime.notice", { level: "warning", message: "Reconnected" }),
      msg("lineup.turn.failed", { error: { code: "internal_error", message: "boom" } }),
      msg("lineup.something.new", { x: 1 }),
      msg("lineup.interaction.request", "not an object"),
      msg("lineup.message", null),
    ]);
    expect(kinds(model.rows)).toEqual(["artifact", "notice", "notice", "message"]);
    expect(model.rows[2]).toMatchObject({ level: "error", text: expect.stringContaining("boom") });
  });
});
