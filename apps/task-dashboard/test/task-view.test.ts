/** A task's events folded into its card: per attempt, once each, in order. */
import { describe, expect, it } from "vitest";
import { attemptLine, currentAttempt, foldEvents } from "../src/model/task-view.js";
import { events } from "./fixtures.js";

describe("folding a task's events", () => {
  it("streams text, follows progress and tool calls, and ends with the status", () => {
    const view = foldEvents(
      events(
        { kind: "status", status: "running" },
        { kind: "progress", label: "Reading a.txt", progress: 0.5 },
        { kind: "tool_call", call_id: "c1", app_scope: "whiteboard", method: "board.summary" },
        { kind: "text", delta: "Tea " },
        { kind: "text", delta: "is good." },
        { kind: "tool_result", call_id: "c1", outcome: "error", code: "tool_not_visible" },
        { kind: "knowledge", refs: [{ artifact_id: "a" }, { artifact_id: "b" }] },
        { kind: "status", status: "completed" },
        { kind: "result", output: { title: "Tea", text: "Tea is good." } },
      ),
    );
    const attempt = currentAttempt(view, 1);
    expect(attempt).toMatchObject({ status: "completed", text: "Tea is good.", progress: { label: "Reading a.txt", value: 0.5 }, knowledge: 2 });
    expect(attempt.toolCalls).toEqual([{ call_id: "c1", app_scope: "whiteboard", method: "board.summary", outcome: "error", code: "tool_not_visible" }]);
    expect(view.through).toBe(9);
  });

  it("keeps each attempt apart: a retry starts with no text, the earlier one keeps its end", () => {
    const view = foldEvents(
      events(
        { kind: "status", status: "running" },
        { kind: "text", delta: "Half a" },
        { kind: "status", status: "cancelled", reason: "by you" },
        { kind: "status", status: "queued", attempt: 2 },
        { kind: "status", status: "running", attempt: 2 },
        { kind: "error", code: "agent_unavailable", message: "The agent went away", attempt: 2 },
        { kind: "status", status: "failed", attempt: 2 },
      ),
    );
    expect(view.attempts.map((a) => [a.attempt, a.status, a.text])).toEqual([
      [1, "cancelled", "Half a"],
      [2, "failed", ""],
    ]);
    expect(attemptLine(view.attempts[0]!, (s) => s)).toBe("Attempt 1: cancelled (by you)");
    expect(attemptLine(view.attempts[1]!, (s) => s)).toBe("Attempt 2: failed — The agent went away");
    // A reason that only repeats the status is not said twice.
    expect(attemptLine({ ...view.attempts[0]!, reason: "cancelled" }, (s) => s)).toBe("Attempt 1: cancelled");
    // An attempt without events yet is waiting.
    expect(currentAttempt(view, 3)).toMatchObject({ attempt: 3, status: "queued", text: "" });
  });

  it("counts an event seen again once, and picks up where it left off", () => {
    const all = events({ kind: "text", delta: "a" }, { kind: "text", delta: "b" }, { kind: "text", delta: "c" });
    const first = foldEvents(all.slice(0, 2));
    const again = foldEvents(all, first);
    expect(currentAttempt(again, 1).text).toBe("abc");
    expect(foldEvents(all.slice(1, 2), again)).toEqual(again);
  });

  it("records the decision, and a status without a reason clears the previous one", () => {
    const view = foldEvents(
      events({ kind: "status", status: "cancelled", reason: "stop" }, { kind: "status", status: "running" }, { kind: "status", status: "completed" }, { kind: "decision", decision: "rejected", reason: "too short" }),
    );
    expect(view.decision).toEqual({ decision: "rejected", reason: "too short" });
    expect(currentAttempt(view, 1).reason).toBeUndefined();
  });
});
