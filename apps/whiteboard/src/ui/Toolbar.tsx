/** The toolbar: tools, colours, stroke widths, undo/redo and delete. Wraps and shrinks at small sizes. */
import { paint } from "../model/document.js";
import { icons } from "./icons.js";
import type { WhiteboardText } from "./text.js";
import { DRAWING_TOOLS, SWATCHES, WIDTHS, type DrawingTool } from "./tools.js";

export interface ToolbarProps {
  readonly tool: DrawingTool;
  readonly color: string;
  readonly width: number;
  readonly canUndo: boolean;
  readonly canRedo: boolean;
  readonly hasSelection: boolean;
  readonly ink: string;
  readonly onTool: (tool: DrawingTool) => void;
  readonly onColor: (color: string) => void;
  readonly onWidth: (width: number) => void;
  readonly onUndo: () => void;
  readonly onRedo: () => void;
  readonly onDelete: () => void;
  /** The words in the app's language. */
  readonly text: WhiteboardText;
}

export function Toolbar(props: ToolbarProps) {
  const { text } = props;
  return (
    <div class="wb-toolbar" role="toolbar" aria-label={text.drawingTools}>
      <div class="wb-group" role="radiogroup" aria-label={text.tool}>
        {DRAWING_TOOLS.map(({ tool, key }) => (
          <ToolButton key={tool} tool={tool} label={text.tools[tool]} shortcut={key} checked={props.tool === tool} onTool={props.onTool} />
        ))}
      </div>
      <div class="wb-group" role="radiogroup" aria-label={text.colour}>
        {SWATCHES.map((color) => (
          <button type="button" class="wb-swatch" role="radio" aria-checked={props.color === color} aria-label={color} title={color} onClick={() => props.onColor(color)}>
            <span style={{ background: paint(color, props.ink) }} />
          </button>
        ))}
      </div>
      <div class="wb-group wb-widths" role="radiogroup" aria-label={text.strokeWidth}>
        {WIDTHS.map((w) => (
          <button type="button" class="wb-button" role="radio" aria-checked={props.width === w} aria-label={text.width(w)} title={text.width(w)} onClick={() => props.onWidth(w)}>
            <span class="wb-width-dot" style={{ width: `${w + 2}px`, height: `${w + 2}px` }} />
          </button>
        ))}
      </div>
      <div class="wb-group">
        <button type="button" class="wb-button" aria-label={text.undo} title={text.undoTitle} disabled={!props.canUndo} onClick={props.onUndo}>
          {icons.undo}
        </button>
        <button type="button" class="wb-button" aria-label={text.redo} title={text.redoTitle} disabled={!props.canRedo} onClick={props.onRedo}>
          {icons.redo}
        </button>
        <button type="button" class="wb-button" aria-label={text.deleteSelection} title={text.deleteTitle} disabled={!props.hasSelection} onClick={props.onDelete}>
          {icons.trash}
        </button>
      </div>
    </div>
  );
}

function ToolButton({ tool, label, shortcut, checked, onTool }: { tool: DrawingTool; label: string; shortcut: string; checked: boolean; onTool: (tool: DrawingTool) => void }) {
  return (
    <button type="button" class="wb-button" role="radio" aria-checked={checked} aria-label={label} title={`${label} (${shortcut.toUpperCase()})`} onClick={() => onTool(tool)}>
      {icons[tool]}
    </button>
  );
}

