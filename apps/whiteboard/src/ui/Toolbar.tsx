/** The toolbar: tools, colours, stroke widths, undo/redo and delete. Wraps and shrinks at small sizes. */
import { paint } from "../model/document.js";
import { icons } from "./icons.js";
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
}

export function Toolbar(props: ToolbarProps) {
  return (
    <div class="wb-toolbar" role="toolbar" aria-label="Drawing tools">
      <div class="wb-group" role="radiogroup" aria-label="Tool">
        {DRAWING_TOOLS.map(({ tool, label, key }) => (
          <button
            type="button"
            class="wb-button"
            role="radio"
            aria-checked={props.tool === tool}
            aria-label={label}
            title={`${label} (${key.toUpperCase()})`}
            onClick={() => props.onTool(tool)}
          >
            {icons[tool]}
          </button>
        ))}
      </div>
      <div class="wb-group" role="radiogroup" aria-label="Colour">
        {SWATCHES.map((color) => (
          <button type="button" class="wb-swatch" role="radio" aria-checked={props.color === color} aria-label={color} title={color} onClick={() => props.onColor(color)}>
            <span style={{ background: paint(color, props.ink) }} />
          </button>
        ))}
      </div>
      <div class="wb-group wb-widths" role="radiogroup" aria-label="Stroke width">
        {WIDTHS.map((w) => (
          <button type="button" class="wb-button" role="radio" aria-checked={props.width === w} aria-label={`Width ${w}`} title={`Width ${w}`} onClick={() => props.onWidth(w)}>
            <span class="wb-width-dot" style={{ width: `${w + 2}px`, height: `${w + 2}px` }} />
          </button>
        ))}
      </div>
      <div class="wb-group">
        <button type="button" class="wb-button" aria-label="Undo" title="Undo (Ctrl+Z)" disabled={!props.canUndo} onClick={props.onUndo}>
          {icons.undo}
        </button>
        <button type="button" class="wb-button" aria-label="Redo" title="Redo (Ctrl+Shift+Z)" disabled={!props.canRedo} onClick={props.onRedo}>
          {icons.redo}
        </button>
        <button type="button" class="wb-button" aria-label="Delete selection" title="Delete (Del)" disabled={!props.hasSelection} onClick={props.onDelete}>
          {icons.trash}
        </button>
      </div>
    </div>
  );
}
