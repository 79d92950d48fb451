/**
 * The whiteboard's state patches (spec 5.4 `lineup.app.state.patch`, subscribed per instance): what an agent
 * may change about how the board is shown, never what is on it (tools change the board). One key so far:
 *
 * - `focus`: `{ x, y, width, height }` in board units — bring that region into view (the agent just drew
 *   there) — or `"all"`, the whole board. The view moves only in the foreground; the person pans on from there.
 *
 * Anything else in a patch is ignored; an unusable patch is still acknowledged, so it does not wait forever.
 */
import type { Rect } from "./model/geometry.js";

export type FocusTarget = Rect | "all";

const MAX_COORDINATE = 1_000_000;

export function focusOf(patch: Readonly<Record<string, unknown>>): FocusTarget | undefined {
  const focus = patch["focus"];
  if (focus === "all") return "all";
  if (focus === null || typeof focus !== "object" || Array.isArray(focus)) return undefined;
  const { x, y, width, height } = focus as Record<string, unknown>;
  const finite = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n) && Math.abs(n) <= MAX_COORDINATE;
  if (!finite(x) || !finite(y) || !finite(width) || !finite(height) || width <= 0 || height <= 0) return undefined;
  return { x, y, w: width, h: height };
}
