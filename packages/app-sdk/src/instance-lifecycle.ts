/**
 * `sdk.lifecycle.instance` (spec 6.1): the phase of the Runtime instance an SDK is bound to, in the
 * spec's words (`start`, `foreground`, `background`, `suspend`, `restore`, `closing`, then `closed` or
 * `failed`). The data is the Runtime's, through the app's `AppPort` (`instance`, then
 * `subscribeInstanceChanges`): every step the Runtime made, in order, after the commit that made it —
 * a surface that comes back in one commit (suspended → restoring → active) is reported as both steps.
 */
import { Emitter } from "@lineup/protocol";
import type { AppInstance, AppPort, InstanceStatus } from "@lineup/runtime";
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

/** Binds to `instance` (already checked to be one of the port's app's) and follows it until it ends. */
export function createInstanceLifecycle(port: AppPort, instance: AppInstance, diagnostics: Diagnostics): AppInstanceLifecycleAPI {
  const changes = new Emitter<AppInstancePhase>((error) => diagnostics.report("instance lifecycle listener threw", error));
  let status: InstanceStatus = instance.status;
  // Held until the instance ends (the port then drops it): the SDK sees a `closed` even with no listener yet.
  port.subscribeInstanceChanges(instance.instance_id, (change) => {
    status = change.to;
    changes.fire(PHASE_OF_STATUS[change.to]);
  });
  return {
    instance_id: instance.instance_id,
    current: () => PHASE_OF_STATUS[status],
    onChange: (listener): Unsubscribe => changes.on(listener),
  };
}
