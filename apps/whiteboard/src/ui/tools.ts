/** The drawing tools of the toolbar and their keyboard shortcuts. */
export type DrawingTool = "select" | "pen" | "rect" | "ellipse" | "line" | "arrow" | "text" | "eraser";

export const DRAWING_TOOLS: ReadonlyArray<{ readonly tool: DrawingTool; readonly label: string; readonly key: string }> = [
  { tool: "select", label: "Select and move", key: "v" },
  { tool: "pen", label: "Pen", key: "p" },
  { tool: "rect", label: "Rectangle", key: "r" },
  { tool: "ellipse", label: "Ellipse", key: "o" },
  { tool: "line", label: "Line", key: "l" },
  { tool: "arrow", label: "Arrow", key: "a" },
  { tool: "text", label: "Text", key: "t" },
  { tool: "eraser", label: "Eraser", key: "e" },
];

export const SWATCHES = ["ink", "red", "orange", "green", "blue", "purple"] as const;
export const WIDTHS = [2, 4, 8] as const;
