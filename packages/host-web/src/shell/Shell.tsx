import { useCallback, useMemo, useState } from "preact/hooks";
import type { LineUpRuntime } from "@lineup/runtime";
import { createAppSdk } from "@lineup/app-sdk";
import type { HostConfig } from "../bootstrap/config.js";
import { ChatApp } from "../core-apps/chat/ChatApp.js";
import { RegistryApp } from "../core-apps/registry/RegistryApp.js";
import { SettingsApp } from "../core-apps/settings/SettingsApp.js";
import { AppBoundary } from "./AppBoundary.js";
import { ConnectionIndicator } from "./ConnectionIndicator.js";
import type { Notifications } from "./notifications.js";
import { Toasts } from "./Toasts.js";
import { CapabilityPromptDialog, shellPromptQueue } from "../host-provider/index.js";

const CORE_APPS = [
  { app_scope: "chat", label: "Chat" },
  { app_scope: "app-registry", label: "Apps" },
  { app_scope: "settings", label: "Settings" },
] as const;

export interface ShellProps {
  readonly runtime: LineUpRuntime;
  readonly config: HostConfig;
  readonly notifications: Notifications;
  readonly onSignOut: () => void;
}

/**
 * The shell (spec 4.3): the app switcher, the global connection state, notifications, and safe recovery —
 * an app that crashes is replaced by `chat` with a notice. Core apps get their SDK over the Runtime's
 * `AppPort`; the shell itself never talks to the server.
 */
export function Shell({ runtime, config, notifications, onSignOut }: ShellProps) {
  const [active, setActive] = useState<string>(() => {
    const preferred = runtime.apps.defaultApp();
    return CORE_APPS.some((app) => app.app_scope === preferred) ? preferred : "chat";
  });
  // Remounting an app after a crash gives it a fresh boundary.
  const [generation, setGeneration] = useState(0);
  const chatSdk = useMemo(() => createAppSdk(runtime.appPort("chat")), [runtime]);

  const onCrash = useCallback(
    (appScope: string, error: unknown) => {
      console.error(`app ${appScope} crashed`, error);
      notifications.push(appScope === "chat" ? "Chat hit an error and was restarted." : `${appScope} stopped working; back to chat.`, "error");
      setActive("chat");
      setGeneration((g) => g + 1);
    },
    [notifications],
  );

  const onSwitcherKey = (event: KeyboardEvent) => {
    if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
    const index = CORE_APPS.findIndex((app) => app.app_scope === active);
    const step = event.key === "ArrowRight" ? 1 : -1;
    const next = CORE_APPS[(index + step + CORE_APPS.length) % CORE_APPS.length]!;
    setActive(next.app_scope);
    (document.getElementById(`switch-${next.app_scope}`) as HTMLElement | null)?.focus();
    event.preventDefault();
  };

  return (
    <div class="shell">
      <header class="shell-bar">
        <div class="brand" aria-hidden="true">
          LineUp
        </div>
        <nav class="switcher" aria-label="Apps" role="tablist" onKeyDown={onSwitcherKey}>
          {CORE_APPS.map((app) => (
            <button
              key={app.app_scope}
              id={`switch-${app.app_scope}`}
              type="button"
              role="tab"
              aria-selected={active === app.app_scope}
              aria-controls="app-area"
              tabIndex={active === app.app_scope ? 0 : -1}
              class={active === app.app_scope ? "switch active" : "switch"}
              onClick={() => setActive(app.app_scope)}
            >
              {app.label}
            </button>
          ))}
        </nav>
        <ConnectionIndicator lifecycle={runtime.lifecycle} />
      </header>
      <main id="app-area" class="app-area" role="tabpanel" aria-labelledby={`switch-${active}`} data-app={active}>
        <AppBoundary key={`${active}:${generation}`} app_scope={active} onCrash={onCrash}>
          {active === "chat" ? (
            <ChatApp sdk={chatSdk} config={config} notifications={notifications} />
          ) : active === "app-registry" ? (
            <RegistryApp manager={runtime.appManager} />
          ) : (
            <SettingsApp config={config} onSignOut={onSignOut} settings={runtime.settings} />
          )}
        </AppBoundary>
      </main>
      <Toasts notifications={notifications} />
      <CapabilityPromptDialog queue={shellPromptQueue} />
    </div>
  );
}
