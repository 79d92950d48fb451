/** What `board.summary` tells an agent: counts by kind, the title, the bounding box and every piece of text on the board. */
import { ITEM_TYPES, type Board, type ItemType } from "./document.js";
import { boardBounds } from "./geometry.js";

export type BoardSummary = {
  title: string;
  item_count: number;
  counts: Record<ItemType, number>;
  /** Smallest rectangle holding every item, rounded outward to whole units; null for an empty board. */
  bounding_box: { x: number; y: number; width: number; height: number } | null;
  /** Text items and shape labels in reading order (by their middle: top to bottom, then left to right). */
  texts: string[];
};

export function summarize(board: Board): BoardSummary {
  const counts = Object.fromEntries(ITEM_TYPES.map((t) => [t, 0])) as Record<ItemType, number>;
  for (const item of board.items) counts[item.type] += 1;
  const bounds = boardBounds(board);
  const placed: { text: string; x: number; y: number }[] = [];
  for (const item of board.items) {
    // Reading order of where each text sits: its middle line, then left to right.
    if (item.type === "text") placed.push({ text: item.text, x: item.x, y: item.y + item.size / 2 });
    else if ((item.type === "rect" || item.type === "ellipse") && item.label !== undefined) placed.push({ text: item.label, x: item.x + item.w / 2, y: item.y + item.h / 2 });
    else if ((item.type === "line" || item.type === "arrow") && item.label !== undefined) placed.push({ text: item.label, x: (item.x1 + item.x2) / 2, y: (item.y1 + item.y2) / 2 });
  }
  placed.sort((a, b) => a.y - b.y || a.x - b.x);
  return {
    title: board.title,
    item_count: board.items.length,
    counts,
    bounding_box:
      bounds === null
        ? null
        : (() => {
            const x = Math.floor(bounds.x);
            const y = Math.floor(bounds.y);
            return { x, y, width: Math.ceil(bounds.x + bounds.w) - x, height: Math.ceil(bounds.y + bounds.h) - y };
          })(),
    texts: placed.map((p) => p.text),
  };
}
