/**
 * The window's watchdog. WebKitGTK 2.50 runs every frame of the page on one web process's main thread
 * (measured: an endless loop in a sandboxed app's frame stops the host page's timers and every evaluation;
 * turning WebKit's `SiteIsolation` feature on changed nothing), so an app that never yields freezes the
 * whole window, and the web host's per-app heartbeat, which runs on that same thread, cannot see it. WebKit's
 * own `is-web-process-responsive` stayed true for 8 s of such a loop with no input. The native side can see
 * it: it asks the page for a trivial answer every `everyMs`, in a world of its own; when one is still
 * unanswered after `limitMs`, the web process is hung and `onHung` is called once for it.
 */
import GLib from "gi://GLib";
import type WebKit from "gi://WebKit?version=6.0";

export const WATCHDOG_WORLD = "lineup-watchdog";

export interface Watchdog {
  stop(): void;
}

export function startWatchdog(view: WebKit.WebView, options: { readonly everyMs: number; readonly limitMs: number; readonly onHung: () => void }): Watchdog {
  let askedAt: number | undefined;
  let generation = 0;
  const now = () => GLib.get_monotonic_time() / 1000;
  const source = GLib.timeout_add(GLib.PRIORITY_DEFAULT, options.everyMs, () => {
    if (askedAt !== undefined) {
      if (now() - askedAt < options.limitMs) return true;
      // Unanswered past the limit: hung. An answer to this question that comes later is ignored.
      askedAt = undefined;
      generation += 1;
      options.onHung();
      return true;
    }
    askedAt = now();
    const asked = generation;
    view.evaluate_javascript("0", -1, WATCHDOG_WORLD, null, null, () => {
      if (asked === generation) askedAt = undefined;
    });
    return true;
  });
  return { stop: () => void GLib.source_remove(source) };
}
