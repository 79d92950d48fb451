/**
 * What the tool handlers reach at run time. The tools module is also loaded by the build (in Node,
 * to emit the manifest's tools), so it must not touch the DOM or the bridge when imported; the app
 * provides the live game once it has loaded.
 */
import { lateBound } from "@lineup/surface-sdk";
import type { Stroke } from "./model.js";
import type { GameStore } from "./store.js";

export interface DrawAndGuessService {
  readonly store: GameStore;
  /** The drawing as a PNG (base64) of at most `maxBytes`, or undefined when even the smallest one is larger. */
  drawingPng(strokes: readonly Stroke[], maxBytes: number): Promise<string | undefined>;
}

const live = lateBound<DrawAndGuessService>("draw and guess");

/** The app has loaded (`undefined`: it is gone again). */
export const provideGame = live.provide;

/** The live game; a call before the app has loaded fails with `handler_failed`. */
export const game = live.get;
