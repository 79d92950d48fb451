/**
 * The whiteboard screen. In the foreground: toolbar, title and the full drawing surface. In
 * picture-in-picture and as an inline card: the board fitted into the frame, read-only (the card
 * in the chat is a static result — spec 6.3).
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { contextFits, tidyContext } from "../model/tidy.js";
import type { BoardState, BoardStore } from "../store.js";
import type { TidyTask, TidyView } from "../tidy-task.js";
import type { FocusTarget } from "../view-patch.js";
import { BoardCanvas } from "./BoardCanvas.js";
import { TidyPanel } from "./TidyPanel.js";
import { Toolbar } from "./Toolbar.js";
import type { DrawingTool } from "./tools.js";
import { DRAWING_TOOLS } from "./tools.js";
import { whiteboardText } from "./text.js";

export type DisplayMode = "foreground" | "pip" | "inline_card";

export interface AppProps {
  readonly store: BoardStore;
  readonly displayMode: DisplayMode;
  /** Subscribes to display mode changes; returns the unsubscribe. */
  readonly onDisplayModeChange?: (listener: (mode: DisplayMode) => void) => () => void;
  /** Subscribes to host theme changes (the CSS variables are already applied when it fires). */
  readonly onThemeChange?: (listener: () => void) => () => void;
  /** Shown when the page runs outside LineUp (nothing is shared or kept). */
  readonly standalone?: boolean;
  /** Subscribes to the agent's requests to bring a region into view (state patches); returns the unsubscribe. */
  readonly onFocusRequest?: (listener: (target: FocusTarget) => void) => () => void;
  /** "Ask the agent to tidy this board", when the host runs agent tasks (absent: no button). */
  readonly tidy?: TidyTask;
  /** The language LineUp tells the app (BCP 47), and its changes: the header and the toolbar follow it. */
  readonly locale?: string;
  readonly onLocaleChange?: (listener: (locale: string) => void) => () => void;
}

function inkColor(): string {
  const value = globalThis.document === undefined ? "" : getComputedStyle(document.documentElement).getPropertyValue("--wb-ink").trim();
  return value.length > 0 ? value : "#1f2328";
}

export function App({ store, displayMode: initialMode, onDisplayModeChange, onThemeChange, onFocusRequest, standalone, tidy, locale: initialLocale = "en", onLocaleChange }: AppProps) {
  const [locale, setLocale] = useState(initialLocale);
  useEffect(() => onLocaleChange?.(setLocale), [onLocaleChange]);
  const text = whiteboardText(locale);
  const [state, setState] = useState<BoardState>(store.state);
  const [mode, setMode] = useState<DisplayMode>(initialMode);
  const [tool, setTool] = useState<DrawingTool>("pen");
  const [color, setColor] = useState("ink");
  const [width, setWidth] = useState(4);
  const [selection, setSelection] = useState<string[]>([]);

  useEffect(() => {
    const off = store.subscribe(setState);
    // Effects run after the first paint: a change made before that (a call handled as the app said ready) had
    // nobody listening yet. Catch up once the listener is in place.
    setState(store.state);
    return off;
  }, [store]);
  useEffect(() => onDisplayModeChange?.(setMode), [onDisplayModeChange]);
  const [focus, setFocus] = useState<{ target: FocusTarget; key: number } | undefined>(undefined);
  useEffect(() => onFocusRequest?.((target) => setFocus((last) => ({ target, key: (last?.key ?? 0) + 1 }))), [onFocusRequest]);
  const [tidyView, setTidyView] = useState<TidyView | undefined>(tidy?.view);
  useEffect(() => {
    if (tidy === undefined) return;
    const off = tidy.subscribe(setTidyView);
    setTidyView(tidy.view);
    return off;
  }, [tidy]);
  // The canvas paints with theme colours read at draw time: a theme change must repaint it.
  const [, setThemeVersion] = useState(0);
  useEffect(() => onThemeChange?.(() => setThemeVersion((v) => v + 1)), [onThemeChange]);

  // Forget selected items that are gone (undo, remote change).
  useEffect(() => {
    const present = new Set(state.board.items.map((i) => i.id));
    if (selection.some((id) => !present.has(id))) setSelection(selection.filter((id) => present.has(id)));
  }, [state.board]);

  const interactive = mode === "foreground";
  const stageRef = useRef<HTMLDivElement>(null);
  const tidyBusy = tidyView !== undefined && (tidyView.phase === "starting" || tidyView.phase === "working" || tidyView.phase === "proposed");
  const tidyTooBig = useMemo(() => tidy !== undefined && !contextFits(tidyContext(state.board)), [tidy, state.board]);
  const askTidy = (): void => {
    if (tidy === undefined) return;
    // The agent lays the board out for the part the person sees at least.
    const box = stageRef.current;
    void tidy.start(tidyContext(store.board, { width: box?.clientWidth ?? 0, height: box?.clientHeight ?? 0 }));
  };
  const deleteSelection = (): void => {
    if (selection.length === 0) return;
    store.perform({ kind: "remove", ids: selection });
    setSelection([]);
  };

  useEffect(() => {
    if (!interactive) return;
    const onKey = (e: KeyboardEvent): void => {
      const target = e.target as HTMLElement | null;
      if (target !== null && (target.tagName === "TEXTAREA" || target.tagName === "INPUT")) return;
      const mod = e.ctrlKey || e.metaKey;
      const key = e.key.toLowerCase();
      if (mod && key === "z") {
        e.preventDefault();
        if (e.shiftKey) store.redo();
        else store.undo();
      } else if (mod && key === "y") {
        e.preventDefault();
        store.redo();
      } else if (key === "delete" || key === "backspace") {
        e.preventDefault();
        deleteSelection();
      } else if (key === "escape") {
        setSelection([]);
      } else if (!mod && !e.altKey) {
        const shortcut = DRAWING_TOOLS.find((t) => t.key === key);
        if (shortcut !== undefined) setTool(shortcut.tool);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });

  return (
    <div class={`wb-app wb-mode-${mode}`}>
      {interactive && (
        <header class="wb-header">
          <h1 class="wb-title" title={state.board.title}>
            {state.board.title}
          </h1>
          <span class={`wb-status wb-status-${state.status}`} role="status">
            {standalone === true ? text.notConnected : text.status[state.status]}
          </span>
          {tidy !== undefined && (
            <button
              type="button"
              class="wb-text-button wb-tidy-button"
              aria-label={text.tidyLabel}
              title={tidyTooBig ? text.tidyTooBig : text.tidyLabel}
              disabled={tidyBusy || tidyTooBig || state.board.items.length === 0}
              onClick={askTidy}
            >
              {text.tidy}
            </button>
          )}
        </header>
      )}
      {interactive && (
        <Toolbar
          text={text}
          tool={tool}
          color={color}
          width={width}
          ink={inkColor()}
          canUndo={state.canUndo}
          canRedo={state.canRedo}
          hasSelection={selection.length > 0}
          onTool={(t) => {
            setTool(t);
            if (t !== "select") setSelection([]);
          }}
          onColor={setColor}
          onWidth={setWidth}
          onUndo={() => store.undo()}
          onRedo={() => store.redo()}
          onDelete={deleteSelection}
        />
      )}
      <div class="wb-stage" ref={stageRef}>
        <BoardCanvas
          store={store}
          board={state.board}
          tool={tool}
          color={color}
          width={width}
          interactive={interactive}
          fit={!interactive}
          selection={selection}
          onSelect={setSelection}
          {...(focus === undefined ? {} : { focus })}
        />
        {interactive && tidy !== undefined && tidyView !== undefined && (
          <TidyPanel tidy={tidy} view={tidyView} board={state.board} ink={inkColor()} apply={(layout) => store.applyLayout(layout)} />
        )}
      </div>
      {!interactive && <div class="wb-card-title">{state.board.title}</div>}
    </div>
  );
}
