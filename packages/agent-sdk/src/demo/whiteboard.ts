/**
 * The demo agent working on the whiteboard with the person, beyond opening it: drawing a diagram of
 * steps the person names ("draw the login flow: Sign in → Check password → Home"), reading the board
 * back ("what's on the whiteboard?") and exporting it as a PNG. No model: steps come from arrows,
 * commas and "then" in the person's words, the layout is a fixed grid, and the replies are built from
 * the tools' results. Pure functions; `demo-agent.ts` makes the calls.
 */
import type { InventoryTool, JsonObject, JsonValue } from "@lineup/protocol";
import type { BoardAction } from "./intents.js";
import { capitalize, escapeMarkdown, kilobytes } from "./text.js";
import { APP_TARGETS, belongsTo, type AppTarget } from "./tool-match.js";

/** The last method segments of each action's tool, most wanted first. */
const ACTION_VERBS: Readonly<Record<BoardAction, readonly string[]>> = {
  draw: ["add_shapes", "draw", "add"],
  read: ["summary", "read", "describe"],
  export: ["export", "export_png"],
};

/** The whiteboard's tool for the action, or undefined when the inventory has none (the verb must match: never `board.create` for "export"). */
export function boardTool(tools: readonly InventoryTool[], action: BoardAction, target: AppTarget = APP_TARGETS.whiteboard): InventoryTool | undefined {
  const verbs = ACTION_VERBS[action];
  let best: InventoryTool | undefined;
  let bestRank = Number.POSITIVE_INFINITY;
  for (const tool of tools) {
    const ours = belongsTo(tool, target);
    const rank = verbs.indexOf(tool.method.slice(tool.method.lastIndexOf(".") + 1));
    if (ours && rank >= 0 && rank < bestRank) {
      best = tool;
      bestRank = rank;
    }
  }
  return best;
}

/** True when the tool takes `{ shapes: [...] }`, the form `diagramShapes` builds. */
export function takesShapes(tool: InventoryTool): boolean {
  const properties = (tool.input_schema as { properties?: Record<string, { type?: unknown }> }).properties;
  return properties?.["shapes"]?.type === "array";
}

export const MAX_STEPS = 8;
const MAX_LABEL = 60;
const ARROWS = /\s*(?:->|→|=>|⇒|-->|—>)\s*/;

/**
 * The steps of a list: "A -> B -> C" (or →, =>), "A, B and C" (commas, with an optional last "and"),
 * "A then B", one per line. At most `MAX_STEPS`, each cut to 60 characters. A phrase without any of
 * these is one step: "sales and marketing" stays whole.
 */
export function splitSteps(text: string): string[] {
  let parts: string[];
  if (ARROWS.test(text)) parts = text.split(ARROWS);
  else if (/[,;\n，、；]/.test(text)) parts = text.split(/\s*(?:[,;\n，、；]\s*(?:and\s+|then\s+)?|\s+and\s+(?=[^,;\n，、；]*$))\s*/i);
  else parts = text.split(/\s+(?:and\s+)?then\s+|然后/i);
  return parts
    .map((p) => p.replace(/^[\s"“'‘]+|[\s"”'’.!?。！？]+$/g, "").replace(/\s+/g, " "))
    .filter((p) => p !== "")
    .slice(0, MAX_STEPS)
    .map((p) => (p.length > MAX_LABEL ? `${p.slice(0, MAX_LABEL - 1)}…` : p));
}

export interface DiagramRequest {
  /** What the diagram is of ("login flow"), when the person said. */
  readonly topic?: string;
  /** The steps, when the person listed at least two (else empty: ask for them). */
  readonly steps: readonly string[];
}

/** The request words before a list: "draw a diagram of", "sketch me the flow chart for", "画一个流程图". */
const REQUEST_WORDS = /^.*?(?:\b(?:draw|sketch)\b|画)\s*(?:(?:a|an|the|me|一个|个)\s*)*(?:(?:(?:diagram|flow\s*chart|flowchart|flow|chart)\b|流程图|示意图|图)\s*)?(?:(?:of|for|with|about)\s+)?(?:(?:the|steps|boxes)\b\s*)*/i;

/**
 * What to draw, from "draw a diagram of the login flow: Sign in -> Check password -> Home",
 * "draw Sign in → Verify → Home", "draw a flow with plan, build and ship", "画流程图：登录→验证→首页",
 * or just "draw a diagram of the login flow" (a topic, no steps: the agent asks for them).
 */
export function diagramRequest(text: string): DiagramRequest {
  const colon = text.search(/[:：]/);
  const head = colon < 0 ? text : text.slice(0, colon);
  const list = colon < 0 ? text.replace(REQUEST_WORDS, "") : text.slice(colon + 1);
  const steps = splitSteps(list);
  if (colon < 0 && steps.length >= 2) return { steps };
  // The topic is what is left of the request without its request words: "the login flow", "release flow".
  const topic = head
    .replace(REQUEST_WORDS, "")
    .replace(/^(?:(?:the|a|an|my|our)\s+)+/i, "")
    .replace(/\s*(?:diagram|flow\s*chart|chart)$/i, "")
    .replace(/[.!?。！？]+$/, "")
    .trim()
    .slice(0, 60);
  return { ...(topic === "" ? {} : { topic }), steps: steps.length >= 2 ? steps : [] };
}

const BOX_H = 64;
const MIN_BOX_W = 160;
const GAP_X = 56;
const GAP_Y = 72;
/** Board units per character of a box label (the whiteboard draws it at a third of the box's height, ~21 units) and the box's side padding. */
const CHAR_W = 12;
const PAD_X = 24;
const LINE_CHARS = 14;
const MAX_LINE_CHARS = 24;

/** A label in at most two lines of about `LINE_CHARS` characters (wider when it needs it), broken between words. */
export function wrapLabel(label: string): string[] {
  const wrap = (width: number): string[] => {
    const lines: string[] = [];
    for (const word of label.split(" ")) {
      const last = lines.at(-1);
      if (last !== undefined && last.length + 1 + word.length <= width) lines[lines.length - 1] = `${last} ${word}`;
      else for (let i = 0; i < word.length; i += width) lines.push(word.slice(i, i + width));
    }
    return lines;
  };
  let lines = wrap(LINE_CHARS);
  if (lines.length > 2) lines = wrap(Math.min(MAX_LINE_CHARS, Math.ceil(label.length / 2) + 2));
  return lines.length <= 2 ? lines : [lines[0]!, `${lines.slice(1).join(" ").slice(0, MAX_LINE_CHARS - 1).trimEnd()}…`];
}

/**
 * A left-to-right flow of labelled boxes joined by arrows, with the topic as a title above; `top` is
 * where it starts (below what is already on the board). Every box has the width of the widest label
 * (labels wrap to two lines), three to a row — two when the boxes are wide — so the flow stays within
 * about 700 units.
 */
export function diagramShapes(steps: readonly string[], topic: string | undefined, top: number): JsonObject[] {
  const labels = steps.map(wrapLabel);
  const boxW = Math.max(MIN_BOX_W, ...labels.flat().map((line) => line.length * CHAR_W + PAD_X));
  const perRow = boxW <= 200 ? 3 : 2;
  const shapes: JsonObject[] = [];
  const left = 40;
  let y = top;
  if (topic !== undefined) {
    shapes.push({ type: "text", x: left, y, text: capitalize(topic), font_size: 24 });
    y += 48;
  }
  const boxAt = (i: number) => ({ x: left + (i % perRow) * (boxW + GAP_X), y: y + Math.floor(i / perRow) * (BOX_H + GAP_Y) });
  labels.forEach((lines, i) => {
    const { x: bx, y: by } = boxAt(i);
    shapes.push({ type: "rect", x: bx, y: by, width: boxW, height: BOX_H, color: "blue", label: lines.join("\n") });
  });
  for (let i = 1; i < steps.length; i++) {
    const from = boxAt(i - 1);
    const to = boxAt(i);
    if (from.y === to.y) shapes.push({ type: "arrow", x1: from.x + boxW, y1: from.y + BOX_H / 2, x2: to.x, y2: to.y + BOX_H / 2 });
    else shapes.push({ type: "arrow", x1: from.x + boxW / 2, y1: from.y + BOX_H, x2: to.x + boxW / 2, y2: to.y });
  }
  return shapes;
}

/**
 * The region the shapes cover, with a margin, in the whiteboard's `focus` state patch form
 * (`{ x, y, width, height }`, board units): what to bring into view once they are drawn. A text's extent is
 * estimated from its length and font size.
 */
export function diagramBounds(shapes: readonly JsonObject[], margin = 24): { x: number; y: number; width: number; height: number } | undefined {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  const add = (x: unknown, y: unknown, w = 0, h = 0): void => {
    if (typeof x !== "number" || typeof y !== "number") return;
    minX = Math.min(minX, x);
    minY = Math.min(minY, y);
    maxX = Math.max(maxX, x + w);
    maxY = Math.max(maxY, y + h);
  };
  for (const shape of shapes) {
    if (shape["type"] === "arrow" || shape["type"] === "line") {
      add(shape["x1"], shape["y1"]);
      add(shape["x2"], shape["y2"]);
    } else if (shape["type"] === "text") {
      const size = typeof shape["font_size"] === "number" ? shape["font_size"] : 20;
      const text = typeof shape["text"] === "string" ? shape["text"] : "";
      add(shape["x"], shape["y"], text.length * size * 0.6, size * 1.4);
    } else {
      add(shape["x"], shape["y"], typeof shape["width"] === "number" ? shape["width"] : 0, typeof shape["height"] === "number" ? shape["height"] : 0);
    }
  }
  if (minX === Infinity) return undefined;
  return { x: Math.round(minX - margin), y: Math.round(minY - margin), width: Math.round(maxX - minX + 2 * margin), height: Math.round(maxY - minY + 2 * margin) };
}

/** Where a new drawing starts: below the board's content (`board.summary`'s bounding box), or near the top of an empty board. */
export function drawingTop(summary: JsonValue | undefined): number {
  const box = record(record(summary)?.["bounding_box"]);
  const y = box?.["y"];
  const height = box?.["height"];
  return typeof y === "number" && typeof height === "number" ? Math.round(y + height + 60) : 60;
}

const KIND_WORDS: Readonly<Record<string, readonly [string, string]>> = {
  rect: ["rectangle", "rectangles"],
  ellipse: ["ellipse", "ellipses"],
  arrow: ["arrow", "arrows"],
  line: ["line", "lines"],
  text: ["text item", "text items"],
  stroke: ["pen stroke", "pen strokes"],
};

/** `board.summary`'s result in words; undefined for a result of another shape. */
export function describeBoard(result: JsonValue): string | undefined {
  const summary = record(result);
  const title = summary?.["title"];
  const count = summary?.["item_count"];
  const counts = record(summary?.["counts"]);
  const texts = summary?.["texts"];
  if (typeof title !== "string" || typeof count !== "number" || counts === undefined || !Array.isArray(texts)) return undefined;
  const name = `**${escapeMarkdown(title.slice(0, 120))}**`;
  if (count === 0) return `The whiteboard ${name} is empty. Draw something, or ask me to *draw a diagram: Plan → Build → Ship*.`;
  // In the kinds' own order (a board's counts may arrive with their keys in any order), then any other kind by name.
  const order = Object.keys(KIND_WORDS);
  const rank = (kind: string): number => (order.includes(kind) ? order.indexOf(kind) : order.length);
  const parts = Object.entries(counts)
    .filter((entry): entry is [string, number] => typeof entry[1] === "number" && entry[1] > 0)
    .sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0))
    .map(([kind, n]) => `${n} ${(KIND_WORDS[kind] ?? [kind, kind])[n === 1 ? 0 : 1]}`);
  const lines = [`The whiteboard ${name} has ${count} ${count === 1 ? "item" : "items"}${parts.length === 0 ? "" : `: ${joinWords(parts)}`}.`];
  const words = texts.filter((t): t is string => typeof t === "string" && t.trim() !== "");
  if (words.length > 0) {
    lines.push("", "Text on it, top to bottom:", "", ...words.slice(0, 20).map((t) => `- ${escapeMarkdown(t.replace(/\s+/g, " ").slice(0, 200))}`));
    if (words.length > 20) lines.push(`- … and ${words.length - 20} more`);
  } else {
    lines.push("", "There is no text on it.");
  }
  return lines.join("\n");
}

/** `board.export`'s result in words; undefined for a result of another shape. */
export function describeExport(result: JsonValue): string | undefined {
  const exported = record(result);
  const artifact = record(exported?.["artifact"]);
  const width = exported?.["width"];
  const height = exported?.["height"];
  const name = artifact?.["name"];
  const size = artifact?.["size"];
  if (typeof width !== "number" || typeof height !== "number" || typeof name !== "string" || typeof size !== "number") return undefined;
  return `Exported the whiteboard as a **${width} × ${height}** PNG (${kilobytes(size)}), saved in this conversation as \`${name.slice(0, 200).replace(/`/g, "")}\`.`;
}

function record(value: JsonValue | undefined): Record<string, JsonValue> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? value : undefined;
}

function joinWords(parts: readonly string[]): string {
  return parts.length <= 1 ? (parts[0] ?? "") : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)!}`;
}
