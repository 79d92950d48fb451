/**
 * The game screen: the secret word and a timer hint above the canvas, the agent's guesses as
 * bubbles over it, the round's end, and the person's buttons — "I'm done drawing", "Clear" and
 * "New word". With no round yet it says how to start one. In picture-in-picture (over the chat, while
 * the person reads the agent's guesses) it is three lines: the round and word, where the round is, and
 * the agent's last guess.
 */
import { useEffect, useState } from "preact/hooks";
import { canDraw, guessesLeft, hintRemainingMs, lettersOf, type Round, type Stroke } from "../model.js";
import type { GameStore } from "../store.js";
import { DrawingCanvas } from "./DrawingCanvas.js";

export type DisplayMode = "foreground" | "pip" | "inline_card";

export interface AppProps {
  readonly store: GameStore;
  readonly displayMode?: DisplayMode;
  /** Follows the host's display mode (current value first); returns the stop function. */
  readonly onDisplayModeChange?: (listener: (mode: DisplayMode) => void) => () => void;
  /** The page runs outside LineUp: no agent will guess. */
  readonly standalone?: boolean;
}

function clock(ms: number): string {
  const seconds = Math.ceil(Math.max(0, ms) / 1_000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

function RoundEnd({ round }: { round: Round }) {
  if (round.outcome === undefined) return null;
  return (
    <div class={`dg-end dg-end-${round.outcome}`} role="status">
      <RoundEndText round={round} />
    </div>
  );
}

function RoundEndText({ round }: { round: Round }) {
  return round.outcome === "guessed" ? (
    <>
      Guessed it: <strong>{round.word}</strong>!
    </>
  ) : (
    <>
      Out of guesses — the word was <strong>{round.word}</strong>.
    </>
  );
}

export function App({ store, displayMode = "foreground", onDisplayModeChange, standalone = false }: AppProps) {
  const [mode, setMode] = useState(displayMode);
  useEffect(() => onDisplayModeChange?.(setMode), [onDisplayModeChange]);
  const [game, setGame] = useState(store.game);
  const [now, setNow] = useState(store.now());
  const [notice, setNotice] = useState<string | undefined>(undefined);

  useEffect(() => {
    const off = store.onChange(() => {
      setGame(store.game);
      setNow(store.now());
    });
    setGame(store.game);
    return off;
  }, [store]);

  const round = game.round;
  const drawing = canDraw(round);
  useEffect(() => {
    if (!drawing) return;
    const tick = setInterval(() => setNow(store.now()), 500);
    return () => clearInterval(tick);
  }, [drawing, store]);
  useEffect(() => setNotice(undefined), [round?.round_id]);

  const newWord = () => store.newWord();

  if (mode === "pip") return <PipView round={round} status={round === null ? undefined : statusOf(round, now)} />;

  if (round === null) {
    return (
      <main class="dg dg-idle">
        <p class="dg-idle-title">No round yet</p>
        <p class="dg-hint">{standalone ? "Draw and Guess is played with an agent in LineUp. You can still try drawing here." : "Ask the agent in chat, for example “let's play draw and guess”."}</p>
        <button type="button" class="dg-primary" onClick={newWord}>
          Start a round
        </button>
      </main>
    );
  }

  const onStroke = (stroke: Stroke): boolean => {
    const result = store.addStroke(stroke);
    if (!result.ok && result.reason === "canvas_full") setNotice("The canvas is full — press Clear, or I'm done drawing.");
    return result.ok;
  };
  const letters = lettersOf(round.word);
  const status = statusOf(round, now);

  return (
    <main class="dg">
      <header class="dg-header">
        <div class="dg-round">
          Round {round.number} · {round.category}
        </div>
        <div class="dg-secret">
          Draw: <strong class="dg-word">{round.word}</strong> <span class="dg-letters">({letters} letters)</span>
        </div>
        <div class="dg-score" aria-label="Score">
          Guessed {game.won} of {game.played}
        </div>
      </header>
      <p class="dg-status" role="timer" aria-live="off">
        {status ?? (standalone ? "" : "Ask the agent for another round, or press New word.")}
      </p>
      <div class="dg-stage">
        <DrawingCanvas strokes={round.strokes} interactive={drawing} onStroke={onStroke} label={`Drawing: ${round.strokes.length} ${round.strokes.length === 1 ? "stroke" : "strokes"}`} />
        <ol class="dg-bubbles" aria-label="The agent's guesses" aria-live="polite">
          {round.guesses.map((g, i) => (
            <li key={i} class={`dg-bubble ${g.correct ? "dg-bubble-right" : "dg-bubble-wrong"}`}>
              {g.text}? <span aria-label={g.correct ? "right" : "wrong"}>{g.correct ? "✓" : "✗"}</span>
            </li>
          ))}
        </ol>
        <RoundEnd round={round} />
      </div>
      {notice !== undefined && (
        <p class="dg-notice" role="alert">
          {notice}
        </p>
      )}
      <footer class="dg-actions">
        {drawing && (
          <button type="button" class="dg-primary" onClick={() => store.finishDrawing()} disabled={round.strokes.length === 0}>
            I'm done drawing
          </button>
        )}
        {drawing && (
          <button type="button" onClick={() => store.clearDrawing()} disabled={round.strokes.length === 0}>
            Clear
          </button>
        )}
        <button type="button" onClick={newWord}>
          New word
        </button>
      </footer>
    </main>
  );
}

/** Where the round is, in one line; undefined once it has ended (its end says it). */
function statusOf(round: Round, now: number): string | undefined {
  if (round.outcome !== undefined) return undefined;
  const left = guessesLeft(round);
  if (round.finished) return `Waiting for the agent's guess — ${left} ${left === 1 ? "guess" : "guesses"} left.`;
  const hint = hintRemainingMs(round, now);
  return hint > 0 ? `Try to draw it in ${clock(hint)}` : "Time's up — tell the agent you're done.";
}

/** Picture-in-picture: the round and the word, where the round is, and the agent's last guess. */
function PipView({ round, status }: { round: Round | null; status: string | undefined }) {
  if (round === null) {
    return (
      <main class="dg dg-pip">
        <p class="dg-pip-line">No round yet</p>
      </main>
    );
  }
  const last = round.guesses[round.guesses.length - 1];
  return (
    <main class="dg dg-pip">
      <p class="dg-pip-line">
        Round {round.number} · Draw: <strong class="dg-word">{round.word}</strong>
      </p>
      <p class="dg-status" role="status">
        {status ?? <RoundEndText round={round} />}
      </p>
      {last !== undefined && (
        <p class="dg-pip-guess">
          Last guess: {last.text}? <span aria-label={last.correct ? "right" : "wrong"}>{last.correct ? "✓" : "✗"}</span>
        </p>
      )}
    </main>
  );
}
