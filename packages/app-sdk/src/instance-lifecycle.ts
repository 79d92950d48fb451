/**
 * `sdk.lifecycle.instance` (spec 6.1): the phase of the Runtime instance an SDK is bound to, in the
 * spec's words (`start`, `foreground`, `background`, `suspend`, `restore`, `closing`, then `closed` or
 * `failed`). The data is the Runtime's, through the app's `AppPort` (`instance`, `subscribeInstance`),
 * which reports the instance as each commit left it. One commit can carry more than one step (a
 * surface that comes back goes suspended → restoring → active at once); the steps in between are
 * filled in from the Runtime's transition table when exactly one shortest path leads there. When the
 * instance leaves the Runtime it ended `closed` if it was closing, else `failed` (a live instance
 * leaves only by failing; closing then closed takes two commits).
 */
import { INSTANCE_TRANSITIONS, type AppInstance, type AppPort, type InstanceStatus } from "@lineup/runtime";
import type { Diagnostics } from "./diagnostics.js";
import type { AppInstanceLifecycleAPI, AppInstancePhase, Unsubscribe } from "./types.js";

/** The one mapping from the Runtime's instance statuses to the spec's phases (documented on `AppInstancePhase`). */
export const PHASE_OF_STATUS: Readonly<Record<InstanceStatus, AppInstancePhase>> = {
  launching: "start",
  active: "foreground",
  backgrounded: "background",
  suspended: "suspend",
  restoring: "restore",
  closing: "closing",
  closed: "closed",
  failed: "failed",
};

/**
 * The statuses an instance went through from `from` to `to` (`to` last), `to` being `undefined` when it
 * left the Runtime. Empty when nothing changed; just `[to]` when the shortest path is not unique.
 */
export function statusesBetween(from: InstanceStatus, to: InstanceStatus | undefined): InstanceStatus[] {
  if (to === undefined) return from === "closed" || from === "failed" ? [] : [from === "closing" ? "closed" : "failed"];
  if (from === to) return [];
  if (INSTANCE_TRANSITIONS[from].includes(to)) return [to];
  // Breadth-first over the table, counting the shortest paths to each status.
  const paths = new Map<InstanceStatus, { readonly count: number; readonly via: readonly InstanceStatus[] }>([[from, { count: 1, via: [] }]]);
  let frontier: InstanceStatus[] = [from];
  while (frontier.length > 0 && !paths.has(to)) {
    const reached = new Map<InstanceStatus, { count: number; via: readonly InstanceStatus[] }>();
    for (const status of frontier) {
      const here = paths.get(status)!;
      for (const next of INSTANCE_TRANSITIONS[status]) {
        if (paths.has(next)) continue;
        const seen = reached.get(next);
        if (seen === undefined) reached.set(next, { count: here.count, via: [...here.via, next] });
        else seen.count += here.count;
      }
    }
    for (const [status, path] of reached) paths.set(status, path);
    frontier = [...reached.keys()];
  }
  const path = paths.get(to);
  return path !== undefined && path.count === 1 ? [...path.via] : [to];
}

/** Binds to `instance` (already checked to be one of the port's app's) and follows it until it ends. */
export function createInstanceLifecycle(port: AppPort, instance: AppInstance, diagnostics: Diagnostics): AppInstanceLifecycleAPI {
  const listeners = new Set<(phase: AppInstancePhase) => void>();
  let status: InstanceStatus = instance.status;
  // Held until the instance ends (the port then drops it): the SDK sees a `closed` even with no listener yet.
  port.subscribeInstance(instance.instance_id, (next) => {
    for (const step of statusesBetween(status, next?.status)) {
      status = step;
      const phase = PHASE_OF_STATUS[step];
      for (const listener of [...listeners]) {
        try {
          listener(phase);
        } catch (error) {
          diagnostics.report("instance lifecycle listener threw", error);
        }
      }
    }
  });
  return {
    instance_id: instance.instance_id,
    current: () => PHASE_OF_STATUS[status],
    onChange(listener): Unsubscribe {
      // Wrapped so the same function added twice gets two independent subscriptions.
      const entry = (phase: AppInstancePhase): void => listener(phase);
      listeners.add(entry);
      return () => {
        listeners.delete(entry);
      };
    },
  };
}
