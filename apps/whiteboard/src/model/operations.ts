/**
 * Board operations: every change to a board is one of these, applied by a pure function that also
 * returns its inverse (for undo). Applying is idempotent by item id — inserting an id that exists,
 * removing or updating one that does not, changes nothing — so re-applying local operations on top
 * of a newer remote board (after `revision_conflict`, or when our own write echoes back) is safe.
 */
import { cleanTitle, type Board, type Item } from "./document.js";

export type Operation =
  /** Inserts items; each `index` is its position in the result (ascending), `undefined` appends. */
  | { kind: "insert"; entries: { index?: number; item: Item }[] }
  | { kind: "remove"; ids: string[] }
  /** Replaces items with the same ids. */
  | { kind: "update"; items: Item[] }
  | { kind: "set_title"; title: string }
  /** Replaces the whole board (a new board). */
  | { kind: "replace"; board: Board };

export interface Applied {
  readonly board: Board;
  /** The operation that undoes this one on the resulting board. */
  readonly inverse: Operation;
  /** False when the operation changed nothing (e.g. every id was already there). */
  readonly changed: boolean;
}

export function applyOperation(board: Board, op: Operation): Applied {
  switch (op.kind) {
    case "insert": {
      const items = [...board.items];
      const present = new Set(items.map((i) => i.id));
      const inserted: string[] = [];
      for (const { index, item } of op.entries) {
        if (present.has(item.id)) continue;
        const at = index === undefined ? items.length : Math.max(0, Math.min(items.length, index));
        items.splice(at, 0, item);
        present.add(item.id);
        inserted.push(item.id);
      }
      return { board: { ...board, items }, inverse: { kind: "remove", ids: inserted }, changed: inserted.length > 0 };
    }
    case "remove": {
      const gone = new Set(op.ids);
      const entries: { index: number; item: Item }[] = [];
      board.items.forEach((item, index) => {
        if (gone.has(item.id)) entries.push({ index, item });
      });
      const items = board.items.filter((item) => !gone.has(item.id));
      return { board: { ...board, items }, inverse: { kind: "insert", entries }, changed: entries.length > 0 };
    }
    case "update": {
      const next = new Map(op.items.map((item) => [item.id, item]));
      const before: Item[] = [];
      const items = board.items.map((item) => {
        const replacement = next.get(item.id);
        if (replacement === undefined) return item;
        before.push(item);
        return replacement;
      });
      return { board: { ...board, items }, inverse: { kind: "update", items: before }, changed: before.length > 0 };
    }
    case "set_title": {
      const title = cleanTitle(op.title);
      return { board: { ...board, title }, inverse: { kind: "set_title", title: board.title }, changed: title !== board.title };
    }
    case "replace":
      return { board: op.board, inverse: { kind: "replace", board }, changed: op.board !== board };
  }
}

/** Applies operations in order, ignoring their inverses. */
export function applyAll(board: Board, ops: readonly Operation[]): Board {
  return ops.reduce((b, op) => applyOperation(b, op).board, board);
}

/** Appends new items on top. */
export function insertItems(items: readonly Item[]): Operation {
  return { kind: "insert", entries: items.map((item) => ({ item })) };
}

/** Moves items by `(dx, dy)`: an `update` with the moved copies. */
export function moveItems(board: Board, ids: readonly string[], dx: number, dy: number): Operation {
  const wanted = new Set(ids);
  return { kind: "update", items: board.items.filter((i) => wanted.has(i.id)).map((i) => translateItem(i, dx, dy)) };
}

export function translateItem(item: Item, dx: number, dy: number): Item {
  switch (item.type) {
    case "stroke":
      return { ...item, points: item.points.map((v, i) => (i % 3 === 0 ? v + dx : i % 3 === 1 ? v + dy : v)) };
    case "rect":
    case "ellipse":
    case "text":
      return { ...item, x: item.x + dx, y: item.y + dy };
    case "line":
    case "arrow":
      return { ...item, x1: item.x1 + dx, y1: item.y1 + dy, x2: item.x2 + dx, y2: item.y2 + dy };
  }
}
