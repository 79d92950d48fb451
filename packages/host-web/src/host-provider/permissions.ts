/**
 * The system permission cache behind the synchronous `systemPermission()`: filled at creation from
 * `navigator.permissions.query` (microphone, notifications) and kept current through each status's
 * `change` event; `onChange` hears each answer and each change (the Runtime then asks the host again). A
 * browser that cannot answer leaves `prompt`, so the gateway asks.
 */
import type { SystemPermission } from "@lineup/runtime";
import { systemPermissionFromState } from "./outcomes.js";

export type WatchedPermission = "microphone" | "notifications";

export interface PermissionCache {
  get(name: WatchedPermission): Exclude<SystemPermission, "not_applicable">;
  set(name: WatchedPermission, state: "granted" | "denied"): void;
  dispose(): void;
}

export function createPermissionCache(permissions: Pick<Permissions, "query"> | undefined, onChange: () => void = () => undefined): PermissionCache {
  const states = new Map<WatchedPermission, Exclude<SystemPermission, "not_applicable">>();
  const unwatch: (() => void)[] = [];
  let disposed = false;
  for (const name of ["microphone", "notifications"] as const) {
    if (permissions === undefined) break;
    // Firefox rejects names it does not know ("microphone"); the cache then stays at `prompt`.
    void permissions.query({ name }).then(
      (status) => {
        if (disposed) return;
        const read = () => {
          states.set(name, systemPermissionFromState(status.state));
          onChange();
        };
        read();
        status.addEventListener("change", read);
        unwatch.push(() => status.removeEventListener("change", read));
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
