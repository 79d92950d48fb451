/**
 * The loop's one idle timer (spec 4.4: a background instance idle for a while is suspended). After each
 * commit the shell arms it for the moment the next background instance becomes idle enough; when it fires
 * it posts `instances.tick`, whose transition suspends what is due. Without an idle time it never arms.
 */
import { nextIdleSuspension } from "../app-lifecycle/instances/suspend.js";
import type { Clock } from "../core/ports.js";
import { busyInstances } from "./instance-folding.js";
import type { RuntimeState } from "./state.js";

export interface IdleTimer {
  /** Re-arms for `state` (a committed state); a no-op when the due moment did not change, or while paused. */
  arm(state: RuntimeState): void;
  /** Paused (the host's window is hidden, the device asleep), nothing is suspended for idleness; `false` re-arms for `state`. */
  pause(paused: boolean, state: RuntimeState | undefined): void;
  stop(): void;
}

export function createIdleTimer(options: { readonly clock: Clock; readonly idleMs: number | undefined; readonly fire: () => void }): IdleTimer {
  let cancel: (() => void) | undefined;
  let armed: number | undefined;
  let paused = false;
  const stop = (): void => {
    cancel?.();
    cancel = undefined;
    armed = undefined;
  };
  return {
    pause(pause, state) {
      paused = pause;
      if (pause) stop();
      else if (state !== undefined) this.arm(state);
    },
    arm(state) {
      if (options.idleMs === undefined || paused) return;
      const due = nextIdleSuspension(state.instances, options.idleMs, busyInstances(state.tools));
      if (due === armed) return;
      stop();
      if (due === undefined) return;
      armed = due;
      cancel = options.clock.setTimer(Math.max(0, due - options.clock.now()), () => {
        cancel = undefined;
        armed = undefined;
        options.fire();
      });
    },
    stop,
  };
}
