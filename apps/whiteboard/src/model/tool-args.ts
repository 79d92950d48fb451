/**
 * Shapes an agent asks for (`board.add_shapes`) → board items. The arguments have already passed
 * the tool's input schema (`ADD_SHAPES_INPUT_SCHEMA`); this maps the agent's friendly spelling
 * (`width`/`height`, `points: [[x, y], …]`, `stroke_width`) to the stored form and fills defaults.
 */
import type { JsonObject } from "@lineup/protocol";
import { MAX_TEXT_LENGTH, round1, type Item } from "./document.js";

export type ShapeSpec =
  | { type: "rect" | "ellipse"; x: number; y: number; width: number; height: number; color?: string; fill?: string; label?: string; stroke_width?: number }
  | { type: "line" | "arrow"; x1: number; y1: number; x2: number; y2: number; color?: string; label?: string; stroke_width?: number }
  | { type: "text"; x: number; y: number; text: string; color?: string; font_size?: number }
  | { type: "stroke"; points: [number, number][]; color?: string; stroke_width?: number };

export const MAX_SHAPES_PER_CALL = 200;

const COLOR_SCHEMA: JsonObject = {
  type: "string",
  description: "A palette name (ink, gray, red, orange, yellow, green, blue, purple, pink, white, black) or #rgb / #rrggbb. `ink` follows the theme's text colour.",
  pattern: "^(?:#[0-9a-fA-F]{3}|#[0-9a-fA-F]{6}|ink|gray|red|orange|yellow|green|blue|purple|pink|white|black)$",
};
const COORD: JsonObject = { type: "number", minimum: -100_000, maximum: 100_000 };
const SIZE: JsonObject = { type: "number", minimum: 0, maximum: 100_000 };
const LABEL: JsonObject = { type: "string", minLength: 1, maxLength: 500 };
const WIDTH: JsonObject = { type: "number", minimum: 0.5, maximum: 64 };

/** The JSON Schema of `board.add_shapes` arguments. */
export const ADD_SHAPES_INPUT_SCHEMA: JsonObject = {
  type: "object",
  additionalProperties: false,
  required: ["shapes"],
  properties: {
    shapes: {
      type: "array",
      minItems: 1,
      maxItems: MAX_SHAPES_PER_CALL,
      description: "Shapes to draw, in order (later on top). Coordinates are board units; the visible area starts near (0, 0) and is about 800×600.",
      items: {
        oneOf: [
          {
            type: "object",
            additionalProperties: false,
            required: ["type", "x", "y", "width", "height"],
            properties: {
              type: { enum: ["rect", "ellipse"] },
              x: COORD,
              y: COORD,
              width: SIZE,
              height: SIZE,
              color: COLOR_SCHEMA,
              fill: COLOR_SCHEMA,
              label: LABEL,
              stroke_width: WIDTH,
            },
          },
          {
            type: "object",
            additionalProperties: false,
            required: ["type", "x1", "y1", "x2", "y2"],
            properties: { type: { enum: ["line", "arrow"] }, x1: COORD, y1: COORD, x2: COORD, y2: COORD, color: COLOR_SCHEMA, label: LABEL, stroke_width: WIDTH },
          },
          {
            type: "object",
            additionalProperties: false,
            required: ["type", "x", "y", "text"],
            properties: {
              type: { const: "text" },
              x: COORD,
              y: COORD,
              text: { type: "string", minLength: 1, maxLength: MAX_TEXT_LENGTH },
              color: COLOR_SCHEMA,
              font_size: { type: "number", minimum: 6, maximum: 200 },
            },
          },
          {
            type: "object",
            additionalProperties: false,
            required: ["type", "points"],
            properties: {
              type: { const: "stroke" },
              points: { type: "array", minItems: 2, maxItems: 2_000, items: { type: "array", prefixItems: [COORD, COORD], minItems: 2, maxItems: 2 } },
              color: COLOR_SCHEMA,
              stroke_width: WIDTH,
            },
          },
        ],
      },
    },
  },
};

/** Builds items from validated shape specs; `newId` supplies one fresh id per item. */
export function shapesToItems(shapes: readonly ShapeSpec[], newId: () => string): Item[] {
  return shapes.map((shape): Item => {
    const color = shape.color ?? "ink";
    switch (shape.type) {
      case "rect":
      case "ellipse":
        return {
          id: newId(),
          type: shape.type,
          x: round1(shape.x),
          y: round1(shape.y),
          w: round1(shape.width),
          h: round1(shape.height),
          color,
          fill: shape.fill ?? null,
          width: shape.stroke_width ?? 2,
          ...(shape.label === undefined ? {} : { label: shape.label }),
        };
      case "line":
      case "arrow":
        return {
          id: newId(),
          type: shape.type,
          x1: round1(shape.x1),
          y1: round1(shape.y1),
          x2: round1(shape.x2),
          y2: round1(shape.y2),
          color,
          width: shape.stroke_width ?? 2,
          ...(shape.label === undefined ? {} : { label: shape.label }),
        };
      case "text":
        return { id: newId(), type: "text", x: round1(shape.x), y: round1(shape.y), text: shape.text, color, size: shape.font_size ?? 20 };
      case "stroke":
        return { id: newId(), type: "stroke", color, width: shape.stroke_width ?? 3, points: shape.points.flatMap(([x, y]) => [round1(x), round1(y), 0.5]) };
    }
  });
}
