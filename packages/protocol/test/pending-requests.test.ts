import { describe, expect, it } from "vitest";
import { LineUpError, PendingRequests } from "@lineup/protocol";

/** A clock that moves only when told, with the timers armed on it. */
function fakeTimer() {
  let now = 0;
  const timers: Array<{ at: number; fn: () => void; cancelled: boolean }> = [];
  return {
    timers,
    timer: {
      now: () => now,
      setTimer(ms: number, fn: () => void) {
        const entry = { at: now + ms, fn, cancelled: false };
        timers.push(entry);
        return () => void (entry.cancelled = true);
      },
    },
    advance(ms: number) {
      now += ms;
      for (const entry of [...timers]) {
        if (entry.cancelled || entry.at > now) continue;
        entry.cancelled = true;
        entry.fn();
      }
    },
    live: () => timers.filter((t) => !t.cancelled).length,
  };
}

function open(table: PendingRequests<string>, method: string, timeoutMs: number, signal?: AbortSignal) {
  const settled: { value?: string; error?: LineUpError } = {};
  const id = table.open({ method, timeoutMs, resolve: (value) => (settled.value = value), reject: (error) => (settled.error = error), signal });
  return { id, settled };
}

describe("PendingRequests", () => {
  it("times requests out on one timer armed for the earliest deadline, in deadline order", () => {
    const clock = fakeTimer();
    const table = new PendingRequests<string>(clock.timer);
    const late = open(table, "late", 300);
    const early = open(table, "early", 100);
    open(table, "later", 400);
    expect(clock.live()).toBe(1);
    clock.advance(100);
    expect(early.settled.error).toMatchObject({ code: "request_timeout", data: { retryable: true } });
    expect(late.settled.error).toBeUndefined();
    expect(clock.live()).toBe(1);
    clock.advance(200);
    expect(late.settled.error?.message).toBe("late: no response within 300 ms");
    expect(table.size).toBe(1);
  });

  it("answers a request by take, once; an abort rejects request_cancelled; rejectAll ends the rest and the timer", () => {
    const clock = fakeTimer();
    const table = new PendingRequests<string>(clock.timer);
    const answered = open(table, "a", 1_000);
    table.take(answered.id)?.resolve("done");
    expect(table.take(answered.id)).toBeUndefined();
    expect(answered.settled.value).toBe("done");

    const controller = new AbortController();
    const aborted = open(table, "b", 1_000, controller.signal);
    controller.abort();
    expect(aborted.settled.error).toMatchObject({ code: "request_cancelled" });

    const rest = [open(table, "c", 1_000), open(table, "d", 2_000)];
    table.rejectAll((request) => new LineUpError("request_cancelled", `${request.method}: closed`));
    expect(rest.map((r) => r.settled.error?.message)).toEqual(["c: closed", "d: closed"]);
    expect(clock.live()).toBe(0);
  });

  it("reaches a deadline past the longest timer delay in steps, without firing early", () => {
    const clock = fakeTimer();
    const table = new PendingRequests<string>(clock.timer);
    const far = open(table, "far", 3_000_000_000);
    clock.advance(2_147_483_647);
    expect(far.settled.error).toBeUndefined();
    expect(clock.live()).toBe(1);
    clock.advance(3_000_000_000 - 2_147_483_647);
    expect(far.settled.error).toMatchObject({ code: "request_timeout" });
  });
});
