/**
 * The persistent map the Runtime's state is kept in (conversations, outbox, workflow runs, tasks), model-checked
 * against a `Map`: after any sequence of sets and deletes (enough to grow the bucket table several times, and to
 * lay the order out again after many deletes) it holds what the `Map` holds in the `Map`'s order, and every
 * earlier version still holds what it held when it was made.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PersistentMap } from "../src/core/persistent-map.js";

type Key = string | number;
type Op = { readonly kind: "set"; readonly key: Key; readonly value: number } | { readonly kind: "delete"; readonly key: Key };

/** Few distinct keys next to many, strings and numbers (`1` and `"1"` are different keys): both replacing and growing happen. */
const key: fc.Arbitrary<Key> = fc.oneof(
  fc.constantFrom<Key>("a", "b", "1", 1, "task-1", "task-2"),
  fc.string({ maxLength: 6 }),
  fc.nat(2_000).map((n) => `turn-${n}`),
  fc.integer({ min: -50, max: 3_000 }),
  fc.constantFrom(0.5, -0, Number.NaN, 2 ** 40),
);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("set" as const), key, value: fc.integer() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("delete" as const), key }) },
);

function expectSame(map: PersistentMap<Key, number>, model: ReadonlyMap<Key, number>): void {
  expect(map.size).toBe(model.size);
  expect([...map.entries()]).toEqual([...model.entries()]);
  expect([...map]).toEqual([...model]);
  expect([...map.keys()]).toEqual([...model.keys()]);
  expect([...map.values()]).toEqual([...model.values()]);
  const visited: [Key, number][] = [];
  map.forEach((value, k, whole) => {
    expect(whole).toBe(map);
    visited.push([k, value]);
  });
  expect(visited).toEqual([...model]);
  for (const [k, value] of model) {
    expect(map.has(k)).toBe(true);
    expect(map.get(k)).toBe(value);
  }
}

describe("PersistentMap (model-based)", () => {
  it("holds what a Map holds after the same sets and deletes, and every earlier version is unchanged", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 600 }), fc.array(fc.tuple(key, fc.integer()), { maxLength: 40 }), (ops, initial) => {
        let map = PersistentMap.of<Key, number>(initial);
        const model = new Map(initial);
        const versions: { map: PersistentMap<Key, number>; model: Map<Key, number> }[] = [{ map, model: new Map(model) }];
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

  it("maps its values in order on an earlier version's mapping, after any sets and deletes", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
        let map = PersistentMap.empty<Key, { readonly n: number }>();
        // A result says which value it was made of; given back while the value is the same.
        const fn = (value: { readonly n: number }, before: { readonly of: { readonly n: number } } | undefined) => (before?.of === value ? before : { of: value });
        let mapping = map.mapInOrder(fn);
        for (const each of ops) {
          map = each.kind === "set" ? map.with(each.key, { n: each.value }) : map.without(each.key);
          mapping = map.mapInOrder(fn, mapping);
          expect(mapping.items.map((item) => item.of)).toEqual([...map.values()]);
        }
        // Recomputed: every value asked again, each result given back.
        const again = map.mapInOrder(fn, mapping, true);
        expect(again.items).toEqual(mapping.items);
        again.items.forEach((item, i) => expect(item).toBe(mapping.items[i]));
      }),
      { numRuns: 60 },
    );
  });

  it("asks for the one changed value of a thousand and keeps the other results", () => {
    let map = PersistentMap.empty<string, number>();
    for (let i = 0; i < 1_000; i++) map = map.with(`c-${i}`, i);
    let calls = 0;
    const fn = (value: number, before: { readonly value: number } | undefined) => {
      calls += 1;
      return before?.value === value ? before : { value };
    };
    const first = map.mapInOrder(fn);
    expect(calls).toBe(1_000);
    calls = 0;
    expect(map.mapInOrder(fn, first)).toBe(first);
    const changed = map.with("c-500", -1);
    const second = changed.mapInOrder(fn, first);
    expect(calls).toBe(1);
    expect(second.items.map((item) => item.value)).toEqual([...changed.values()]);
    second.items.forEach((item, i) => (i === 500 ? expect(item).not.toBe(first.items[i]) : expect(item).toBe(first.items[i])));
    // Set again to the same value: asked once more, and it gives back its result before.
    calls = 0;
    const third = changed.with("c-500", -1 + 0).mapInOrder(fn, second);
    expect(calls).toBe(0);
    expect(third.items[500]).toBe(second.items[500]);
    const fourth = changed.with("c-7", 7.5).with("c-7", 7).mapInOrder(fn, second);
    expect(calls).toBe(1);
    expect(fourth.items[7]).toBe(second.items[7]);
    // Every result as before: the same list, not a copy.
    expect(fourth.items).toBe(second.items);
    calls = 0;
    const recomputed = changed.mapInOrder(fn, second, true);
    expect(calls).toBe(1_000);
    recomputed.items.forEach((item, i) => expect(item).toBe(second.items[i]));
  });

  it("gives back the same map for a change that changes nothing", () => {
    const map = PersistentMap.empty<string, number>().with("a", 1);
    expect(map.with("a", 1)).toBe(map);
    expect(map.without("b")).toBe(map);
    expect(PersistentMap.empty<string, number>().get("a")).toBeUndefined();
  });

  it("keeps the order of a Map through thousands of appends and deletes at the front, as an outbox makes them", () => {
    let map = PersistentMap.empty<number, string>();
    const model = new Map<number, string>();
    for (let order = 0; order < 5_000; order++) {
      map = map.with(order, `entry-${order}`);
      model.set(order, `entry-${order}`);
      // Settled a few behind the newest, oldest first.
      if (order >= 3) {
        map = map.without(order - 3);
        model.delete(order - 3);
      }
    }
    expectSame(map as PersistentMap<Key, string> as unknown as PersistentMap<Key, number>, model as unknown as Map<Key, number>);
    expect([...map.keys()]).toEqual([4_997, 4_998, 4_999]);
  });
});
