/**
 * The dashboard's three task entries (the manifest's `agent_tasks`), declared once: what each is called,
 * the output schema the agent's result must match, and the request a form's input becomes. Pure: the forms,
 * the edit-and-resubmit editor and the tests all build requests here.
 */
import { AGENT_TASK_LIMITS, type AgentTaskInput, type AgentTaskRequest, type JsonObject } from "@lineup/protocol";

export const ENTRY_IDS = ["summarize_files", "plan_week", "write_note"] as const;
export type EntryId = (typeof ENTRY_IDS)[number];

export const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"] as const;

const STRING = { type: "string" } as const;
const COUNT = { type: "integer", minimum: 0 } as const;
const closedObject = (properties: JsonObject): JsonObject => ({ type: "object", required: Object.keys(properties), additionalProperties: false, properties });

/** What the agent must answer for each entry; the Runtime and the AppServer check the result against it. */
export const OUTPUT_SCHEMAS: Readonly<Record<EntryId, JsonObject>> = {
  summarize_files: closedObject({
    summary: STRING,
    files: { type: "array", items: closedObject({ name: STRING, lines: COUNT, words: COUNT, first_line: STRING }) },
  }),
  plan_week: closedObject({
    days: { type: "array", items: closedObject({ day: { type: "string", enum: [...WEEKDAYS] }, items: { type: "array", items: STRING } }) },
    unscheduled: { type: "array", items: STRING },
  }),
  write_note: closedObject({ title: STRING, text: STRING }),
};

export interface EntryInfo {
  readonly title: string;
  /** What the entry's form asks for, in a person's words. */
  readonly hint: string;
}

export const ENTRIES: Readonly<Record<EntryId, EntryInfo>> = {
  summarize_files: { title: "Summarize files", hint: "Pick text files of this conversation; the agent sums each one up." },
  plan_week: { title: "Plan my week", hint: "One note per line. Start a line with ? when it can wait." },
  write_note: { title: "Write a note", hint: "A topic; the agent writes a short note about it as you watch." },
};

export const isEntryId = (value: string): value is EntryId => (ENTRY_IDS as readonly string[]).includes(value);

/** A file a person may pick: the artifact's id and name. */
export interface PickedFile {
  readonly artifact_id: string;
  readonly name: string;
}

/** What a form holds: files for `summarize_files`, text for the others. */
export type EntryInput = { readonly entry: "summarize_files"; readonly files: readonly PickedFile[] } | { readonly entry: "plan_week" | "write_note"; readonly text: string };

const MAX_TITLE = 200;
const titled = (title: string): string => (title.length <= MAX_TITLE ? title : `${title.slice(0, MAX_TITLE - 1)}…`);
const lines = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length > 0);

/** Why a form's input cannot be sent as it is. */
export type InputProblem =
  | { readonly kind: "no_files" }
  | { readonly kind: "too_many_files"; readonly max: number }
  | { readonly kind: "no_notes" }
  | { readonly kind: "no_topic" }
  | { readonly kind: "too_long"; readonly length: number; readonly max: number };

/** Why the input cannot be sent as it is; undefined when it can. */
export function inputProblemOf(input: EntryInput): InputProblem | undefined {
  if (input.entry === "summarize_files") {
    if (input.files.length === 0) return { kind: "no_files" };
    if (input.files.length > AGENT_TASK_LIMITS.refs) return { kind: "too_many_files", max: AGENT_TASK_LIMITS.refs };
    return undefined;
  }
  const text = input.entry === "plan_week" ? lines(input.text).join("\n") : input.text.trim();
  if (text.length === 0) return { kind: input.entry === "plan_week" ? "no_notes" : "no_topic" };
  if (text.length > AGENT_TASK_LIMITS.text) return { kind: "too_long", length: text.length, max: AGENT_TASK_LIMITS.text };
  return undefined;
}

/** Why the input cannot be sent as it is, in English; undefined when it can. */
export function inputProblem(input: EntryInput): string | undefined {
  const problem = inputProblemOf(input);
  return problem === undefined ? undefined : englishProblem(problem);
}

/** A problem with a form's input, in English. */
export function englishProblem(problem: InputProblem): string {
  switch (problem.kind) {
    case "no_files":
      return "Pick at least one file.";
    case "too_many_files":
      return `Pick at most ${problem.max} files.`;
    case "no_notes":
      return "Write at least one note.";
    case "no_topic":
      return "Name a topic.";
    case "too_long":
      return `That is ${problem.length} characters; at most ${problem.max} can be sent.`;
  }
}

/** The task input of a form: notes one per line (blank lines dropped), a topic trimmed, files by id. */
export function taskInput(input: EntryInput): AgentTaskInput {
  switch (input.entry) {
    case "summarize_files":
      return { attachments: input.files.map((f) => ({ artifact_id: f.artifact_id })) };
    case "plan_week":
      return { text: lines(input.text).join("\n") };
    case "write_note":
      return { text: input.text.trim().replace(/\s+/g, " ") };
  }
}

/** How a task's title is worded: English unless the dashboard speaks another language. */
export interface TitleWords {
  summarizeOne(name: string): string;
  summarizeMany(count: number): string;
  planWeek(notes: number): string;
  writeNote(topic: string): string;
}

export const ENGLISH_TITLES: TitleWords = {
  summarizeOne: (name) => `Summarize ${name}`,
  summarizeMany: (count) => `Summarize ${count} files`,
  planWeek: (count) => `Plan my week from ${count} ${count === 1 ? "note" : "notes"}`,
  writeNote: (topic) => `Write a note about ${topic}`,
};

/** The title the task carries (the chat's card says "Task Dashboard asked the agent: …"). */
export function taskTitle(input: EntryInput, words: TitleWords = ENGLISH_TITLES): string {
  switch (input.entry) {
    case "summarize_files":
      return titled(input.files.length === 1 ? words.summarizeOne(input.files[0]!.name) : words.summarizeMany(input.files.length));
    case "plan_week":
      return words.planWeek(lines(input.text).length);
    case "write_note":
      return titled(words.writeNote(input.text.trim().replace(/\s+/g, " ")));
  }
}

/** The request a form sends: its entry, title, input and output schema, and the submission's idempotency key. */
export function taskRequest(input: EntryInput, idempotencyKey: string, words: TitleWords = ENGLISH_TITLES): AgentTaskRequest {
  return { entry: input.entry, idempotency_key: idempotencyKey, title: taskTitle(input, words), input: taskInput(input), output_schema: OUTPUT_SCHEMAS[input.entry] };
}

/**
 * The form input a task was started with, to edit before a resubmit: its text, or its attachments named as the
 * conversation's files name them (`names`; an attachment no longer listed keeps its id as its name).
 */
export function inputOf(entry: EntryId, input: AgentTaskInput, names: ReadonlyMap<string, string> = new Map()): EntryInput {
  if (entry === "summarize_files") return { entry, files: (input.attachments ?? []).map((a) => ({ artifact_id: a.artifact_id, name: names.get(a.artifact_id) ?? a.artifact_id })) };
  return { entry, text: input.text ?? "" };
}
