import { describe, expect, it } from "vitest";
import { dropOldest } from "../src/collections.js";

describe("dropOldest", () => {
  it("keeps the newest entries of a map, a re-inserted key counting as new", () => {
    const map = new Map<string, number>();
    for (const key of ["a", "b", "c"]) map.set(key, 0);
    map.delete("a");
    map.set("a", 1);
    map.set("d", 0);
    dropOldest(map, 2);
    expect([...map.keys()]).toEqual(["a", "d"]);
  });

  it("trims a set, and leaves a collection within its bound alone", () => {
    const set = new Set([1, 2, 3, 4, 5]);
    dropOldest(set, 5);
    expect(set.size).toBe(5);
    dropOldest(set, 1);
    expect([...set]).toEqual([5]);
    dropOldest(set, 0);
    expect(set.size).toBe(0);
  });
});
