/**
 * The board as session data. The stored form is versioned (`format`); reading runs named, ordered
 * migration steps from older formats and refuses what it cannot read, rather than guessing
 * (house style 12). Unknown or malformed items are dropped one by one, so one bad item cannot
 * cost the user the rest of the board.
 */
import { BOARD_FORMAT, cleanTitle, emptyBoard, isColor, ITEM_TYPES, type Board, type Item } from "./document.js";

export type ReadResult = { ok: true; board: Board; dropped: number } | { ok: false; reason: string };

/** Earlier formats, oldest first; each step lifts one format to the next. */
const MIGRATIONS: ReadonlyArray<{ readonly from: string; readonly name: string; readonly step: (data: Record<string, unknown>) => Record<string, unknown> }> = [
  // 0.x boards (pre-release builds) had `shapes` instead of `items`.
  { from: "lineup.whiteboard.v0", name: "rename shapes to items", step: (d) => ({ ...d, format: BOARD_FORMAT, items: d["shapes"] ?? [] }) },
];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const isStr = (v: unknown): v is string => typeof v === "string";

function readItem(raw: unknown): Item | undefined {
  if (!isRecord(raw) || !isStr(raw["id"]) || raw["id"].length === 0 || !ITEM_TYPES.includes(raw["type"] as Item["type"]) || !isColor(raw["color"])) return undefined;
  const label = raw["label"];
  if (label !== undefined && !isStr(label)) return undefined;
  switch (raw["type"]) {
    case "stroke": {
      const points = raw["points"];
      if (!isNum(raw["width"]) || !Array.isArray(points) || points.length === 0 || points.length % 3 !== 0 || !points.every(isNum)) return undefined;
      return { id: raw["id"], type: "stroke", color: raw["color"], width: raw["width"], points };
    }
    case "rect":
    case "ellipse": {
      const { x, y, w, h, width, fill } = raw;
      if (![x, y, w, h, width].every(isNum) || !(fill === null || isColor(fill))) return undefined;
      return { id: raw["id"], type: raw["type"], x: x as number, y: y as number, w: w as number, h: h as number, width: width as number, color: raw["color"], fill: fill as string | null, ...(label === undefined ? {} : { label }) };
    }
    case "line":
    case "arrow": {
      const { x1, y1, x2, y2, width } = raw;
      if (![x1, y1, x2, y2, width].every(isNum)) return undefined;
      return { id: raw["id"], type: raw["type"], x1: x1 as number, y1: y1 as number, x2: x2 as number, y2: y2 as number, width: width as number, color: raw["color"], ...(label === undefined ? {} : { label }) };
    }
    case "text": {
      const { x, y, size, text } = raw;
      if (![x, y, size].every(isNum) || !isStr(text)) return undefined;
      return { id: raw["id"], type: "text", x: x as number, y: y as number, size: size as number, text, color: raw["color"] };
    }
    default:
      return undefined;
  }
}

/** Session data → board. `null` (nothing stored yet) is an empty board. */
export function readBoard(data: Record<string, unknown> | null): ReadResult {
  if (data === null) return { ok: true, board: emptyBoard(), dropped: 0 };
  let current = data;
  for (const migration of MIGRATIONS) if (current["format"] === migration.from) current = migration.step(current);
  if (current["format"] !== BOARD_FORMAT) return { ok: false, reason: `unknown board format ${JSON.stringify(current["format"] ?? null)}` };
  const rawItems = current["items"];
  if (!Array.isArray(rawItems)) return { ok: false, reason: "items is not an array" };
  const items: Item[] = [];
  const seen = new Set<string>();
  for (const raw of rawItems) {
    const item = readItem(raw);
    if (item === undefined || seen.has(item.id)) continue;
    seen.add(item.id);
    items.push(item);
  }
  const title = isStr(current["title"]) ? cleanTitle(current["title"]) : emptyBoard().title;
  return { ok: true, board: { format: BOARD_FORMAT, title, items }, dropped: rawItems.length - items.length };
}

/** Board → session data (the board is already plain JSON). */
export function writeBoard(board: Board): Record<string, unknown> {
  return board as unknown as Record<string, unknown>;
}
