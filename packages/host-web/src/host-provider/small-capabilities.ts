/**
 * The small capabilities: `clipboard.write` (`navigator.clipboard.writeText`, or the native host's clipboard
 * when the page runs in the desktop host: there the webview's own API wants a gesture in the host page, and
 * the person's click was in the app's frame), `link.open` (https only,
 * in a new browsing context without opener or referrer) and `window.attention` (the document title
 * flashes while the host is hidden, and is restored when the user comes back).
 */
import { capabilityCompleted, capabilityRefused, type CapabilityResult } from "@lineup/protocol";
import type { HostInvocation } from "@lineup/runtime";
import { checkAttentionInput, checkClipboardInput, checkLinkInput } from "./inputs.js";
import { cancelledByUser, nativeFailure } from "./outcomes.js";
import type { NativeHost } from "../bootstrap/native-host.js";

const FLASH_MS = 1_000;

export function clipboardSupported(): boolean {
  return typeof navigator !== "undefined" && typeof navigator.clipboard?.writeText === "function";
}

export async function writeClipboard(invocation: HostInvocation, native?: Promise<NativeHost | undefined>): Promise<CapabilityResult> {
  const checked = checkClipboardInput(invocation.input);
  if (!checked.ok) return checked.refusal;
  const host = await native;
  if (invocation.signal.aborted) return cancelledByUser("clipboard.write");
  if (host !== undefined) {
    const written = await host.request("clipboard.write_text", { text: checked.value.text });
    return written.ok ? capabilityCompleted({ written: true }) : nativeFailure("clipboard.write", new Error(`${written.error.code}: ${written.error.message}`));
  }
  if (!clipboardSupported()) return capabilityRefused("unsupported_on_host", "this browser cannot write to the clipboard");
  try {
    await navigator.clipboard.writeText(checked.value.text);
    return capabilityCompleted({ written: true });
  } catch (error) {
    return nativeFailure("clipboard.write", error);
  }
}

export function openLink(invocation: HostInvocation): CapabilityResult {
  const checked = checkLinkInput(invocation.input);
  if (!checked.ok) return checked.refusal;
  if (invocation.signal.aborted) return cancelledByUser("link.open");
  try {
    // With `noopener` the browser returns null whether or not it opened the link; a blocked popup is not detectable.
    window.open(checked.value.url, "_blank", "noopener,noreferrer");
    return capabilityCompleted({ opened: true });
  } catch (error) {
    return nativeFailure("link.open", error);
  }
}

/** Flashes the title while the document is hidden; one flash at a time. */
export function createAttention(): { request(invocation: HostInvocation): CapabilityResult; dispose(): void } {
  let stop: (() => void) | undefined;
  return {
    request(invocation) {
      const checked = checkAttentionInput(invocation.input);
      if (!checked.ok) return checked.refusal;
      if (!document.hidden) return capabilityCompleted({ flashing: false });
      stop?.();
      const original = document.title;
      const alert = checked.value.text ?? "New activity";
      let on = false;
      const timer = setInterval(() => {
        on = !on;
        document.title = on ? `● ${alert}` : original;
      }, FLASH_MS);
      const onVisible = () => {
        if (!document.hidden) stop?.();
      };
      stop = () => {
        clearInterval(timer);
        document.removeEventListener("visibilitychange", onVisible);
        document.title = original;
        stop = undefined;
      };
      document.addEventListener("visibilitychange", onVisible);
      return capabilityCompleted({ flashing: true });
    },
    dispose: () => stop?.(),
  };
}
