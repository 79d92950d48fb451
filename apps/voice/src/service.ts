/**
 * What the tool handler reaches at run time. The tools module is also loaded by the build (in Node,
 * to emit the manifest's tools), so it must not touch the DOM or the bridge when imported; the app
 * provides its notes once it has loaded.
 */
import { lateBound } from "@lineup/surface-sdk";
import type { VoiceNotes } from "./notes.js";

const live = lateBound<VoiceNotes>("Voice Notes");

/** The app has loaded (`undefined`: it is gone again). */
export const provideNotes = live.provide;

/** The live notes; a call before the app has loaded fails with `handler_failed`. */
export const voiceNotes = live.get;
