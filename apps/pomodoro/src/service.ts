/**
 * What the tool handler reaches at run time. The tools module is also loaded by the build (in Node,
 * to emit the manifest's tools), so it must not touch the DOM or the bridge when imported; the app
 * provides the store once it has loaded.
 */
import { ToolFailure } from "@lineup/surface-sdk";
import type { TimerStore } from "./store.js";

let current: TimerStore | undefined;

export function provideTimer(store: TimerStore | undefined): void {
  current = store;
}

/** The live timer; a call before the app has loaded fails with `handler_failed`. */
export function timer(): TimerStore {
  if (current === undefined) throw new ToolFailure("handler_failed", "the pomodoro has not finished loading");
  return current;
}
