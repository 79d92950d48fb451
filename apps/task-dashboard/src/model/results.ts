/**
 * A task's structured result as the dashboard shows it: each entry's output read into its own shape (files
 * summed up, a week of days, a note), anything else — another entry, or an output that is not the shape its
 * schema promised — shown as its JSON. Pure, so what a person reads is tested without a browser.
 */
import type { JsonValue } from "@lineup/protocol";

export interface FileSummary {
  readonly name: string;
  readonly lines: number;
  readonly words: number;
  readonly first_line: string;
}

export type ResultView =
  | { readonly kind: "files"; readonly summary: string; readonly files: readonly FileSummary[] }
  | { readonly kind: "week"; readonly days: readonly { readonly day: string; readonly items: readonly string[] }[]; readonly unscheduled: readonly string[] }
  | { readonly kind: "note"; readonly title: string; readonly text: string }
  | { readonly kind: "json"; readonly json: string };

type Obj = { readonly [key: string]: JsonValue };
const isObject = (v: JsonValue | undefined): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const isString = (v: JsonValue | undefined): v is string => typeof v === "string";
const isCount = (v: JsonValue | undefined): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;
const isStrings = (v: JsonValue | undefined): v is string[] => Array.isArray(v) && v.every(isString);

function files(output: Obj): ResultView | undefined {
  const list = output["files"];
  if (!isString(output["summary"]) || !Array.isArray(list)) return undefined;
  const read: FileSummary[] = [];
  for (const f of list) {
    if (!isObject(f) || !isString(f["name"]) || !isCount(f["lines"]) || !isCount(f["words"]) || !isString(f["first_line"])) return undefined;
    read.push({ name: f["name"], lines: f["lines"], words: f["words"], first_line: f["first_line"] });
  }
  return { kind: "files", summary: output["summary"], files: read };
}

function week(output: Obj): ResultView | undefined {
  const days = output["days"];
  const unscheduled = output["unscheduled"];
  if (!Array.isArray(days) || !isStrings(unscheduled)) return undefined;
  const read: { day: string; items: string[] }[] = [];
  for (const d of days) {
    if (!isObject(d) || !isString(d["day"]) || !isStrings(d["items"])) return undefined;
    read.push({ day: d["day"], items: d["items"] });
  }
  return { kind: "week", days: read, unscheduled };
}

function note(output: Obj): ResultView | undefined {
  return isString(output["title"]) && isString(output["text"]) ? { kind: "note", title: output["title"], text: output["text"] } : undefined;
}

const READERS: Readonly<Record<string, (output: Obj) => ResultView | undefined>> = { summarize_files: files, plan_week: week, write_note: note };

/** The view of `output`, the result of a task of `entry`. */
export function resultView(entry: string, output: JsonValue): ResultView {
  const read = isObject(output) ? READERS[entry]?.(output) : undefined;
  return read ?? { kind: "json", json: JSON.stringify(output, null, 2) };
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** One line that says what the result holds, for a collapsed card and the live region. */
export function resultHeadline(view: ResultView): string {
  switch (view.kind) {
    case "files": {
      const words = view.files.reduce((sum, f) => sum + f.words, 0);
      return `${plural(view.files.length, "file")} summed up, ${plural(words, "word")} in all`;
    }
    case "week": {
      const planned = view.days.reduce((sum, d) => sum + d.items.length, 0);
      const busy = view.days.filter((d) => d.items.length > 0).length;
      return `${plural(planned, "item")} over ${plural(busy, "day")}${view.unscheduled.length === 0 ? "" : `, ${view.unscheduled.length} unscheduled`}`;
    }
    case "note":
      return `Note: ${view.title}`;
    case "json":
      return "A result in another shape";
  }
}
