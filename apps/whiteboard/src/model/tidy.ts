/**
 * "Ask the agent to tidy this board" as pure steps: the board mapped to the task's context (each item's
 * bounds and label), the layout the agent answers read back, and that layout turned into ONE board
 * operation — an `update` that moves every item it names so its bounds' top-left corner lands where the
 * layout says — so accepting it is one undoable change that syncs like any other edit.
 */
import { AGENT_TASK_LIMITS, utf8ByteLength, type JsonObject, type JsonValue } from "@lineup/protocol";
import { round1, type Board, type Item } from "./document.js";
import { boardBounds, itemBounds } from "./geometry.js";
import { applyOperation, translateItem, type Operation } from "./operations.js";

export const TIDY_ENTRY = "tidy_board";

/** What the agent must answer (the contract's schema for `tidy_board`). */
export const TIDY_OUTPUT_SCHEMA: JsonObject = {
  type: "object",
  required: ["layout", "summary"],
  additionalProperties: false,
  properties: {
    layout: {
      type: "array",
      items: { type: "object", required: ["id", "x", "y"], additionalProperties: false, properties: { id: { type: "string" }, x: { type: "number" }, y: { type: "number" } } },
    },
    summary: { type: "string" },
  },
};

export interface TidyItem {
  readonly id: string;
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
  readonly label?: string;
}

export interface TidyContext {
  readonly board: { readonly width: number; readonly height: number; readonly items: readonly TidyItem[] };
}

/** A label is for sorting and naming, not for the whole text of a note. */
export const MAX_LABEL = 80;

/** What an item is called: a shape's label, a text's first line; strokes and unlabelled shapes have none. */
export function itemLabel(item: Item): string | undefined {
  const raw = item.type === "text" ? item.text.split("\n")[0] : item.type === "stroke" ? undefined : item.label;
  const label = raw?.replace(/\s+/g, " ").trim();
  if (label === undefined || label.length === 0) return undefined;
  return label.length <= MAX_LABEL ? label : `${label.slice(0, MAX_LABEL - 1)}…`;
}

/**
 * The board as the task's context: every item's bounds (board units, 0.1 precision) and label, in drawing
 * order; `width` and `height` reach the right and bottom of what is drawn (at least `minSize`, the frame).
 */
export function tidyContext(board: Board, minSize: { readonly width: number; readonly height: number } = { width: 0, height: 0 }): TidyContext {
  const items = board.items.map((item): TidyItem => {
    const b = itemBounds(item);
    const label = itemLabel(item);
    return { id: item.id, x: round1(b.x), y: round1(b.y), w: round1(b.w), h: round1(b.h), ...(label === undefined ? {} : { label }) };
  });
  const extent = boardBounds(board);
  const width = Math.ceil(Math.max(minSize.width, extent === null ? 0 : extent.x + extent.w));
  const height = Math.ceil(Math.max(minSize.height, extent === null ? 0 : extent.y + extent.h));
  return { board: { width, height, items } };
}

/** Whether the context fits a task request (the Runtime refuses a larger one `payload_too_large`). */
export const contextFits = (context: TidyContext): boolean => utf8ByteLength(JSON.stringify(context)) <= AGENT_TASK_LIMITS.contextBytes;

export interface Placement {
  readonly id: string;
  readonly x: number;
  readonly y: number;
}

export interface TidyResult {
  readonly layout: readonly Placement[];
  readonly summary: string;
}

/** The agent's output read as a layout, or undefined when it is not one (the schema was checked upstream; this is the app's own guard). */
export function readTidyResult(output: JsonValue): TidyResult | undefined {
  if (typeof output !== "object" || output === null || Array.isArray(output)) return undefined;
  const { layout, summary } = output as { layout?: JsonValue; summary?: JsonValue };
  if (!Array.isArray(layout) || typeof summary !== "string") return undefined;
  const placements: Placement[] = [];
  for (const p of layout) {
    if (typeof p !== "object" || p === null || Array.isArray(p)) return undefined;
    const { id, x, y } = p as { id?: JsonValue; x?: JsonValue; y?: JsonValue };
    if (typeof id !== "string" || typeof x !== "number" || typeof y !== "number" || !Number.isFinite(x) || !Number.isFinite(y)) return undefined;
    placements.push({ id, x, y });
  }
  return { layout: placements, summary };
}

/**
 * The one operation that applies `layout` to the board as it is now: each item named moves so its bounds'
 * top-left is at the placement (the first placement of an id counts); items not named, ids no longer on the
 * board and items already in place are left out. Undefined when nothing would move.
 */
export function layoutOperation(board: Board, layout: readonly Placement[]): Extract<Operation, { kind: "update" }> | undefined {
  const wanted = new Map<string, Placement>();
  for (const p of layout) if (!wanted.has(p.id)) wanted.set(p.id, p);
  const moved: Item[] = [];
  for (const item of board.items) {
    const place = wanted.get(item.id);
    if (place === undefined) continue;
    const b = itemBounds(item);
    const dx = round1(place.x - b.x);
    const dy = round1(place.y - b.y);
    if (dx === 0 && dy === 0) continue;
    moved.push(roundPosition(translateItem(item, dx, dy)));
  }
  return moved.length === 0 ? undefined : { kind: "update", items: moved };
}

/** Keeps moved coordinates at the board's 0.1 precision. */
function roundPosition(item: Item): Item {
  switch (item.type) {
    case "stroke":
      return { ...item, points: item.points.map((v, i) => (i % 3 === 2 ? v : round1(v))) };
    case "rect":
    case "ellipse":
    case "text":
      return { ...item, x: round1(item.x), y: round1(item.y) };
    case "line":
    case "arrow":
      return { ...item, x1: round1(item.x1), y1: round1(item.y1), x2: round1(item.x2), y2: round1(item.y2) };
  }
}

export interface LayoutPreview {
  /** How many items the layout moves. */
  readonly moves: number;
  /** Placements for items that are no longer on the board. */
  readonly gone: number;
  /** The board as it would be. */
  readonly board: Board;
}

/** What accepting `layout` would do to the board as it is now. */
export function previewLayout(board: Board, layout: readonly Placement[]): LayoutPreview {
  const present = new Set(board.items.map((i) => i.id));
  const gone = new Set(layout.filter((p) => !present.has(p.id)).map((p) => p.id)).size;
  const op = layoutOperation(board, layout);
  return { moves: op?.items.length ?? 0, gone, board: op === undefined ? board : applyOperation(board, op).board };
}
