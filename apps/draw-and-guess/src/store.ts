/**
 * The game on screen, backed by the app session's data (one game per conversation), so a reload or
 * another surface of the session shows the same round and drawing. Every change is shown at once
 * and then written; writes go one at a time with `expected_revision`, always the newest game. On a
 * `revision_conflict` the newer revision is read and this game written over it: the surface that
 * acts last wins (a game has one drawer). A snapshot from elsewhere is taken while nothing here is
 * waiting to be written.
 */
import { replaceWithRetry, SessionDataStore, type MiniAppSessionDataAPI, type SessionDataSnapshot } from "@lineup/surface-sdk";
import {
  addStroke,
  clearDrawing,
  drawingOf,
  EMPTY_GAME,
  finishDrawing,
  guessRound,
  parseStored,
  roundInfo,
  skipRound,
  startRound,
  storedForm,
  type DrawResult,
  type Game,
  type GameRefusal,
  type GuessResult,
  type Round,
  type RoundInfo,
  type Stroke,
} from "./model.js";
import type { Category } from "./words.js";

export interface GameStoreOptions {
  readonly sessionData: MiniAppSessionDataAPI;
  /** A fresh round id. */
  readonly newRoundId: () => string;
  /** Uniform in [0, 1): picks categories and words. */
  readonly random?: () => number;
  readonly now?: () => number;
  /** Where a failed write is reported (the screen keeps what it shows). */
  readonly onError?: (error: unknown) => void;
}

const MAX_CONFLICT_RETRIES = 3;

export class GameStore extends SessionDataStore {
  readonly #options: GameStoreOptions;
  readonly #now: () => number;
  readonly #random: () => number;
  #game: Game = EMPTY_GAME;
  #revision = 0;
  #dirty = false;
  #saving: Promise<void> | undefined;

  constructor(options: GameStoreOptions) {
    super(options.sessionData);
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#random = options.random ?? Math.random;
  }

  get game(): Game {
    return this.#game;
  }

  now(): number {
    return this.#now();
  }

  /** `game.start_round`: a new round, shown at once; resolves once it is stored. */
  async startRound(category?: Category): Promise<RoundInfo> {
    const { game, round } = startRound(this.#game, { round_id: this.#options.newRoundId(), now: this.#now(), random: this.#random, ...(category === undefined ? {} : { category }) });
    this.#change(game);
    await this.save();
    return roundInfo(round);
  }

  /** `game.guess`: resolves once the guess is stored; a refusal changes nothing. */
  async guess(roundId: string, text: string): Promise<{ ok: true; value: GuessResult } | { ok: false; refusal: GameRefusal }> {
    const result = guessRound(this.#game, roundId, text);
    if (!result.ok) return result;
    this.#change(result.game);
    await this.save();
    return { ok: true, value: result.value };
  }

  /** `game.get_drawing`: the round's drawing as it is now. */
  drawing(roundId: string): { ok: true; round: Round } | { ok: false; refusal: GameRefusal } {
    return drawingOf(this.#game, roundId);
  }

  /** A line the person drew. */
  addStroke(stroke: Stroke): DrawResult {
    const result = addStroke(this.#game, stroke);
    if (result.ok) {
      this.#change(result.game);
      void this.save();
    }
    return result;
  }

  clearDrawing(): void {
    this.#changeAndSave(clearDrawing(this.#game));
  }

  /** "I'm done drawing". */
  finishDrawing(): void {
    this.#changeAndSave(finishDrawing(this.#game));
  }

  /** "New word": another round, in the same category as the last one. */
  newWord(): void {
    this.#changeAndSave(skipRound(this.#game, { round_id: this.#options.newRoundId(), now: this.#now(), random: this.#random }).game);
  }

  /** Writes the newest game; resolves when it (or a newer one) is stored, or the write gave up. */
  save(): Promise<void> {
    this.#dirty = true;
    this.#saving ??= this.#writeLoop();
    return this.#saving;
  }

  /** Resolves when nothing shown is left unwritten (or the write gave up). */
  async flush(): Promise<void> {
    while (this.#saving !== undefined) await this.#saving;
  }

  #changeAndSave(game: Game): void {
    if (game === this.#game) return;
    this.#change(game);
    void this.save();
  }

  #change(game: Game): void {
    this.#game = game;
    this.notify();
  }

  protected applySnapshot(snapshot: SessionDataSnapshot): void {
    // Ours echoing back, an old one, or one that a write of ours under way will replace.
    if (snapshot.revision <= this.#revision || this.#saving !== undefined) return;
    this.#revision = snapshot.revision;
    this.#change(parseStored(snapshot.data));
  }

  async #writeLoop(): Promise<void> {
    try {
      while (this.#dirty) {
        this.#dirty = false;
        await this.#writeOnce(this.#game);
      }
    } finally {
      this.#saving = undefined;
    }
  }

  async #writeOnce(game: Game): Promise<void> {
    try {
      const { revision } = await replaceWithRetry(this.#options.sessionData, this.#revision, () => storedForm(game), MAX_CONFLICT_RETRIES + 1);
      this.#revision = Math.max(this.#revision, revision);
    } catch (error) {
      this.#options.onError?.(error);
    }
  }
}
