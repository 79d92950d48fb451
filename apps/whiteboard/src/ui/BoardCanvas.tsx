/**
 * The drawing surface: one `<canvas>` sized to its box at the device pixel ratio, driven by
 * Pointer Events, so mouse, pen (with pressure) and touch all draw. A gesture is kept as a draft
 * and drawn on top of the board each animation frame; on release it becomes one board operation.
 */
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { round1, type Board, type Item, type ItemType } from "../model/document.js";
import { boardBounds, itemAt, itemBounds, itemsWithin, unionRects, type Rect } from "../model/geometry.js";
import { insertItems, moveItems, translateItem } from "../model/operations.js";
import { drawItem, drawSelection, FONT_STACK, renderBoard, type Canvas2D, type View } from "../model/render.js";
import { compactSamples, type Sample } from "../model/smoothing.js";
import type { BoardStore } from "../store.js";
import type { FocusTarget } from "../view-patch.js";
import type { DrawingTool } from "./tools.js";

export interface BoardCanvasProps {
  readonly store: BoardStore;
  readonly board: Board;
  readonly tool: DrawingTool;
  readonly color: string;
  readonly width: number;
  /** False for a static card: no input, fitted view. */
  readonly interactive: boolean;
  /** Fit the whole board into the box (picture-in-picture, cards). */
  readonly fit: boolean;
  readonly selection: readonly string[];
  readonly onSelect: (ids: string[]) => void;
  /** A region to bring into view (a state patch's `focus`); a new `key` asks again. Applied in the foreground only. */
  readonly focus?: { readonly target: FocusTarget; readonly key: number };
}

type Gesture =
  | { kind: "pen"; samples: Sample[] }
  | { kind: "shape"; type: Exclude<ItemType, "stroke" | "text">; x0: number; y0: number; x1: number; y1: number }
  | { kind: "move"; ids: string[]; x0: number; y0: number; dx: number; dy: number }
  | { kind: "band"; x0: number; y0: number; x1: number; y1: number }
  | { kind: "erase"; ids: Set<string> }
  | { kind: "pan"; sx: number; sy: number; vx: number; vy: number };

interface Editing {
  readonly x: number;
  readonly y: number;
  readonly id?: string;
  readonly text: string;
}

const TEXT_SIZE = 20;

function fitView(board: Board, size: { width: number; height: number }): View {
  return fitRect(boardBounds(board), size);
}

/** The view that shows `bounds` whole and centred, never zoomed in past 1:1. */
function fitRect(bounds: Rect | null, size: { width: number; height: number }): View {
  if (bounds === null || size.width === 0 || size.height === 0) return { scale: 1, x: 0, y: 0 };
  const pad = 16;
  const scale = Math.min(1, (size.width - 2 * pad) / Math.max(1, bounds.w), (size.height - 2 * pad) / Math.max(1, bounds.h));
  const k = Math.max(0.05, scale);
  return { scale: k, x: bounds.x - (size.width / k - bounds.w) / 2, y: bounds.y - (size.height / k - bounds.h) / 2 };
}

function draftItem(g: Gesture, color: string, width: number): Item | undefined {
  if (g.kind === "pen" && g.samples.length > 0) return { id: "draft", type: "stroke", color, width, points: compactSamples(g.samples, 0.75) };
  if (g.kind === "shape") {
    if (g.type === "rect" || g.type === "ellipse") {
      return { id: "draft", type: g.type, x: Math.min(g.x0, g.x1), y: Math.min(g.y0, g.y1), w: Math.abs(g.x1 - g.x0), h: Math.abs(g.y1 - g.y0), color, fill: null, width };
    }
    return { id: "draft", type: g.type, x1: g.x0, y1: g.y0, x2: g.x1, y2: g.y1, color, width };
  }
  return undefined;
}

function cssVar(element: Element, name: string, fallback: string): string {
  const value = getComputedStyle(element).getPropertyValue(name).trim();
  return value.length > 0 ? value : fallback;
}

export function BoardCanvas(props: BoardCanvasProps) {
  const boxRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const gesture = useRef<{ pointerId: number; g: Gesture } | undefined>(undefined);
  const size = useRef({ width: 0, height: 0 });
  const frame = useRef(0);
  // The person's view, or a region the agent asked to show (kept in view as the box resizes, until the person pans or zooms).
  const [pan, setPan] = useState<View | { readonly focus: FocusTarget }>({ scale: 1, x: 0, y: 0 });
  const [editing, setEditingState] = useState<Editing | undefined>(undefined);
  // The text being edited, readable from handlers without waiting for a render (a blur after Enter must not commit twice).
  const editingRef = useRef<Editing | undefined>(undefined);
  const setEditing = (next: Editing | undefined): void => {
    editingRef.current = next;
    setEditingState(next);
  };
  const latest = useRef(props);
  latest.current = props;
  const panRef = useRef(pan);
  panRef.current = pan;

  /** The foreground view now. */
  const current = (): View => {
    const p = panRef.current;
    if (!("focus" in p)) return p;
    return p.focus === "all" ? fitView(latest.current.board, size.current) : fitRect(p.focus, size.current);
  };
  const view = (): View => (latest.current.fit ? fitView(latest.current.board, size.current) : current());

  const draw = (): void => {
    frame.current = 0;
    const canvas = canvasRef.current;
    const box = boxRef.current;
    if (canvas === null || box === null) return;
    const ctx = canvas.getContext("2d") as unknown as Canvas2D | null;
    if (ctx === null) return;
    const { board, color, width, selection } = latest.current;
    const ink = cssVar(box, "--wb-ink", "#1f2328");
    const accent = cssVar(box, "--wb-accent", "#0969da");
    const v = view();
    const dpr = globalThis.devicePixelRatio || 1;
    // Cleared in canvas pixels: the context still has the previous frame's view transform, under which
    // (zoomed out, or panned) the clear would miss part of the canvas and leave that frame's pixels.
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    (ctx as unknown as CanvasRenderingContext2D).clearRect(0, 0, canvas.width, canvas.height);
    const g = gesture.current?.g;
    let shown = board;
    if (g?.kind === "move") {
      const moving = new Set(g.ids);
      shown = { ...board, items: board.items.map((i) => (moving.has(i.id) ? translateItem(i, g.dx, g.dy) : i)) };
    } else if (g?.kind === "erase") {
      shown = { ...board, items: board.items.filter((i) => !g.ids.has(i.id)) };
    }
    if (editing?.id !== undefined) shown = { ...shown, items: shown.items.filter((i) => i.id !== editing.id) };
    const style = { ink, background: null, font: FONT_STACK };
    renderBoard(ctx, shown, style, v, size.current, dpr);
    const draft = g === undefined ? undefined : draftItem(g, color, width);
    if (draft !== undefined) drawItem(ctx, draft, style);
    const selected = shown.items.filter((i) => selection.includes(i.id));
    const box2 = unionRects(selected.map(itemBounds));
    if (box2 !== null && latest.current.interactive) drawSelection(ctx, box2, accent, v.scale);
    if (g?.kind === "band") drawSelection(ctx, { x: Math.min(g.x0, g.x1), y: Math.min(g.y0, g.y1), w: Math.abs(g.x1 - g.x0), h: Math.abs(g.y1 - g.y0) }, accent, v.scale);
  };

  const schedule = (): void => {
    if (frame.current === 0) frame.current = requestAnimationFrame(draw);
  };

  useLayoutEffect(() => {
    const box = boxRef.current;
    const canvas = canvasRef.current;
    if (box === null || canvas === null) return;
    const observer = new ResizeObserver(() => {
      const r = box.getBoundingClientRect();
      const dpr = globalThis.devicePixelRatio || 1;
      size.current = { width: r.width, height: r.height };
      canvas.width = Math.max(1, Math.round(r.width * dpr));
      canvas.height = Math.max(1, Math.round(r.height * dpr));
      canvas.style.width = `${r.width}px`;
      canvas.style.height = `${r.height}px`;
      schedule();
    });
    observer.observe(box);
    return () => observer.disconnect();
  }, []);

  useEffect(schedule);

  // A focus request becomes the view (in picture-in-picture it shows once the board is back in front).
  useEffect(() => {
    if (props.focus !== undefined) setPan({ focus: props.focus.target });
  }, [props.focus?.key]);

  const toBoard = (e: PointerEvent | MouseEvent): { x: number; y: number } => {
    const r = canvasRef.current!.getBoundingClientRect();
    const v = view();
    return { x: (e.clientX - r.left) / v.scale + v.x, y: (e.clientY - r.top) / v.scale + v.y };
  };

  const sample = (e: PointerEvent): Sample => {
    const p = toBoard(e);
    // Touch screens report a constant pressure; treat them like a mouse.
    return { x: p.x, y: p.y, pressure: e.pointerType === "pen" ? e.pressure : 0.5 };
  };

  const commitText = (text: string): void => {
    const edit = editingRef.current;
    if (edit === undefined) return;
    editingRef.current = undefined;
    const { store } = latest.current;
    const trimmed = text.replace(/\s+$/, "");
    const existing = edit.id === undefined ? undefined : store.board.items.find((i) => i.id === edit.id);
    if (existing?.type === "text") {
      if (trimmed.length === 0) store.perform({ kind: "remove", ids: [existing.id] });
      else if (trimmed !== existing.text) store.perform({ kind: "update", items: [{ ...existing, text: trimmed }] });
    } else if (trimmed.length > 0) {
      store.perform(insertItems([{ id: store.newId(), type: "text", x: round1(edit.x), y: round1(edit.y), text: trimmed, color: latest.current.color, size: TEXT_SIZE }]));
    }
    setEditing(undefined);
  };

  const onPointerDown = (e: PointerEvent): void => {
    const { interactive, tool, board, selection, onSelect } = latest.current;
    if (!interactive || gesture.current !== undefined) return;
    if (e.pointerType === "mouse" && e.button !== 0 && e.button !== 1) return;
    const p = toBoard(e);
    (e.currentTarget as Element).setPointerCapture(e.pointerId);
    e.preventDefault();
    let g: Gesture | undefined;
    if (e.button === 1 || (e.pointerType === "mouse" && e.altKey)) {
      const v = current();
      g = { kind: "pan", sx: e.clientX, sy: e.clientY, vx: v.x, vy: v.y };
    } else if (tool === "pen") {
      g = { kind: "pen", samples: [sample(e)] };
    } else if (tool === "rect" || tool === "ellipse" || tool === "line" || tool === "arrow") {
      g = { kind: "shape", type: tool, x0: p.x, y0: p.y, x1: p.x, y1: p.y };
    } else if (tool === "eraser") {
      const hit = itemAt(board, p.x, p.y, 8 / view().scale);
      g = { kind: "erase", ids: new Set(hit === undefined ? [] : [hit.id]) };
    } else if (tool === "text") {
      const hit = itemAt(board, p.x, p.y);
      if (hit?.type === "text") setEditing({ x: hit.x, y: hit.y, id: hit.id, text: hit.text });
      else setEditing({ x: p.x, y: p.y, text: "" });
      return;
    } else {
      const hit = itemAt(board, p.x, p.y, 6 / view().scale);
      if (hit === undefined) {
        if (!e.shiftKey) onSelect([]);
        g = { kind: "band", x0: p.x, y0: p.y, x1: p.x, y1: p.y };
      } else {
        const ids = selection.includes(hit.id) ? [...selection] : e.shiftKey ? [...selection, hit.id] : [hit.id];
        onSelect(ids);
        g = { kind: "move", ids, x0: p.x, y0: p.y, dx: 0, dy: 0 };
      }
    }
    gesture.current = { pointerId: e.pointerId, g };
    schedule();
  };

  const onPointerMove = (e: PointerEvent): void => {
    const active = gesture.current;
    if (active === undefined || active.pointerId !== e.pointerId) return;
    const g = active.g;
    const p = toBoard(e);
    switch (g.kind) {
      case "pen": {
        const events = typeof e.getCoalescedEvents === "function" ? e.getCoalescedEvents() : [];
        for (const c of events.length > 0 ? events : [e]) g.samples.push(sample(c));
        break;
      }
      case "shape":
      case "band":
        g.x1 = p.x;
        g.y1 = p.y;
        if (g.kind === "shape" && e.shiftKey && (g.type === "rect" || g.type === "ellipse")) {
          const side = Math.max(Math.abs(g.x1 - g.x0), Math.abs(g.y1 - g.y0));
          g.x1 = g.x0 + Math.sign(g.x1 - g.x0 || 1) * side;
          g.y1 = g.y0 + Math.sign(g.y1 - g.y0 || 1) * side;
        }
        break;
      case "move":
        g.dx = p.x - g.x0;
        g.dy = p.y - g.y0;
        break;
      case "erase": {
        const hit = itemAt(latest.current.board, p.x, p.y, 8 / view().scale);
        if (hit !== undefined) g.ids.add(hit.id);
        break;
      }
      case "pan": {
        const k = current().scale;
        setPan({ scale: k, x: g.vx - (e.clientX - g.sx) / k, y: g.vy - (e.clientY - g.sy) / k });
        break;
      }
    }
    schedule();
  };

  const finish = (e: PointerEvent, cancelled: boolean): void => {
    const active = gesture.current;
    if (active === undefined || active.pointerId !== e.pointerId) return;
    gesture.current = undefined;
    const { store, color, width, board, onSelect } = latest.current;
    const g = active.g;
    if (!cancelled) {
      if (g.kind === "pen" && g.samples.length > 0) {
        store.perform(insertItems([{ id: store.newId(), type: "stroke", color, width, points: compactSamples(g.samples) }]));
      } else if (g.kind === "shape") {
        const draft = draftItem(g, color, width);
        const big = Math.hypot(g.x1 - g.x0, g.y1 - g.y0) >= 4;
        if (draft !== undefined && big) {
          const item = { ...draft, id: store.newId() } as Item;
          store.perform(insertItems([roundItem(item)]));
        }
      } else if (g.kind === "move" && (g.dx !== 0 || g.dy !== 0)) {
        store.perform(moveItems(board, g.ids, round1(g.dx), round1(g.dy)));
      } else if (g.kind === "band") {
        const area: Rect = { x: g.x0, y: g.y0, w: g.x1 - g.x0, h: g.y1 - g.y0 };
        onSelect(itemsWithin(board, area).map((i) => i.id));
      } else if (g.kind === "erase" && g.ids.size > 0) {
        store.perform({ kind: "remove", ids: [...g.ids] });
      }
    }
    schedule();
  };

  const onWheel = (e: WheelEvent): void => {
    if (!latest.current.interactive || latest.current.fit) return;
    e.preventDefault();
    const v = current();
    if (e.ctrlKey || e.metaKey) {
      const p = toBoard(e);
      const scale = Math.min(4, Math.max(0.25, v.scale * Math.exp(-e.deltaY / 300)));
      const r = canvasRef.current!.getBoundingClientRect();
      setPan({ scale, x: p.x - (e.clientX - r.left) / scale, y: p.y - (e.clientY - r.top) / scale });
    } else {
      setPan({ scale: v.scale, x: v.x + e.deltaX / v.scale, y: v.y + e.deltaY / v.scale });
    }
  };

  useEffect(() => {
    const canvas = canvasRef.current;
    if (canvas === null) return;
    // Registered by hand: a passive wheel listener could not stop the page from scrolling.
    canvas.addEventListener("wheel", onWheel, { passive: false });
    return () => canvas.removeEventListener("wheel", onWheel);
  }, []);

  const v = view();
  return (
    <div ref={boxRef} class={`wb-canvas-box${props.interactive ? "" : " wb-static"}`} data-tool={props.tool}>
      <canvas
        ref={canvasRef}
        class="wb-canvas"
        role="img"
        aria-label={`Whiteboard: ${props.board.title}, ${props.board.items.length} items`}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={(e) => finish(e, false)}
        onPointerCancel={(e) => finish(e, true)}
      />
      {editing !== undefined && (
        <textarea
          class="wb-text-editor"
          style={{ left: `${(editing.x - v.x) * v.scale}px`, top: `${(editing.y - v.y) * v.scale}px`, fontSize: `${TEXT_SIZE * v.scale}px` }}
          value={editing.text}
          aria-label="Text"
          ref={(el) => {
            if (el !== null && globalThis.document?.activeElement !== el) el.focus();
          }}
          onKeyDown={(e) => {
            e.stopPropagation();
            if (e.key === "Escape") setEditing(undefined);
            if (e.key === "Enter" && !e.shiftKey) {
              e.preventDefault();
              commitText((e.currentTarget as HTMLTextAreaElement).value);
            }
          }}
          onInput={(e) => setEditing({ ...editing, text: (e.currentTarget as HTMLTextAreaElement).value })}
          onBlur={(e) => commitText((e.currentTarget as HTMLTextAreaElement).value)}
        />
      )}
    </div>
  );
}

function roundItem(item: Item): Item {
  switch (item.type) {
    case "rect":
    case "ellipse":
      return { ...item, x: round1(item.x), y: round1(item.y), w: round1(item.w), h: round1(item.h) };
    case "line":
    case "arrow":
      return { ...item, x1: round1(item.x1), y1: round1(item.y1), x2: round1(item.x2), y2: round1(item.y2) };
    default:
      return item;
  }
}
