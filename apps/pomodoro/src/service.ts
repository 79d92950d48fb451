/**
 * What the tool handler reaches at run time. The tools module is also loaded by the build (in Node,
 * to emit the manifest's tools), so it must not touch the DOM or the bridge when imported; the app
 * provides the store once it has loaded.
 */
import { lateBound } from "@lineup/surface-sdk";
import type { TimerStore } from "./store.js";

const live = lateBound<TimerStore>("the pomodoro");

/** The app has loaded (`undefined`: it is gone again). */
export const provideTimer = live.provide;

/** The live timer; a call before the app has loaded fails with `handler_failed`. */
export const timer = live.get;
