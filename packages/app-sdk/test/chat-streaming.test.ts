/**
 * The chat fold of streamed text: a turn's `text_delta`s make one draft agent message, in seq order
 * whatever order they arrive in, marked streaming while the turn is open; the agent's final message
 * replaces it (no text twice); a stopped or failed turn keeps what was streamed, marked cut short.
 */
import type { AgentAppMessage } from "@lineup/app-sdk";
import { describe, expect, it } from "vitest";
import { EMPTY_TIMELINE, foldMessages, type TimelineModel, type TimelineRow } from "@lineup/app-sdk/chat";

function log() {
  let seq = 0;
  const msg = (type: string, payload: unknown, extra: Partial<AgentAppMessage> = {}): AgentAppMessage => {
    seq += 1;
    return {
      message_id: `c-1:${seq}`,
      cursor: `c-1/${String(seq).padStart(16, "0")}`,
      app_scope: "chat",
      conversation_id: "c-1",
      seq,
      type,
      delivery: "display",
      sender: { kind: "agent", id: "llm-agent" },
      created_at: `2026-11-30T07:00:${String(seq).padStart(2, "0")}.000Z`,
      payload: payload as AgentAppMessage["payload"],
      ...extra,
    };
  };
  return {
    user: (text: string, turn_id: string) => msg("lineup.message", { format: "text", text }, { sender: { kind: "user", id: "u" }, turn_id }),
    delta: (text: string, turn_id: string) => msg("lineup.turn.update", { text_delta: text }, { turn_id }),
    status: (status: string, turn_id: string) => msg("lineup.turn.update", { status }, { turn_id }),
    reply: (text: string) => msg("lineup.message", { format: "markdown", text }),
    completed: (text: string | undefined, turn_id: string) => msg("lineup.turn.completed", text === undefined ? {} : { text }, { turn_id }),
    failed: (turn_id: string) => msg("lineup.turn.failed", { error: { code: "internal_error", message: "model crashed" } }, { turn_id }),
    cancelled: (turn_id: string, reason = "cancelled") => msg("lineup.turn.cancelled", { reason }, { turn_id, sender: { kind: "user", id: "dev-device" } }),
    tool: (call_id: string) => msg("lineup.tool.receipt", { status: "accepted" }, { correlation: { call_id }, source_app_scope: "whiteboard" }),
  };
}

/** What a person reads: each row's kind and from, text, and marks. */
const read = (rows: readonly TimelineRow[]) =>
  rows.map((r) => (r.kind === "message" ? `${r.from}${r.streaming === true ? " (writing)" : ""}${r.cut_short === true ? " (cut short)" : ""}: ${r.text}` : r.kind === "notice" ? `notice: ${r.text}` : r.kind));

/** Folds `messages` one by one, as live deliveries come. */
const live = (messages: readonly AgentAppMessage[], from: TimelineModel = EMPTY_TIMELINE) => messages.reduce((m, message) => foldMessages(m, [message]), from);

/** Every order of small arrays; a sample of orders past 7 elements. */
function orders<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [items.slice()];
  const out: T[][] = [];
  items.forEach((item, i) => {
    for (const rest of orders([...items.slice(0, i), ...items.slice(i + 1)])) out.push([item, ...rest]);
  });
  return out;
}

describe("streamed text in the chat timeline", () => {
  it("shows the pieces as one growing agent message, marked writing, while the turn is open", () => {
    const l = log();
    const start = [l.user("tell me", "t-1"), l.status("thinking", "t-1")];
    let model = live(start);
    model = live([l.delta("Once ", "t-1")], model);
    expect(read(model.rows)).toEqual(["user: tell me", "agent (writing): Once "]);
    model = live([l.delta("upon ", "t-1"), l.delta("a **time**", "t-1")], model);
    expect(read(model.rows)).toEqual(["user: tell me", "agent (writing): Once upon a **time**"]);
    expect(model.rows[1]).toMatchObject({ kind: "message", key: "stream:t-1", from: "agent", format: "markdown", streaming: true, created_at: "2026-11-30T07:00:03.000Z" });
    // The status line still follows the turn's status: text pieces carry none.
    expect(model.status).toEqual({ state: "thinking" });
  });

  it("joins the pieces in seq order whatever order they arrive in, each once", () => {
    const l = log();
    const user = l.user("count", "t-1");
    const pieces = ["one ", "two ", "three ", "four"].map((t) => l.delta(t, "t-1"));
    for (const order of orders(pieces)) {
      const model = live([user, ...order, ...order.slice(0, 2)]);
      expect(read(model.rows)).toEqual(["user: count", "agent (writing): one two three four"]);
    }
    // A history page of older pieces after newer live ones.
    const paged = foldMessages(foldMessages(EMPTY_TIMELINE, [pieces[2]!, pieces[3]!]), [user, pieces[0]!, pieces[1]!]);
    expect(read(paged.rows)).toEqual(["user: count", "agent (writing): one two three four"]);
    expect(paged.rows[1]).toMatchObject({ created_at: pieces[0]!.created_at });
  });

  it("the agent's final message replaces the draft: the text shows once, where the message is", () => {
    const l = log();
    const messages = [l.user("hi", "t-1"), l.delta("Hel", "t-1"), l.delta("lo!", "t-1"), l.reply("Hello!"), l.completed("Hello!", "t-1")];
    const before = live(messages.slice(0, 3));
    expect(read(before.rows)).toEqual(["user: hi", "agent (writing): Hello!"]);
    // The message arrives before the turn's end: the draft goes at once, not when the turn completes.
    const replaced = live(messages.slice(3, 4), before);
    expect(read(replaced.rows)).toEqual(["user: hi", "agent: Hello!"]);
    expect(replaced.rows[1]!.key).toBe(`m:${messages[3]!.message_id}`);
    expect(read(live(messages.slice(4), replaced).rows)).toEqual(["user: hi", "agent: Hello!"]);
    // In any order (pages after live messages), the same.
    for (const order of orders(messages)) expect(read(live(order).rows), order.map((m) => m.seq).join(",")).toEqual(["user: hi", "agent: Hello!"]);
  });

  it("a turn that streamed and completed without a message shows the turn's text in place of the draft", () => {
    const l = log();
    const messages = [l.user("hi", "t-1"), l.delta("Draft", "t-1"), l.completed("Final **answer**", "t-1")];
    for (const order of orders(messages)) {
      const model = live(order);
      expect(read(model.rows)).toEqual(["user: hi", "agent: Final **answer**"]);
      expect(model.rows[1]).toMatchObject({ key: "stream:t-1", format: "markdown" });
      expect(model.rows[1]).not.toHaveProperty("streaming");
    }
    // Completed with no text: what was streamed is the answer.
    expect(read(live([l.user("x", "t-2"), l.delta("All of it", "t-2"), l.completed(undefined, "t-2")]).rows)).toEqual(["user: x", "agent: All of it"]);
  });

  it("a stopped turn keeps what was streamed, marked cut short; so does a failed one and an interrupted one", () => {
    const l = log();
    const stopped = [l.user("write", "t-1"), l.delta("Half a ", "t-1"), l.delta("sentence", "t-1"), l.cancelled("t-1")];
    for (const order of orders(stopped)) expect(read(live(order).rows)).toEqual(["user: write", "agent (cut short): Half a sentence", "notice: You stopped the agent."]);
    const model = live(stopped);
    expect(model.rows[1]).not.toHaveProperty("streaming");
    expect(model.status).toEqual({ state: "stopped" });

    const failed = live([l.user("again", "t-2"), l.delta("Partial", "t-2"), l.failed("t-2")]);
    expect(read(failed.rows)).toEqual(["user: again", "agent (cut short): Partial", "notice: The agent's turn failed: model crashed"]);
    const interrupted = live([l.user("one", "t-3"), l.delta("Start", "t-3"), l.cancelled("t-3", "interrupted"), l.user("other", "t-4")]);
    expect(read(interrupted.rows)).toEqual(["user: one", "agent (cut short): Start", "user: other"]);
  });

  it("a draft follows its newest piece: text before a tool call shows above its card, the rest below it, and the final message replaces both", () => {
    const l = log();
    const messages = [l.user("draw", "t-1"), l.delta("Let me draw.", "t-1"), l.tool("call-1"), l.delta("\n\nDone: ", "t-1"), l.delta("your board.", "t-1"), l.reply("Done: your board."), l.completed("Done: your board.", "t-1")];
    expect(read(live(messages.slice(0, 3)).rows)).toEqual(["user: draw", "agent (writing): Let me draw.", "tool"]);
    expect(read(live(messages.slice(0, 5)).rows)).toEqual(["user: draw", "tool", "agent (writing): Let me draw.\n\nDone: your board."]);
    expect(read(live(messages).rows)).toEqual(["user: draw", "tool", "agent: Done: your board."]);
  });

  it("keeps each turn's draft apart: an earlier turn's final message does not take a later turn's draft", () => {
    const l = log();
    const messages = [
      l.user("first", "t-1"),
      l.delta("One", "t-1"),
      l.reply("One."),
      l.completed("One.", "t-1"),
      l.user("second", "t-2"),
      l.delta("Two so far", "t-2"),
    ];
    for (const order of [messages, [...messages].reverse()]) expect(read(live(order).rows)).toEqual(["user: first", "agent: One.", "user: second", "agent (writing): Two so far"]);
  });

  it("shows no draft for blank text, and folds idempotently by message id", () => {
    const l = log();
    const messages = [l.user("x", "t-1"), l.delta("\n\n", "t-1")];
    const blank = live(messages);
    expect(read(blank.rows)).toEqual(["user: x"]);
    const model = live([l.delta("Hi", "t-1")], blank);
    expect(read(model.rows)).toEqual(["user: x", "agent (writing): \n\nHi"]);
    expect(foldMessages(model, messages)).toBe(model);
  });
});
