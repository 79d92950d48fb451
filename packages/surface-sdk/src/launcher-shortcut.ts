/**
 * The host's launcher shortcut (Ctrl/⌘+K) keeps working while the focus is inside the app: the frame is
 * sandboxed and cross-origin, so the host never sees the key press, and the SDK forwards it as `launcher.open`
 * — the one host action an app can ask for, which the host honours only while the app's frame holds the focus.
 */
import type { Unsubscribe } from "./emitter.js";

/** Whether the key press is the launcher's shortcut: Ctrl or ⌘ with K, nothing else held. */
export function isLauncherShortcut(event: Pick<KeyboardEvent, "ctrlKey" | "metaKey" | "altKey" | "shiftKey" | "key">): boolean {
  return (event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey && event.key.toLowerCase() === "k";
}

/** Listens for the shortcut in the app's document and calls `open` for each press; returns the stop function. */
export function forwardLauncherShortcut(open: () => void): Unsubscribe {
  const g = globalThis as { addEventListener?: typeof addEventListener; removeEventListener?: typeof removeEventListener };
  if (typeof g.addEventListener !== "function") return () => {};
  const onKey = (event: KeyboardEvent): void => {
    if (!isLauncherShortcut(event)) return;
    event.preventDefault();
    open();
  };
  g.addEventListener("keydown", onKey);
  return () => g.removeEventListener?.("keydown", onKey);
}
