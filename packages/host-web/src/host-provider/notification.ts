/**
 * `notification.show` through the Notification API. The permission comes from `Notification.permission`
 * (asking with `requestPermission` when it is still open); clicking the notification focuses the host
 * and hands the app's scope to the shell, which opens the app.
 */
import { capabilityCompleted, capabilityRefused, type CapabilityResult } from "@lineup/protocol";
import type { HostInvocation, SystemPermission } from "@lineup/runtime";
import type { AnnounceAsk } from "./context.js";
import { checkNotificationInput } from "./inputs.js";
import { nativeFailure, systemPermissionFromState } from "./outcomes.js";

/** The part of the Notification API this module uses; a test passes its own. */
export interface NotificationApi {
  readonly permission: string;
  requestPermission(): Promise<string>;
  new (title: string, options?: NotificationOptions): Pick<Notification, "close" | "addEventListener">;
}

export function notificationApi(): NotificationApi | undefined {
  return typeof Notification === "function" ? (Notification as unknown as NotificationApi) : undefined;
}

export function notificationPermission(api: NotificationApi | undefined): SystemPermission {
  return api === undefined ? "not_applicable" : systemPermissionFromState(api.permission === "default" ? "prompt" : api.permission);
}

export async function requestNotificationPermission(api: NotificationApi | undefined, announceAsk: AnnounceAsk): Promise<"granted" | "denied"> {
  if (api === undefined) return "denied";
  try {
    await announceAsk("notifications");
    return (await api.requestPermission()) === "granted" ? "granted" : "denied";
  } catch {
    return "denied";
  }
}

export async function showNotification(invocation: HostInvocation, api: NotificationApi | undefined, onClick: (appScope: string) => void, announceAsk: AnnounceAsk): Promise<CapabilityResult> {
  const checked = checkNotificationInput(invocation.input);
  if (!checked.ok) return checked.refusal;
  if (api === undefined) return capabilityRefused("unsupported_on_host", "this browser cannot show notifications");
  if (notificationPermission(api) === "prompt" && (await requestNotificationPermission(api, announceAsk)) !== "granted") {
    return capabilityRefused("permission_denied", "notifications are not allowed in this browser");
  }
  if (api.permission !== "granted") return capabilityRefused("permission_denied", "notifications are not allowed in this browser");
  if (invocation.signal.aborted) return capabilityRefused("cancelled_by_user", "the notification was cancelled");
  try {
    const { title, body } = checked.value;
    // One notification per request: the request id as tag replaces rather than stacks a repeat.
    const notification = new api(title, { ...(body === undefined ? {} : { body }), tag: invocation.request_id });
    notification.addEventListener("click", () => {
      globalThis.focus?.();
      notification.close();
      onClick(invocation.app_scope);
    });
    return capabilityCompleted({ shown: true });
  } catch (error) {
    return nativeFailure("notification.show", error);
  }
}
