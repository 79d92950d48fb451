/**
 * Turning what the browser did into the spec's closed capability results. Pure, so the mapping is
 * tested without a browser. A native error is recognised by its `name` only; its `message` (which
 * can hold paths, device labels or engine detail) never reaches an app.
 */
import { capabilityRefused, type CapabilityName, type CapabilityRefusal, type JsonValue } from "@lineup/protocol";
import type { HostArtifactValue, SystemPermission } from "@lineup/runtime";

const WHAT: Readonly<Record<CapabilityName, string>> = {
  "file.pick": "read the chosen files",
  "file.save": "save the file",
  "microphone.record": "record from the microphone",
  "notification.show": "show the notification",
  "clipboard.write": "write to the clipboard",
  "window.attention": "ask for attention",
  "link.open": "open the link",
};

export function cancelledByUser(capability: CapabilityName): CapabilityRefusal {
  return capabilityRefused("cancelled_by_user", `the user cancelled ${capability}`);
}

export function hostFailed(capability: CapabilityName, why?: string): CapabilityRefusal {
  return capabilityRefused("failed", why === undefined ? `the browser could not ${WHAT[capability]}` : why);
}

/** The artifact limit was passed. errors.ts has no size code for capabilities, so this is `failed`. */
export function tooLarge(what: string, limit: number): CapabilityRefusal {
  return capabilityRefused("failed", `${what} is larger than the limit of ${limit} bytes`);
}

function errorName(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const name = (error as { name?: unknown }).name;
  return typeof name === "string" ? name : undefined;
}

/** Maps a thrown or rejected native error to a closed result with a plain message of our own. */
export function nativeFailure(capability: CapabilityName, error: unknown): CapabilityRefusal {
  const name = errorName(error);
  switch (name) {
    case "NotAllowedError":
    case "SecurityError":
      // Also the browser refusing a picker without user activation, or a clipboard without focus.
      return capabilityRefused("permission_denied", `the browser did not allow ${capability}`, "permission_denied");
    case "AbortError":
      // A closed save dialog is the user's choice; for a device it is a hardware or platform abort.
      return capability === "file.save" || capability === "file.pick" ? cancelledByUser(capability) : hostFailed(capability);
    case "NotFoundError":
    case "OverconstrainedError":
      return capability === "microphone.record" ? hostFailed(capability, "no microphone is available") : hostFailed(capability);
    case "NotReadableError":
      return capability === "microphone.record" ? hostFailed(capability, "the microphone is in use or cannot be read") : hostFailed(capability, "the file could not be read");
    case "NotSupportedError":
      return capabilityRefused("unsupported_on_host", `this browser cannot provide ${capability}`);
    case "QuotaExceededError":
      return hostFailed(capability, "there is not enough space");
    case "TypeError":
      // `new Notification()` where the browser only shows notifications from a service worker.
      return capability === "notification.show" ? capabilityRefused("unsupported_on_host", "this browser shows notifications only from a service worker") : hostFailed(capability);
    default:
      return hostFailed(capability);
  }
}

/** `navigator.permissions` / `Notification.permission` states → the port's vocabulary; unknown is `prompt`. */
export function systemPermissionFromState(state: string | undefined): Exclude<SystemPermission, "not_applicable"> {
  if (state === "granted" || state === "denied") return state;
  return "prompt";
}

/** `audio/webm;codecs=opus` → `audio/webm`. */
export function baseMimeType(mime: string): string {
  const base = mime.split(";")[0]!.trim().toLowerCase();
  return base === "" ? "application/octet-stream" : base;
}

const AUDIO_EXTENSIONS: Readonly<Record<string, string>> = { "audio/webm": "webm", "audio/ogg": "ogg", "audio/mp4": "m4a", "audio/mpeg": "mp3", "audio/wav": "wav" };

/** The file name a recording of this MIME type gets. */
export function recordingName(mime: string): string {
  return `recording.${AUDIO_EXTENSIONS[baseMimeType(mime)] ?? "bin"}`;
}

/** The `accept` attribute for the file input. */
export function acceptAttribute(accept: readonly string[]): string {
  return accept.join(",");
}

/** An artifact as the JSON value a result carries. */
export function artifactJson(artifact: HostArtifactValue): JsonValue {
  return { name: artifact.name, mime_type: artifact.mime_type, size: artifact.size, data: artifact.data };
}
