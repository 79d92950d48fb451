/**
 * The whiteboard's agent tools, declared once: `npm run build` reads this module to emit the
 * manifest's `tools`, and the running app serves the same handlers (spec 7.1, 9).
 */
import type { JsonObject } from "@lineup/protocol";
import { defineAgentTools, ToolFailure } from "@lineup/surface-sdk";
import { MAX_TITLE_LENGTH } from "./model/document.js";
import { ADD_SHAPES_INPUT_SCHEMA, type ShapeSpec } from "./model/tool-args.js";
import { whiteboard } from "./service.js";

const BOUNDING_BOX_SCHEMA: JsonObject = {
  oneOf: [
    { type: "null" },
    { type: "object", required: ["x", "y", "width", "height"], properties: { x: { type: "number" }, y: { type: "number" }, width: { type: "number" }, height: { type: "number" } } },
  ],
};

const COUNTS_SCHEMA: JsonObject = {
  type: "object",
  required: ["stroke", "rect", "ellipse", "line", "arrow", "text"],
  properties: Object.fromEntries(["stroke", "rect", "ellipse", "line", "arrow", "text"].map((k) => [k, { type: "integer", minimum: 0 }])),
};

export const tools = defineAgentTools({
  "board.create": {
    title: "Create a whiteboard",
    description: "Starts a new, empty whiteboard with the given title and shows it to the user. The previous board can still be restored by the user with undo.",
    call_model: "command",
    // The board is for the user to see and draw on: the Runtime brings the whiteboard to the front first.
    activation_requirement: "foreground_required",
    input_schema: {
      type: "object",
      additionalProperties: false,
      required: ["title"],
      properties: { title: { type: "string", minLength: 1, maxLength: MAX_TITLE_LENGTH, description: "The board's title." } },
    },
    output_schema: {
      type: "object",
      required: ["title", "item_count"],
      properties: { title: { type: "string" }, item_count: { type: "integer", minimum: 0 } },
    },
    handler: async (args: { title: string }) => {
      const board = await whiteboard().store.createBoard(args.title);
      return { title: board.title, item_count: board.items.length };
    },
  },
  "board.add_shapes": {
    title: "Draw shapes on the whiteboard",
    description:
      "Draws rectangles, ellipses, lines, arrows, text and freehand strokes on the current board, on top of what is there. " +
      "Coordinates are board units with y pointing down. Use labels on rectangles and ellipses for diagrams. Returns the ids of the new items.",
    call_model: "command",
    activation_requirement: "app_ready",
    input_schema: ADD_SHAPES_INPUT_SCHEMA,
    output_schema: {
      type: "object",
      required: ["added", "ids", "item_count"],
      properties: { added: { type: "integer", minimum: 0 }, ids: { type: "array", items: { type: "string" } }, item_count: { type: "integer", minimum: 0 } },
    },
    handler: async (args: { shapes: ShapeSpec[] }) => {
      const { store } = whiteboard();
      const items = await store.addShapes(args.shapes);
      return { added: items.length, ids: items.map((i) => i.id), item_count: store.board.items.length };
    },
  },
  "board.summary": {
    title: "Read the whiteboard",
    description: "Returns the board's title, how many items of each kind it holds, their bounding box, and all text on it (text items and shape labels, top to bottom).",
    call_model: "query",
    activation_requirement: "app_ready",
    input_schema: { type: "object", additionalProperties: false, properties: {} },
    output_schema: {
      type: "object",
      required: ["title", "item_count", "counts", "bounding_box", "texts"],
      properties: {
        title: { type: "string" },
        item_count: { type: "integer", minimum: 0 },
        counts: COUNTS_SCHEMA,
        bounding_box: BOUNDING_BOX_SCHEMA,
        texts: { type: "array", items: { type: "string" } },
      },
    },
    handler: () => whiteboard().store.summary(),
  },
  "board.export": {
    title: "Export the whiteboard as PNG",
    description: "Renders the whole board to a PNG image and stores it as an artifact of the conversation. Reports progress; returns the artifact reference and the image size.",
    call_model: "operation",
    activation_requirement: "app_ready",
    timeout_ms: 120_000,
    input_schema: {
      type: "object",
      additionalProperties: false,
      properties: {
        scale: { type: "number", minimum: 0.25, maximum: 4, description: "Pixels per board unit (default 2)." },
        background: { enum: ["white", "transparent"], description: "Page colour (default white)." },
      },
    },
    output_schema: {
      type: "object",
      required: ["artifact", "width", "height"],
      properties: { artifact: { type: "object", required: ["artifact_id", "name", "mime_type", "size", "sha256"] }, width: { type: "integer" }, height: { type: "integer" } },
    },
    handler: async (args: { scale?: number; background?: "white" | "transparent" }, ctx) => {
      const service = whiteboard();
      await service.store.flush();
      await ctx.progress({ stage: "started", progress: 0, message: "Rendering the board" });
      const exported = await service.exportPng({
        ...(args.scale === undefined ? {} : { scale: args.scale }),
        ...(args.background === undefined ? {} : { background: args.background }),
        onProgress: async (stage, progress) => {
          if (ctx.signal.aborted) throw new ToolFailure("cancelled_by_user", "the export was cancelled");
          await ctx.progress({ stage, progress });
        },
      });
      return { artifact: exported.artifact, width: exported.width, height: exported.height };
    },
  },
});
