/** What each form sends: its entry, title, input and the output schema the agent must meet. */
import { describe, expect, it } from "vitest";
import { AGENT_TASK_LIMITS } from "@lineup/protocol";
import { inputOf, inputProblem, OUTPUT_SCHEMAS, taskRequest } from "../src/entries.js";
import { isTextFile, pickableFiles, sizeText } from "../src/model/files.js";

describe("the forms' requests", () => {
  it("summarize_files sends the picked files as attachments, by id", () => {
    const request = taskRequest({ entry: "summarize_files", files: [{ artifact_id: "a1", name: "notes.txt" }, { artifact_id: "a2", name: "todo.md" }] }, "key-1");
    expect(request).toEqual({ entry: "summarize_files", idempotency_key: "key-1", title: "Summarize 2 files", input: { attachments: [{ artifact_id: "a1" }, { artifact_id: "a2" }] }, output_schema: OUTPUT_SCHEMAS.summarize_files });
    expect(taskRequest({ entry: "summarize_files", files: [{ artifact_id: "a1", name: "notes.txt" }] }, "k").title).toBe("Summarize notes.txt");
  });

  it("plan_week sends one note per line, blank lines dropped", () => {
    const request = taskRequest({ entry: "plan_week", text: "  Call the plumber \n\n?Sort photos\r\nPay rent\n" }, "k");
    expect(request.input).toEqual({ text: "Call the plumber\n?Sort photos\nPay rent" });
    expect(request.title).toBe("Plan my week from 3 notes");
  });

  it("write_note sends the topic on one line; a long topic's title is cut", () => {
    const request = taskRequest({ entry: "write_note", text: "  spring\n garden " }, "k");
    expect(request).toMatchObject({ entry: "write_note", title: "Write a note about spring garden", input: { text: "spring garden" } });
    const long = taskRequest({ entry: "write_note", text: "x".repeat(400) }, "k");
    expect(long.title!.length).toBe(200);
  });

  it("says what is missing or too much before anything is sent", () => {
    expect(inputProblem({ entry: "summarize_files", files: [] })).toBe("Pick at least one file.");
    expect(inputProblem({ entry: "summarize_files", files: Array.from({ length: AGENT_TASK_LIMITS.refs + 1 }, (_, i) => ({ artifact_id: `a${i}`, name: "f" })) })).toMatch(/at most 16 files/);
    expect(inputProblem({ entry: "plan_week", text: " \n \n" })).toBe("Write at least one note.");
    expect(inputProblem({ entry: "write_note", text: "   " })).toBe("Name a topic.");
    expect(inputProblem({ entry: "write_note", text: "y".repeat(AGENT_TASK_LIMITS.text + 1) })).toMatch(/at most 16384/);
    expect(inputProblem({ entry: "write_note", text: "tea" })).toBeUndefined();
  });

  it("the output schemas are closed objects the contract describes", () => {
    expect(OUTPUT_SCHEMAS.write_note).toEqual({ type: "object", required: ["title", "text"], additionalProperties: false, properties: { title: { type: "string" }, text: { type: "string" } } });
    expect(OUTPUT_SCHEMAS.plan_week["required"]).toEqual(["days", "unscheduled"]);
    expect(OUTPUT_SCHEMAS.summarize_files["required"]).toEqual(["summary", "files"]);
  });

  it("an editor starts from the task's input: its text, or its files by name", () => {
    expect(inputOf("plan_week", { text: "a\nb" })).toEqual({ entry: "plan_week", text: "a\nb" });
    expect(inputOf("summarize_files", { attachments: [{ artifact_id: "a1" }, { artifact_id: "gone" }] }, new Map([["a1", "notes.txt"]]))).toEqual({
      entry: "summarize_files",
      files: [
        { artifact_id: "a1", name: "notes.txt" },
        { artifact_id: "gone", name: "gone" },
      ],
    });
  });
});

describe("the conversation's files", () => {
  it("offers text files, newest first", () => {
    const file = (id: string, mime_type: string, created_at: string) => ({ artifact: { artifact_id: id, name: `${id}.x`, mime_type, size: 10 }, created_at });
    const listed = [file("old", "text/plain", "2026-01-01T00:00:00Z"), file("png", "image/png", "2026-01-03T00:00:00Z"), file("new", "text/markdown", "2026-01-02T00:00:00Z"), file("json", "application/json", "2026-01-01T12:00:00Z")];
    expect(pickableFiles(listed).map((f) => f.artifact_id)).toEqual(["new", "json", "old"]);
    expect(isTextFile("text/csv; charset=utf-8")).toBe(true);
    expect(isTextFile("application/pdf")).toBe(false);
    expect([sizeText(1), sizeText(840), sizeText(12_800), sizeText(3_500_000)]).toEqual(["1 byte", "840 bytes", "13 KB", "3.3 MB"]);
  });
});
