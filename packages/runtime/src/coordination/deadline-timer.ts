/**
 * The loop's one tool-deadline timer: after each commit the shell arms it for the earliest deadline of the
 * tool calls in flight; when it fires it posts `tools.tick`, whose transition ends the calls that are due.
 */
import type { Clock } from "../core/ports.js";
import { nextDeadline } from "../tools/call-state.js";
import type { RuntimeState } from "./state.js";

export interface DeadlineTimer {
  /** Re-arms for `state` (a committed state); a no-op when the earliest deadline did not change. */
  arm(state: RuntimeState): void;
  stop(): void;
}

export function createDeadlineTimer(options: { readonly clock: Clock; readonly fire: () => void }): DeadlineTimer {
  let cancel: (() => void) | undefined;
  let armed: number | undefined;
  return {
    arm(state) {
      const due = nextDeadline(state.tools);
      if (due === armed) return;
      cancel?.();
      cancel = undefined;
      armed = due;
      if (due === undefined) return;
      cancel = options.clock.setTimer(Math.max(0, due - options.clock.now()), () => {
        armed = undefined;
        cancel = undefined;
        options.fire();
      });
    },
    stop: () => cancel?.(),
  };
}
