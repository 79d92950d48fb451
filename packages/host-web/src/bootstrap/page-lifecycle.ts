/**
 * The page's lifecycle and permissions, told to the Runtime (the host-intent ingress, spec 5.1): the page
 * hidden or shown (`visibilitychange`) is the window hidden or shown; Chromium's `freeze` and `resume`, and a
 * page kept in the back/forward cache (`pagehide` / `pageshow` with `persisted`), are the device's suspend and
 * resume; and a change of what the host can do (a permission granted or blocked) makes the Runtime ask the
 * host provider again, which republishes the inventory when it differs.
 *
 * In a native window (the desktop host) the window's own state counts too: hidden or minimized there (its
 * `window.state` push, and `host.info` at the start) is the window hidden, whatever the page's visibility says.
 * The Runtime hears each change once, from whichever source saw it first.
 */
import type { DiagnosticsSink, LineUpRuntime } from "@lineup/runtime";
import type { BrowserHostProvider } from "../host-provider/index.js";
import type { NativeHost } from "./native-host.js";

type PageIntent = "window_hidden" | "window_shown" | "suspend" | "resume";

/** Starts watching; returns what stops it. */
export function watchPageLifecycle(runtime: LineUpRuntime, provider: Pick<BrowserHostProvider, "onCapabilitiesChanged">, diagnostics: DiagnosticsSink, native?: Promise<NativeHost | undefined>): () => void {
  const tell = (intent: PageIntent): void => void runtime.hostIntent({ intent }).catch((error: unknown) => diagnostics(error, `host intent ${intent}`));
  let nativeShown = true;
  let shown = true;
  const onVisibility = (): void => {
    const now = document.visibilityState !== "hidden" && nativeShown;
    if (now === shown) return;
    shown = now;
    tell(now ? "window_shown" : "window_hidden");
  };
  let stopped = false;
  let stopPushes: (() => void) | undefined;
  const capabilitiesChanged = (): void => void runtime.hostCapabilitiesChanged().catch((error: unknown) => diagnostics(error, "host capabilities changed"));
  void native?.then((host) => {
    if (host === undefined || stopped) return;
    // The provider has read `host.info` by now (it asked first), possibly after the Runtime took what the host can do.
    capabilitiesChanged();
    nativeShown = (host.info.window_state ?? "shown") === "shown";
    stopPushes = host.onPush((push) => {
      if (push.push !== "window.state") return;
      nativeShown = push.params.state === "shown";
      onVisibility();
    });
    onVisibility();
  });
  const onFreeze = (): void => tell("suspend");
  const onResume = (): void => tell("resume");
  const onPageHide = (event: PageTransitionEvent): void => {
    if (event.persisted) tell("suspend");
  };
  const onPageShow = (event: PageTransitionEvent): void => {
    if (event.persisted) tell("resume");
  };
  document.addEventListener("visibilitychange", onVisibility);
  document.addEventListener("freeze", onFreeze);
  document.addEventListener("resume", onResume);
  globalThis.addEventListener("pagehide", onPageHide);
  globalThis.addEventListener("pageshow", onPageShow);
  const unsubscribe = provider.onCapabilitiesChanged(capabilitiesChanged);
  // A page that starts hidden (opened in a background tab) says so at once.
  onVisibility();
  return () => {
    stopped = true;
    stopPushes?.();
    document.removeEventListener("visibilitychange", onVisibility);
    document.removeEventListener("freeze", onFreeze);
    document.removeEventListener("resume", onResume);
    globalThis.removeEventListener("pagehide", onPageHide);
    globalThis.removeEventListener("pageshow", onPageShow);
    unsubscribe();
  };
}
