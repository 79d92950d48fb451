/**
 * The demo agent's answers to the tasks the shipped apps ask for (in-app agent tasks): no model, the same
 * input always gives the same output.
 *
 * - `tidy_board` (whiteboard): the board's items in a grid, sorted by label.
 * - `summarize_files` (task-dashboard): lines, words and first line of each attached text file.
 * - `plan_week` (task-dashboard): one note per line, spread over Monday to Friday; `?` lines left unscheduled.
 * - `write_note` (task-dashboard): a short note on a topic, streamed word by word as the turn's text.
 * - `summarize_week` (journal, through its workflow): the days written about, how many words, the moods named.
 *
 * Any other entry is refused `invalid_params`, naming it; so is input an entry cannot use. And when an app
 * rejects a result with a reason, the agent says, once, in the conversation that it understood.
 */
import { LineUpError, OPAQUE_ID_MAX_LENGTH, type ArtifactRef, type JsonObject, type JsonValue } from "@lineup/protocol";
import type { AgentClient, IncomingTurn } from "../agent-client.js";
import type { DiagnosticsSink, Disposable } from "../lifecycle.js";
import { systemClock, type Clock } from "../platform.js";
import type { TaskDecision, TaskTurn } from "../task-turns.js";
import { streamTurnText } from "../turn-text.js";

export interface DemoTaskOptions {
  /** Time between two words of a streamed note, ms. Default 100. */
  readonly noteWordMs?: number;
  readonly clock?: Clock;
  readonly diagnostics?: DiagnosticsSink;
}

/** What a task turn completes with. */
export interface TaskAnswer {
  readonly output: JsonValue;
  readonly text?: string;
}

export const DEMO_TASK_ENTRIES = ["tidy_board", "summarize_files", "plan_week", "write_note", "summarize_week"] as const;

/** Most bytes of one attached file the demo agent reads. */
const MAX_FILE_BYTES = 1_048_576;

/**
 * The answer to the task of `turn`. Rejects `invalid_params` for an entry the demo agent does not know or input
 * it cannot use; rejects with the turn's abort reason once the turn is cancelled (then nothing more is sent).
 */
export async function answerTask(client: AgentClient, turn: IncomingTurn, task: TaskTurn, options: DemoTaskOptions = {}): Promise<TaskAnswer> {
  switch (task.entry) {
    case "tidy_board": {
      const output = tidyBoard(task.context);
      return { output: output as unknown as JsonObject, text: output.summary };
    }
    case "summarize_files": {
      const output = summarizeFiles(await readAttachments(client, turn));
      return { output: output as unknown as JsonObject, text: output.summary };
    }
    case "plan_week": {
      const output = planWeek(turn.input.text ?? "");
      return { output: output as unknown as JsonObject, text: describePlan(output) };
    }
    case "write_note":
      return writeNote(client, turn, options);
    case "summarize_week": {
      const output = summarizeWeek(task.context);
      return { output: output as unknown as JsonObject, text: output.summary };
    }
    default:
      throw new LineUpError("invalid_params", `the demo agent has no task entry "${task.entry}" (it answers ${DEMO_TASK_ENTRIES.join(", ")})`);
  }
}

// --- tidy_board ----------------------------------------------------------------------------------

export interface BoardLayout {
  readonly layout: { readonly id: string; readonly x: number; readonly y: number }[];
  readonly summary: string;
}

interface BoardItem {
  readonly id: string;
  readonly w: number;
  readonly h: number;
  readonly label?: string;
}

const GAP = 24;

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Labelled items first, by label (case folded, then as written), then the others; ties by id. */
function byLabel(a: BoardItem, b: BoardItem): number {
  if (a.label !== undefined && b.label !== undefined) return compare(a.label.toLowerCase(), b.label.toLowerCase()) || compare(a.label, b.label) || compare(a.id, b.id);
  if (a.label !== undefined) return -1;
  if (b.label !== undefined) return 1;
  return compare(a.id, b.id);
}

function boardItems(context: JsonObject | undefined): BoardItem[] {
  const refuse = (path: string, what: string): never => {
    throw new LineUpError("invalid_params", `tidy_board needs ${what}`, { path });
  };
  const board = context?.["board"];
  if (typeof board !== "object" || board === null || Array.isArray(board)) return refuse("/context/board", "context.board: the board's width, height and items");
  const items = board["items"];
  if (!Array.isArray(items)) return refuse("/context/board/items", "context.board.items: an array of items");
  return items.map((item, i): BoardItem => {
    const at = `/context/board/items/${i}`;
    if (typeof item !== "object" || item === null || Array.isArray(item)) return refuse(at, "each item as an object");
    const { id, w, h, label } = item;
    if (typeof id !== "string" || id === "") return refuse(`${at}/id`, "each item's id");
    for (const [name, value] of [["w", w], ["h", h]] as const) {
      if (typeof value !== "number" || !Number.isFinite(value) || value < 0) return refuse(`${at}/${name}`, `each item's ${name} as a number ≥ 0`);
    }
    return typeof label === "string" && label.trim() !== "" ? { id, w: w as number, h: h as number, label } : { id, w: w as number, h: h as number };
  });
}

/**
 * A tidy layout of the board in `context`: items sorted by label (unlabelled ones last, then by id), in a grid of
 * ceil(√n) columns whose cell is the largest item plus a 24-pixel gap, from (24, 24).
 */
export function tidyBoard(context: JsonObject | undefined): BoardLayout {
  const items = boardItems(context).sort(byLabel);
  const columns = items.length === 0 ? 0 : Math.ceil(Math.sqrt(items.length));
  const rows = columns === 0 ? 0 : Math.ceil(items.length / columns);
  const cellWidth = Math.max(0, ...items.map((item) => item.w)) + GAP;
  const cellHeight = Math.max(0, ...items.map((item) => item.h)) + GAP;
  const layout = items.map((item, i) => ({ id: item.id, x: GAP + (i % columns) * cellWidth, y: GAP + Math.floor(i / columns) * cellHeight }));
  return { layout, summary: `Arranged ${items.length} items in a ${columns}×${rows} grid.` };
}

// --- summarize_files -----------------------------------------------------------------------------

export interface FileSummary {
  readonly name: string;
  readonly lines: number;
  readonly words: number;
  readonly first_line: string;
}

export interface FilesSummary {
  readonly summary: string;
  readonly files: FileSummary[];
}

/** A file as read: its text, or undefined when it is not UTF-8 text. */
export interface AttachedFile {
  readonly name: string;
  readonly text: string | undefined;
}

async function readAttachments(client: AgentClient, turn: IncomingTurn): Promise<AttachedFile[]> {
  const attachments: readonly ArtifactRef[] = turn.input.attachments ?? [];
  const files: AttachedFile[] = [];
  for (const [i, ref] of attachments.entries()) {
    await client.updateTurn(turn.sessionId, turn.turnId, { status: "working", label: `Reading ${ref.name}`.slice(0, 200), progress: i / attachments.length });
    const { bytes } = await client.readArtifact(turn.sessionId, ref.artifact_id, { signal: turn.signal, maxBytes: MAX_FILE_BYTES });
    let text: string | undefined;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      text = undefined;
    }
    files.push({ name: ref.name, text });
  }
  return files;
}

const plural = (n: number, word: string, words = `${word}s`): string => `${n} ${n === 1 ? word : words}`;

/** Lines (a last line end ends the last line, it does not start another), words and the first line with text, trimmed. */
function summarizeText(name: string, text: string | undefined): FileSummary {
  if (text === undefined || text === "") return { name, lines: 0, words: 0, first_line: "" };
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.at(-1) === "") lines.pop();
  const words = text.split(/\s+/).filter((word) => word !== "").length;
  const first = lines.find((line) => line.trim() !== "")?.trim() ?? "";
  return { name, lines: lines.length, words, first_line: first.slice(0, 200) };
}

/** Each file's lines, words and first line, and a sentence about them all. */
export function summarizeFiles(files: readonly AttachedFile[]): FilesSummary {
  const summaries = files.map((file) => summarizeText(file.name, file.text));
  if (summaries.length === 0) return { summary: "No files were attached, so there was nothing to summarize.", files: [] };
  const lines = summaries.reduce((n, file) => n + file.lines, 0);
  const words = summaries.reduce((n, file) => n + file.words, 0);
  const longest = summaries.reduce((best, file) => (file.lines > best.lines ? file : best));
  const notText = files.filter((file) => file.text === undefined).length;
  const parts = [`Read ${plural(summaries.length, "file")}: ${plural(lines, "line")} and ${plural(words, "word")} in all.`];
  if (summaries.length > 1 && longest.lines > 0) parts.push(`The longest is ${longest.name} (${plural(longest.lines, "line")}).`);
  if (notText > 0) parts.push(`${notText === 1 ? "One file is" : `${notText} files are`} not text and counted as empty.`);
  return { summary: parts.join(" "), files: summaries };
}

// --- summarize_week ------------------------------------------------------------------------------

export interface WeekSummary {
  readonly summary: string;
  readonly days: string[];
  readonly words: number;
}

/**
 * The week of journal entries in `context.entries` (`[{key, value: {title?, body?, mood?}}]`, as the journal's
 * workflow reads them from its storage): which days, how many words, the moods named.
 */
export function summarizeWeek(context: JsonObject | undefined): WeekSummary {
  const entries = context?.["entries"];
  if (!Array.isArray(entries)) throw new LineUpError("invalid_params", "summarize_week needs context.entries: the week's entries", { path: "/context/entries" });
  const days: string[] = [];
  const moods = new Set<string>();
  let words = 0;
  for (const entry of entries) {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry) || typeof entry["key"] !== "string") continue;
    days.push(entry["key"]);
    const value = entry["value"];
    if (typeof value !== "object" || value === null || Array.isArray(value)) continue;
    for (const part of [value["title"], value["body"]]) if (typeof part === "string") words += part.split(/\s+/).filter((w) => w !== "").length;
    if (typeof value["mood"] === "string" && value["mood"].trim() !== "") moods.add(value["mood"].trim());
  }
  if (days.length === 0) return { summary: "Nothing was written this week.", days, words };
  const moodText = moods.size === 0 ? "" : ` Moods: ${[...moods].join(", ")}.`;
  return { summary: `${plural(days.length, "entry", "entries")} (${days[0]}${days.length > 1 ? ` to ${days.at(-1)}` : ""}), ${plural(words, "word")}.${moodText}`, days, words };
}

// --- plan_week -----------------------------------------------------------------------------------

export const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"] as const;

export interface WeekPlan {
  readonly days: { readonly day: (typeof WEEKDAYS)[number]; readonly items: string[] }[];
  readonly unscheduled: string[];
}

/** One note per line, in order, Monday to Friday and round again; a line starting with "?" is left unscheduled (without it). */
export function planWeek(text: string): WeekPlan {
  const days = WEEKDAYS.map((day) => ({ day, items: [] as string[] }));
  const unscheduled: string[] = [];
  let next = 0;
  for (const raw of text.split(/\r\n|\r|\n/)) {
    const line = raw.trim();
    if (line === "") continue;
    if (line.startsWith("?")) {
      const note = line.slice(1).trim();
      if (note !== "") unscheduled.push(note);
      continue;
    }
    days[next % days.length]!.items.push(line);
    next += 1;
  }
  return { days, unscheduled };
}

function describePlan(plan: WeekPlan): string {
  const scheduled = plan.days.reduce((n, day) => n + day.items.length, 0);
  const rest = plan.unscheduled.length === 0 ? "" : `; ${plan.unscheduled.length} left unscheduled`;
  return `Planned ${plural(scheduled, "note")} from Monday to Friday${rest}.`;
}

// --- write_note ----------------------------------------------------------------------------------

export interface DemoNote {
  readonly title: string;
  readonly text: string;
}

/** A note of about 40 words on `topic` (its text, whitespace folded). */
export function noteAbout(topic: string): DemoNote {
  const subject = topic.replace(/\s+/g, " ").trim().slice(0, 80) || "your week";
  const opening = subject.charAt(0).toUpperCase() + subject.slice(1);
  const text = [
    `${opening} deserves a few quiet minutes.`,
    "Start with what you already know, then write down the one question that matters most.",
    "Pick two small steps you can take this week and name who could help.",
    "Come back on Friday and see what changed.",
  ].join(" ");
  return { title: `A note on ${subject}`.slice(0, 200), text };
}

/** Streams the note word by word as the turn's text, then answers with it; stops at once when the turn is cancelled. */
async function writeNote(client: AgentClient, turn: IncomingTurn, options: DemoTaskOptions): Promise<TaskAnswer> {
  const note = noteAbout(turn.input.text ?? "");
  const clock = options.clock ?? systemClock;
  const wordMs = options.noteWordMs ?? 100;
  const streamed = streamTurnText(client, turn.sessionId, turn.turnId, turn.signal, { intervalMs: wordMs, clock, ...(options.diagnostics === undefined ? {} : { diagnostics: options.diagnostics }) });
  try {
    await client.updateTurn(turn.sessionId, turn.turnId, { status: "working", label: "Writing the note" });
    const words = note.text.split(" ");
    for (const [i, word] of words.entries()) {
      if (i > 0) await pause(wordMs, turn.signal, clock);
      streamed.push(i === 0 ? word : ` ${word}`);
    }
    await streamed.flush();
  } finally {
    streamed.cancel();
  }
  return { output: { title: note.title, text: note.text }, text: note.text };
}

/** Waits `ms`; rejects with the signal's reason as soon as it aborts. */
function pause(ms: number, signal: AbortSignal, clock: Clock): Promise<void> {
  return new Promise((resolve, reject) => {
    const abort = (): void => {
      clock.clearTimeout(timer);
      reject(signal.reason instanceof Error ? signal.reason : new LineUpError("cancelled_by_user", "the turn was cancelled"));
    };
    const timer = clock.setTimeout(() => {
      signal.removeEventListener("abort", abort);
      resolve();
    }, ms);
    if (signal.aborted) abort();
    else signal.addEventListener("abort", abort, { once: true });
  });
}

// --- decisions -----------------------------------------------------------------------------------

/** The id of the agent's acknowledgement of a decision: the log then says it was given, whoever asks again. */
function acknowledgementId(decision: TaskDecision): string | undefined {
  const id = `${decision.envelopeId}.ack`;
  return id.length <= OPAQUE_ID_MAX_LENGTH ? id : undefined;
}

/**
 * Acknowledges, in the conversation, each result an app rejects with a reason ("Understood: …"); an accepted
 * result, or one rejected without a reason, needs no word. `onError` hears an acknowledgement that was not sent.
 */
export function followTaskDecisions(client: AgentClient, onError: (error: unknown) => void = () => undefined): Disposable {
  return client.onTaskDecision((decision) => {
    if (decision.decision !== "rejected" || decision.reason === undefined) return;
    const envelopeId = acknowledgementId(decision);
    client.send(decision.sessionId, { kind: "text", text: `Understood: ${decision.reason.trim()}` }, envelopeId === undefined ? {} : { envelopeId }).catch(onError);
  });
}
