/**
 * A person's reading of an agent task's structured result, for the chat's task card: a short list of
 * `label: value` lines instead of raw JSON. Plain values first (a summary, a count), then lists and nested
 * objects, each cut to a few entries with what was left out counted. Never throws on any JSON.
 */
import type { JsonValue } from "@lineup/protocol";

export interface OutputLine {
  /** The field's name for people (`first_line` → `first line`); absent for a result that is a single value or list. */
  readonly label?: string;
  readonly value: string;
  /** The first entries of a list of objects, each on its own line. */
  readonly items?: readonly string[];
}

/** How much of a result a card shows. */
export const OUTPUT_LIMITS = { fields: 8, items: 5, inline: 10, text: 300 } as const;

type Obj = { readonly [key: string]: JsonValue };
const isObject = (value: JsonValue): value is Obj => typeof value === "object" && value !== null && !Array.isArray(value);
const isPlain = (value: JsonValue): boolean => value === null || typeof value !== "object";

const clip = (text: string, max: number = OUTPUT_LIMITS.text): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const labelOf = (key: string): string => key.replace(/[_-]+/g, " ").trim() || key;
const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

function plain(value: JsonValue): string {
  if (value === null) return "—";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return clip(value);
  return Array.isArray(value) ? plural(value.length, "item") : plural(Object.keys(value).length, "field");
}

/** An object on one line: its plain fields as `key: value`, the others as a count. */
function inline(value: Obj): string {
  const entries = Object.entries(value);
  const shown = entries.slice(0, OUTPUT_LIMITS.inline).map(([key, v]) => `${labelOf(key)}: ${isPlain(v) ? clip(plain(v), 80) : plain(v)}`);
  const more = entries.length - shown.length;
  return more > 0 ? `${shown.join(" · ")} · … ${more} more` : shown.join(" · ") || "(empty)";
}

/** One value as a line's text and, for a list of objects, its first entries. */
function describeValue(value: JsonValue): { readonly value: string; readonly items?: readonly string[] } {
  if (isPlain(value)) return { value: plain(value) };
  if (isObject(value)) return { value: inline(value) };
  const list = value as readonly JsonValue[];
  if (list.length === 0) return { value: "none" };
  if (list.every(isPlain)) {
    const shown = list.slice(0, OUTPUT_LIMITS.inline).map((v) => clip(plain(v), 80));
    const more = list.length - shown.length;
    return { value: more > 0 ? `${shown.join(", ")}, … ${more} more` : shown.join(", ") };
  }
  const items = list.slice(0, OUTPUT_LIMITS.items).map((v) => (isObject(v) ? inline(v) : Array.isArray(v) ? plural(v.length, "item") : plain(v)));
  const more = list.length - items.length;
  return { value: plural(list.length, "item"), items: more > 0 ? [...items, `… ${more} more`] : items };
}

/** The lines a card shows for `output`. */
export function describeOutput(output: JsonValue): OutputLine[] {
  if (!isObject(output)) return [describeValue(output)];
  const entries = Object.entries(output);
  if (entries.length === 0) return [{ value: "(empty)" }];
  // Plain values first: the summary a person reads before the list it sums up.
  const ordered = [...entries.filter(([, v]) => isPlain(v)), ...entries.filter(([, v]) => !isPlain(v))];
  const lines: OutputLine[] = ordered.slice(0, OUTPUT_LIMITS.fields).map(([key, v]) => ({ label: labelOf(key), ...describeValue(v) }));
  const more = entries.length - lines.length;
  if (more > 0) lines.push({ value: `… ${plural(more, "more field")}` });
  return lines;
}
