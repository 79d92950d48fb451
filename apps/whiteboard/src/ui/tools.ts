/** The drawing tools of the toolbar and their keyboard shortcuts. */
export type DrawingTool = "select" | "pen" | "rect" | "ellipse" | "line" | "arrow" | "text" | "eraser";

/** The tools in the toolbar's order with their keys; their names are in `text.ts`, in the app's language. */
export const DRAWING_TOOLS: ReadonlyArray<{ readonly tool: DrawingTool; readonly key: string }> = [
  { tool: "select", key: "v" },
  { tool: "pen", key: "p" },
  { tool: "rect", key: "r" },
  { tool: "ellipse", key: "o" },
  { tool: "line", key: "l" },
  { tool: "arrow", key: "a" },
  { tool: "text", key: "t" },
  { tool: "eraser", key: "e" },
];

export const SWATCHES = ["ink", "red", "orange", "green", "blue", "purple"] as const;
export const WIDTHS = [2, 4, 8] as const;
