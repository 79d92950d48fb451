/**
 * The page's lifecycle and permissions, told to the Runtime (the host-intent ingress, spec 5.1): the page
 * hidden or shown (`visibilitychange`) is the window hidden or shown; Chromium's `freeze` and `resume`, and a
 * page kept in the back/forward cache (`pagehide` / `pageshow` with `persisted`), are the device's suspend and
 * resume; and a change of what the host can do (a permission granted or blocked) makes the Runtime ask the
 * host provider again, which republishes the inventory when it differs.
 */
import type { DiagnosticsSink, LineUpRuntime } from "@lineup/runtime";
import type { BrowserHostProvider } from "../host-provider/index.js";

type PageIntent = "window_hidden" | "window_shown" | "suspend" | "resume";

/** Starts watching; returns what stops it. */
export function watchPageLifecycle(runtime: LineUpRuntime, provider: Pick<BrowserHostProvider, "onCapabilitiesChanged">, diagnostics: DiagnosticsSink): () => void {
  const tell = (intent: PageIntent): void => void runtime.hostIntent({ intent }).catch((error: unknown) => diagnostics(error, `host intent ${intent}`));
  const onVisibility = (): void => tell(document.visibilityState === "hidden" ? "window_hidden" : "window_shown");
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
  const unsubscribe = provider.onCapabilitiesChanged(() => void runtime.hostCapabilitiesChanged().catch((error: unknown) => diagnostics(error, "host capabilities changed")));
  // A page that starts hidden (opened in a background tab) says so at once.
  if (document.visibilityState === "hidden") tell("window_hidden");
  return () => {
    document.removeEventListener("visibilitychange", onVisibility);
    document.removeEventListener("freeze", onFreeze);
    document.removeEventListener("resume", onResume);
    globalThis.removeEventListener("pagehide", onPageHide);
    globalThis.removeEventListener("pageshow", onPageShow);
    unsubscribe();
  };
}
