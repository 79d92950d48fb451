/**
 * What the person sees of "Ask the agent to tidy this board": the task's status while the agent works
 * (with Cancel), then the agent's proposal — its summary, how many items would move and a preview of the
 * tidied board — with Accept and Reject (and a reason for the agent), then what came of it.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { Board } from "../model/document.js";
import { boardBounds } from "../model/geometry.js";
import { FONT_STACK, renderBoard, type Canvas2D } from "../model/render.js";
import { previewLayout } from "../model/tidy.js";
import type { TidyTask, TidyView } from "../tidy-task.js";

const PREVIEW = { width: 260, height: 160 };

function PreviewCanvas({ board, ink }: { board: Board; ink: string }) {
  const ref = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const canvas = ref.current;
    const context = canvas?.getContext("2d");
    if (canvas === null || canvas === undefined || context === null || context === undefined) return;
    const ratio = globalThis.devicePixelRatio ?? 1;
    canvas.width = PREVIEW.width * ratio;
    canvas.height = PREVIEW.height * ratio;
    const bounds = boardBounds(board) ?? { x: 0, y: 0, w: PREVIEW.width, h: PREVIEW.height };
    const pad = 12;
    const scale = Math.max(0.02, Math.min(1, (PREVIEW.width - 2 * pad) / Math.max(1, bounds.w), (PREVIEW.height - 2 * pad) / Math.max(1, bounds.h)));
    const view = { scale, x: bounds.x - (PREVIEW.width / scale - bounds.w) / 2, y: bounds.y - (PREVIEW.height / scale - bounds.h) / 2 };
    renderBoard(context as unknown as Canvas2D, board, { ink, background: null, font: FONT_STACK }, view, PREVIEW, ratio);
  }, [board, ink]);
  return <canvas ref={ref} class="wb-tidy-preview" style={{ width: `${PREVIEW.width}px`, height: `${PREVIEW.height}px` }} role="img" aria-label="Preview of the tidied board" />;
}

const STATUS_TEXT: Readonly<Record<string, string>> = { queued: "Waiting for the agent…", running: "The agent is tidying the board…", waiting_for_user: "The agent needs you in the chat." };

export interface TidyPanelProps {
  readonly tidy: TidyTask;
  readonly view: TidyView;
  readonly board: Board;
  readonly ink: string;
  /** Applies an accepted layout to the board; returns how many items moved. */
  readonly apply: Parameters<TidyTask["accept"]>[0];
}

export function TidyPanel({ tidy, view, board, ink, apply }: TidyPanelProps) {
  const [reason, setReason] = useState("");
  if (view.phase === "idle" && view.problem === undefined) return null;
  const status =
    view.phase === "starting"
      ? "Asking the agent…"
      : view.phase === "working"
        ? (view.label ?? STATUS_TEXT[view.task.status] ?? "The agent is working…")
        : view.phase === "proposed"
          ? "The agent suggests a layout."
          : view.phase === "ended"
            ? view.message
            : "";
  const preview = view.phase === "proposed" ? previewLayout(board, view.result.layout) : undefined;
  return (
    <section class={`wb-tidy wb-tidy-${view.phase}`} aria-labelledby="wb-tidy-title">
      <h2 id="wb-tidy-title" class="wb-tidy-title">
        Tidy with the agent
      </h2>
      <p class="wb-tidy-status" role="status">
        {status}
      </p>
      {view.phase === "working" && (
        <div class="wb-tidy-actions">
          <button type="button" class="wb-text-button" disabled={view.cancelling === true} onClick={() => void tidy.cancel()}>
            {view.cancelling === true ? "Cancelling…" : "Cancel"}
          </button>
        </div>
      )}
      {view.phase === "proposed" && preview !== undefined && (
        <>
          <p class="wb-tidy-summary">{view.result.summary}</p>
          <p class="wb-tidy-moves">
            {preview.moves === 0 ? "Nothing would move." : `Move ${preview.moves === 1 ? "1 item" : `${preview.moves} items`}`}
            {preview.gone > 0 ? ` (${preview.gone} no longer on the board)` : ""}
          </p>
          <PreviewCanvas board={preview.board} ink={ink} />
          <label class="wb-tidy-reason">
            Reason, if you reject it
            <input type="text" value={reason} maxLength={2000} onInput={(e) => setReason((e.currentTarget as HTMLInputElement).value)} />
          </label>
          <div class="wb-tidy-actions">
            <button type="button" class="wb-text-button" disabled={view.deciding !== undefined} onClick={() => void tidy.reject(reason).then(() => setReason(""))}>
              {view.deciding === "reject" ? "Rejecting…" : "Reject"}
            </button>
            <button type="button" class="wb-text-button wb-primary" disabled={view.deciding !== undefined} onClick={() => void tidy.accept(apply)}>
              {view.deciding === "accept" ? "Applying…" : "Accept"}
            </button>
          </div>
        </>
      )}
      {view.problem !== undefined && (
        <p class="wb-tidy-problem" role="alert">
          {view.problem}
        </p>
      )}
      {(view.phase === "ended" || view.phase === "idle") && (
        <div class="wb-tidy-actions">
          <button type="button" class="wb-text-button" onClick={() => tidy.dismiss()}>
            Close
          </button>
        </div>
      )}
    </section>
  );
}
