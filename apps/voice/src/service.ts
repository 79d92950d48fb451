/**
 * What the tool handler reaches at run time. The tools module is also loaded by the build (in Node,
 * to emit the manifest's tools), so it must not touch the DOM or the bridge when imported; the app
 * provides its notes once it has loaded.
 */
import { ToolFailure } from "@lineup/surface-sdk";
import type { VoiceNotes } from "./notes.js";

let current: VoiceNotes | undefined;

export function provideNotes(notes: VoiceNotes | undefined): void {
  current = notes;
}

/** The live notes; a call before the app has loaded fails with `handler_failed`. */
export function voiceNotes(): VoiceNotes {
  if (current === undefined) throw new ToolFailure("handler_failed", "Voice Notes has not finished loading");
  return current;
}
