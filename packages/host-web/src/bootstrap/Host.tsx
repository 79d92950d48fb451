import { createLogger } from "@lineup/protocol";
import { logRuntimeDiagnostics } from "@lineup/runtime";
import { useLayoutEffect, useMemo, useState } from "preact/hooks";
import { Shell } from "../shell/Shell.js";
import { createNotifications } from "../shell/notifications.js";
import { ConfigForm } from "./ConfigForm.js";
import { forgetHostConfig, profileName, saveHostConfig, type HostConfig } from "./config.js";
import { claimProfileLock, type LockPort, type ProfileLock, type ProfileLockState } from "./profile-lock.js";
import type { RunningRuntime } from "./start-runtime.js";
import { onNativeShutdown } from "./native-host.js";
import { reopenInstance } from "./recovery.js";
import { localizedAppName } from "../i18n/app-text.js";
import type { JSX } from "preact";
import { browserLanguages, loadUiLanguage, t, uiLanguageOf } from "../i18n/index.js";
import { reasonText } from "../i18n/reasons.js";
import { useUiLanguage } from "../i18n/use-language.js";

/** What the Runtime cannot throw to anyone, as lines of the one log shape on the console. */
const runtimeDiagnostics = logRuntimeDiagnostics(createLogger({ write: (line) => console.warn(line.trimEnd()), bindings: { name: "lineup-host-web" } }));

/**
 * The Runtime and its browser adapters are a chunk of their own: the first paint does not wait for them. The page
 * starts fetching it as soon as its first script runs (`preloadRuntime`), while it renders, reads the sign-in config
 * and claims the profile. The Runtime loads its app-schema engine itself, while it reads a profile that holds data
 * or when the first app is installed.
 */
const loadRuntime = () => import("./start-runtime.js");

/** Starts fetching the Runtime's chunk; a failed fetch is reported when the profile starts the Runtime (and tried again then). */
export function preloadRuntime(): void {
  loadRuntime().catch(() => undefined);
}

/**
 * The host's root (spec 10): the sign-in config (read before the first render, `readHostConfig`), the profile
 * claimed across tabs, then the Runtime created through the browser adapters and handed to the shell.
 */
export function Host({ config }: { config: HostConfig | undefined }) {
  // The config signed in with; without one the person signs in with the form.
  const [signedIn, setSignedIn] = useState(config);
  if (signedIn === undefined) {
    return (
      <BrowserLanguage>
        {() => (
          <ConfigForm
            onSubmit={(config) => {
              saveHostConfig(config);
              setSignedIn(config);
            }}
          />
        )}
      </BrowserLanguage>
    );
  }
  return (
    <Profile
      config={signedIn}
      onSignOut={() => {
        forgetHostConfig();
        setSignedIn(undefined);
      }}
    />
  );
}

/** Before the Runtime runs, the UI speaks the browser's language. */
function BrowserLanguage({ children }: { children: () => JSX.Element }) {
  useUiLanguage();
  return children();
}

function Splash({ text }: { text: string }) {
  return (
    <main class="center-page" aria-busy="true">
      <p class="muted">{text}</p>
    </main>
  );
}

type RuntimePhase = { readonly kind: "stopped" } | { readonly kind: "starting" } | { readonly kind: "running"; readonly running: RunningRuntime } | { readonly kind: "failed"; readonly message: string };

function Profile({ config, onSignOut }: { config: HostConfig; onSignOut: () => void }) {
  const notifications = useMemo(() => createNotifications(), []);
  const [lockState, setLockState] = useState<ProfileLockState>({ status: "acquiring" });
  const [runtimePhase, setRuntimePhase] = useState<RuntimePhase>({ kind: "stopped" });
  const [lock, setLock] = useState<ProfileLock | undefined>(undefined);
  // The person's choice in Settings once the Runtime runs, else the browser's languages.
  useUiLanguage(runtimePhase.kind === "running" ? runtimePhase.running.runtime.settings : undefined);

  // Claimed in the render that first shows the profile, not a frame later: the Runtime's start waits on it.
  useLayoutEffect(() => {
    const name = profileName(config);
    let running: RunningRuntime | undefined;
    let starting: Promise<void> | undefined;
    const start = () => {
      if (starting !== undefined) return; // already started (or starting)
      performance.mark("lineup:profile-claimed");
      setRuntimePhase({ kind: "starting" });
      starting = loadRuntime().then(({ startBrowserRuntime }) => startBrowserRuntime(config, runtimeDiagnostics)).then(
        async (r) => {
          running = r;
          performance.mark("lineup:runtime-started");
          // The language chosen in Settings may not be the browser's: its catalogue first, so the shell starts in it.
          await loadUiLanguage(uiLanguageOf([r.runtime.settings.language(), ...browserLanguages()])).catch(() => undefined);
          setRuntimePhase({ kind: "running", running: r });
          // The desktop host restarted the page after a hang or a crash: each app that was open was closed for it.
          for (const failed of r.recovered?.failed ?? []) {
            const name = localizedAppName(r.runtime.appManager.getApp(failed.app_scope)?.projection) ?? failed.app_scope;
            notifications.push(t(r.recovered!.recovery === "crashed" ? "host.recoveredCrashed" : "host.recoveredUnresponsive", { name }), "error", {
              label: t("shell.reload"),
              run: () => void reopenInstance(r.runtime, failed).catch((error: unknown) => notifications.push(t("shell.couldNotOpenAgain", { name, reason: reasonText(error) }), "error")),
            });
          }
        },
        (error: unknown) => setRuntimePhase({ kind: "failed", message: error instanceof Error ? error.message : String(error) }),
      );
    };
    const stop = async () => {
      const pending = starting;
      starting = undefined;
      await pending;
      const r = running;
      running = undefined;
      setRuntimePhase({ kind: "stopped" });
      await r?.stop();
    };
    // In a native window (the desktop host), closing it stops the Runtime first, as leaving the page does.
    const offNativeShutdown = onNativeShutdown(stop);
    const locks = (navigator as Navigator & { locks?: LockPort }).locks;
    if (locks === undefined || typeof BroadcastChannel === "undefined") {
      // No Web Locks (very old browser): run, and accept that two tabs could both try.
      setLockState({ status: "held" });
      start();
      return () => {
        offNativeShutdown();
        void stop();
      };
    }
    const claim = claimProfileLock({ locks, channel: new BroadcastChannel(`lineup-profile:${name}`), name, onHandOver: stop });
    setLock(claim);
    const off = claim.subscribe((state) => {
      setLockState(state);
      if (state.status === "held") start();
    });
    setLockState(claim.state());
    if (claim.state().status === "held") start();
    // Leaving the page commits and closes the store; a page restored from the back/forward cache
    // starts over rather than run with a stopped Runtime.
    const onPageHide = () => void stop();
    const onPageShow = (event: PageTransitionEvent) => {
      if (event.persisted) location.reload();
    };
    window.addEventListener("pagehide", onPageHide);
    window.addEventListener("pageshow", onPageShow);
    return () => {
      window.removeEventListener("pagehide", onPageHide);
      window.removeEventListener("pageshow", onPageShow);
      offNativeShutdown();
      off();
      void stop().finally(() => claim.dispose());
    };
  }, [config]);

  if (lockState.status === "elsewhere" || lockState.status === "handing_over") {
    return (
      <main class="center-page">
        <div class="panel" role="alert" data-testid="other-tab">
          <h1>{t("host.otherTab")}</h1>
          <p class="muted">{t("host.otherTabHint")}</p>
          {lockState.status === "handing_over" ? (
            <p>{t("host.handingOver")}</p>
          ) : lockState.requested ? (
            <p aria-busy="true">{t("host.asking")}</p>
          ) : (
            <button type="button" class="primary" onClick={() => lock?.useHere()}>
              {t("host.useHere")}
            </button>
          )}
        </div>
      </main>
    );
  }
  if (runtimePhase.kind === "failed") {
    return (
      <main class="center-page">
        <div class="panel" role="alert">
          <h1>{t("host.couldNotStart")}</h1>
          <p>{runtimePhase.message}</p>
          <button type="button" class="primary" onClick={() => location.reload()}>
            {t("shell.reload")}
          </button>
        </div>
      </main>
    );
  }
  if (runtimePhase.kind !== "running") return <Splash text={t("host.starting")} />;
  return <Shell runtime={runtimePhase.running.runtime} config={config} notifications={notifications} onSignOut={onSignOut} openAtStart={runtimePhase.running.recovered === undefined} />;
}
