import { describe, expect, it } from "vitest";
import { LineUpError } from "@lineup/protocol";
import { summarizeWeek } from "../src/demo/tasks.js";

// The demo agent's answer to the journal's "Summarize my week" (its workflow's agent.task step hands it the week's entries).
describe("summarize_week", () => {
  it("names the days, counts the words and lists the moods, in the entries' order", () => {
    const week = summarizeWeek({
      entries: [
        { key: "2026-11-30", value: { title: "Monday", body: "A quiet start", mood: "calm" } },
        { key: "2026-12-02", value: { title: "Wednesday", body: "Busy day at work, many calls", mood: "tired" } },
        { key: "2026-12-03", value: { title: "Thursday", body: "Better", mood: "calm" } },
      ],
    });
    expect(week).toEqual({ summary: "3 entries (2026-11-30 to 2026-12-03), 13 words. Moods: calm, tired.", days: ["2026-11-30", "2026-12-02", "2026-12-03"], words: 13 });
    expect(summarizeWeek({ entries: [{ key: "2026-12-01", value: { title: "One" } }] }).summary).toBe("1 entry (2026-12-01), 1 word.");
    expect(summarizeWeek({ entries: [] }).summary).toBe("Nothing was written this week.");
  });

  it("refuses a context without entries", () => {
    expect(() => summarizeWeek({})).toThrow(LineUpError);
  });
});
