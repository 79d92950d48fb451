/** Bounds and hit testing of board items, in board units. Text extents are estimated (no font metrics in pure code). */
import type { Board, Item } from "./document.js";

export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

/** Average glyph advance as a share of the font size; close enough for hit testing and export margins. */
const GLYPH_ADVANCE = 0.6;
const LINE_HEIGHT = 1.25;

export function textExtent(text: string, size: number): { w: number; h: number } {
  const lines = text.split("\n");
  const longest = Math.max(...lines.map((l) => l.length));
  return { w: longest * size * GLYPH_ADVANCE, h: lines.length * size * LINE_HEIGHT };
}

export function itemBounds(item: Item): Rect {
  switch (item.type) {
    case "stroke": {
      let minX = Infinity;
      let minY = Infinity;
      let maxX = -Infinity;
      let maxY = -Infinity;
      for (let i = 0; i + 2 < item.points.length; i += 3) {
        minX = Math.min(minX, item.points[i]!);
        maxX = Math.max(maxX, item.points[i]!);
        minY = Math.min(minY, item.points[i + 1]!);
        maxY = Math.max(maxY, item.points[i + 1]!);
      }
      if (minX === Infinity) return { x: 0, y: 0, w: 0, h: 0 };
      const pad = item.width * 0.75;
      return { x: minX - pad, y: minY - pad, w: maxX - minX + 2 * pad, h: maxY - minY + 2 * pad };
    }
    case "rect":
    case "ellipse": {
      const x = Math.min(item.x, item.x + item.w);
      const y = Math.min(item.y, item.y + item.h);
      return { x, y, w: Math.abs(item.w), h: Math.abs(item.h) };
    }
    case "line":
    case "arrow": {
      const x = Math.min(item.x1, item.x2);
      const y = Math.min(item.y1, item.y2);
      return { x, y, w: Math.abs(item.x2 - item.x1), h: Math.abs(item.y2 - item.y1) };
    }
    case "text": {
      const { w, h } = textExtent(item.text, item.size);
      return { x: item.x, y: item.y, w, h };
    }
  }
}

export function unionRects(rects: readonly Rect[]): Rect | null {
  if (rects.length === 0) return null;
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const r of rects) {
    minX = Math.min(minX, r.x);
    minY = Math.min(minY, r.y);
    maxX = Math.max(maxX, r.x + r.w);
    maxY = Math.max(maxY, r.y + r.h);
  }
  return { x: minX, y: minY, w: maxX - minX, h: maxY - minY };
}

export function boardBounds(board: Board): Rect | null {
  return unionRects(board.items.map(itemBounds));
}

function distanceToSegment(px: number, py: number, x1: number, y1: number, x2: number, y2: number): number {
  const dx = x2 - x1;
  const dy = y2 - y1;
  const len2 = dx * dx + dy * dy;
  const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((px - x1) * dx + (py - y1) * dy) / len2));
  return Math.hypot(px - (x1 + t * dx), py - (y1 + t * dy));
}

/** Whether a point (within `tolerance`) touches the item: its outline or, when filled, its inside. */
export function hitItem(item: Item, x: number, y: number, tolerance = 6): boolean {
  switch (item.type) {
    case "stroke": {
      const p = item.points;
      if (p.length === 3) return Math.hypot(x - p[0]!, y - p[1]!) <= tolerance + item.width;
      for (let i = 0; i + 5 < p.length; i += 3) {
        if (distanceToSegment(x, y, p[i]!, p[i + 1]!, p[i + 3]!, p[i + 4]!) <= tolerance + item.width / 2) return true;
      }
      return false;
    }
    case "line":
    case "arrow":
      return distanceToSegment(x, y, item.x1, item.y1, item.x2, item.y2) <= tolerance + item.width / 2;
    case "rect": {
      const b = itemBounds(item);
      const inside = x >= b.x - tolerance && x <= b.x + b.w + tolerance && y >= b.y - tolerance && y <= b.y + b.h + tolerance;
      if (!inside) return false;
      if (item.fill !== null || item.label !== undefined) return true;
      const nearEdge = x <= b.x + tolerance || x >= b.x + b.w - tolerance || y <= b.y + tolerance || y >= b.y + b.h - tolerance;
      return nearEdge;
    }
    case "ellipse": {
      const b = itemBounds(item);
      const rx = b.w / 2;
      const ry = b.h / 2;
      if (rx === 0 || ry === 0) return distanceToSegment(x, y, b.x, b.y, b.x + b.w, b.y + b.h) <= tolerance;
      const nx = (x - (b.x + rx)) / rx;
      const ny = (y - (b.y + ry)) / ry;
      const r = Math.hypot(nx, ny);
      if (item.fill !== null || item.label !== undefined) return r <= 1 + tolerance / Math.min(rx, ry);
      return Math.abs(r - 1) * Math.min(rx, ry) <= tolerance;
    }
    case "text": {
      const b = itemBounds(item);
      return x >= b.x - tolerance && x <= b.x + b.w + tolerance && y >= b.y - tolerance && y <= b.y + b.h + tolerance;
    }
  }
}

/** The topmost item under a point, if any. */
export function itemAt(board: Board, x: number, y: number, tolerance?: number): Item | undefined {
  for (let i = board.items.length - 1; i >= 0; i--) {
    const item = board.items[i]!;
    if (hitItem(item, x, y, tolerance)) return item;
  }
  return undefined;
}

/** Items whose bounds lie wholly inside `area` (rubber-band selection). */
export function itemsWithin(board: Board, area: Rect): Item[] {
  const a = { x: Math.min(area.x, area.x + area.w), y: Math.min(area.y, area.y + area.h), w: Math.abs(area.w), h: Math.abs(area.h) };
  return board.items.filter((item) => {
    const b = itemBounds(item);
    return b.x >= a.x && b.y >= a.y && b.x + b.w <= a.x + a.w && b.y + b.h <= a.y + a.h;
  });
}
