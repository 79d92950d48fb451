/**
 * Draw and Guess's agent tools, declared once: the build reads this module to emit the manifest's
 * `tools`, and the running app serves the same handlers (spec 7.1, 9). The person draws a secret
 * word; the agent starts the round, may look at the drawing, and has three guesses. The word never
 * leaves the app before the round is over.
 *
 * A round that is unknown or over is refused with `invalid_arguments` (the round id is an
 * argument that no longer fits; an app's handler may end a call only with spec 7.3's app codes).
 */
import type { JsonObject } from "@lineup/protocol";
import { defineAgentTools, ToolFailure } from "@lineup/surface-sdk";
import { MAX_GUESS_LENGTH, MAX_GUESSES, MAX_ROUND_ID_LENGTH, type GameRefusal, type Round } from "./model.js";
import { game } from "./service.js";
import { CATEGORIES, type Category } from "./words.js";

/** The PNG `game.get_drawing` returns is at most this many bytes (before base64). */
export const MAX_PNG_BYTES = 65_536;

const ROUND_ID = { type: "string", minLength: 1, maxLength: MAX_ROUND_ID_LENGTH, description: "The round_id that game.start_round returned." };

/** How long `game.await_drawing` waits for the person by default. */
export const AWAIT_DRAWING_TIMEOUT_MS = 15 * 60_000;

const DRAWING_SCHEMA: JsonObject = {
  type: "object",
  additionalProperties: false,
  required: ["round_id", "strokes", "finished"],
  properties: {
    round_id: { type: "string" },
    strokes: { type: "integer", minimum: 0 },
    finished: { type: "boolean" },
    png_base64: { type: "string", contentEncoding: "base64", contentMediaType: "image/png", maxLength: Math.ceil(MAX_PNG_BYTES / 3) * 4 },
  },
};

/** The round's drawing as the agent sees it: strokes, whether the person is done, a small PNG when it fits. */
async function drawingResult(round: Round): Promise<{ round_id: string; strokes: number; finished: boolean; png_base64?: string }> {
  const png = await game().drawingPng(round.strokes, MAX_PNG_BYTES);
  return { round_id: round.round_id, strokes: round.strokes.length, finished: round.finished, ...(png === undefined ? {} : { png_base64: png }) };
}

function refused(refusal: GameRefusal): never {
  throw new ToolFailure("invalid_arguments", refusal.message);
}

export const tools = defineAgentTools({
  "game.start_round": {
    title: "Start a round of Draw and Guess",
    description:
      "Starts a new round: the app picks a secret word (from the category, or a random one) and shows it to the user with a canvas to draw it on. " +
      "You do not get the word: you get the round's id, its number, the category, how many letters the word has, and the category's words as candidates. " +
      "When the user is done — they press “I'm done drawing” (game.await_drawing tells you) or say so — look at the drawing (game.get_drawing) and guess (game.guess, three guesses). A round still being played is replaced.",
    call_model: "command",
    // The person has to see the word and the canvas: LineUp brings the game to the front first.
    activation_requirement: "foreground_required",
    input_schema: {
      type: "object",
      additionalProperties: false,
      properties: { category: { enum: [...CATEGORIES], description: "Where the word comes from; a random category when omitted." } },
    },
    output_schema: {
      type: "object",
      additionalProperties: false,
      required: ["round_id", "round", "category", "letters", "candidates"],
      properties: {
        round_id: { type: "string" },
        round: { type: "integer", minimum: 1 },
        category: { enum: [...CATEGORIES] },
        letters: { type: "integer", minimum: 1 },
        candidates: { type: "array", items: { type: "string" } },
      },
    },
    handler: async (args: { category?: Category }) => {
      const info = await game().store.startRound(args.category);
      return { ...info };
    },
  },
  "game.get_drawing": {
    title: "Look at the drawing",
    description:
      "Returns how many strokes the user has drawn in the round, whether they said they are finished, and the drawing as a small PNG (base64, at most 64 KB; omitted when it would be larger).",
    call_model: "query",
    activation_requirement: "app_ready",
    input_schema: { type: "object", additionalProperties: false, required: ["round_id"], properties: { round_id: ROUND_ID } },
    output_schema: DRAWING_SCHEMA,
    handler: async (args: { round_id: string }) => {
      const found = game().store.drawing(args.round_id);
      if (!found.ok) refused(found.refusal);
      return drawingResult(found.round);
    },
  },
  "game.await_drawing": {
    title: "Wait for the drawing",
    description:
      "Waits until the user presses “I'm done drawing” in the round (answers at once if they already did), then returns the drawing as game.get_drawing does. " +
      "Refused with invalid_arguments when the round is unknown or ends first (the user picked a new word, or the round was guessed).",
    call_model: "interactive",
    // The game is in front from game.start_round; the person draws there.
    activation_requirement: "foreground_required",
    restore_focus: false,
    timeout_ms: AWAIT_DRAWING_TIMEOUT_MS,
    input_schema: { type: "object", additionalProperties: false, required: ["round_id"], properties: { round_id: ROUND_ID } },
    output_schema: DRAWING_SCHEMA,
    handler: async (args: { round_id: string }, ctx) => {
      const { store } = game();
      const round = await new Promise<Round>((resolve, reject) => {
        // Settled by the round's next change that decides it: finished, over or gone; or by a cancel.
        const decided = (): boolean => {
          const found = store.drawing(args.round_id);
          if (!found.ok) reject(new ToolFailure("invalid_arguments", found.refusal.message));
          else if (found.round.finished) resolve(found.round);
          else return false;
          return true;
        };
        if (decided()) return;
        const stop = (): void => {
          off();
          ctx.signal.removeEventListener("abort", cancelled);
        };
        const cancelled = (): void => {
          stop();
          reject(new ToolFailure("cancelled_by_user", "stopped waiting for the drawing"));
        };
        const off = store.onChange(() => {
          if (decided()) stop();
        });
        ctx.signal.addEventListener("abort", cancelled, { once: true });
      });
      return drawingResult(round);
    },
  },
  "game.guess": {
    title: "Guess the word",
    description:
      `Guesses the round's word (case, spacing and a plural ending do not matter). Each round allows ${MAX_GUESSES} guesses. ` +
      "Returns whether it was right and how many guesses are left; the word is returned once the round is over (a right guess or the last one). The app shows each guess to the user.",
    call_model: "command",
    activation_requirement: "app_ready",
    input_schema: {
      type: "object",
      additionalProperties: false,
      required: ["round_id", "guess"],
      properties: { round_id: ROUND_ID, guess: { type: "string", minLength: 1, maxLength: MAX_GUESS_LENGTH, description: "One word or short phrase." } },
    },
    output_schema: {
      type: "object",
      additionalProperties: false,
      required: ["correct", "guesses_left"],
      properties: { correct: { type: "boolean" }, guesses_left: { type: "integer", minimum: 0, maximum: MAX_GUESSES }, word: { type: "string" } },
    },
    handler: async (args: { round_id: string; guess: string }) => {
      const result = await game().store.guess(args.round_id, args.guess);
      if (!result.ok) refused(result.refusal);
      return { ...result.value };
    },
  },
});
