/**
 * The board document: plain JSON, so it is the session data itself (spec 6.3) and survives a
 * reload. Items are drawn in array order (later on top). Coordinates are board units (CSS pixels
 * at zoom 1); strokes keep their points flat (`x, y, pressure` triples, rounded) to stay small on
 * the wire.
 */

/** A colour: a palette name (`ink` follows the theme's foreground) or `#rgb` / `#rrggbb`. */
export type Color = string;

export type StrokeItem = {
  id: string;
  type: "stroke";
  color: Color;
  /** Base width; each segment scales it by the pen pressure there. */
  width: number;
  /** Flat `[x0, y0, p0, x1, y1, p1, …]`, pressure 0–1. */
  points: number[];
};

export type BoxItem = {
  id: string;
  type: "rect" | "ellipse";
  x: number;
  y: number;
  w: number;
  h: number;
  color: Color;
  /** Fill colour, or null for none. */
  fill: Color | null;
  width: number;
  label?: string;
};

export type SegmentItem = {
  id: string;
  type: "line" | "arrow";
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  color: Color;
  width: number;
  label?: string;
};

export type TextItem = {
  id: string;
  type: "text";
  x: number;
  y: number;
  text: string;
  color: Color;
  /** Font size in board units. */
  size: number;
};

export type Item = StrokeItem | BoxItem | SegmentItem | TextItem;
export type ItemType = Item["type"];
export const ITEM_TYPES: readonly ItemType[] = ["stroke", "rect", "ellipse", "line", "arrow", "text"];

export const BOARD_FORMAT = "lineup.whiteboard.v1";

export type Board = {
  format: typeof BOARD_FORMAT;
  title: string;
  items: Item[];
};

export const DEFAULT_TITLE = "Untitled board";
export const MAX_TITLE_LENGTH = 120;
export const MAX_TEXT_LENGTH = 2_000;

export function emptyBoard(title: string = DEFAULT_TITLE): Board {
  return { format: BOARD_FORMAT, title: cleanTitle(title), items: [] };
}

export function cleanTitle(title: string): string {
  const trimmed = title.replace(/\s+/g, " ").trim().slice(0, MAX_TITLE_LENGTH);
  return trimmed.length > 0 ? trimmed : DEFAULT_TITLE;
}

/** The palette the toolbar offers and agents may name. */
export const PALETTE: Readonly<Record<string, string>> = {
  ink: "#1f2328",
  gray: "#6e7781",
  red: "#d1242f",
  orange: "#e16f24",
  yellow: "#d4a72c",
  green: "#1a7f37",
  blue: "#0969da",
  purple: "#8250df",
  pink: "#bf3989",
  white: "#ffffff",
  black: "#000000",
};

const HEX = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

export function isColor(value: unknown): value is Color {
  return typeof value === "string" && (HEX.test(value) || Object.prototype.hasOwnProperty.call(PALETTE, value));
}

/** The CSS colour to paint with; `ink` is the given foreground (the theme's text colour on screen, black in an export). */
export function paint(color: Color, ink: string): string {
  if (color === "ink") return ink;
  return PALETTE[color] ?? color;
}

/** Rounds a coordinate to 0.1 unit: plenty for drawing, a third of the JSON. */
export const round1 = (n: number): number => Math.round(n * 10) / 10;
export const round2 = (n: number): number => Math.round(n * 100) / 100;
