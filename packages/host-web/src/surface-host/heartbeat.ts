/**
 * The surface host's heartbeat: after `lifecycle.ready` it pings the app (`surface.ping`, answered by the
 * app's SDK itself) every `intervalMs`, one ping at a time; a ping left unanswered for `timeoutMs` means the
 * app's page no longer runs (it hangs, or its renderer is gone). Pure apart from the injected clock and timer,
 * so the timing is tested with fake timers.
 *
 * The host can be the one that stopped: a background tab is throttled, a frozen or suspended page runs no
 * timers. The app's frame lives in the same page, so its silence over such a gap says nothing. A tick that
 * fires far later than it was due (more than `max(intervalMs, 1 s)` late) restarts the count instead.
 *
 * Bound: the app is reported at the first tick at which its ping has waited `timeoutMs` — at most
 * `timeoutMs + intervalMs` after the ping was sent, so at most `timeoutMs + 2 × intervalMs` after its last answer.
 */
export interface HeartbeatOptions {
  /** How often the app is pinged. Default 2 s. */
  readonly intervalMs?: number;
  /** How long a ping may go unanswered before the app counts as unresponsive. Default 10 s. */
  readonly timeoutMs?: number;
}

export interface HeartbeatClock {
  /** A monotonic time in ms (`performance.now()`). */
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface Heartbeat {
  /** Stops pinging; the ping in flight, if any, no longer counts. Idempotent. */
  stop(): void;
}

export const DEFAULT_HEARTBEAT_INTERVAL_MS = 2_000;
export const DEFAULT_HEARTBEAT_TIMEOUT_MS = 10_000;

const browserClock: HeartbeatClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Starts pinging at once. `ping` sends one ping and settles when the app answers (any answer proves its page
 * runs; a rejection proves nothing and is ignored). `onUnresponsive` is called at most once, with how long the
 * unanswered ping waited, and the heartbeat stops itself then.
 */
export function startHeartbeat(ping: () => Promise<unknown>, onUnresponsive: (waitedMs: number) => void, options: HeartbeatOptions = {}, clock: HeartbeatClock = browserClock): Heartbeat {
  const intervalMs = options.intervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_HEARTBEAT_TIMEOUT_MS;
  const lateMs = Math.max(intervalMs, 1_000);
  let stopped = false;
  let timer: unknown;
  /** The ping in flight: when its wait started counting, and which one it is (an answer to an older one is stale). */
  let waiting: { since: number; seq: number } | undefined;
  let seq = 0;

  const send = (): void => {
    const mine = ++seq;
    waiting = { since: clock.now(), seq: mine };
    ping().then(
      () => {
        if (waiting?.seq === mine) waiting = undefined;
      },
      () => undefined,
    );
  };
  const schedule = (): void => {
    const due = clock.now() + intervalMs;
    timer = clock.setTimeout(() => tick(due), intervalMs);
  };
  const tick = (due: number): void => {
    if (stopped) return;
    const now = clock.now();
    if (waiting !== undefined && now - due > lateMs) {
      // The host itself did not run for a while: the app gets its whole timeout again from now.
      waiting = { since: now, seq: waiting.seq };
    } else if (waiting !== undefined && now - waiting.since >= timeoutMs) {
      stopped = true;
      onUnresponsive(now - waiting.since);
      return;
    }
    if (waiting === undefined) send();
    schedule();
  };

  send();
  schedule();
  return {
    stop() {
      stopped = true;
      waiting = undefined;
      clock.clearTimeout(timer);
    },
  };
}
