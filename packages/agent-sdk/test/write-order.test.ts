/** The per-session order of unsettled writes: which write an attempt names (`after_key`) and when a refused one may go again. */
import { describe, expect, it } from "vitest";
import { WriteOrder } from "../src/write-order.js";

/** True when `promise` has settled after the pending microtasks ran. */
async function isDone(promise: Promise<void>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setTimeout(resolve, 0));
  return done;
}

describe("WriteOrder: the predecessor of an attempt", () => {
  it("is the nearest earlier unsettled write of the same session; the first has none", () => {
    const order = new WriteOrder();
    const a = order.issue("s-1", "a");
    const other = order.issue("s-2", "x");
    const b = order.issue("s-1", "b");
    const c = order.issue("s-1", "c");
    expect(a.predecessor()).toBeUndefined();
    expect(other.predecessor()).toBeUndefined();
    expect(b.predecessor()?.key).toBe("a");
    expect(c.predecessor()?.key).toBe("b");
    expect(order.pending("s-1")).toEqual(["a", "b", "c"]);
  });

  it("is recomputed: a write that settled, even failed for good, holds nothing back", () => {
    const order = new WriteOrder();
    const a = order.issue("s-1", "a");
    const b = order.issue("s-1", "b");
    const c = order.issue("s-1", "c");
    b.settle();
    expect(c.predecessor()?.key).toBe("a");
    a.settle();
    expect(c.predecessor()).toBeUndefined();
    c.settle();
    c.settle(); // idempotent
    expect(order.pending("s-1")).toEqual([]);
    // A write issued after the others settled names nothing either.
    expect(order.issue("s-1", "d").predecessor()).toBeUndefined();
  });

  it("never names a write with its own key (the same key issued twice)", () => {
    const order = new WriteOrder();
    order.issue("s-1", "a");
    order.issue("s-1", "k");
    const again = order.issue("s-1", "k");
    expect(again.predecessor()?.key).toBe("a");
  });
});

describe("WriteOrder: after predecessor_pending", () => {
  it("waits until the named write is sent again or settles, not before", async () => {
    const order = new WriteOrder();
    const a = order.issue("s-1", "a");
    const b = order.issue("s-1", "b");
    a.sent();
    const named = b.predecessor()!;
    const moved = named.moved();
    expect(await isDone(moved)).toBe(false);
    b.sent(); // b's own attempts do not count
    expect(await isDone(moved)).toBe(false);
    a.sent();
    expect(await isDone(moved)).toBe(true);

    const again = b.predecessor()!;
    const settled = again.moved();
    expect(await isDone(settled)).toBe(false);
    a.settle();
    expect(await isDone(settled)).toBe(true);
  });

  it("resolves at once when the named write already moved before the refusal arrived", async () => {
    const order = new WriteOrder();
    const a = order.issue("s-1", "a");
    const b = order.issue("s-1", "b");
    const named = b.predecessor()!;
    a.sent();
    expect(await isDone(named.moved())).toBe(true);
    const later = b.predecessor()!;
    a.settle();
    expect(await isDone(later.moved())).toBe(true);
  });

  it("stops waiting when the caller aborts", async () => {
    const order = new WriteOrder();
    order.issue("s-1", "a");
    const b = order.issue("s-1", "b");
    const controller = new AbortController();
    const moved = b.predecessor()!.moved(controller.signal);
    expect(await isDone(moved)).toBe(false);
    controller.abort();
    expect(await isDone(moved)).toBe(true);
  });
});
