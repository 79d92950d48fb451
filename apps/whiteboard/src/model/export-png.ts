/**
 * Board → PNG, through a small canvas abstraction so the steps are testable in Node: the browser
 * supplies a factory over `OffscreenCanvas` (or `<canvas>`), tests a recording fake.
 */
import type { Board } from "./document.js";
import { boardBounds } from "./geometry.js";
import { FONT_STACK, renderBoard, type Canvas2D } from "./render.js";

export interface RasterSurface {
  readonly context: Canvas2D;
  /** The PNG bytes, base64-encoded. */
  encodePng(): Promise<string>;
}

/** Makes a canvas of whole pixels. */
export type CanvasFactory = (width: number, height: number) => RasterSurface;

export interface ExportOptions {
  /** Pixels per board unit, 0.25–4. Default 2 (crisp on high-density screens). */
  readonly scale?: number;
  /** Margin around the content in board units. Default 24. */
  readonly padding?: number;
  /** `white` (default) or `transparent`. */
  readonly background?: "white" | "transparent";
  /** Called between steps, 0–1. */
  readonly onProgress?: (stage: "layout" | "render" | "encode", progress: number) => void | Promise<void>;
}

export interface ExportedPng {
  readonly base64: string;
  readonly width: number;
  readonly height: number;
}

/** The largest side an export may have, in pixels (canvas limits in browsers are near 16k; memory well before). */
export const MAX_EXPORT_SIDE = 8_192;

export function exportLayout(board: Board, options: ExportOptions = {}): { x: number; y: number; width: number; height: number; scale: number } {
  const padding = options.padding ?? 24;
  const bounds = boardBounds(board) ?? { x: 0, y: 0, w: 320, h: 200 };
  const w = bounds.w + 2 * padding;
  const h = bounds.h + 2 * padding;
  let scale = Math.min(4, Math.max(0.25, options.scale ?? 2));
  scale = Math.min(scale, MAX_EXPORT_SIDE / Math.max(w, h, 1));
  return { x: bounds.x - padding, y: bounds.y - padding, width: Math.max(1, Math.ceil(w * scale)), height: Math.max(1, Math.ceil(h * scale)), scale };
}

export async function exportBoardPng(board: Board, createCanvas: CanvasFactory, options: ExportOptions = {}): Promise<ExportedPng> {
  const layout = exportLayout(board, options);
  await options.onProgress?.("layout", 0.1);
  const surface = createCanvas(layout.width, layout.height);
  renderBoard(
    surface.context,
    board,
    { ink: "#1f2328", background: (options.background ?? "white") === "white" ? "#ffffff" : null, font: FONT_STACK },
    { scale: layout.scale, x: layout.x, y: layout.y },
    { width: layout.width, height: layout.height },
  );
  await options.onProgress?.("render", 0.6);
  const base64 = await surface.encodePng();
  await options.onProgress?.("encode", 0.9);
  return { base64, width: layout.width, height: layout.height };
}

/**
 * Exports at the requested scale, stepping the scale down until the encoded image fits
 * `maxBase64Chars` — a bridge message is bounded (256 KiB by default), and an artifact's bytes
 * travel in one. Fails when even the smallest scale does not fit.
 */
export async function exportBoardPngWithin(board: Board, createCanvas: CanvasFactory, maxBase64Chars: number, options: ExportOptions = {}): Promise<ExportedPng> {
  const requested = options.scale ?? 2;
  const scales = [requested, ...[1.5, 1, 0.75, 0.5, 0.25].filter((s) => s < requested)];
  for (const scale of scales) {
    const png = await exportBoardPng(board, createCanvas, { ...options, scale });
    if (png.base64.length <= maxBase64Chars) return png;
  }
  throw new Error(`the board is too large to export within ${maxBase64Chars} base64 characters`);
}
