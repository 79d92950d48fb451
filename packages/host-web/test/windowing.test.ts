import { describe, expect, it } from "vitest";
import { isPinnedToBottom, prefixSums, rowAt, sliceWindow } from "../src/core-apps/chat/windowing.js";

describe("timeline windowing math", () => {
  const heights = [50, 100, 20, 80, 50];
  const sums = prefixSums(heights.length, (i) => heights[i]!);

  it("prefix sums give each row's top and the total height", () => {
    expect([...sums]).toEqual([0, 50, 150, 170, 250, 300]);
  });

  it("finds the row under an offset, clamped to the rows", () => {
    expect(rowAt(sums, 0)).toBe(0);
    expect(rowAt(sums, 49.9)).toBe(0);
    expect(rowAt(sums, 50)).toBe(1);
    expect(rowAt(sums, 169)).toBe(2);
    expect(rowAt(sums, 10_000)).toBe(4);
    expect(rowAt(sums, -5)).toBe(0);
  });

  it("renders only the rows that intersect the viewport plus overscan, with spacers for the rest", () => {
    const slice = sliceWindow(sums, 150, 30, 0);
    expect(slice).toEqual({ start: 2, end: 4, padTop: 150, padBottom: 50, totalHeight: 300 });
    const wider = sliceWindow(sums, 150, 30, 60);
    expect(wider.start).toBe(1);
    expect(wider.end).toBe(4);
    expect(sliceWindow(sums, 150, 30, 81).end).toBe(5);
  });

  it("keeps the DOM small for a long history: 100 000 rows, a 700 px viewport", () => {
    const many = prefixSums(100_000, (i) => 40 + (i % 7) * 10);
    const total = many[100_000]!;
    const top = total / 2;
    const slice = sliceWindow(many, top, 700, 400);
    expect(slice.end - slice.start).toBeLessThan(40);
    expect(slice.padTop + (many[slice.end]! - many[slice.start]!) + slice.padBottom).toBeCloseTo(total);
    expect(many[slice.start]!).toBeLessThanOrEqual(top - 400);
    expect(many[slice.end]!).toBeGreaterThanOrEqual(top + 700 + 400);
  });

  it("handles no rows", () => {
    expect(sliceWindow(prefixSums(0, () => 10), 0, 500, 100)).toEqual({ start: 0, end: 0, padTop: 0, padBottom: 0, totalHeight: 0 });
  });

  it("treats the viewport as pinned near the bottom only", () => {
    expect(isPinnedToBottom(900, 100, 1000)).toBe(true);
    expect(isPinnedToBottom(880, 100, 1000)).toBe(true);
    expect(isPinnedToBottom(500, 100, 1000)).toBe(false);
  });
});
