/**
 * The chat's card for an app's agent task: a `lineup.task.request` and the `lineup.turn.*` messages of its turn
 * fold into one row per attempt, whose status, streamed text, result and decision follow the log in any order.
 */
import type { AgentAppMessage } from "@lineup/app-sdk";
import { describe, expect, it } from "vitest";
import { describeOutput, EMPTY_TIMELINE, foldMessages, hasOpenTurn, markAnswered, type AppTaskRow, type TimelineModel, type TimelineRow } from "@lineup/app-sdk/chat";

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
    created_at: "2026-12-02T09:00:00.000Z",
    payload: payload as AgentAppMessage["payload"],
    ...extra,
  };
}

const request = (turnId: string, attempt = 1, extra: Record<string, unknown> = {}) =>
  msg("lineup.task.request", { task_id: "task-1", attempt, app_scope: "whiteboard", entry: "tidy_board", title: "Tidy this board", text: "Make it neat", turn_id: turnId, ...extra }, { turn_id: turnId, sender: { kind: "runtime", id: "runtime" } });
const update = (turnId: string, payload: Record<string, unknown>) => msg("lineup.turn.update", payload, { turn_id: turnId });
const completed = (turnId: string, payload: Record<string, unknown>) => msg("lineup.turn.completed", { outcome: "completed", ...payload }, { turn_id: turnId });
const decision = (turnId: string, verdict: "accepted" | "rejected", reason?: string) =>
  msg("lineup.task.decision", { task_id: "task-1", turn_id: turnId, decision: verdict, ...(reason === undefined ? {} : { reason }) }, { sender: { kind: "app", id: "whiteboard" }, source_app_scope: "whiteboard" });

const cards = (model: TimelineModel): AppTaskRow[] => model.rows.filter((r): r is AppTaskRow => r.kind === "app_task");
const card = (model: TimelineModel): AppTaskRow => {
  const found = cards(model);
  expect(found).toHaveLength(1);
  return found[0]!;
};
const kinds = (rows: readonly TimelineRow[]) => rows.map((r) => r.kind);

const OUTPUT = { layout: [{ id: "n1", x: 24, y: 24 }, { id: "n2", x: 168, y: 24 }], summary: "Arranged 2 items in a 2×1 grid." };

describe("an app's agent task in the chat", () => {
  it("is one card that goes queued → working (with what it streams) → done with its result → accepted", () => {
    let model = foldMessages(EMPTY_TIMELINE, [request("t-1")]);
    expect(card(model)).toEqual({
      kind: "app_task",
      key: "app-task:t-1",
      seq: model.rows[0]!.seq,
      task_id: "task-1",
      turn_id: "t-1",
      attempt: 1,
      app_scope: "whiteboard",
      entry: "tidy_board",
      title: "Tidy this board",
      text: "Make it neat",
      state: "queued",
    });
    expect(hasOpenTurn(model)).toBe(true);
    model = foldMessages(model, [update("t-1", { status: "working", label: "Measuring the board", progress: 0.25 })]);
    expect(card(model)).toMatchObject({ state: "working", label: "Measuring the board", progress: 0.25 });
    model = foldMessages(model, [update("t-1", { text_delta: "Sorting by " }), update("t-1", { text_delta: "label…" })]);
    // What it streams is on the card, not in a bubble of its own.
    expect(kinds(model.rows)).toEqual(["app_task"]);
    expect(card(model)).toMatchObject({ state: "working", streamed: "Sorting by label…" });
    model = foldMessages(model, [completed("t-1", { output: OUTPUT, text: "Done." })]);
    expect(card(model)).toMatchObject({ state: "done", output: OUTPUT, result_text: "Done.", streamed: "Sorting by label…" });
    expect(card(model)).not.toHaveProperty("label");
    expect(hasOpenTurn(model)).toBe(false);
    model = foldMessages(model, [decision("t-1", "accepted")]);
    expect(card(model)).toMatchObject({ state: "done", decision: { decision: "accepted" } });
    expect(kinds(model.rows)).toEqual(["app_task"]);
  });

  it("waits for the person when the agent says so, or asks a card in the turn, until the card is answered", () => {
    let model = foldMessages(EMPTY_TIMELINE, [request("t-2"), update("t-2", { status: "waiting_for_user", label: "Which notes?" })]);
    expect(card(model)).toMatchObject({ state: "waiting_for_user", label: "Which notes?" });
    const working = update("t-2", { status: "working" });
    const asked = msg("lineup.action.required", { action_id: "act-1", kind: "approval", prompt: "Move 12 notes?", turn_id: "t-2" }, { turn_id: "t-2", delivery: "explicit_ack" });
    // Newest by seq wins, whatever order they are folded in.
    model = foldMessages(model, [asked, working]);
    expect(card(model).state).toBe("waiting_for_user");
    const answered = foldMessages(model, [msg("lineup.action.responded", { action_id: "act-1", response: { outcome: "approved" } })]);
    expect(card(answered).state).toBe("working");
    // Answered here, before the Runtime's echo: the card moves on too.
    expect(card(markAnswered(model, asked.message_id, { outcome: "approved", summary: "Approve" })).state).toBe("working");
  });

  it("says failed with the reason, or stopped, on the card (no notice of its own)", () => {
    const failed = foldMessages(EMPTY_TIMELINE, [request("t-3"), update("t-3", { text_delta: "Half" }), msg("lineup.turn.failed", { error: { code: "invalid_result", message: "the result does not match the output schema" } }, { turn_id: "t-3" })]);
    expect(card(failed)).toMatchObject({ state: "failed", error: { code: "invalid_result", message: "the result does not match the output schema" }, streamed: "Half" });
    expect(kinds(failed.rows)).toEqual(["app_task"]);

    const stopped = foldMessages(EMPTY_TIMELINE, [request("t-4"), update("t-4", { status: "working" }), msg("lineup.turn.cancelled", { reason: "cancelled" }, { turn_id: "t-4", sender: { kind: "user", id: "dev" } })]);
    expect(card(stopped).state).toBe("stopped");
    expect(kinds(stopped.rows)).toEqual(["app_task"]);
    expect(hasOpenTurn(stopped)).toBe(false);
    // A person's own turn stopped still says so in the log.
    const own = foldMessages(stopped, [msg("lineup.message", { format: "text", text: "go" }, { sender: { kind: "user", id: "u" }, turn_id: "t-5" }), msg("lineup.turn.cancelled", { reason: "cancelled" }, { turn_id: "t-5" })]);
    expect(kinds(own.rows)).toEqual(["app_task", "message", "notice"]);
  });

  it("folds to the same card whatever order history pages and live messages come in", () => {
    const log = [request("t-6"), update("t-6", { status: "working" }), update("t-6", { text_delta: "Tidying" }), msg("lineup.turn.failed", { error: { code: "failed", message: "no board" } }, { turn_id: "t-6" })];
    const inOrder = foldMessages(EMPTY_TIMELINE, log);
    const newestFirst = foldMessages(foldMessages(foldMessages(EMPTY_TIMELINE, [log[3]!]), [log[1]!, log[2]!]), [log[0]!]);
    expect(newestFirst.rows).toEqual(inOrder.rows);
    expect(kinds(newestFirst.rows)).toEqual(["app_task"]);

    const done = [request("t-7"), update("t-7", { status: "working", label: "Sorting" }), completed("t-7", { output: OUTPUT }), decision("t-7", "rejected", "keep the row")];
    const reversed = [...done].reverse().reduce((model, message) => foldMessages(model, [message]), EMPTY_TIMELINE);
    expect(reversed.rows).toEqual(foldMessages(EMPTY_TIMELINE, done).rows);
    expect(card(reversed)).toMatchObject({ state: "done", output: OUTPUT, decision: { decision: "rejected", reason: "keep the row" } });
  });

  it("shows a retry or resubmit as its own card with its attempt, each with its own outcome and decision", () => {
    const model = foldMessages(EMPTY_TIMELINE, [
      request("t-8"),
      completed("t-8", { output: OUTPUT }),
      decision("t-8", "rejected", "keep the notes in a row"),
      request("t-9", 2, { text: "In one row, please" }),
      update("t-9", { status: "working" }),
    ]);
    expect(cards(model).map((c) => [c.turn_id, c.attempt, c.state, c.text, c.decision])).toEqual([
      ["t-8", 1, "done", "Make it neat", { decision: "rejected", reason: "keep the notes in a row" }],
      ["t-9", 2, "working", "In one row, please", undefined],
    ]);
  });

  it("ignores a request it cannot read (no task id, entry or turn)", () => {
    const model = foldMessages(EMPTY_TIMELINE, [msg("lineup.task.request", { task_id: "task-1", app_scope: "whiteboard", turn_id: "t-10" })]);
    expect(model.rows).toEqual([]);
  });
});

describe("a task's result, for people", () => {
  it("puts the summary first, then lists with their first entries", () => {
    expect(describeOutput(OUTPUT)).toEqual([
      { label: "summary", value: "Arranged 2 items in a 2×1 grid." },
      { label: "layout", value: "2 items", items: ["id: n1 · x: 24 · y: 24", "id: n2 · x: 168 · y: 24"] },
    ]);
  });

  it("reads lists of words inline, nested objects on one line, and says what it left out", () => {
    const week = { days: [{ day: "Monday", items: ["write", "call"] }], unscheduled: ["maybe gym"], done: false, note: null, first_line: "x" };
    expect(describeOutput(week)).toEqual([
      { label: "done", value: "no" },
      { label: "note", value: "—" },
      { label: "first line", value: "x" },
      { label: "days", value: "1 item", items: ["day: Monday · items: 2 items"] },
      { label: "unscheduled", value: "maybe gym" },
    ]);
    const many = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, i]));
    const lines = describeOutput(many);
    expect(lines).toHaveLength(9);
    expect(lines.at(-1)).toEqual({ value: "… 3 more fields" });
    const long = describeOutput({ files: Array.from({ length: 7 }, (_, i) => ({ name: `f${i}.txt`, lines: i })) })[0]!;
    expect(long.items).toHaveLength(6);
    expect(long.items!.at(-1)).toBe("… 2 more");
  });

  it("reads a result that is not an object", () => {
    expect(describeOutput("Just text")).toEqual([{ value: "Just text" }]);
    expect(describeOutput(["a", "b"])).toEqual([{ value: "a, b" }]);
    expect(describeOutput([])).toEqual([{ value: "none" }]);
    expect(describeOutput({})).toEqual([{ value: "(empty)" }]);
    expect(describeOutput("x".repeat(400))[0]!.value).toHaveLength(300);
  });
});
