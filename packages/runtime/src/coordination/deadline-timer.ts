/**
 * The loop's one tool-deadline timer: after each commit the shell arms it for the earliest deadline of the
 * tool calls in flight; when it fires it posts `tools.tick`, whose transition ends the calls that are due.
 *
 * A timer already set for a moment no later than the earliest deadline is kept while calls are in flight,
 * even when the calls it was set for have finished: when it fires it posts only if a deadline is due by then,
 * and otherwise sets itself again for the next one. A call that starts and ends while others run so costs no
 * timer of its own (a timer is set and cleared only when a deadline earlier than the one set arrives). With
 * no call in flight the timer is cleared: an idle Runtime holds no timer (a call without a time limit sets
 * one ~24.8 days away, which would keep a Node process alive).
 */
import type { Clock } from "../core/ports.js";
import { nextDeadline } from "../tools/call-state.js";
import type { RuntimeState } from "./state.js";

export interface DeadlineTimer {
  /** Re-arms for `state` (a committed state); a no-op when the timer set fires no later than its earliest deadline. */
  arm(state: RuntimeState): void;
  stop(): void;
}

/** The longest wait a timer takes (2^31 - 1 ms, about 24.8 days); setTimeout fires a longer one after 1 ms. */
export const MAX_TIMER_WAIT_MS = 2_147_483_647;

export function createDeadlineTimer(options: { readonly clock: Clock; readonly fire: () => void }): DeadlineTimer {
  let cancel: (() => void) | undefined;
  /** When the timer set fires (undefined: none is set). */
  let armed: number | undefined;
  /** The earliest deadline of the last committed state (undefined: no call in flight). */
  let due: number | undefined;
  const stop = (): void => {
    cancel?.();
    cancel = undefined;
    armed = undefined;
  };
  const set = (at: number): void => {
    // A call with no time limit has its deadline past what a timer can wait (setTimeout would fire at once):
    // the timer then fires at its longest wait and sets itself again.
    const wait = Math.min(MAX_TIMER_WAIT_MS, Math.max(0, at - options.clock.now()));
    armed = options.clock.now() + wait;
    cancel = options.clock.setTimer(wait, () => {
      armed = undefined;
      cancel = undefined;
      if (due === undefined) return;
      if (due > options.clock.now()) set(due);
      else options.fire();
    });
  };
  return {
    arm(state) {
      due = nextDeadline(state.tools);
      if (due === undefined) return void stop();
      if (armed !== undefined && armed <= due) return;
      cancel?.();
      set(due);
    },
    stop,
  };
}
