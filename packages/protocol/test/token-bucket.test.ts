/** The one token bucket: a burst at once, then the refill rate, on an injected clock. */
import { describe, expect, it } from "vitest";
import { createTokenBucket } from "../src/index.js";

describe("createTokenBucket", () => {
  it("allows the burst at once, then one event per refill interval, and says how long to wait", () => {
    let now = 0;
    const bucket = createTokenBucket({ burst: 3, perSecond: 0.5 }, () => now);
    expect([bucket.take(), bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, true, false]);
    expect(bucket.waitMs()).toBe(2000);
    now += 1000;
    expect(bucket.take()).toBe(false);
    expect(bucket.waitMs()).toBe(1000);
    now += 1000;
    expect(bucket.take()).toBe(true);
    expect(bucket.idle()).toBe(false);
  });

  it("never holds more than its burst however long it rests, and is idle once full", () => {
    let now = 0;
    const bucket = createTokenBucket({ burst: 2, perSecond: 100 }, () => now);
    bucket.take();
    expect(bucket.idle()).toBe(false);
    now += 60_000;
    expect(bucket.idle()).toBe(true);
    expect(bucket.waitMs()).toBe(0);
    expect([bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, false]);
  });
});
