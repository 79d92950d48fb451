/**
 * The game screen: the secret word and a timer hint above the canvas, the agent's guesses as
 * bubbles over it, the round's end, and the person's buttons — "I'm done drawing", "Clear" and
 * "New word". With no round yet it says how to start one.
 */
import { useEffect, useState } from "preact/hooks";
import { canDraw, guessesLeft, hintRemainingMs, lettersOf, type Round, type Stroke } from "../model.js";
import type { GameStore } from "../store.js";
import { DrawingCanvas } from "./DrawingCanvas.js";

export interface AppProps {
  readonly store: GameStore;
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
      {round.outcome === "guessed" ? (
        <>
          Guessed it: <strong>{round.word}</strong>!
        </>
      ) : (
        <>
          Out of guesses — the word was <strong>{round.word}</strong>.
        </>
      )}
    </div>
  );
}

export function App({ store, standalone = false }: AppProps) {
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
  const left = guessesLeft(round);
  const hint = hintRemainingMs(round, now);
  const letters = lettersOf(round.word);
  const status =
    round.outcome !== undefined
      ? undefined
      : round.finished
        ? `Waiting for the agent's guess — ${left} ${left === 1 ? "guess" : "guesses"} left.`
        : hint > 0
          ? `Try to draw it in ${clock(hint)}`
          : "Time's up — tell the agent you're done.";

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
