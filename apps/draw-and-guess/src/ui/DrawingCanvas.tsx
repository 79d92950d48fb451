/**
 * The drawing surface: shows the round's strokes at whatever size the frame gives it, and, while
 * the person may draw, turns pointer drags (mouse, pen, touch) into strokes in canvas units. The
 * line being drawn is painted directly; it becomes a stroke of the game when the pointer lifts.
 */
import { useEffect, useLayoutEffect, useRef } from "preact/hooks";
import { CANVAS_WIDTH, compactStroke, type Stroke } from "../model.js";
import { drawStroke, renderDrawing } from "../render.js";

export interface DrawingCanvasProps {
  readonly strokes: readonly Stroke[];
  readonly interactive: boolean;
  /** A finished line, compacted; returns whether the game took it. */
  readonly onStroke: (stroke: Stroke) => boolean;
  readonly label: string;
}

type Point = { x: number; y: number };

export function DrawingCanvas({ strokes, interactive, onStroke, label }: DrawingCanvasProps) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const live = useRef<{ pointerId: number; points: Point[] } | undefined>(undefined);
  const latest = useRef({ strokes, interactive, onStroke });
  latest.current = { strokes, interactive, onStroke };

  /** Pixels per canvas unit at the canvas's current backing size. */
  const scale = (): number => (canvasRef.current?.width ?? CANVAS_WIDTH) / CANVAS_WIDTH;

  const paint = (): void => {
    const canvas = canvasRef.current;
    const ctx = canvas?.getContext("2d");
    if (canvas == null || ctx == null) return;
    renderDrawing(ctx, latest.current.strokes, scale());
    const drawing = live.current;
    if (drawing !== undefined) drawStroke(ctx, drawing.points.flatMap((p) => [p.x, p.y]), scale());
  };

  useLayoutEffect(() => {
    const canvas = canvasRef.current;
    if (canvas === null) return;
    const observer = new ResizeObserver(() => {
      const r = canvas.getBoundingClientRect();
      const dpr = globalThis.devicePixelRatio || 1;
      canvas.width = Math.max(1, Math.round(r.width * dpr));
      canvas.height = Math.max(1, Math.round(r.height * dpr));
      paint();
    });
    observer.observe(canvas);
    return () => observer.disconnect();
  }, []);

  useEffect(paint);

  const toCanvas = (e: PointerEvent): Point => {
    const r = canvasRef.current!.getBoundingClientRect();
    return { x: ((e.clientX - r.left) / r.width) * CANVAS_WIDTH, y: ((e.clientY - r.top) / r.width) * CANVAS_WIDTH };
  };

  const onPointerDown = (e: PointerEvent): void => {
    if (!latest.current.interactive || live.current !== undefined) return;
    if (e.pointerType === "mouse" && e.button !== 0) return;
    (e.currentTarget as Element).setPointerCapture(e.pointerId);
    e.preventDefault();
    live.current = { pointerId: e.pointerId, points: [toCanvas(e)] };
    paint();
  };

  const onPointerMove = (e: PointerEvent): void => {
    const drawing = live.current;
    if (drawing === undefined || drawing.pointerId !== e.pointerId) return;
    const samples = typeof e.getCoalescedEvents === "function" ? e.getCoalescedEvents() : [];
    for (const s of samples.length > 0 ? samples : [e]) drawing.points.push(toCanvas(s));
    paint();
  };

  const finish = (e: PointerEvent, cancelled: boolean): void => {
    const drawing = live.current;
    if (drawing === undefined || drawing.pointerId !== e.pointerId) return;
    live.current = undefined;
    if (!cancelled) latest.current.onStroke(compactStroke(drawing.points));
    paint();
  };

  return (
    <canvas
      ref={canvasRef}
      class={`dg-canvas${interactive ? " dg-canvas-live" : ""}`}
      role="img"
      aria-label={label}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={(e) => finish(e, false)}
      onPointerCancel={(e) => finish(e, true)}
    />
  );
}
