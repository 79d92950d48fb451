import { describe, expect, it } from "vitest";
import { DisposableStore, Emitter, subscription } from "../src/index.js";

describe("Emitter", () => {
  it("delivers to every listener in order, and a throwing listener neither stops the others nor escapes", () => {
    const errors: unknown[] = [];
    const emitter = new Emitter<number>((error) => errors.push(error));
    const seen: string[] = [];
    emitter.on((n) => seen.push(`a${n}`));
    emitter.on(() => {
      throw new Error("boom");
    });
    emitter.on((n) => seen.push(`c${n}`));
    emitter.fire(1);
    expect(seen).toEqual(["a1", "c1"]);
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toBe("boom");
  });

  it("the same function subscribed twice is two subscriptions, each stopped on its own", () => {
    const emitter = new Emitter<number>();
    const seen: number[] = [];
    const listener = (n: number): void => void seen.push(n);
    const first = emitter.on(listener);
    emitter.on(listener);
    emitter.fire(1);
    first();
    emitter.fire(2);
    expect(seen).toEqual([1, 1, 2]);
    expect(emitter.size).toBe(1);
  });

  it("a subscription stops by call, by dispose() and by Symbol.dispose (using), each idempotent", () => {
    const emitter = new Emitter<string>();
    const seen: string[] = [];
    const byCall = emitter.on((v) => seen.push(`call:${v}`));
    const byDispose = emitter.on((v) => seen.push(`dispose:${v}`));
    {
      using scoped = emitter.on((v) => seen.push(`using:${v}`));
      expect(typeof scoped[Symbol.dispose]).toBe("function");
      emitter.fire("x");
    }
    byCall();
    byCall();
    byDispose.dispose();
    byDispose[Symbol.dispose]();
    emitter.fire("y");
    expect(seen).toEqual(["call:x", "dispose:x", "using:x"]);
    expect(emitter.size).toBe(0);
  });

  it("a listener added while firing waits for the next fire; one removed while firing still gets the current one", () => {
    const emitter = new Emitter<number>();
    const seen: string[] = [];
    let late: (() => void) | undefined;
    const second = emitter.on((n) => seen.push(`second${n}`));
    emitter.on((n) => {
      seen.push(`first${n}`);
      second();
      late ??= emitter.on((m) => seen.push(`late${m}`));
    });
    emitter.fire(1);
    emitter.fire(2);
    expect(seen).toEqual(["second1", "first1", "first2", "late2"]);
  });
});

describe("subscription and DisposableStore", () => {
  it("runs a stop at most once however it is stopped", () => {
    let stops = 0;
    const stop = subscription(() => stops++);
    stop();
    stop.dispose();
    stop[Symbol.dispose]();
    expect(stops).toBe(1);
  });

  it("stops everything in reverse order, and anything added after disposal at once", () => {
    const order: string[] = [];
    const store = new DisposableStore();
    store.add(() => order.push("a"));
    store.add({ dispose: () => order.push("b") });
    store.add(subscription(() => order.push("c")));
    store[Symbol.dispose]();
    expect(order).toEqual(["c", "b", "a"]);
    store.add(() => order.push("late"));
    expect(order).toEqual(["c", "b", "a", "late"]);
  });
});
