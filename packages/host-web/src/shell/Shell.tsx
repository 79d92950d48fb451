import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import { isLive, type AppInstance, type InstancesSnapshotView, type LineUpRuntime } from "@lineup/runtime";
import { createAppSdk } from "@lineup/app-sdk";
import type { HostConfig } from "../bootstrap/config.js";
import { InstanceLayer, type Placement } from "../apps-host/InstanceLayer.js";
import type { InstanceFailure } from "../apps-host/instance-bridge.js";
import { ResultCardContext } from "../apps-host/ResultCard.js";
import { ChatApp } from "../core-apps/chat/ChatApp.js";
import { RegistryApp } from "../core-apps/registry/RegistryApp.js";
import { SettingsApp } from "../core-apps/settings/SettingsApp.js";
import { AppBoundary } from "./AppBoundary.js";
import { ConnectionIndicator } from "./ConnectionIndicator.js";
import type { Notifications } from "./notifications.js";
import { displayModesOf, pipCandidateOf } from "./placement.js";
import { Toasts } from "./Toasts.js";
import { CapabilityPromptDialog, RecordingIndicator, shellPromptQueue, shellRecordings } from "../host-provider/index.js";

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
  /** False after the desktop host restarted the page for a hang or a crash: no app opens by itself then. */
  readonly openAtStart?: boolean;
}

/** What the app area shows: a core app, or an installed app's instance. */
type Showing = { readonly kind: "core"; readonly app_scope: string } | { readonly kind: "instance"; readonly instance_id: string };

/** Instances with a surface on screen: live ones, and closing ones until they have flushed. */
const live = (i: AppInstance): boolean => isLive(i.status) || i.status === "closing";

/**
 * The shell (spec 4.3, 4.5): the app switcher — core apps, then every running installed app — the
 * global connection state, notifications, and safe recovery: an app that crashes is replaced by
 * `chat` with a notice. Installed apps appear when the Runtime launches them (an agent's tool call,
 * the user) and come to the front when the Runtime's focus stack says so; when one closes, what it
 * displaced comes back. Core apps get their SDK over the Runtime's `AppPort`; the shell itself never
 * talks to the server.
 */
export function Shell({ runtime, config, notifications, onSignOut, openAtStart = true }: ShellProps) {
  const [instances, setInstances] = useState<InstancesSnapshotView>(() => runtime.instances.snapshot());
  const [showing, setShowing] = useState<Showing>(() => initialShowing(runtime));
  const [generation, setGeneration] = useState(0);
  const chatSdk = useMemo(() => createAppSdk(runtime.appPort("chat")), [runtime]);
  const available = useMemo(
    () =>
      config.builtin_apps.map((app) => ({
        name: app.name,
        file: app.file,
        ...(app.app_scope === undefined ? {} : { app_scope: app.app_scope }),
        ...(app.version === undefined ? {} : { version: app.version }),
        async load(): Promise<Uint8Array> {
          const response = await fetch(`/apps/${encodeURIComponent(app.file)}`, { cache: "no-cache" });
          if (!response.ok) throw new Error(`the host did not serve ${app.file} (HTTP ${response.status})`);
          return new Uint8Array(await response.arrayBuffer());
        },
      })),
    [config],
  );

  useEffect(
    () =>
      runtime.instances.subscribe((next) => {
        setInstances((previous) => {
          // The Runtime brought an instance to the front (a tool call, a launch): show it.
          if (next.foreground !== undefined && next.foreground !== previous.foreground) setShowing({ kind: "instance", instance_id: next.foreground });
          return next;
        });
      }),
    [runtime],
  );

  // Start-up (spec 4.3): a restorable instance comes back by itself (its surface reports ready and the
  // Runtime puts it in front); otherwise an installed default app is opened; otherwise the core default, or chat.
  useEffect(() => {
    if (!openAtStart) return;
    const preferred = runtime.apps.defaultApp();
    if (CORE_APPS.some((app) => app.app_scope === preferred)) return;
    if (runtime.instances.snapshot().focus_stack.length > 0) return;
    void runtime.appManager
      .launch({ app_scope: preferred, foreground: true })
      .catch((error: unknown) => notifications.push(`${preferred} could not open; here is chat instead. (${(error as Error).message})`, "error"));
    // Once, when the shell first shows.
  }, [runtime]);

  // The instance shown went away (closed, failed, removed): back to what it displaced, else chat.
  useEffect(() => {
    if (showing.kind !== "instance") return;
    const shown = instances.instances.find((i) => i.instance_id === showing.instance_id);
    if (shown !== undefined && shown.status !== "closing" && shown.status !== "failed" && shown.status !== "closed") return;
    setShowing(instances.foreground === undefined ? { kind: "core", app_scope: "chat" } : { kind: "instance", instance_id: instances.foreground });
  }, [instances, showing]);

  const onCrash = useCallback(
    (appScope: string, error: unknown) => {
      console.error(`app ${appScope} crashed`, error);
      notifications.push(appScope === "chat" ? "Chat hit an error and was restarted." : `${appScope} stopped working; back to chat.`, "error");
      setShowing({ kind: "core", app_scope: "chat" });
      setGeneration((g) => g + 1);
    },
    [notifications],
  );

  const showCore = (appScope: string) => {
    // Leaving an app for the shell keeps its place: it goes to the background, not away.
    if (instances.foreground !== undefined) void runtime.instances.background(instances.foreground).catch(() => undefined);
    setShowing({ kind: "core", app_scope: appScope });
  };
  const showInstance = (instanceId: string) => {
    setShowing({ kind: "instance", instance_id: instanceId });
    void runtime.instances.focus(instanceId).catch((error: unknown) => notifications.push(`Could not open the app: ${(error as Error).message}`, "error"));
  };

  /** An installed app's name for people, as its tab and the chat's Files show it; undefined when it is not installed. */
  const appName = (appScope: string): string | undefined => runtime.appManager.getApp(appScope)?.manifest.name;
  const running = instances.instances.filter(live);
  /** Opens the app again where it was (its conversation and entrypoint), as a new instance, and shows it. */
  const reopen = (failed: AppInstance) => {
    const name = appName(failed.app_scope) ?? failed.app_scope;
    void runtime.appManager
      .launch({
        app_scope: failed.app_scope,
        foreground: true,
        ...(failed.conversation_id === undefined ? {} : { conversation_id: failed.conversation_id }),
        ...(failed.entrypoint === undefined ? {} : { entrypoint: failed.entrypoint }),
      })
      .then(
        (next) => setShowing({ kind: "instance", instance_id: next.instance_id }),
        (error: unknown) => notifications.push(`${name} could not open again: ${(error as Error).message}`, "error"),
      );
  };
  const onInstanceFailed = (instance: AppInstance, failure: InstanceFailure) => {
    if (failure.kind === "start") {
      notifications.push(`${instance.app_scope} could not start: ${failure.message}`, "error");
      return;
    }
    // Its page died (left for another document, or stopped answering): the Runtime has failed the instance and
    // ended the calls it held. The person may open the app again where it was.
    const name = appName(instance.app_scope) ?? instance.app_scope;
    const what = failure.reason === "navigated" ? "left its page" : "stopped responding";
    notifications.push(`${name} ${what} and was closed.`, "error", { label: "Reload", run: () => reopen(instance) });
  };
  const closeInstance = (instanceId: string) => {
    // The person closes the app (spec 4.4): what it displaced comes back, and a call it was still handling ends as cancelled.
    void runtime.appManager.closeInstance(instanceId, { by: "user" }).catch((error: unknown) => notifications.push(`Could not close the app: ${(error as Error).message}`, "error"));
  };
  const tabs: { id: string; label: string; select: () => void; selected: boolean; close?: () => void }[] = [
    ...CORE_APPS.map((app) => ({ id: app.app_scope, label: app.label, select: () => showCore(app.app_scope), selected: showing.kind === "core" && showing.app_scope === app.app_scope })),
    ...running
      .filter((i) => i.status !== "closing")
      .map((i) => ({
        id: i.instance_id,
        label: appName(i.app_scope) ?? i.app_scope,
        select: () => showInstance(i.instance_id),
        selected: showing.kind === "instance" && showing.instance_id === i.instance_id,
        close: () => closeInstance(i.instance_id),
      })),
  ];

  const onSwitcherKey = (event: KeyboardEvent) => {
    if (event.key === "Delete") {
      // Delete on an installed app's tab closes it, as its × does.
      const focused = tabs.find((t) => (event.target as HTMLElement).id === `switch-${t.id}`);
      if (focused?.close === undefined) return;
      focused.close();
      event.preventDefault();
      return;
    }
    if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
    const index = Math.max(0, tabs.findIndex((t) => t.selected));
    const next = tabs[(index + (event.key === "ArrowRight" ? 1 : -1) + tabs.length) % tabs.length]!;
    next.select();
    (document.getElementById(`switch-${next.id}`) as HTMLElement | null)?.focus();
    event.preventDefault();
  };

  // The most recent instance behind what the user looks at floats as picture-in-picture, if its entrypoint offers it (placement.ts).
  const pipCandidate = pipCandidateOf(
    instances.focus_stack,
    showing.kind === "instance" ? showing.instance_id : undefined,
    (id) => running.find((i) => i.instance_id === id && i.status !== "closing"),
    (instance) => displayModesOf(runtime.appManager.getApp(instance.app_scope)?.manifest, instance).includes("pip"),
  );
  const pipShown = showing.kind === "core" && showing.app_scope === "chat" && pipCandidate !== undefined;
  const placement = (instance: AppInstance): Placement => {
    if (showing.kind === "instance" && showing.instance_id === instance.instance_id) return "foreground";
    if (pipShown && instance.instance_id === pipCandidate) return "pip";
    return "hidden";
  };
  const activeId = showing.kind === "core" ? showing.app_scope : showing.instance_id;

  return (
    <div class="shell">
      <header class="shell-bar">
        <div class="brand" aria-hidden="true">
          LineUp
        </div>
        <nav class="switcher" aria-label="Apps" role="tablist" onKeyDown={onSwitcherKey}>
          {tabs.map((tab) => {
            const button = (
              <button
                key={tab.id}
                id={`switch-${tab.id}`}
                type="button"
                role="tab"
                aria-selected={tab.selected}
                aria-controls="app-area"
                aria-keyshortcuts={tab.close === undefined ? undefined : "Delete"}
                tabIndex={tab.selected ? 0 : -1}
                class={tab.selected ? "switch active" : "switch"}
                onClick={tab.select}
              >
                {tab.label}
              </button>
            );
            if (tab.close === undefined) return button;
            // An installed app's tab carries its close button (keyboard: Delete on the tab).
            return (
              <span key={tab.id} class="switch-item" role="presentation">
                {button}
                <button type="button" class="switch-close" tabIndex={-1} aria-label={`Close ${tab.label}`} title={`Close ${tab.label}`} onClick={tab.close}>
                  ×
                </button>
              </span>
            );
          })}
        </nav>
        <ConnectionIndicator lifecycle={runtime.lifecycle} />
      </header>
      <main id="app-area" class="app-area" role="tabpanel" aria-labelledby={`switch-${activeId}`} data-pip={pipShown ? "true" : undefined} data-app={showing.kind === "core" ? showing.app_scope : (running.find((i) => i.instance_id === showing.instance_id)?.app_scope ?? "")}>
        {showing.kind === "core" ? (
          <ResultCardContext.Provider value={runtime}>
          <AppBoundary key={`${showing.app_scope}:${generation}`} app_scope={showing.app_scope} onCrash={onCrash}>
            {showing.app_scope === "chat" ? (
              <ChatApp sdk={chatSdk} config={config} notifications={notifications} appName={appName} />
            ) : showing.app_scope === "app-registry" ? (
              <RegistryApp manager={runtime.appManager} available={available} />
            ) : (
              <SettingsApp config={config} onSignOut={onSignOut} settings={runtime.settings} appName={appName} />
            )}
          </AppBoundary>
          </ResultCardContext.Provider>
        ) : null}
        <InstanceLayer
          runtime={runtime}
          instances={running}
          placement={placement}
          onFocusRequest={showInstance}
          onCloseRequest={closeInstance}
          onFailed={onInstanceFailed}
        />
      </main>
      <Toasts notifications={notifications} />
      <CapabilityPromptDialog queue={shellPromptQueue} />
      <RecordingIndicator recordings={shellRecordings} />
    </div>
  );
}

function initialShowing(runtime: LineUpRuntime): Showing {
  const preferred = runtime.apps.defaultApp();
  return { kind: "core", app_scope: CORE_APPS.some((app) => app.app_scope === preferred) ? preferred : "chat" };
}
