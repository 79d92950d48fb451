import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emptyBoard, type Board, type Item } from "../src/model/document.js";
import { exportBoardPng, exportBoardPngWithin, exportLayout, type CanvasFactory } from "../src/model/export-png.js";
import { boardBounds, hitItem, itemAt, itemsWithin } from "../src/model/geometry.js";
import { EMPTY_HISTORY, canRedo, canUndo, perform, redo, undo } from "../src/model/history.js";
import { applyAll, applyOperation, insertItems, moveItems } from "../src/model/operations.js";
import { readBoard, writeBoard } from "../src/model/persist.js";
import type { Canvas2D } from "../src/model/render.js";
import { compactSamples, pressureWidth, strokeSegments } from "../src/model/smoothing.js";
import { summarize } from "../src/model/summary.js";
import { shapesToItems, type ShapeSpec } from "../src/model/tool-args.js";

const rect = (id: string, x = 0, y = 0, w = 100, h = 50): Item => ({ id, type: "rect", x, y, w, h, color: "ink", fill: null, width: 2 });
const text = (id: string, t: string, x = 0, y = 0): Item => ({ id, type: "text", x, y, text: t, color: "blue", size: 20 });
const withItems = (...items: Item[]): Board => ({ ...emptyBoard("Plan"), items });

describe("operations", () => {
  it("insert, remove, update and set_title each return an inverse that restores the board", () => {
    const b0 = withItems(rect("a"), rect("b", 200), rect("c", 400));
    const ops = [
      insertItems([text("t", "hello")]),
      { kind: "insert" as const, entries: [{ index: 1, item: rect("x", 50) }] },
      { kind: "remove" as const, ids: ["a", "c"] },
      moveItems(b0, ["b"], 10, -5),
      { kind: "set_title" as const, title: "  New   title " },
      { kind: "replace" as const, board: emptyBoard("Fresh") },
    ];
    for (const op of ops) {
      const applied = applyOperation(b0, op);
      expect(applied.changed).toBe(true);
      expect(applyOperation(applied.board, applied.inverse).board).toEqual(b0);
    }
    expect(applyOperation(b0, ops[1]!).board.items.map((i) => i.id)).toEqual(["a", "x", "b", "c"]);
    expect(applyOperation(b0, ops[4]!).board.title).toBe("New title");
  });

  it("is idempotent by id: re-inserting, re-removing or updating a missing item changes nothing", () => {
    const b = withItems(rect("a"));
    expect(applyOperation(b, insertItems([rect("a", 999)])).changed).toBe(false);
    expect(applyOperation(b, { kind: "remove", ids: ["zzz"] }).changed).toBe(false);
    expect(applyOperation(b, { kind: "update", items: [rect("zzz")] }).changed).toBe(false);
    const once = applyAll(b, [insertItems([rect("n")])]);
    expect(applyAll(once, [insertItems([rect("n")])])).toEqual(once);
  });

  it("moves every kind of item", () => {
    const stroke: Item = { id: "s", type: "stroke", color: "ink", width: 2, points: [0, 0, 0.5, 10, 10, 0.7] };
    const line: Item = { id: "l", type: "line", x1: 0, y1: 0, x2: 5, y2: 5, color: "red", width: 2 };
    const moved = applyOperation(withItems(stroke, line, text("t", "x")), moveItems(withItems(stroke, line, text("t", "x")), ["s", "l", "t"], 3, 4)).board;
    expect(moved.items[0]).toMatchObject({ points: [3, 4, 0.5, 13, 14, 0.7] });
    expect(moved.items[1]).toMatchObject({ x1: 3, y1: 4, x2: 8, y2: 9 });
    expect(moved.items[2]).toMatchObject({ x: 3, y: 4 });
  });
});

describe("undo and redo", () => {
  it("undoes and redoes in order; a new change clears redo", () => {
    let board = emptyBoard();
    let history = EMPTY_HISTORY;
    for (const id of ["a", "b", "c"]) ({ board, history } = perform(board, history, insertItems([rect(id)])));
    expect(board.items.map((i) => i.id)).toEqual(["a", "b", "c"]);
    ({ board, history } = undo(board, history));
    ({ board, history } = undo(board, history));
    expect(board.items.map((i) => i.id)).toEqual(["a"]);
    expect(canRedo(history)).toBe(true);
    ({ board, history } = redo(board, history));
    expect(board.items.map((i) => i.id)).toEqual(["a", "b"]);
    ({ board, history } = perform(board, history, { kind: "remove", ids: ["a"] }));
    expect(canRedo(history)).toBe(false);
    ({ board } = undo(board, history));
    expect(board.items.map((i) => i.id)).toEqual(["a", "b"]);
    expect(undo(emptyBoard(), EMPTY_HISTORY).applied).toBeUndefined();
  });

  it("a change that changes nothing is not recorded", () => {
    const r = perform(withItems(rect("a")), EMPTY_HISTORY, { kind: "remove", ids: ["nope"] });
    expect(canUndo(r.history)).toBe(false);
  });

  it("undoing everything then redoing everything returns to the same board (property)", () => {
    const opArb = fc.oneof(
      fc.record({ id: fc.constantFrom("a", "b", "c", "d"), x: fc.integer({ min: -50, max: 50 }) }).map(({ id, x }) => insertItems([rect(id, x)])),
      fc.subarray(["a", "b", "c", "d"]).map((ids) => ({ kind: "remove" as const, ids })),
      fc.record({ dx: fc.integer({ min: -9, max: 9 }), ids: fc.subarray(["a", "b", "c", "d"]) }).map(({ dx, ids }) => ({ kind: "move" as const, dx, ids })),
      fc.string({ minLength: 1, maxLength: 8 }).map((title) => ({ kind: "set_title" as const, title })),
    );
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 25 }), (ops) => {
        let board = withItems(rect("a"));
        const start = board;
        let history = EMPTY_HISTORY;
        for (const op of ops) {
          const real = op.kind === "move" ? moveItems(board, op.ids, op.dx, 0) : op;
          ({ board, history } = perform(board, history, real));
        }
        const end = board;
        while (canUndo(history)) ({ board, history } = undo(board, history));
        expect(board).toEqual(start);
        while (canRedo(history)) ({ board, history } = redo(board, history));
        expect(board).toEqual(end);
      }),
      { numRuns: 300 },
    );
  });
});

describe("stroke smoothing", () => {
  const samples = (pts: [number, number, number][]) => pts.map(([x, y, pressure]) => ({ x, y, pressure }));

  it("curves pass through the first and last sample and are continuous, with midpoints as joints", () => {
    const points = compactSamples(samples([[0, 0, 0.5], [10, 0, 0.5], [20, 10, 0.5], [30, 10, 0.5], [40, 0, 0.5]]));
    const segs = strokeSegments(points, 4);
    expect(segs).toHaveLength(3);
    expect(segs[0]!.from).toEqual([0, 0]);
    expect(segs[segs.length - 1]!.to).toEqual([40, 0]);
    for (let i = 1; i < segs.length; i++) expect(segs[i]!.from).toEqual(segs[i - 1]!.to);
    expect(segs[0]!.control).toEqual([10, 0]);
    expect(segs[0]!.to).toEqual([15, 5]);
  });

  it("width follows pressure; no-pressure devices draw like a mouse", () => {
    const segs = strokeSegments([0, 0, 0.1, 10, 0, 0.1, 20, 0, 1, 30, 0, 1], 4);
    expect(segs[0]!.width).toBeCloseTo(pressureWidth(4, 0.1));
    expect(segs[1]!.width).toBeCloseTo(6);
    expect(segs[0]!.width).toBeLessThan(segs[1]!.width);
    expect(pressureWidth(4, 0)).toBe(4);
  });

  it("thins jitter but keeps the end, rounds to 0.1 unit", () => {
    const raw = samples([[0, 0, 0.5], [0.2, 0.1, 0.5], [0.4, 0.2, 0.5], [5.04, 5.01, 0.5], [5.3, 5.2, 0.456]]);
    expect(compactSamples(raw)).toEqual([0, 0, 0.5, 5.3, 5.2, 0.46]);
    expect(compactSamples(samples([[1, 1, 0]]))).toEqual([1, 1, 0.5]);
    expect(strokeSegments([1, 1, 0.5], 2)).toHaveLength(1);
  });
});

describe("geometry", () => {
  it("hit tests outlines, filled shapes, lines and text; finds the topmost item", () => {
    const outline = rect("o", 0, 0, 100, 100);
    expect(hitItem(outline, 50, 50)).toBe(false);
    expect(hitItem(outline, 2, 50)).toBe(true);
    expect(hitItem({ ...outline, fill: "yellow" } as Item, 50, 50)).toBe(true);
    expect(hitItem({ id: "l", type: "line", x1: 0, y1: 0, x2: 100, y2: 100, color: "ink", width: 2 }, 50, 52)).toBe(true);
    const b = withItems({ ...rect("under", 0, 0, 100, 100), fill: "red" } as Item, { ...rect("over", 0, 0, 100, 100), fill: "blue" } as Item);
    expect(itemAt(b, 50, 50)?.id).toBe("over");
    expect(itemAt(b, 500, 500)).toBeUndefined();
    expect(itemsWithin(b, { x: -10, y: -10, w: 200, h: 200 }).map((i) => i.id)).toEqual(["under", "over"]);
  });

  it("bounds include every item; an empty board has none", () => {
    expect(boardBounds(emptyBoard())).toBeNull();
    expect(boardBounds(withItems(rect("a", 10, 20, 30, 40), rect("b", -5, 0, 10, 10)))).toEqual({ x: -5, y: 0, w: 45, h: 60 });
  });
});

describe("summary", () => {
  it("counts kinds, reports the bounding box and all text top to bottom", () => {
    const board = withItems(
      text("t2", "second", 0, 100),
      { ...rect("r", 0, 0, 100, 40), label: "first" } as Item,
      { id: "s", type: "stroke", color: "ink", width: 2, points: [0, 0, 0.5, 10, 10, 0.5] },
      { id: "a", type: "arrow", x1: 0, y1: 200, x2: 100, y2: 200, color: "ink", width: 2, label: "third" },
    );
    const s = summarize(board);
    expect(s.title).toBe("Plan");
    expect(s.item_count).toBe(4);
    expect(s.counts).toEqual({ stroke: 1, rect: 1, ellipse: 0, line: 0, arrow: 1, text: 1 });
    expect(s.texts).toEqual(["first", "second", "third"]);
    expect(s.bounding_box).toMatchObject({ x: -2, y: -2 });
    expect(summarize(emptyBoard()).bounding_box).toBeNull();
  });
});

describe("shapes from tool arguments", () => {
  it("maps every shape kind to an item with defaults", () => {
    let n = 0;
    const specs: ShapeSpec[] = [
      { type: "rect", x: 10, y: 20, width: 100, height: 50, label: "Box", fill: "yellow" },
      { type: "ellipse", x: 0, y: 0, width: 10, height: 10, color: "#ff0000" },
      { type: "arrow", x1: 0, y1: 0, x2: 50.123, y2: 0, stroke_width: 3 },
      { type: "text", x: 5, y: 5, text: "Hello" },
      { type: "stroke", points: [[0, 0], [10, 10]], color: "green" },
    ];
    const items = shapesToItems(specs, () => `id${++n}`);
    expect(items.map((i) => i.id)).toEqual(["id1", "id2", "id3", "id4", "id5"]);
    expect(items[0]).toEqual({ id: "id1", type: "rect", x: 10, y: 20, w: 100, h: 50, color: "ink", fill: "yellow", width: 2, label: "Box" });
    expect(items[2]).toMatchObject({ type: "arrow", x2: 50.1, width: 3 });
    expect(items[3]).toMatchObject({ type: "text", size: 20, color: "ink" });
    expect(items[4]).toMatchObject({ type: "stroke", points: [0, 0, 0.5, 10, 10, 0.5], width: 3 });
  });
});

describe("persistence", () => {
  it("round-trips a board; null is an empty board; bad items are dropped, a v0 board migrated", () => {
    const board = withItems(rect("a"), text("t", "hi"));
    const back = readBoard(JSON.parse(JSON.stringify(writeBoard(board))) as Record<string, unknown>);
    expect(back).toEqual({ ok: true, board, dropped: 0 });
    expect(readBoard(null)).toMatchObject({ ok: true, board: { items: [] } });
    const messy = readBoard({ format: "lineup.whiteboard.v1", title: "x", items: [rect("a"), { id: "b", type: "blob" }, rect("a"), { ...rect("c"), color: "url(x)" }] });
    expect(messy).toMatchObject({ ok: true, dropped: 3 });
    expect(readBoard({ format: "lineup.whiteboard.v0", title: "old", shapes: [rect("z")] })).toMatchObject({ ok: true, board: { title: "old", items: [{ id: "z" }] } });
    expect(readBoard({ format: "lineup.whiteboard.v9", items: [] })).toMatchObject({ ok: false });
  });
});

/** A 2D context that records what is drawn. */
function recordingCanvas(calls: string[]): CanvasFactory {
  return (width, height) => {
    calls.push(`canvas ${width}x${height}`);
    const ctx = new Proxy({} as Record<string, unknown>, {
      get: (target, key: string) => (key in target ? target[key] : (...args: unknown[]) => void calls.push(`${key}(${args.map((a) => (typeof a === "number" ? Math.round(a) : String(a))).join(",")})`)),
      set: (target, key: string, value) => {
        target[key] = value;
        return true;
      },
    }) as unknown as Canvas2D;
    return { context: ctx, encodePng: async () => "iVBORw0KGgo=" };
  };
}

describe("export to PNG", () => {
  it("fits the content with padding at the requested scale, paints white, draws every item, reports progress", async () => {
    const calls: string[] = [];
    const stages: string[] = [];
    const board = withItems({ ...rect("a", 0, 0, 100, 50), label: "Hi" } as Item, text("t", "Note", 0, 60));
    const png = await exportBoardPng(board, recordingCanvas(calls), { scale: 2, onProgress: (stage) => void stages.push(stage) });
    expect(png.base64).toBe("iVBORw0KGgo=");
    expect(exportLayout(board, { scale: 2 })).toMatchObject({ x: -24, y: -24 });
    expect(calls[0]).toBe(`canvas ${png.width}x${png.height}`);
    expect(png.width).toBe(Math.ceil((100 + 48) * 2));
    expect(png.height).toBe(Math.ceil((85 + 48) * 2));
    expect(calls).toContain(`fillRect(0,0,${png.width},${png.height})`);
    expect(calls).toContain("rect(0,0,100,50)");
    expect(calls.filter((c) => c.startsWith("fillText("))).toEqual(["fillText(Hi,50,25)", "fillText(Note,0,60)"]);
    expect(stages).toEqual(["layout", "render", "encode"]);
  });

  it("steps the scale down until the image fits the bridge, and fails when it never does", async () => {
    const sizes: number[] = [];
    const factory: CanvasFactory = (w, h) => {
      sizes.push(w);
      return { ...recordingCanvas([])(w, h), encodePng: async () => "x".repeat(w * h) };
    };
    const board = withItems(rect("a", 0, 0, 100, 100));
    const png = await exportBoardPngWithin(board, factory, 20_000, { scale: 2 });
    expect(png.width * png.height).toBeLessThanOrEqual(20_000);
    expect(sizes[0]).toBe(296);
    await expect(exportBoardPngWithin(board, factory, 10)).rejects.toThrow(/too large/);
  });
});
