/**
 * What the tool handlers reach at run time. The tools module is also loaded by the build (in Node,
 * to emit the manifest's tools), so it must not touch the DOM or the bridge when imported; the app
 * provides the live service once the board has loaded.
 */
import type { ArtifactRef } from "@lineup/protocol";
import { lateBound } from "@lineup/surface-sdk";
import type { ExportOptions } from "./model/export-png.js";
import type { BoardStore } from "./store.js";

export interface WhiteboardService {
  readonly store: BoardStore;
  /** Renders the board to PNG and stores it as an artifact through the bridge. */
  exportPng(options: ExportOptions): Promise<{ artifact: ArtifactRef; width: number; height: number }>;
}

const live = lateBound<WhiteboardService>("the whiteboard");

/** The app has loaded (`undefined`: it is gone again). */
export const provideService = live.provide;

/** The live service; a call before the app has loaded fails with `handler_failed`. */
export const whiteboard = live.get;
