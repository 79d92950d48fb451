/**
 * The game, as pure data and functions: a round's secret word and the person's drawing, the agent's
 * guesses (three per round), how a guess is checked, and the form the game takes in session data.
 * The store (`store.ts`) keeps it in the app session's data; the tools and the screen only call
 * these functions, so every rule lives here and is tested in Node.
 */
import type { JsonObject } from "@lineup/protocol";
import { CATEGORIES, isCategory, WORDS, type Category } from "./words.js";

export const GAME_FORMAT = "lineup.draw-and-guess.v1";
/** The drawing's own coordinate system: integers, 0 … width and 0 … height, whatever size it is shown at. */
export const CANVAS_WIDTH = 400;
export const CANVAS_HEIGHT = 300;
export const MAX_GUESSES = 3;
export const MAX_GUESS_LENGTH = 40;
export const MAX_ROUND_ID_LENGTH = 64;
/** What the manifest declares (`storage.session_data_quota_bytes`); a test keeps the two equal. */
export const SESSION_DATA_QUOTA_BYTES = 65_536;
/** The strokes of one round, as JSON, stay under this, which leaves the rest of the quota for the round and score. */
export const STROKES_BUDGET_BYTES = 48_000;
export const MAX_POINTS_PER_STROKE = 1_000;
/** Points closer than this to the previous one are dropped: the line looks the same and stores smaller. */
export const MIN_POINT_DISTANCE = 2;
/** The timer hint shown to the person (not enforced: the round ends on the agent's guesses). */
export const ROUND_HINT_MS = 90_000;
/** Ids of ended rounds kept, so a late call about one is told it ended rather than that it never was. */
export const ENDED_ROUNDS_KEPT = 20;

/** One line of the drawing: x, y pairs in canvas units. */
export type Stroke = readonly number[];

export interface Guess {
  readonly text: string;
  readonly correct: boolean;
}

export type RoundOutcome = "guessed" | "missed";

export interface Round {
  readonly round_id: string;
  /** 1 for the first round of this conversation, then counting up. */
  readonly number: number;
  readonly category: Category;
  readonly word: string;
  /** Epoch ms, as this device saw the start. */
  readonly started_at: number;
  readonly strokes: readonly Stroke[];
  /** The person pressed "I'm done drawing". */
  readonly finished: boolean;
  readonly guesses: readonly Guess[];
  /** Set when the round is over. */
  readonly outcome?: RoundOutcome;
}

export interface Game {
  readonly round: Round | null;
  /** Rounds started, and rounds the agent guessed. */
  readonly played: number;
  readonly won: number;
  readonly ended_round_ids: readonly string[];
}

/** What `game.start_round` tells the agent: everything but the word. */
export interface RoundInfo {
  readonly round_id: string;
  readonly round: number;
  readonly category: Category;
  readonly letters: number;
  readonly candidates: string[];
}

export interface GuessResult {
  readonly correct: boolean;
  readonly guesses_left: number;
  /** Only once the round is over. */
  readonly word?: string;
}

export type RefusalReason = "unknown_round" | "round_ended" | "empty_guess";

export interface GameRefusal {
  readonly reason: RefusalReason;
  readonly message: string;
}

export type GameResult<T> = { readonly ok: true; readonly game: Game; readonly value: T } | { readonly ok: false; readonly refusal: GameRefusal };

export const EMPTY_GAME: Game = { round: null, played: 0, won: 0, ended_round_ids: [] };

const pick = (random: () => number, length: number): number => Math.min(length - 1, Math.max(0, Math.floor(random() * length)));

export function isLive(round: Round | null): round is Round {
  return round !== null && round.outcome === undefined;
}

/** The person may still draw: a live round they have not finished. */
export function canDraw(round: Round | null): round is Round {
  return isLive(round) && !round.finished;
}

export function lettersOf(word: string): number {
  return word.replace(/[^\p{L}\p{N}]/gu, "").length;
}

export function guessesLeft(round: Round): number {
  return round.outcome === undefined ? MAX_GUESSES - round.guesses.length : 0;
}

function rememberEnded(ids: readonly string[], id: string): string[] {
  return [...ids.filter((x) => x !== id), id].slice(-ENDED_ROUNDS_KEPT);
}

/**
 * A new round with a word from `category` (or a random category). A round still being played is
 * replaced (its id is remembered as ended). The word differs from the previous round's when the category has another.
 */
export function startRound(game: Game, request: { round_id: string; category?: Category; now: number; random: () => number }): { game: Game; round: Round } {
  const category = request.category ?? CATEGORIES[pick(request.random, CATEGORIES.length)]!;
  const words = WORDS[category];
  let index = pick(request.random, words.length);
  if (words[index] === game.round?.word) index = (index + 1) % words.length;
  const round: Round = { round_id: request.round_id, number: game.played + 1, category, word: words[index]!, started_at: request.now, strokes: [], finished: false, guesses: [] };
  const previous = game.round;
  return {
    round,
    game: { round, played: game.played + 1, won: game.won, ended_round_ids: previous === null ? game.ended_round_ids : rememberEnded(game.ended_round_ids, previous.round_id) },
  };
}

export function roundInfo(round: Round): RoundInfo {
  return { round_id: round.round_id, round: round.number, category: round.category, letters: lettersOf(round.word), candidates: [...WORDS[round.category]] };
}

/** The round named `round_id`: the current one (ended or not), else a refusal saying whether it ended or never was. */
function findRound(game: Game, roundId: string): { ok: true; round: Round } | { ok: false; refusal: GameRefusal } {
  if (game.round !== null && game.round.round_id === roundId) return { ok: true, round: game.round };
  if (game.ended_round_ids.includes(roundId)) return { ok: false, refusal: { reason: "round_ended", message: `round ${roundId} has ended; start a new round` } };
  return { ok: false, refusal: { reason: "unknown_round", message: `there is no round ${roundId}` } };
}

/** One of the agent's guesses: checked, counted, and the round ended when it is right or the last one. */
export function guessRound(game: Game, roundId: string, text: string): GameResult<GuessResult> {
  const found = findRound(game, roundId);
  if (!found.ok) return found;
  const round = found.round;
  if (round.outcome !== undefined) return { ok: false, refusal: { reason: "round_ended", message: `round ${roundId} has ended (${round.outcome}); start a new round` } };
  const shown = text.replace(/\s+/g, " ").trim().slice(0, MAX_GUESS_LENGTH);
  if (normalizeGuess(shown) === "") return { ok: false, refusal: { reason: "empty_guess", message: "the guess has no letters" } };
  const correct = sameWord(shown, round.word);
  const guesses = [...round.guesses, { text: shown, correct }];
  const left = MAX_GUESSES - guesses.length;
  const outcome: RoundOutcome | undefined = correct ? "guessed" : left <= 0 ? "missed" : undefined;
  const next: Round = { ...round, guesses, ...(outcome === undefined ? {} : { outcome }) };
  return {
    ok: true,
    game: { ...game, round: next, won: game.won + (correct ? 1 : 0) },
    value: { correct, guesses_left: Math.max(0, left), ...(outcome === undefined ? {} : { word: round.word }) },
  };
}

/** What the agent may see of a round's drawing (its strokes, to render). */
export function drawingOf(game: Game, roundId: string): { ok: true; round: Round } | { ok: false; refusal: GameRefusal } {
  return findRound(game, roundId);
}

/** The person pressed "New word": the round is skipped and another starts in the same category. */
export function skipRound(game: Game, request: { round_id: string; now: number; random: () => number }): { game: Game; round: Round } {
  return startRound(game, { ...request, ...(game.round === null ? {} : { category: game.round.category }) });
}

export type DrawResult = { readonly ok: true; readonly game: Game } | { readonly ok: false; readonly reason: "not_drawing" | "canvas_full" | "empty" };

/** Adds one line the person drew (already compacted); refused when the round takes no drawing or the canvas is full. */
export function addStroke(game: Game, stroke: Stroke): DrawResult {
  if (!canDraw(game.round)) return { ok: false, reason: "not_drawing" };
  if (stroke.length < 2) return { ok: false, reason: "empty" };
  const strokes = [...game.round.strokes, stroke];
  if (strokesBytes(strokes) > STROKES_BUDGET_BYTES) return { ok: false, reason: "canvas_full" };
  return { ok: true, game: { ...game, round: { ...game.round, strokes } } };
}

export function clearDrawing(game: Game): Game {
  if (!canDraw(game.round) || game.round.strokes.length === 0) return game;
  return { ...game, round: { ...game.round, strokes: [] } };
}

/** "I'm done drawing" — with something drawn: an empty canvas is nothing to guess (and could no longer be drawn on). */
export function finishDrawing(game: Game): Game {
  if (!canDraw(game.round) || game.round.strokes.length === 0) return game;
  return { ...game, round: { ...game.round, finished: true } };
}

export function strokesBytes(strokes: readonly Stroke[]): number {
  return JSON.stringify(strokes).length;
}

/**
 * Pointer samples (canvas units) → a stroke: rounded to whole units, kept on the canvas, points
 * closer than `MIN_POINT_DISTANCE` to the previous one dropped (the last sample is always kept),
 * at most `MAX_POINTS_PER_STROKE` points.
 */
export function compactStroke(points: readonly { readonly x: number; readonly y: number }[]): number[] {
  const out: number[] = [];
  const clamp = (v: number, max: number) => Math.min(max, Math.max(0, Math.round(v)));
  let pendingLast: [number, number] | undefined;
  for (const p of points) {
    if (!Number.isFinite(p.x) || !Number.isFinite(p.y)) continue;
    const x = clamp(p.x, CANVAS_WIDTH);
    const y = clamp(p.y, CANVAS_HEIGHT);
    const n = out.length;
    if (n >= 2 && Math.hypot(x - out[n - 2]!, y - out[n - 1]!) < MIN_POINT_DISTANCE) {
      pendingLast = [x, y];
      continue;
    }
    pendingLast = undefined;
    out.push(x, y);
    if (out.length >= MAX_POINTS_PER_STROKE * 2) return out;
  }
  if (pendingLast !== undefined && (pendingLast[0] !== out[out.length - 2] || pendingLast[1] !== out[out.length - 1])) out.push(...pendingLast);
  return out;
}

/** Milliseconds left of the timer hint. */
export function hintRemainingMs(round: Round, now: number): number {
  return Math.max(0, round.started_at + ROUND_HINT_MS - now);
}

// --- Checking a guess ---

/** Lower case, no punctuation, single spaces, no leading article: " A Cat! " → "cat". */
export function normalizeGuess(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[-_]+/g, " ")
    .replace(/[^\p{L}\p{N}\s]/gu, "")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^(?:a|an|the|some)\s+/, "");
}

const IRREGULAR_PLURALS: Readonly<Record<string, readonly string[]>> = {
  mouse: ["mice"],
  goose: ["geese"],
  cactus: ["cacti"],
  fish: ["fish"],
  sheep: ["sheep"],
  foot: ["feet"],
  tooth: ["teeth"],
};

/** A word and its plural spellings: cat → cats, bus → buses, cherry → cherries, leaf → leaves, mouse → mice. */
export function wordForms(word: string): Set<string> {
  const forms = new Set([word, `${word}s`, `${word}es`]);
  if (/[^aeiou]y$/.test(word)) forms.add(`${word.slice(0, -1)}ies`);
  if (word.endsWith("fe")) forms.add(`${word.slice(0, -2)}ves`);
  else if (word.endsWith("f")) forms.add(`${word.slice(0, -1)}ves`);
  for (const form of IRREGULAR_PLURALS[word] ?? []) forms.add(form);
  return forms;
}

/** A guess names the word: ignoring case, spaces and hyphens, punctuation, a leading article and a plural ending. */
export function sameWord(guess: string, word: string): boolean {
  const g = normalizeGuess(guess).replace(/ /g, "");
  return g !== "" && wordForms(normalizeGuess(word).replace(/ /g, "")).has(g);
}

// --- Session data ---

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;
const isId = (v: unknown): v is string => typeof v === "string" && v.length > 0 && v.length <= MAX_ROUND_ID_LENGTH;
const OUTCOMES: readonly string[] = ["guessed", "missed"];

function readStroke(raw: unknown): Stroke | undefined {
  if (!Array.isArray(raw) || raw.length < 2 || raw.length % 2 !== 0) return undefined;
  return raw.every((v) => typeof v === "number" && Number.isFinite(v)) ? (raw as number[]) : undefined;
}

function readRound(raw: unknown): Round | null {
  if (!isRecord(raw)) return null;
  const { round_id, number, category, word, started_at, strokes, finished, guesses, outcome } = raw;
  if (!isId(round_id) || !isCount(number) || !isCategory(category) || typeof word !== "string" || typeof started_at !== "number" || !Number.isFinite(started_at)) return null;
  if (!Array.isArray(strokes) || typeof finished !== "boolean" || !Array.isArray(guesses)) return null;
  if (outcome !== undefined && !OUTCOMES.includes(outcome as string)) return null;
  const readGuesses = guesses.filter((g): g is Guess => isRecord(g) && typeof g["text"] === "string" && typeof g["correct"] === "boolean").map((g) => ({ text: g.text, correct: g.correct }));
  return {
    round_id,
    number,
    category,
    word,
    started_at,
    strokes: strokes.map(readStroke).filter((s): s is Stroke => s !== undefined),
    finished,
    guesses: readGuesses.slice(0, MAX_GUESSES),
    ...(outcome === undefined ? {} : { outcome: outcome as RoundOutcome }),
  };
}

/** Session data → game; anything else (nothing stored, another format) is a fresh game. */
export function parseStored(data: JsonObject | null): Game {
  if (data === null || data["format"] !== GAME_FORMAT) return EMPTY_GAME;
  const { played, won, ended_round_ids: ended } = data;
  return {
    round: readRound(data["round"]),
    played: isCount(played) ? played : 0,
    won: isCount(won) ? won : 0,
    ended_round_ids: Array.isArray(ended) ? ended.filter(isId).slice(-ENDED_ROUNDS_KEPT) : [],
  };
}

export function storedForm(game: Game): JsonObject {
  const round = game.round;
  return {
    format: GAME_FORMAT,
    played: game.played,
    won: game.won,
    ended_round_ids: [...game.ended_round_ids],
    round:
      round === null
        ? null
        : {
            round_id: round.round_id,
            number: round.number,
            category: round.category,
            word: round.word,
            started_at: round.started_at,
            strokes: round.strokes.map((s) => [...s]),
            finished: round.finished,
            guesses: round.guesses.map((g) => ({ text: g.text, correct: g.correct })),
            ...(round.outcome === undefined ? {} : { outcome: round.outcome }),
          },
  };
}
