/**
 * Draws a board on any 2D canvas context — the on-screen canvas, an `OffscreenCanvas` for export,
 * or a recording fake in tests. Only the methods below are used, so any of them fits.
 */
import { paint, type Board, type Item } from "./document.js";
import { textExtent } from "./geometry.js";
import { strokeSegments } from "./smoothing.js";

export interface Canvas2D {
  lineWidth: number;
  strokeStyle: unknown;
  fillStyle: unknown;
  lineCap: string;
  lineJoin: string;
  font: string;
  textBaseline: string;
  textAlign: string;
  save(): void;
  restore(): void;
  beginPath(): void;
  closePath(): void;
  moveTo(x: number, y: number): void;
  lineTo(x: number, y: number): void;
  quadraticCurveTo(cx: number, cy: number, x: number, y: number): void;
  rect(x: number, y: number, w: number, h: number): void;
  ellipse(x: number, y: number, rx: number, ry: number, rotation: number, start: number, end: number): void;
  stroke(): void;
  fill(): void;
  fillRect(x: number, y: number, w: number, h: number): void;
  fillText(text: string, x: number, y: number): void;
  setLineDash(segments: number[]): void;
  setTransform(a: number, b: number, c: number, d: number, e: number, f: number): void;
}

export interface RenderStyle {
  /** The colour `ink` paints with. */
  readonly ink: string;
  /** Page colour, or null to leave the canvas transparent. */
  readonly background: string | null;
  readonly font: string;
}

export interface View {
  /** Board units → canvas pixels. */
  readonly scale: number;
  /** Board coordinate shown at the canvas origin. */
  readonly x: number;
  readonly y: number;
}

export const FONT_STACK = 'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif';

function drawArrowHead(ctx: Canvas2D, x1: number, y1: number, x2: number, y2: number, width: number): void {
  const angle = Math.atan2(y2 - y1, x2 - x1);
  const size = Math.max(10, width * 4);
  ctx.beginPath();
  ctx.moveTo(x2, y2);
  ctx.lineTo(x2 - size * Math.cos(angle - Math.PI / 7), y2 - size * Math.sin(angle - Math.PI / 7));
  ctx.lineTo(x2 - size * Math.cos(angle + Math.PI / 7), y2 - size * Math.sin(angle + Math.PI / 7));
  ctx.closePath();
  ctx.fill();
}

function drawText(ctx: Canvas2D, text: string, x: number, y: number, size: number, style: RenderStyle, align: "left" | "center"): void {
  ctx.font = `${size}px ${style.font}`;
  ctx.textBaseline = align === "center" ? "middle" : "top";
  ctx.textAlign = align;
  const lines = text.split("\n");
  const lineHeight = size * 1.25;
  const top = align === "center" ? y - ((lines.length - 1) * lineHeight) / 2 : y;
  lines.forEach((line, i) => ctx.fillText(line, x, top + i * lineHeight));
}

export function drawItem(ctx: Canvas2D, item: Item, style: RenderStyle): void {
  ctx.save();
  ctx.lineCap = "round";
  ctx.lineJoin = "round";
  const color = paint(item.color, style.ink);
  ctx.strokeStyle = color;
  ctx.fillStyle = color;
  switch (item.type) {
    case "stroke":
      for (const s of strokeSegments(item.points, item.width)) {
        ctx.lineWidth = s.width;
        ctx.beginPath();
        ctx.moveTo(s.from[0], s.from[1]);
        if (s.from[0] === s.to[0] && s.from[1] === s.to[1]) ctx.lineTo(s.to[0] + 0.01, s.to[1]);
        else ctx.quadraticCurveTo(s.control[0], s.control[1], s.to[0], s.to[1]);
        ctx.stroke();
      }
      break;
    case "rect":
    case "ellipse": {
      ctx.lineWidth = item.width;
      ctx.beginPath();
      if (item.type === "rect") ctx.rect(item.x, item.y, item.w, item.h);
      else ctx.ellipse(item.x + item.w / 2, item.y + item.h / 2, Math.abs(item.w / 2), Math.abs(item.h / 2), 0, 0, Math.PI * 2);
      if (item.fill !== null) {
        ctx.fillStyle = paint(item.fill, style.ink);
        ctx.fill();
      }
      ctx.stroke();
      if (item.label !== undefined) {
        ctx.fillStyle = color;
        const size = Math.max(12, Math.min(28, Math.abs(item.h) / 3));
        drawText(ctx, item.label, item.x + item.w / 2, item.y + item.h / 2, size, style, "center");
      }
      break;
    }
    case "line":
    case "arrow":
      ctx.lineWidth = item.width;
      ctx.beginPath();
      ctx.moveTo(item.x1, item.y1);
      ctx.lineTo(item.x2, item.y2);
      ctx.stroke();
      if (item.type === "arrow") drawArrowHead(ctx, item.x1, item.y1, item.x2, item.y2, item.width);
      if (item.label !== undefined) drawText(ctx, item.label, (item.x1 + item.x2) / 2, (item.y1 + item.y2) / 2 - 14, 16, style, "center");
      break;
    case "text":
      drawText(ctx, item.text, item.x, item.y, item.size, style, "left");
      break;
  }
  ctx.restore();
}

/** Paints the background (if any) over the whole canvas, then every item through the view. */
export function renderBoard(ctx: Canvas2D, board: Board, style: RenderStyle, view: View, size: { width: number; height: number }, pixelRatio = 1): void {
  ctx.setTransform(pixelRatio, 0, 0, pixelRatio, 0, 0);
  if (style.background !== null) {
    ctx.fillStyle = style.background;
    ctx.fillRect(0, 0, size.width, size.height);
  }
  const k = view.scale * pixelRatio;
  ctx.setTransform(k, 0, 0, k, -view.x * k, -view.y * k);
  for (const item of board.items) drawItem(ctx, item, style);
}

/** A dashed box around selected items. */
export function drawSelection(ctx: Canvas2D, rect: { x: number; y: number; w: number; h: number }, color: string, scale: number): void {
  ctx.save();
  ctx.strokeStyle = color;
  ctx.lineWidth = 1 / scale;
  ctx.setLineDash([4 / scale, 3 / scale]);
  ctx.beginPath();
  ctx.rect(rect.x - 4 / scale, rect.y - 4 / scale, rect.w + 8 / scale, rect.h + 8 / scale);
  ctx.stroke();
  ctx.restore();
}

export { textExtent };
