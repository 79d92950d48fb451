/**
 * Draw and Guess's rules and its store over session data (in memory, with the Runtime's revision
 * rules): which word a round gets, how a guess is checked and counted, when a round ends, what the
 * agent is told and when, and what is kept for a reload.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { LocalSessionData } from "@lineup/surface-sdk";
import { describe, expect, it } from "vitest";
import {
  addStroke,
  CANVAS_HEIGHT,
  CANVAS_WIDTH,
  clearDrawing,
  compactStroke,
  EMPTY_GAME,
  finishDrawing,
  guessRound,
  hintRemainingMs,
  MAX_POINTS_PER_STROKE,
  parseStored,
  roundInfo,
  sameWord,
  SESSION_DATA_QUOTA_BYTES,
  skipRound,
  startRound,
  storedForm,
  STROKES_BUDGET_BYTES,
  type Game,
} from "../src/model.js";
import { GameStore } from "../src/store.js";
import { CATEGORIES, WORDS } from "../src/words.js";

const T0 = Date.UTC(2026, 10, 30, 9, 0, 0);

/** A fixed sequence of "random" numbers, repeated. */
const sequence = (...values: number[]) => {
  let i = 0;
  return () => values[i++ % values.length]!;
};

const started = (word: string, game: Game = EMPTY_GAME, round_id = "r1"): Game => {
  const category = CATEGORIES.find((c) => WORDS[c].includes(word))!;
  const index = WORDS[category].indexOf(word);
  return startRound(game, { round_id, category, now: T0, random: () => (index + 0.5) / WORDS[category].length }).game;
};

describe("choosing the word", () => {
  it("takes the word from the asked category, or from a random one, and tells the agent all but the word", () => {
    const { round, game } = startRound(EMPTY_GAME, { round_id: "r1", category: "animals", now: T0, random: () => 0 });
    expect(round).toMatchObject({ round_id: "r1", number: 1, category: "animals", word: "cat", started_at: T0, strokes: [], finished: false, guesses: [] });
    expect(game).toMatchObject({ played: 1, won: 0 });
    const info = roundInfo(round);
    expect(info).toEqual({ round_id: "r1", round: 1, category: "animals", letters: 3, candidates: WORDS.animals });
    expect(Object.keys(info)).not.toContain("word");

    const random = startRound(game, { round_id: "r2", now: T0, random: sequence(0.99, 0.5) }).round;
    expect(random).toMatchObject({ number: 2, category: "nature", word: WORDS.nature[7] });
  });

  it("every category has about fifteen distinct, simple single words", () => {
    for (const category of CATEGORIES) {
      expect(WORDS[category].length).toBeGreaterThanOrEqual(12);
      expect(new Set(WORDS[category]).size).toBe(WORDS[category].length);
      for (const word of WORDS[category]) expect(word).toMatch(/^[a-z]+$/);
    }
  });

  it("does not give the same word twice in a row, and a new round replaces one still being played", () => {
    const first = started("cat");
    const again = startRound(first, { round_id: "r2", category: "animals", now: T0, random: () => 0 });
    expect(again.round.word).toBe("dog");
    expect(again.game.ended_round_ids).toEqual(["r1"]);
    expect(guessRound(again.game, "r1", "cat")).toMatchObject({ ok: false, refusal: { reason: "round_ended" } });
  });

  it("New word starts another round in the same category", () => {
    const game = started("pizza");
    const next = skipRound(game, { round_id: "r2", now: T0 + 1_000, random: () => 0 });
    expect(next.round).toMatchObject({ round_id: "r2", number: 2, category: "food", started_at: T0 + 1_000 });
    expect(next.game.ended_round_ids).toEqual(["r1"]);
  });
});

describe("checking a guess", () => {
  it.each([
    ["cat", "cat"],
    ["CAT", "cat"],
    ["  Cat  ", "cat"],
    ["a cat!", "cat"],
    ["The cat.", "cat"],
    ["cats", "cat"],
    ["cherries", "cherry"],
    ["leaves", "leaf"],
    ["Water-melon", "watermelon"],
    ["cacti", "cactus"],
    ["fishes", "fish"],
  ])("%j names %j", (guess, word) => {
    expect(sameWord(guess, word)).toBe(true);
  });

  it.each([
    ["dog", "cat"],
    ["ca", "cat"],
    ["catch", "cat"],
    ["", "cat"],
    ["!!!", "cat"],
    ["pea", "pear"],
  ])("%j does not name %j", (guess, word) => {
    expect(sameWord(guess, word)).toBe(false);
  });
});

describe("guessing", () => {
  it("a right guess ends the round, reveals the word and counts as won", () => {
    const result = guessRound(started("cat"), "r1", " Cats ");
    expect(result).toMatchObject({ ok: true, value: { correct: true, guesses_left: 2, word: "cat" } });
    if (!result.ok) return;
    expect(result.game.round).toMatchObject({ outcome: "guessed", guesses: [{ text: "Cats", correct: true }] });
    expect(result.game.won).toBe(1);
    expect(guessRound(result.game, "r1", "dog")).toMatchObject({ ok: false, refusal: { reason: "round_ended" } });
  });

  it("counts down three guesses; the word is told only after the last wrong one", () => {
    let game = started("cat");
    const answers = [];
    for (const guess of ["dog", "fish", "bird"]) {
      const result = guessRound(game, "r1", guess);
      if (!result.ok) throw new Error(result.refusal.message);
      answers.push(result.value);
      game = result.game;
    }
    expect(answers).toEqual([
      { correct: false, guesses_left: 2 },
      { correct: false, guesses_left: 1 },
      { correct: false, guesses_left: 0, word: "cat" },
    ]);
    expect(game.round).toMatchObject({ outcome: "missed" });
    expect(game.won).toBe(0);
    expect(guessRound(game, "r1", "cat")).toMatchObject({ ok: false, refusal: { reason: "round_ended" } });
  });

  it("refuses an unknown round and a guess without letters, changing nothing", () => {
    const game = started("cat");
    expect(guessRound(game, "nope", "cat")).toEqual({ ok: false, refusal: { reason: "unknown_round", message: "there is no round nope" } });
    expect(guessRound(EMPTY_GAME, "r1", "cat")).toMatchObject({ ok: false, refusal: { reason: "unknown_round" } });
    expect(guessRound(game, "r1", " ?! ")).toMatchObject({ ok: false, refusal: { reason: "empty_guess" } });
  });
});

describe("drawing", () => {
  it("compacts pointer samples: whole units on the canvas, close points dropped, the end kept", () => {
    expect(compactStroke([{ x: 10.4, y: 20.6 }, { x: 10.9, y: 21 }, { x: 11.2, y: 21.3 }, { x: 30, y: 40 }, { x: 31, y: 40 }])).toEqual([10, 21, 30, 40, 31, 40]);
    expect(compactStroke([{ x: -5, y: 1_000 }])).toEqual([0, CANVAS_HEIGHT]);
    expect(compactStroke([{ x: Number.NaN, y: 1 }])).toEqual([]);
    const long = Array.from({ length: 5_000 }, (_, i) => ({ x: (i * 3) % CANVAS_WIDTH, y: Math.floor(i / 100) }));
    expect(compactStroke(long).length).toBe(MAX_POINTS_PER_STROKE * 2);
  });

  it("takes strokes while the person draws; done, or a round's end, stops it; Clear empties the canvas", () => {
    let game = started("cat");
    const added = addStroke(game, [1, 2, 3, 4]);
    expect(added.ok).toBe(true);
    if (!added.ok) return;
    game = added.game;
    expect(game.round?.strokes).toEqual([[1, 2, 3, 4]]);
    expect(addStroke(game, [])).toEqual({ ok: false, reason: "empty" });
    expect(clearDrawing(game).round?.strokes).toEqual([]);
    // Done needs something drawn: an empty canvas stays open for drawing.
    expect(finishDrawing(started("cat")).round?.finished).toBe(false);
    const done = finishDrawing(game);
    expect(done.round?.finished).toBe(true);
    expect(addStroke(done, [5, 6])).toEqual({ ok: false, reason: "not_drawing" });
    expect(clearDrawing(done)).toBe(done);
    expect(addStroke(EMPTY_GAME, [5, 6])).toEqual({ ok: false, reason: "not_drawing" });
  });

  it("keeps the stored game within the declared quota: a full canvas refuses the next stroke", () => {
    const manifest = JSON.parse(readFileSync(join(import.meta.dirname, "..", "lineup.app.base.json"), "utf8")) as { storage: { session_data_quota_bytes: number } };
    expect(manifest.storage.session_data_quota_bytes).toBe(SESSION_DATA_QUOTA_BYTES);
    let game = started("cat");
    // Long strokes of three-digit coordinates: the worst case per point.
    const stroke = Array.from({ length: MAX_POINTS_PER_STROKE * 2 }, (_, i) => (i % 2 === 0 ? 399 : 299));
    let refused = false;
    for (let i = 0; i < 100 && !refused; i++) {
      const result = addStroke(game, stroke);
      if (result.ok) game = result.game;
      else refused = result.reason === "canvas_full";
    }
    expect(refused).toBe(true);
    // Three long guesses and twenty ended round ids on top: still within the quota.
    for (const guess of ["x".repeat(40), "y".repeat(40), "z".repeat(40)]) {
      const result = guessRound(game, "r1", guess);
      if (result.ok) game = result.game;
    }
    game = { ...game, ended_round_ids: Array.from({ length: 20 }, (_, i) => `r-${String(i).padStart(62, "0")}`) };
    const bytes = new TextEncoder().encode(JSON.stringify(storedForm(game))).length;
    expect(bytes).toBeGreaterThan(STROKES_BUDGET_BYTES - 8_000);
    expect(bytes).toBeLessThanOrEqual(SESSION_DATA_QUOTA_BYTES);
  });

  it("shows a timer hint counting down from 1:30", () => {
    const round = started("cat").round!;
    expect(hintRemainingMs(round, T0)).toBe(90_000);
    expect(hintRemainingMs(round, T0 + 60_000)).toBe(30_000);
    expect(hintRemainingMs(round, T0 + 120_000)).toBe(0);
  });
});

describe("session data", () => {
  it("stores and reads back a game; anything else reads as a fresh game", () => {
    let game = started("cat");
    const added = addStroke(game, [1, 2, 3, 4]);
    if (added.ok) game = finishDrawing(added.game);
    const guessed = guessRound(game, "r1", "dog");
    if (guessed.ok) game = guessed.game;
    expect(parseStored(JSON.parse(JSON.stringify(storedForm(game))))).toEqual(game);
    expect(parseStored(null)).toEqual(EMPTY_GAME);
    expect(parseStored({ format: "something else", round: null })).toEqual(EMPTY_GAME);
    const broken = storedForm(game);
    expect(parseStored({ ...broken, round: { ...(broken["round"] as object), category: "planets" } }).round).toBeNull();
    expect(parseStored({ ...broken, round: { ...(broken["round"] as object), strokes: [[1, 2], [1], "x"] } }).round?.strokes).toEqual([[1, 2]]);
  });
});

describe("the game store", () => {
  const setup = (data = new LocalSessionData()) => {
    let n = 0;
    const errors: unknown[] = [];
    const store = new GameStore({ sessionData: data, newRoundId: () => `r${++n}`, random: () => 0, now: () => T0, onError: (e) => errors.push(e) });
    return { data, store, errors };
  };
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

  it("a started round is stored before the tool answers; a reload (a second store) shows the same round and drawing", async () => {
    const { data, store } = setup();
    await store.load();
    const info = await store.startRound("animals");
    expect(info).toEqual({ round_id: "r1", round: 1, category: "animals", letters: 3, candidates: WORDS.animals });
    expect(parseStored(data.current.data).round?.word).toBe("cat");
    expect(store.addStroke([10, 10, 50, 50]).ok).toBe(true);
    store.finishDrawing();
    await store.flush();
    expect(await store.guess("r1", "dog")).toEqual({ ok: true, value: { correct: false, guesses_left: 2 } });

    const reloaded = setup(data).store;
    await reloaded.load();
    expect(reloaded.game).toEqual(store.game);
    expect(reloaded.game.round).toMatchObject({ strokes: [[10, 10, 50, 50]], finished: true, guesses: [{ text: "dog", correct: false }] });
  });

  it("a refused guess changes nothing and writes nothing", async () => {
    const { data, store } = setup();
    await store.load();
    await store.startRound("food");
    const revision = data.current.revision;
    expect(await store.guess("r9", "apple")).toMatchObject({ ok: false, refusal: { reason: "unknown_round" } });
    expect(data.current.revision).toBe(revision);
  });

  it("a round started on another surface arrives through the subscription", async () => {
    const { data, store } = setup();
    await store.load();
    const other = setup(data).store;
    await other.load();
    await other.startRound("nature");
    await settle();
    expect(store.game.round).toMatchObject({ round_id: "r1", category: "nature", word: "sun" });
  });

  it("writes over a newer revision when it acts last (one drawer per game)", async () => {
    const { data, store, errors } = setup();
    await store.load();
    // Another surface writes revision 1; the store has not heard of it (its listener runs later) when it writes.
    void data.replace({ data: { format: "foreign" }, expected_revision: 0 });
    await store.startRound("objects");
    expect(parseStored(data.current.data).round?.category).toBe("objects");
    expect(data.current.revision).toBe(2);
    expect(errors).toEqual([]);
  });
});
