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
import { gameText, type GameText } from "./text.js";

export type DisplayMode = "foreground" | "pip" | "inline_card";

export interface AppProps {
  readonly store: GameStore;
  readonly displayMode?: DisplayMode;
  /** Follows the host's display mode (current value first); returns the stop function. */
  readonly onDisplayModeChange?: (listener: (mode: DisplayMode) => void) => () => void;
  /** The page runs outside LineUp: no agent will guess. */
  readonly standalone?: boolean;
  /** The language LineUp tells the app (BCP 47), and its changes: the words follow it. */
  readonly locale?: string;
  readonly onLocaleChange?: (listener: (locale: string) => void) => () => void;
}

function clock(ms: number): string {
  const seconds = Math.ceil(Math.max(0, ms) / 1_000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

function RoundEnd({ round, text }: { round: Round; text: GameText }) {
  if (round.outcome === undefined) return null;
  return (
    <div class={`dg-end dg-end-${round.outcome}`} role="status">
      <RoundEndText round={round} text={text} />
    </div>
  );
}

function RoundEndText({ round, text }: { round: Round; text: GameText }) {
  return round.outcome === "guessed" ? (
    <>
      {text.guessedIt}
      <strong>{round.word}</strong>!
    </>
  ) : (
    <>
      {text.outOfGuesses}
      <strong>{round.word}</strong>.
    </>
  );
}

export function App({ store, displayMode = "foreground", onDisplayModeChange, standalone = false, locale: initialLocale = "en", onLocaleChange }: AppProps) {
  const [locale, setLocale] = useState(initialLocale);
  useEffect(() => onLocaleChange?.(setLocale), [onLocaleChange]);
  const text = gameText(locale);
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

  if (mode === "pip") return <PipView round={round} status={round === null ? undefined : statusOf(round, now, text)} text={text} />;

  if (round === null) {
    return (
      <main class="dg dg-idle">
        <p class="dg-idle-title">{text.noRound}</p>
        <p class="dg-hint">{standalone ? text.standaloneHint : text.idleHint}</p>
        <button type="button" class="dg-primary" onClick={newWord}>
          {text.startRound}
        </button>
      </main>
    );
  }

  const onStroke = (stroke: Stroke): boolean => {
    const result = store.addStroke(stroke);
    if (!result.ok && result.reason === "canvas_full") setNotice(text.canvasFull);
    return result.ok;
  };
  const letters = lettersOf(round.word);
  const status = statusOf(round, now, text);

  return (
    <main class="dg">
      <header class="dg-header">
        <div class="dg-round">
          {text.round(round.number, round.category)}
        </div>
        <div class="dg-secret">
          {text.draw}
          <strong class="dg-word">{round.word}</strong> <span class="dg-letters">{text.letters(letters)}</span>
        </div>
        <div class="dg-score" aria-label={text.score}>
          {text.guessed(game.won, game.played)}
        </div>
      </header>
      <p class="dg-status" role="timer" aria-live="off">
        {status ?? (standalone ? "" : text.anotherRound)}
      </p>
      <div class="dg-stage">
        <DrawingCanvas strokes={round.strokes} interactive={drawing} onStroke={onStroke} label={text.drawing(round.strokes.length)} />
        <ol class="dg-bubbles" aria-label={text.guesses} aria-live="polite">
          {round.guesses.map((g, i) => (
            <li key={i} class={`dg-bubble ${g.correct ? "dg-bubble-right" : "dg-bubble-wrong"}`}>
              {g.text}? <span aria-label={g.correct ? text.right : text.wrong}>{g.correct ? "✓" : "✗"}</span>
            </li>
          ))}
        </ol>
        <RoundEnd round={round} text={text} />
      </div>
      {notice !== undefined && (
        <p class="dg-notice" role="alert">
          {notice}
        </p>
      )}
      <footer class="dg-actions">
        {drawing && (
          <button type="button" class="dg-primary" onClick={() => store.finishDrawing()} disabled={round.strokes.length === 0}>
            {text.done}
          </button>
        )}
        {drawing && (
          <button type="button" onClick={() => store.clearDrawing()} disabled={round.strokes.length === 0}>
            {text.clear}
          </button>
        )}
        <button type="button" onClick={newWord}>
          {text.newWord}
        </button>
      </footer>
    </main>
  );
}

/** Where the round is, in one line; undefined once it has ended (its end says it). */
function statusOf(round: Round, now: number, text: GameText): string | undefined {
  if (round.outcome !== undefined) return undefined;
  const left = guessesLeft(round);
  if (round.finished) return text.waiting(left);
  const hint = hintRemainingMs(round, now);
  return hint > 0 ? text.tryIn(clock(hint)) : text.timesUp;
}

/** Picture-in-picture: the round and the word, where the round is, and the agent's last guess. */
function PipView({ round, status, text }: { round: Round | null; status: string | undefined; text: GameText }) {
  if (round === null) {
    return (
      <main class="dg dg-pip">
        <p class="dg-pip-line">{text.noRound}</p>
      </main>
    );
  }
  const last = round.guesses[round.guesses.length - 1];
  return (
    <main class="dg dg-pip">
      <p class="dg-pip-line">
        {text.round(round.number, text.draw)}
        <strong class="dg-word">{round.word}</strong>
      </p>
      <p class="dg-status" role="status">
        {status ?? <RoundEndText round={round} text={text} />}
      </p>
      {last !== undefined && (
        <p class="dg-pip-guess">
          Last guess: {last.text}? <span aria-label={last.correct ? "right" : "wrong"}>{last.correct ? "✓" : "✗"}</span>
        </p>
      )}
    </main>
  );
}
