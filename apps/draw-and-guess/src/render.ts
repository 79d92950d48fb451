/**
 * Drawing the strokes: on the screen's canvas (at any size) and into the small PNG the agent may
 * look at. Lines are round-capped; a stroke of one point is a dot.
 */
import { CANVAS_HEIGHT, CANVAS_WIDTH, type Stroke } from "./model.js";

export type Context2D = CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;

export const PAPER = "#ffffff";
export const INK = "#1f2328";
/** Line width in canvas units. */
export const LINE_WIDTH = 4;

/** Paints the paper and every stroke; `scale` is pixels per canvas unit. */
export function renderDrawing(ctx: Context2D, strokes: readonly Stroke[], scale: number): void {
  ctx.save();
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.fillStyle = PAPER;
  ctx.fillRect(0, 0, ctx.canvas.width, ctx.canvas.height);
  ctx.restore();
  for (const stroke of strokes) drawStroke(ctx, stroke, scale);
}

export function drawStroke(ctx: Context2D, stroke: Stroke, scale: number): void {
  if (stroke.length < 2) return;
  ctx.save();
  ctx.strokeStyle = INK;
  ctx.fillStyle = INK;
  ctx.lineWidth = LINE_WIDTH * scale;
  ctx.lineCap = "round";
  ctx.lineJoin = "round";
  if (stroke.length === 2) {
    ctx.beginPath();
    ctx.arc(stroke[0]! * scale, stroke[1]! * scale, (LINE_WIDTH * scale) / 2, 0, Math.PI * 2);
    ctx.fill();
  } else {
    ctx.beginPath();
    ctx.moveTo(stroke[0]! * scale, stroke[1]! * scale);
    for (let i = 2; i + 1 < stroke.length; i += 2) ctx.lineTo(stroke[i]! * scale, stroke[i + 1]! * scale);
    ctx.stroke();
  }
  ctx.restore();
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) binary += String.fromCharCode(...bytes.subarray(i, i + chunk));
  return btoa(binary);
}

async function encode(strokes: readonly Stroke[], scale: number): Promise<Uint8Array> {
  const width = Math.round(CANVAS_WIDTH * scale);
  const height = Math.round(CANVAS_HEIGHT * scale);
  if (typeof OffscreenCanvas !== "undefined") {
    const canvas = new OffscreenCanvas(width, height);
    const ctx = canvas.getContext("2d");
    if (ctx === null) throw new Error("no 2D context for the drawing");
    renderDrawing(ctx, strokes, scale);
    return new Uint8Array(await (await canvas.convertToBlob({ type: "image/png" })).arrayBuffer());
  }
  const canvas = document.createElement("canvas");
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext("2d");
  if (ctx === null) throw new Error("no 2D context for the drawing");
  renderDrawing(ctx, strokes, scale);
  const base64 = canvas.toDataURL("image/png").slice("data:image/png;base64,".length);
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

/** The drawing as a PNG of at most `maxBytes` (base64), at full size or, failing that, half size; undefined when neither fits. */
export async function drawingPng(strokes: readonly Stroke[], maxBytes: number): Promise<string | undefined> {
  for (const scale of [1, 0.5]) {
    const bytes = await encode(strokes, scale);
    if (bytes.length <= maxBytes) return toBase64(bytes);
  }
  return undefined;
}
