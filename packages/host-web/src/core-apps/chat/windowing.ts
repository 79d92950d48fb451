/**
 * Windowed rendering math for the timeline: rows have different heights (measured once rendered,
 * estimated before), and only the rows that intersect the viewport plus an overscan margin are in the
 * DOM. Pure functions; the component owns measuring and scrolling.
 */

/** `sums[i]` is the top of row i; `sums[count]` the total height. */
export function prefixSums(count: number, heightOf: (index: number) => number): Float64Array {
  const sums = new Float64Array(count + 1);
  for (let i = 0; i < count; i++) sums[i + 1] = sums[i]! + Math.max(0, heightOf(i));
  return sums;
}

/** The index of the row containing offset `y` (clamped to the rows). */
export function rowAt(sums: Float64Array, y: number): number {
  const count = sums.length - 1;
  if (count <= 0) return 0;
  let lo = 0;
  let hi = count - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (sums[mid]! <= y) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export interface WindowSlice {
  /** First rendered row. */
  readonly start: number;
  /** One past the last rendered row. */
  readonly end: number;
  /** Space above the first rendered row. */
  readonly padTop: number;
  /** Space below the last rendered row. */
  readonly padBottom: number;
  readonly totalHeight: number;
}

/** The rows to render for a viewport at `scrollTop` of height `viewportHeight`, with `overscan` px both ways. */
export function sliceWindow(sums: Float64Array, scrollTop: number, viewportHeight: number, overscan: number): WindowSlice {
  const count = sums.length - 1;
  const totalHeight = sums[count] ?? 0;
  if (count <= 0) return { start: 0, end: 0, padTop: 0, padBottom: 0, totalHeight: 0 };
  const top = Math.max(0, scrollTop - overscan);
  const bottom = Math.max(top, scrollTop + Math.max(0, viewportHeight) + overscan);
  const start = rowAt(sums, top);
  const end = Math.min(count, rowAt(sums, bottom) + 1);
  return { start, end, padTop: sums[start]!, padBottom: totalHeight - sums[end]!, totalHeight };
}

/** True when the viewport is within `slack` px of the bottom: new rows should keep it pinned there. */
export function isPinnedToBottom(scrollTop: number, viewportHeight: number, scrollHeight: number, slack = 24): boolean {
  return scrollHeight - (scrollTop + viewportHeight) <= slack;
}
