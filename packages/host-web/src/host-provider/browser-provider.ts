/**
 * The browser's `HostProvider` (spec 6.3, 10): what the Web Reference Host does once the Capability
 * Gateway has decided, audited and committed a step. Support comes from feature detection, system
 * permissions from a cache filled at creation, confirmations from the shell's prompt queue, and each
 * capability from its own module. `invoke` always resolves with a closed result: a device error is
 * mapped by name, never passed on.
 */
import { capabilityRefused, type CapabilityName, type CapabilityResult } from "@lineup/protocol";
import { Emitter, type CapabilityPrompt, type HostInvocation, type HostProvider, type SystemPermission, type Unsubscribe } from "@lineup/runtime";
import type { AnnounceAsk, ProviderContext } from "./context.js";
import { pickFiles, saveFile } from "./files.js";
import { DEFAULT_MAX_ARTIFACT_BYTES } from "./inputs.js";
import { microphoneSupported, recordMicrophone, requestMicrophone } from "./microphone.js";
import { notificationApi, notificationPermission, requestNotificationPermission, showNotification } from "./notification.js";
import { hostFailed } from "./outcomes.js";
import { createPermissionCache } from "./permissions.js";
import { shellPromptQueue, type PromptQueue } from "./prompt-queue.js";
import { shellRecordings, type RecordingStore } from "./recordings.js";
import { clipboardSupported, createAttention, openLink, writeClipboard } from "./small-capabilities.js";
import type { NativeHost } from "../bootstrap/native-host.js";

export interface BrowserHostProviderDeps {
  /** Clicking a notification: the shell brings the app with this scope forward. */
  readonly onNotificationClick: (appScope: string) => void;
  /** Where confirmations and "go ahead" prompts are shown; the shell's queue by default. */
  readonly prompts?: PromptQueue;
  /** Where running recordings are shown (Stop / Discard); the shell's store by default. */
  readonly recordings?: RecordingStore;
  /** The app's name as the user knows it; the scope when not given. */
  readonly appName?: (appScope: string) => string;
  /** Bound on one capability's artifacts; default 16 MiB. */
  readonly maxArtifactBytes?: number;
  /** The native host around the page (the desktop host), which carries out what it can natively. */
  readonly native?: Promise<NativeHost | undefined>;
}

export interface BrowserHostProvider extends HostProvider {
  /**
   * Hears each change of what the host can do: a system permission granted or blocked (the Permissions API's
   * `change`), the native host's notification service gone or back. The host then calls
   * `runtime.hostCapabilitiesChanged()`. Returns its own unsubscribe.
   */
  onCapabilitiesChanged(listener: () => void): Unsubscribe;
  /** Stops permission watching and a running title flash. */
  dispose(): void;
}

function userActivationActive(): boolean {
  const activation = (navigator as Navigator & { userActivation?: UserActivation }).userActivation;
  // Without the API we cannot tell; the prompt's click then provides the gesture.
  return activation?.isActive ?? false;
}

function detectSupport(): Set<CapabilityName> {
  const supported = new Set<CapabilityName>();
  if (typeof document === "undefined") return supported;
  supported.add("file.pick");
  supported.add("window.attention");
  if (typeof Blob === "function" && typeof URL.createObjectURL === "function") supported.add("file.save");
  if (notificationApi() !== undefined) supported.add("notification.show");
  if (microphoneSupported()) supported.add("microphone.record");
  if (clipboardSupported()) supported.add("clipboard.write");
  if (typeof window.open === "function") supported.add("link.open");
  return supported;
}

export function createBrowserHostProvider(deps: BrowserHostProviderDeps): BrowserHostProvider {
  const prompts = deps.prompts ?? shellPromptQueue;
  const announceAsk: AnnounceAsk = async (permission) => {
    const host = await deps.native;
    // Not heard (an older window, a broken channel): the ask goes on, and the native side refuses it.
    if (host !== undefined) await host.request("permission.expect", { permission });
  };
  const context: ProviderContext = {
    prompts,
    recordings: deps.recordings ?? shellRecordings,
    maxArtifactBytes: deps.maxArtifactBytes ?? DEFAULT_MAX_ARTIFACT_BYTES,
    appName: deps.appName ?? ((appScope) => appScope),
    hasUserActivation: userActivationActive,
    announceAsk,
  };
  const supported = detectSupport();
  const changes = new Emitter<void>((error) => console.error("[lineup] a host capabilities listener failed", error));
  // In a native window without a notification service, the page's Notification API would only ever be denied; the
  // native side says when one comes or goes.
  const notificationService = (available: boolean): void => {
    const had = supported.has("notification.show");
    if (available && notificationApi() !== undefined) supported.add("notification.show");
    else supported.delete("notification.show");
    if (had !== supported.has("notification.show")) changes.fire();
  };
  let stopPushes: (() => void) | undefined;
  void deps.native?.then((host) => {
    if (host === undefined) return;
    notificationService(host.info.notifications);
    stopPushes = host.onPush((push) => {
      if (push.push === "host.notifications") notificationService(push.params.available);
    });
  });
  const permissions = createPermissionCache(typeof navigator !== "undefined" ? navigator.permissions : undefined, () => changes.fire());
  const attention = createAttention();

  const run = (invocation: HostInvocation): Promise<CapabilityResult> | CapabilityResult => {
    switch (invocation.capability) {
      case "file.pick":
        return pickFiles(invocation, context, deps.native);
      case "file.save":
        return saveFile(invocation, context, deps.native);
      case "microphone.record":
        return recordMicrophone(invocation, context);
      case "notification.show":
        return showNotification(invocation, notificationApi(), deps.onNotificationClick, announceAsk);
      case "clipboard.write":
        return writeClipboard(invocation, deps.native);
      case "link.open":
        return openLink(invocation);
      case "window.attention":
        return attention.request(invocation);
    }
  };

  return {
    // The shell's app area (foreground), its floating window (pip) and the result cards in the chat (inline_card).
    displayModes: ["foreground", "pip", "inline_card"],
    supports: (capability) => supported.has(capability),
    systemPermission(capability): SystemPermission {
      if (!supported.has(capability)) return "not_applicable";
      if (capability === "microphone.record") return permissions.get("microphone");
      // `Notification.permission` is synchronous and authoritative; the cache is the fallback.
      if (capability === "notification.show") {
        const current = notificationPermission(notificationApi());
        return current === "not_applicable" ? permissions.get("notifications") : current;
      }
      return "not_applicable";
    },
    async requestSystemPermission(capability) {
      if (!supported.has(capability)) return "denied";
      if (capability === "microphone.record") {
        const answer = await requestMicrophone(announceAsk);
        permissions.set("microphone", answer);
        return answer;
      }
      if (capability === "notification.show") {
        const answer = await requestNotificationPermission(notificationApi(), announceAsk);
        permissions.set("notifications", answer);
        return answer;
      }
      // The browser has no prompt of its own for the others.
      return "granted";
    },
    confirm: (prompt: CapabilityPrompt) => prompts.confirm(prompt),
    // An app's MCP server asking the person (`elicitation/create`): the shell's dialog, withdrawn with its signal.
    elicit: (prompt, signal) => prompts.elicit(prompt, signal),
    async invoke(invocation) {
      if (!supported.has(invocation.capability)) return capabilityRefused("unsupported_on_host", `this host cannot provide ${invocation.capability}`);
      try {
        return await run(invocation);
      } catch {
        // Every module maps its own errors; this is the net under a bug, still a closed result.
        return hostFailed(invocation.capability);
      } finally {
        prompts.withdraw(invocation.request_id);
      }
    },
    onCapabilitiesChanged: (listener) => changes.on(listener),
    dispose() {
      stopPushes?.();
      permissions.dispose();
      attention.dispose();
    },
  };
}
