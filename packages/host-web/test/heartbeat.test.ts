/**
 * The surface host's heartbeat timing (`surface-host/heartbeat.ts`) with fake timers: a live app is never
 * reported, one ping is out at a time, an app that stops answering is reported once within
 * `timeoutMs + intervalMs` of the unanswered ping, and a host whose own timer fired far too late (a frozen or
 * throttled tab) restarts the count instead of killing a live app.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startHeartbeat, type HeartbeatClock } from "../src/surface-host/heartbeat.js";

const INTERVAL = 2_000;
const TIMEOUT = 10_000;

/** The fake timers' clock: `Date.now()` is faked, and `vi.setSystemTime` moves it without running timers. */
const clock: HeartbeatClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** A fake app: records each ping and answers it when told (or at once when `answering`). */
function fakeApp(answering: boolean) {
  const app = {
    answering,
    pings: 0,
    waiting: [] as (() => void)[],
    ping: (): Promise<unknown> => {
      app.pings += 1;
      if (app.answering) return Promise.resolve({});
      return new Promise((resolve) => app.waiting.push(() => resolve({})));
    },
    answerAll: () => {
      for (const answer of app.waiting.splice(0)) answer();
    },
  };
  return app;
}

/** Runs the timers for `ms` and lets each ping's answer settle in between. */
const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("the surface heartbeat", () => {
  it("never reports an app that answers, pinging it once every interval", async () => {
    const app = fakeApp(true);
    const unresponsive = vi.fn();
    const heartbeat = startHeartbeat(app.ping, unresponsive, { intervalMs: INTERVAL, timeoutMs: TIMEOUT }, clock);
    await advance(10 * 60_000);
    expect(unresponsive).not.toHaveBeenCalled();
    expect(app.pings).toBe(1 + (10 * 60_000) / INTERVAL);
    heartbeat.stop();
  });

  it("keeps one ping out at a time, and an answer just before the timeout keeps the app alive", async () => {
    const app = fakeApp(false);
    const unresponsive = vi.fn();
    startHeartbeat(app.ping, unresponsive, { intervalMs: INTERVAL, timeoutMs: TIMEOUT }, clock);
    await advance(TIMEOUT - 1);
    expect(app.pings).toBe(1);
    app.answerAll();
    await advance(TIMEOUT);
    expect(unresponsive).not.toHaveBeenCalled();
    expect(app.pings).toBe(2);
  });

  it("reports an app that stops answering once, within timeoutMs + intervalMs of the unanswered ping, then stops pinging", async () => {
    const app = fakeApp(true);
    const unresponsive = vi.fn();
    startHeartbeat(app.ping, unresponsive, { intervalMs: INTERVAL, timeoutMs: TIMEOUT }, clock);
    await advance(3 * INTERVAL);
    app.answering = false; // it hangs: the next ping goes unanswered
    const pingsBefore = app.pings;
    const hungAt = Date.now();
    await advance(TIMEOUT - 1);
    expect(unresponsive).not.toHaveBeenCalled();
    await advance(INTERVAL + 1);
    expect(unresponsive).toHaveBeenCalledTimes(1);
    expect(Date.now() - hungAt).toBeLessThanOrEqual(TIMEOUT + INTERVAL);
    expect(unresponsive.mock.calls[0]![0]).toBeGreaterThanOrEqual(TIMEOUT);
    const pingsAtDeath = app.pings;
    expect(pingsAtDeath).toBe(pingsBefore + 1);
    await advance(10 * TIMEOUT);
    expect(unresponsive).toHaveBeenCalledTimes(1);
    expect(app.pings).toBe(pingsAtDeath);
  });

  it("does not kill a live app when the host's own timer fired far later than due (a frozen tab): the count restarts", async () => {
    const app = fakeApp(false);
    const unresponsive = vi.fn();
    startHeartbeat(app.ping, unresponsive, { intervalMs: INTERVAL, timeoutMs: TIMEOUT }, clock);
    // A ping is out when the host freezes for a minute: no timer runs, the clock goes on.
    vi.setSystemTime(Date.now() + 60_000);
    await advance(INTERVAL);
    expect(unresponsive).not.toHaveBeenCalled();
    // Thawed, the app's queued answer arrives soon after, and it answers as it always did.
    await advance(INTERVAL);
    app.answerAll();
    app.answering = true;
    await advance(3 * TIMEOUT);
    expect(unresponsive).not.toHaveBeenCalled();
  });

  it("still reports a hung app after the host thawed: it gets a whole timeout from the restart, no more", async () => {
    const app = fakeApp(false);
    const unresponsive = vi.fn();
    startHeartbeat(app.ping, unresponsive, { intervalMs: INTERVAL, timeoutMs: TIMEOUT }, clock);
    vi.setSystemTime(Date.now() + 60_000);
    await advance(INTERVAL); // the late tick: the count restarts here
    const restartedAt = Date.now();
    await advance(TIMEOUT - INTERVAL);
    expect(unresponsive).not.toHaveBeenCalled();
    await advance(2 * INTERVAL);
    expect(unresponsive).toHaveBeenCalledTimes(1);
    expect(Date.now() - restartedAt).toBeLessThanOrEqual(TIMEOUT + INTERVAL);
  });

  it("a tick less late than the slack is not a freeze: a hung app on a busy host is still reported", async () => {
    const app = fakeApp(false);
    const unresponsive = vi.fn();
    startHeartbeat(app.ping, unresponsive, { intervalMs: INTERVAL, timeoutMs: TIMEOUT }, clock);
    // Every tick fires 500 ms late (a busy page), which is under the slack of max(interval, 1 s).
    for (let i = 0; i < 8; i++) {
      vi.setSystemTime(Date.now() + 500);
      await advance(INTERVAL);
    }
    expect(unresponsive).toHaveBeenCalledTimes(1);
  });

  it("stop() ends it: no more pings, no report", async () => {
    const app = fakeApp(false);
    const unresponsive = vi.fn();
    const heartbeat = startHeartbeat(app.ping, unresponsive, { intervalMs: INTERVAL, timeoutMs: TIMEOUT }, clock);
    heartbeat.stop();
    await advance(10 * TIMEOUT);
    expect(app.pings).toBe(1);
    expect(unresponsive).not.toHaveBeenCalled();
  });

  it("ignores a ping that fails (the surface closing): only an answer or the timeout decides", async () => {
    let pings = 0;
    const unresponsive = vi.fn();
    startHeartbeat(() => (pings += 1, Promise.reject(new Error("the surface was closed"))), unresponsive, { intervalMs: INTERVAL, timeoutMs: TIMEOUT }, clock);
    await advance(TIMEOUT + INTERVAL);
    expect(pings).toBe(1);
    expect(unresponsive).toHaveBeenCalledTimes(1);
  });
});
