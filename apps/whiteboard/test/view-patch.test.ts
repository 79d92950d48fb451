import { describe, expect, it } from "vitest";
import { focusOf } from "../src/view-patch.js";

describe("the whiteboard's state patches", () => {
  it("read a focus region in board units, or the whole board; anything else is no focus", () => {
    expect(focusOf({ focus: { x: -20, y: 340, width: 700, height: 180 } })).toEqual({ x: -20, y: 340, w: 700, h: 180 });
    expect(focusOf({ focus: "all" })).toBe("all");
    for (const focus of [undefined, null, "nowhere", [1, 2, 3, 4], { x: 0, y: 0, width: 0, height: 10 }, { x: 0, y: 0, width: 10 }, { x: "0", y: 0, width: 10, height: 10 }, { x: 2e6, y: 0, width: 10, height: 10 }, { x: 0, y: 0, width: Number.NaN, height: 10 }]) {
      expect(focusOf({ focus })).toBeUndefined();
    }
    expect(focusOf({ zoom: 2 })).toBeUndefined();
  });
});
