import type { Delivery, Effect } from "../inputs.js";
import { allCaughtUp, type RuntimeState } from "../state.js";

/**
 * Leaves `synchronizing` for `online` once every followed conversation has passed its seam: then, and
 * only then, the messages stored during catch-up are delivered (a flush) and the outbox is sent.
 */
export function goOnlineIfReady(state: RuntimeState, now: number): { state: RuntimeState; effects: Effect[]; deliveries: Delivery[] } {
  if (state.lifecycle.status !== "synchronizing" || !allCaughtUp(state)) return { state, effects: [], deliveries: [] };
  const lifecycle = { status: "online", since: now } as const;
  return {
    state: { ...state, lifecycle },
    effects: [{ kind: "lifecycle.changed", lifecycle }, { kind: "outbox.flush" }],
    deliveries: [{ kind: "flush" }],
  };
}
