/**
 * The system permission cache behind the synchronous `systemPermission()`: filled at creation from
 * `navigator.permissions.query` (microphone, notifications) and kept current through each status's
 * `change` event. A browser that cannot answer leaves `prompt`, so the gateway asks.
 */
import type { SystemPermission } from "@lineup/runtime";
import { systemPermissionFromState } from "./outcomes.js";

export type WatchedPermission = "microphone" | "notifications";

export interface PermissionCache {
  get(name: WatchedPermission): Exclude<SystemPermission, "not_applicable">;
  set(name: WatchedPermission, state: "granted" | "denied"): void;
  dispose(): void;
}

export function createPermissionCache(permissions: Pick<Permissions, "query"> | undefined): PermissionCache {
  const states = new Map<WatchedPermission, Exclude<SystemPermission, "not_applicable">>();
  const unwatch: (() => void)[] = [];
  let disposed = false;
  for (const name of ["microphone", "notifications"] as const) {
    if (permissions === undefined) break;
    // Firefox rejects names it does not know ("microphone"); the cache then stays at `prompt`.
    void permissions.query({ name }).then(
      (status) => {
        if (disposed) return;
        states.set(name, systemPermissionFromState(status.state));
        const onChange = () => states.set(name, systemPermissionFromState(status.state));
        status.addEventListener("change", onChange);
        unwatch.push(() => status.removeEventListener("change", onChange));
      },
      () => undefined,
    );
  }
  return {
    get: (name) => states.get(name) ?? "prompt",
    set: (name, state) => void states.set(name, state),
    dispose() {
      disposed = true;
      for (const off of unwatch.splice(0)) off();
    },
  };
}
