/**
 * After the desktop host restarted the page because its web process hung or crashed. In WebKitGTK every
 * frame runs in that one process, so the native side cannot tell which app did it; and restoring the app that
 * was in front would freeze or crash the window again. So every instance that was live when it happened is
 * failed (the Runtime ends the calls it held with `handler_failed` and tells their agents), nothing is
 * restored and the default app does not open by itself (the shell's `openAtStart`), and a notice per app
 * offers Reload. The native side says so in the page's
 * address (`?recovered=unresponsive|crashed`), which is dropped at once so a reload does not repeat it.
 */
import { isLive, type AppInstance, type LineUpRuntime } from "@lineup/runtime";

export type Recovery = "unresponsive" | "crashed";

/** Whether this page load is such a restart (and forgets it). */
export function takeRecovery(location: Location = globalThis.location, history: History = globalThis.history): Recovery | undefined {
  const value = new URLSearchParams(location.search).get("recovered");
  if (value !== "unresponsive" && value !== "crashed") return undefined;
  history.replaceState(history.state, "", `${location.pathname}${location.hash}`);
  return value;
}

export const RECOVERY_REASON: Readonly<Record<Recovery, string>> = {
  unresponsive: "LineUp restarted its window: an app stopped responding",
  crashed: "LineUp restarted its window after a crash",
};

/** Fails every live instance; returns them, for the notices that offer to open each again. */
export async function failLiveInstances(runtime: LineUpRuntime, recovery: Recovery): Promise<readonly AppInstance[]> {
  const live = runtime.instances.snapshot().instances.filter((instance) => isLive(instance.status));
  await Promise.all(live.map((instance) => runtime.instances.failed(instance.instance_id, RECOVERY_REASON[recovery]).catch(() => undefined)));
  return live;
}

/**
 * Opens a failed instance's app again where it was (its conversation and entrypoint), in front, as a new
 * instance: every Reload does this (the shell's notice for a dead surface, and the recovery notices).
 */
export function reopenInstance(runtime: LineUpRuntime, failed: AppInstance): ReturnType<LineUpRuntime["appManager"]["launch"]> {
  return runtime.appManager.launch({
    app_scope: failed.app_scope,
    foreground: true,
    ...(failed.conversation_id === undefined ? {} : { conversation_id: failed.conversation_id }),
    ...(failed.entrypoint === undefined ? {} : { entrypoint: failed.entrypoint }),
  });
}
