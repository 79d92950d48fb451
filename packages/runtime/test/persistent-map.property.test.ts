/**
 * The persistent map the Runtime's task state is kept in, model-checked against a `Map`: after any sequence of
 * sets and deletes (enough to grow the bucket table several times) it holds what the `Map` holds, and every
 * earlier version still holds what it held when it was made.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PersistentMap } from "../src/core/persistent-map.js";

type Op = { readonly kind: "set"; readonly key: string; readonly value: number } | { readonly kind: "delete"; readonly key: string };

/** Few distinct keys next to many: both replacing and growing happen. */
const key = fc.oneof(fc.constantFrom("a", "b", "task-1", "task-2"), fc.string({ maxLength: 6 }), fc.nat(2_000).map((n) => `turn-${n}`));
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("set" as const), key, value: fc.integer() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("delete" as const), key }) },
);

const sorted = (entries: Iterable<readonly [string, number]>): [string, number][] => [...entries].map(([k, v]): [string, number] => [k, v]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

function expectSame(map: PersistentMap<number>, model: ReadonlyMap<string, number>): void {
  expect(map.size).toBe(model.size);
  expect(sorted(map.entries())).toEqual(sorted(model.entries()));
  expect([...map.keys()].sort()).toEqual([...model.keys()].sort());
  expect([...map.values()].sort()).toEqual([...model.values()].sort());
  for (const [k, value] of model) {
    expect(map.has(k)).toBe(true);
    expect(map.get(k)).toBe(value);
  }
}

describe("PersistentMap (model-based)", () => {
  it("holds what a Map holds after the same sets and deletes, and every earlier version is unchanged", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 600 }), fc.array(fc.tuple(key, fc.integer()), { maxLength: 40 }), (ops, initial) => {
        let map = PersistentMap.of(initial);
        const model = new Map(initial);
        const versions: { map: PersistentMap<number>; model: Map<string, number> }[] = [{ map, model: new Map(model) }];
        for (const each of ops) {
          if (each.kind === "set") {
            map = map.with(each.key, each.value);
            model.set(each.key, each.value);
          } else {
            expect(map.has(each.key)).toBe(model.has(each.key));
            map = map.without(each.key);
            model.delete(each.key);
          }
          expect(map.get(each.key)).toBe(model.get(each.key));
          if (versions.length < 30) versions.push({ map, model: new Map(model) });
        }
        expectSame(map, model);
        for (const version of versions) expectSame(version.map, version.model);
      }),
      { numRuns: 60 },
    );
  });

  it("gives back the same map for a change that changes nothing", () => {
    const map = PersistentMap.empty<number>().with("a", 1);
    expect(map.with("a", 1)).toBe(map);
    expect(map.without("b")).toBe(map);
    expect(PersistentMap.empty<number>().get("a")).toBeUndefined();
  });
});
