/**
 * The whiteboard's words in the language LineUp tells it (the Host Bridge snapshot's `locale`, and its
 * changes): Simplified Chinese for a Chinese locale, English otherwise. Both tables have the same members.
 */
import { isSimplifiedChinese } from "@lineup/surface-sdk";
import type { BoardState } from "../store.js";
import type { DrawingTool } from "./tools.js";

export interface WhiteboardText {
  readonly status: Readonly<Record<BoardState["status"], string>>;
  readonly notConnected: string;
  readonly tidy: string;
  readonly tidyLabel: string;
  readonly tidyTooBig: string;
  readonly drawingTools: string;
  readonly tool: string;
  readonly tools: Readonly<Record<DrawingTool, string>>;
  readonly colour: string;
  readonly strokeWidth: string;
  width(width: number): string;
  readonly undo: string;
  readonly undoTitle: string;
  readonly redo: string;
  readonly redoTitle: string;
  readonly deleteSelection: string;
  readonly deleteTitle: string;
}

const EN: WhiteboardText = {
  status: { loading: "Loading…", saved: "Saved", saving: "Saving…", error: "Not saved" },
  notConnected: "Not connected to LineUp",
  tidy: "Tidy this board",
  tidyLabel: "Ask the agent to tidy this board",
  tidyTooBig: "This board has too many items for the agent to tidy in one go",
  drawingTools: "Drawing tools",
  tool: "Tool",
  tools: { select: "Select and move", pen: "Pen", rect: "Rectangle", ellipse: "Ellipse", line: "Line", arrow: "Arrow", text: "Text", eraser: "Eraser" },
  colour: "Colour",
  strokeWidth: "Stroke width",
  width: (width) => `Width ${width}`,
  undo: "Undo",
  undoTitle: "Undo (Ctrl+Z)",
  redo: "Redo",
  redoTitle: "Redo (Ctrl+Shift+Z)",
  deleteSelection: "Delete selection",
  deleteTitle: "Delete (Del)",
};

const ZH: WhiteboardText = {
  status: { loading: "正在加载…", saved: "已保存", saving: "正在保存…", error: "未保存" },
  notConnected: "未连接到 LineUp",
  tidy: "整理白板",
  tidyLabel: "请智能体整理这块白板",
  tidyTooBig: "白板上的内容太多，智能体无法一次整理完",
  drawingTools: "绘图工具",
  tool: "工具",
  tools: { select: "选择和移动", pen: "画笔", rect: "矩形", ellipse: "椭圆", line: "直线", arrow: "箭头", text: "文字", eraser: "橡皮擦" },
  colour: "颜色",
  strokeWidth: "线条粗细",
  width: (width) => `粗细 ${width}`,
  undo: "撤销",
  undoTitle: "撤销（Ctrl+Z）",
  redo: "重做",
  redoTitle: "重做（Ctrl+Shift+Z）",
  deleteSelection: "删除所选内容",
  deleteTitle: "删除（Del）",
};

export function whiteboardText(locale: string): WhiteboardText {
  return isSimplifiedChinese(locale) ? ZH : EN;
}
