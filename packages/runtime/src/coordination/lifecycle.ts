/**
 * The Runtime lifecycle (spec 3.3) as a tagged union and its legal-transition table:
 *
 *   created → restoring → authenticating → synchronizing → online
 *                              ↘ reconnecting / offline_degraded ↗ (back to authenticating)
 *   any but stopped → stopping → stopped
 *
 * Live delivery to apps happens only in `online` (every followed session has passed its
 * `agentSession/caughtUp` seam).
 */
import type { ErrorCode } from "@lineup/protocol";
import { Emitter, listenerErrorsTo, type DiagnosticsSink, type Unsubscribe } from "../core/emitter.js";

export type Lifecycle =
  | { readonly status: "created" }
  | { readonly status: "restoring" }
  | { readonly status: "authenticating"; readonly attempt: number }
  | { readonly status: "synchronizing" }
  | { readonly status: "online"; readonly since: number }
  | { readonly status: "reconnecting"; readonly attempt: number; readonly since: number; readonly last_error?: ErrorCode }
  | { readonly status: "offline_degraded"; readonly attempt: number; readonly since: number; readonly last_error?: ErrorCode }
  | { readonly status: "stopping" }
  | { readonly status: "stopped" };

export type LifecycleStatus = Lifecycle["status"];

export const LIFECYCLE_TRANSITIONS: Readonly<Record<LifecycleStatus, readonly LifecycleStatus[]>> = {
  created: ["restoring", "stopping"],
  restoring: ["authenticating", "stopping"],
  authenticating: ["synchronizing", "reconnecting", "offline_degraded", "stopping"],
  synchronizing: ["online", "reconnecting", "offline_degraded", "stopping"],
  online: ["reconnecting", "offline_degraded", "stopping"],
  reconnecting: ["authenticating", "reconnecting", "offline_degraded", "stopping"],
  offline_degraded: ["authenticating", "offline_degraded", "stopping"],
  stopping: ["stopped"],
  stopped: [],
};

export function isLegalTransition(from: LifecycleStatus, to: LifecycleStatus): boolean {
  return LIFECYCLE_TRANSITIONS[from].includes(to);
}

/** True while the Runtime holds (or is getting) a server connection it may send on. */
export function isConnected(lifecycle: Lifecycle): boolean {
  return lifecycle.status === "synchronizing" || lifecycle.status === "online";
}

/** The observable face of the lifecycle: a snapshot and a subscription. */
export interface LifecycleObservable {
  snapshot(): Lifecycle;
  /** Called with every new lifecycle, in order. */
  subscribe(listener: (lifecycle: Lifecycle) => void): Unsubscribe;
}

export class LifecycleCell implements LifecycleObservable {
  private current: Lifecycle = { status: "created" };
  private readonly changes: Emitter<Lifecycle>;

  constructor(diagnostics: DiagnosticsSink) {
    this.changes = new Emitter(listenerErrorsTo(diagnostics, "lifecycle listener"));
  }

  snapshot(): Lifecycle {
    return this.current;
  }

  subscribe(listener: (lifecycle: Lifecycle) => void): Unsubscribe {
    return this.changes.on(listener);
  }

  /** Publishes `next` when it differs from the current value. The table was checked by the transition. */
  publish(next: Lifecycle): void {
    if (next === this.current || JSON.stringify(next) === JSON.stringify(this.current)) return;
    this.current = next;
    this.changes.fire(next);
  }
}
