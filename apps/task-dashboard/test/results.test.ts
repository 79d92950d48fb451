/** What a person reads of a result: each entry's output in its own shape, anything else as JSON. */
import { describe, expect, it } from "vitest";
import { resultHeadline, resultView } from "../src/model/results.js";

describe("result rendering", () => {
  it("summarize_files: the summary and one row per file", () => {
    const output = { summary: "Two files, 12 words.", files: [{ name: "a.txt", lines: 2, words: 5, first_line: "Hello" }, { name: "b.md", lines: 1, words: 7, first_line: "# Notes" }] };
    const view = resultView("summarize_files", output);
    expect(view).toEqual({ kind: "files", summary: "Two files, 12 words.", files: output.files });
    expect(resultHeadline(view)).toBe("2 files summed up, 12 words in all");
  });

  it("plan_week: the days in order, and what stays unscheduled", () => {
    const output = { days: [{ day: "Monday", items: ["Call the plumber", "Pay rent"] }, { day: "Tuesday", items: ["Draft the budget"] }, { day: "Wednesday", items: [] }], unscheduled: ["Sort the photos"] };
    const view = resultView("plan_week", output);
    expect(view).toEqual({ kind: "week", days: output.days, unscheduled: ["Sort the photos"] });
    expect(resultHeadline(view)).toBe("3 items over 2 days, 1 unscheduled");
    expect(resultHeadline(resultView("plan_week", { days: [{ day: "Monday", items: ["One"] }], unscheduled: [] }))).toBe("1 item over 1 day");
  });

  it("write_note: a title and its text", () => {
    const view = resultView("write_note", { title: "Tea", text: "Tea is a drink." });
    expect(view).toEqual({ kind: "note", title: "Tea", text: "Tea is a drink." });
    expect(resultHeadline(view)).toBe("Note: Tea");
  });

  it("an output not of its entry's shape, or of another entry, is shown as its JSON — never half read", () => {
    expect(resultView("summarize_files", { summary: "x", files: [{ name: "a", lines: -1, words: 0, first_line: "" }] })).toEqual({ kind: "json", json: expect.stringContaining('"lines": -1') });
    expect(resultView("plan_week", { days: [{ day: "Monday", items: [3] }], unscheduled: [] }).kind).toBe("json");
    expect(resultView("write_note", "just text")).toEqual({ kind: "json", json: '"just text"' });
    expect(resultView("tidy_board", { layout: [] })).toEqual({ kind: "json", json: '{\n  "layout": []\n}' });
    expect(resultHeadline(resultView("other", null))).toBe("A result in another shape");
  });
});
