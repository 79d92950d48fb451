import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import type { JSX } from "preact";
import { isLive, launcherEntrypoint, type AppInstance, type InstancesSnapshotView, type LineUpRuntime } from "@lineup/runtime";
import { createAppSdk } from "@lineup/app-sdk";
import type { HostConfig } from "../bootstrap/config.js";
import { reopenInstance } from "../bootstrap/recovery.js";
import { InstanceLayer, type Placement } from "../apps-host/InstanceLayer.js";
import type { InstanceFailure } from "../apps-host/instance-bridge.js";
import { ResultCardContext } from "../apps-host/ResultCard.js";
import { ChatApp } from "../core-apps/chat/ChatApp.js";
import { chatConversations, conversationLabel, rememberConversation, rememberedConversation, shownConversation } from "../core-apps/chat/selection.js";
import { AppBoundary } from "./AppBoundary.js";
import { lazyModule, useLazyModule, type LazyModule } from "./lazy-module.js";
import { ConnectionIndicator } from "./ConnectionIndicator.js";
import type { Notifications } from "./notifications.js";
import { displayModesOf, pipCandidateOf } from "./placement.js";
import { Toasts } from "./Toasts.js";
import type { LauncherProps } from "./Launcher.js";
import type { LauncherApp, LauncherInstance } from "./launcher-items.js";
import { parseOpenLink, type OpenLink } from "./open-link.js";
import { CORE_APPS, coreLabel, createOpener, type Showing } from "./opener.js";
import { t, uiLanguage } from "../i18n/index.js";
import { reasonText } from "../i18n/reasons.js";
import { localizedAppName, localizedDescription } from "../i18n/app-text.js";
import { CapabilityPromptDialog, RecordingIndicator, shellPromptQueue, shellRecordings } from "../host-provider/index.js";

export interface ShellProps {
  readonly runtime: LineUpRuntime;
  readonly config: HostConfig;
  readonly notifications: Notifications;
  readonly onSignOut: () => void;
  /** False after the desktop host restarted the page for a hang or a crash: no app opens by itself then. */
  readonly openAtStart?: boolean;
}

/** Instances with a surface on screen: live ones, and closing ones until they have flushed. */
const live = (i: AppInstance): boolean => isLive(i.status) || i.status === "closing";

/**
 * The shell (spec 4.3, 4.5): the app switcher — core apps, then every running installed app — the
 * launcher (Ctrl/⌘+K) over every app a person may open, the global connection state, notifications,
 * and safe recovery: an app that crashes is replaced by `chat` with a notice. What opens at start-up
 * (a deep link, the instance to restore, the default app, chat) is the Runtime's decision
 * (`opener.ts`). Installed apps appear when the Runtime launches them (an agent's tool call, the
 * user) and come to the front when the Runtime's focus stack says so; when one closes, what it
 * displaced comes back. Core apps get their SDK over the Runtime's `AppPort`; the shell itself never
 * talks to the server.
 */
export function Shell({ runtime, config, notifications, onSignOut, openAtStart = true }: ShellProps) {
  const [instances, setInstances] = useState<InstancesSnapshotView>(() => runtime.instances.snapshot());
  const [showing, setShowing] = useState<Showing>({ kind: "core", app_scope: "chat" });
  const [launcherOpen, setLauncherOpen] = useState(false);
  const [generation, setGeneration] = useState(0);
  const chatSdk = useMemo(() => createAppSdk(runtime.appPort("chat")), [runtime]);
  const available = useMemo(
    () =>
      config.builtin_apps.map((app) => ({
        name: localizedAppName({ name: app.name, description: "", ...(app.localized === undefined ? {} : { localized: app.localized }) })!,
        file: app.file,
        ...(app.app_scope === undefined ? {} : { app_scope: app.app_scope }),
        ...(app.version === undefined ? {} : { version: app.version }),
        async load(): Promise<Uint8Array> {
          const response = await fetch(`/apps/${encodeURIComponent(app.file)}`, { cache: "no-cache" });
          if (!response.ok) throw new Error(`the host did not serve ${app.file} (HTTP ${response.status})`);
          return new Uint8Array(await response.arrayBuffer());
        },
      })),
    // Named in the UI language: computed again when it changes.
    [config, uiLanguage()],
  );

  const showingRef = useRef(showing);
  showingRef.current = showing;
  /** Instances the person left for a core app while they were still loading. */
  const leftWhileLoading = useRef(new Set<string>());
  useEffect(() => {
    let previous = runtime.instances.snapshot();
    return runtime.instances.subscribe((next) => {
      const before = previous;
      previous = next;
      setInstances(next);
      const shown = showingRef.current;
      if (next.foreground === undefined) {
        // The Runtime sent the instance on screen to the background (a call with `restore_focus` ended): back to chat.
        if (before.foreground !== undefined && shown.kind === "instance" && shown.instance_id === before.foreground) setShowing({ kind: "core", app_scope: "chat" });
        return;
      }
      if (next.foreground === before.foreground) return;
      // An instance restored after a restart reports ready by itself and the Runtime puts it back in front; unless
      // the start-up order chose it (then it is shown already), the person is elsewhere: it stays behind. So does
      // one the person left while it loaded.
      const resumed = before.instances.find((i) => i.instance_id === next.foreground)?.status === "suspended";
      const left = leftWhileLoading.current.delete(next.foreground);
      if ((resumed || left) && !(shown.kind === "instance" && shown.instance_id === next.foreground)) {
        void runtime.instances.background(next.foreground).catch(() => undefined);
        return;
      }
      // The Runtime brought an instance to the front (a tool call, a launch): show it.
      setShowing({ kind: "instance", instance_id: next.foreground });
    });
  }, [runtime]);

  /** The conversation on screen: the shown instance's, else the one the chat shows; undefined when there is none. */
  const currentConversation = (): { readonly conversation_id: string; readonly title: string } | undefined => {
    const all = runtime.conversations.list();
    const shown = showingRef.current;
    const instance = shown.kind === "instance" ? runtime.instances.snapshot().instances.find((i) => i.instance_id === shown.instance_id) : undefined;
    const conversation = instance?.conversation_id === undefined ? shownConversation(chatConversations(all), rememberedConversation()) : all.find((c) => c.conversation_id === instance.conversation_id);
    if (conversation !== undefined) return { conversation_id: conversation.conversation_id, title: conversationLabel(conversation) };
    return instance?.conversation_id === undefined ? undefined : { conversation_id: instance.conversation_id, title: t("shell.thisConversation") };
  };
  const opener = useMemo(
    () =>
      createOpener({
        runtime,
        notifications,
        show: setShowing,
        currentConversation: () => currentConversation()?.conversation_id,
        async newConversation(title) {
          const receipt = await chatSdk.actions.dispatch({ type: "conversation.start", agent_id: config.agent_id, workspace_id: config.workspace_id, title });
          // Back in Chat, the person finds the conversation the app opened in.
          rememberConversation(receipt.conversation_id);
          return receipt.conversation_id;
        },
        appName: (appScope) => localizedAppName(runtime.appManager.getApp(appScope)?.projection),
      }),
    [runtime, notifications, chatSdk, config],
  );

  // Start-up (spec 4.3) through the Runtime's order, a deep link (`#/open/…`) as its explicit target; a link
  // followed later (a notification's click sets one) opens what it names. Each link is taken off the address
  // once read, so a reload restores instead of opening it again.
  useEffect(() => {
    // After the desktop host restarted the page for a hang or a crash nothing opens by itself (bootstrap/recovery.ts).
    if (openAtStart) opener.start(takeOpenLink());
    const onHashChange = () => {
      const link = takeOpenLink();
      if (link !== undefined) opener.follow(link);
    };
    globalThis.addEventListener("hashchange", onHashChange);
    return () => globalThis.removeEventListener("hashchange", onHashChange);
    // Once, when the shell first shows.
  }, [opener]);

  // Ctrl/⌘+K opens the launcher from anywhere in the shell; inside an app's frame the surface SDK forwards it (`launcher.open`).
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey || event.key.toLowerCase() !== "k") return;
      event.preventDefault();
      setLauncherOpen((open) => !open);
    };
    globalThis.addEventListener("keydown", onKey);
    return () => globalThis.removeEventListener("keydown", onKey);
  }, []);

  // The instance shown went away (closed, failed, removed): back to what it displaced, else chat. Before paint, so
  // the person never sees an empty app area in between.
  useLayoutEffect(() => {
    if (showing.kind !== "instance") return;
    const shown = instances.instances.find((i) => i.instance_id === showing.instance_id);
    if (shown !== undefined && shown.status !== "closing" && shown.status !== "failed" && shown.status !== "closed") return;
    setShowing(instances.foreground === undefined ? { kind: "core", app_scope: "chat" } : { kind: "instance", instance_id: instances.foreground });
  }, [instances, showing]);

  const onCrash = useCallback(
    (appScope: string, error: unknown) => {
      console.error(`app ${appScope} crashed`, error);
      notifications.push(appScope === "chat" ? t("shell.chatCrashed") : t("shell.appCrashed", { name: appName(appScope) ?? appScope }), "error");
      setShowing({ kind: "core", app_scope: "chat" });
      setGeneration((g) => g + 1);
    },
    [notifications],
  );

  const showCore = (appScope: string) => {
    // Leaving an app for the shell keeps its place: it goes to the background, not away. One not in front yet
    // (launching, restoring, or still suspended in this render's snapshot while its restore is under way) cannot go
    // to the background yet: it stays behind when it is ready (the subscription above).
    if (instances.foreground !== undefined) void runtime.instances.background(instances.foreground).catch(() => undefined);
    const shown = showing.kind === "instance" ? instances.instances.find((i) => i.instance_id === showing.instance_id) : undefined;
    if (shown !== undefined && shown.status !== "active") leftWhileLoading.current.add(shown.instance_id);
    const next: Showing = { kind: "core", app_scope: appScope };
    // Before the Runtime answers: its background is the person's own move, not one to follow back to chat.
    showingRef.current = next;
    setShowing(next);
  };
  const showInstance = (instanceId: string) => {
    leftWhileLoading.current.delete(instanceId);
    opener.switchTo(instanceId);
  };

  /** An installed app's name for people in the UI language, as its tab and the chat's Files show it; undefined when it is not installed. */
  const appName = (appScope: string): string | undefined => coreLabel(appScope) ?? localizedAppName(runtime.appManager.getApp(appScope)?.projection);
  const running = instances.instances.filter(live);
  /** Opens the app again where it was (its conversation and entrypoint), as a new instance, and shows it. */
  const reopen = (failed: AppInstance) => {
    const name = appName(failed.app_scope) ?? failed.app_scope;
    void reopenInstance(runtime, failed).then(
      (next) => setShowing({ kind: "instance", instance_id: next.instance_id }),
      (error: unknown) => notifications.push(t("shell.couldNotOpenAgain", { name, reason: reasonText(error) }), "error"),
    );
  };
  const onInstanceFailed = (instance: AppInstance, failure: InstanceFailure) => {
    if (failure.kind === "start") {
      notifications.push(t("shell.couldNotStart", { name: appName(instance.app_scope) ?? instance.app_scope, reason: reasonText({ code: "activation_failed", message: failure.message }) }), "error");
      return;
    }
    // Its page died (left for another document, or stopped answering): the Runtime has failed the instance and
    // ended the calls it held. The person may open the app again where it was.
    const name = appName(instance.app_scope) ?? instance.app_scope;
    notifications.push(t(failure.reason === "navigated" ? "shell.leftItsPage" : "shell.stoppedResponding", { name }), "error", { label: t("shell.reload"), run: () => reopen(instance) });
  };
  /** An app's tab names it; when it is open in more than one conversation, each tab names its conversation too. */
  const tabLabel = (instance: AppInstance, open: readonly AppInstance[]): string => {
    const name = appName(instance.app_scope) ?? instance.app_scope;
    if (instance.conversation_id === undefined || open.filter((i) => i.app_scope === instance.app_scope).length < 2) return name;
    const conversation = runtime.conversations.list().find((c) => c.conversation_id === instance.conversation_id);
    return conversation === undefined ? name : `${name} · ${conversationLabel(conversation)}`;
  };
  const closeInstance = (instanceId: string) => {
    // The person closes the app (spec 4.4): what it displaced comes back, and a call it was still handling ends as cancelled.
    void runtime.appManager.closeInstance(instanceId, { by: "user" }).catch((error: unknown) => notifications.push(t("shell.couldNotClose", { reason: reasonText(error) }), "error"));
  };
  const tabs: { id: string; label: string; select: () => void; selected: boolean; close?: () => void }[] = [
    ...CORE_APPS.map((app) => ({ id: app.app_scope, label: t(app.label), select: () => showCore(app.app_scope), selected: showing.kind === "core" && showing.app_scope === app.app_scope })),
    ...running
      .filter((i) => i.status !== "closing")
      .map((i, _, open) => ({
        id: i.instance_id,
        label: tabLabel(i, open),
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
    (id) => running.find((i) => i.instance_id === id && i.status !== "closing" && i.status !== "suspended"),
    (instance) => displayModesOf(runtime.appManager.getApp(instance.app_scope)?.manifest, instance).includes("pip"),
  );
  const pipShown = showing.kind === "core" && showing.app_scope === "chat" && pipCandidate !== undefined;
  const placement = (instance: AppInstance): Placement => {
    if (showing.kind === "instance" && showing.instance_id === instance.instance_id) return "foreground";
    if (pipShown && instance.instance_id === pipCandidate) return "pip";
    return "hidden";
  };
  const activeId = showing.kind === "core" ? showing.app_scope : showing.instance_id;
  /** The apps open now for the launcher, most recent first, without the one on screen. */
  const recentInstances = (): LauncherInstance[] => {
    const onScreen = running.filter((i) => i.status !== "closing" && !(showing.kind === "instance" && showing.instance_id === i.instance_id));
    const order = [...instances.focus_stack].reverse();
    const rank = (i: AppInstance) => (order.includes(i.instance_id) ? order.indexOf(i.instance_id) : order.length + onScreen.indexOf(i));
    const titles = new Map(runtime.conversations.list().map((c) => [c.conversation_id, conversationLabel(c)]));
    return [...onScreen].sort((a, b) => rank(a) - rank(b)).map((i) => {
      const conversation = i.conversation_id === undefined ? undefined : titles.get(i.conversation_id);
      return { instance_id: i.instance_id, app_scope: i.app_scope, name: appName(i.app_scope) ?? i.app_scope, ...(conversation === undefined ? {} : { conversation }) };
    });
  };
  const launcherCurrent = launcherOpen ? currentConversation() : undefined;

  return (
    <div class="shell">
      <header class="shell-bar">
        <div class="brand" aria-hidden="true">
          LineUp
        </div>
        <nav class="switcher" aria-label={t("shell.switcher")} role="tablist" onKeyDown={onSwitcherKey}>
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
                <button type="button" class="switch-close" tabIndex={-1} aria-label={t("shell.closeTab", { name: tab.label })} title={t("shell.closeTab", { name: tab.label })} onClick={tab.close}>
                  ×
                </button>
              </span>
            );
          })}
        </nav>
        <button type="button" class="shell-launch" aria-haspopup="dialog" aria-keyshortcuts="Control+K Meta+K" title={t("shell.openAppTitle", { shortcut: launcherShortcut() })} onClick={() => setLauncherOpen(true)}>
          {t("shell.openApp")} <kbd aria-hidden="true">{launcherShortcut()}</kbd>
        </button>
        <ConnectionIndicator lifecycle={runtime.lifecycle} />
      </header>
      <main id="app-area" class="app-area" role="tabpanel" aria-labelledby={`switch-${activeId}`} data-pip={pipShown ? "true" : undefined} data-app={showing.kind === "core" ? showing.app_scope : (running.find((i) => i.instance_id === showing.instance_id)?.app_scope ?? "")}>
        {showing.kind === "core" ? (
          <ResultCardContext.Provider value={runtime}>
          <AppBoundary key={`${showing.app_scope}:${generation}`} app_scope={showing.app_scope} onCrash={onCrash}>
            {showing.app_scope === "chat" ? (
              <ChatApp sdk={chatSdk} config={config} notifications={notifications} appName={appName} />
            ) : showing.app_scope === "app-registry" ? (
              <Deferred module={registryApp}>{({ RegistryApp }) => <RegistryApp manager={runtime.appManager} available={available} catalog={runtime.catalog} />}</Deferred>
            ) : (
              <Deferred module={settingsApp}>{({ SettingsApp }) => <SettingsApp config={config} onSignOut={onSignOut} settings={runtime.settings} appName={appName} />}</Deferred>
            )}
          </AppBoundary>
          </ResultCardContext.Provider>
        ) : null}
        <InstanceLayer
          runtime={runtime}
          instances={running}
          busy={instances.busy}
          placement={placement}
          onFocusRequest={showInstance}
          onCloseRequest={closeInstance}
          onFailed={onInstanceFailed}
          onLauncher={() => setLauncherOpen(true)}
        />
      </main>
      <LazyLauncher
        notifications={notifications}
        open={launcherOpen}
        onClose={() => setLauncherOpen(false)}
        contents={() => ({ apps: launcherApps(runtime), recent: recentInstances() })}
        {...(launcherCurrent === undefined ? {} : { current: launcherCurrent })}
        onOpenApp={(app, where) => void opener.openApp(app.app_scope, where, app.entrypoint)}
        onSwitch={(instanceId) => showInstance(instanceId)}
      />
      <Toasts notifications={notifications} />
      <CapabilityPromptDialog queue={shellPromptQueue} />
      <RecordingIndicator recordings={shellRecordings} />
    </div>
  );
}

const isMac = (): boolean => /Mac|iPhone|iPad/.test(globalThis.navigator?.platform ?? "");
/** How the launcher's shortcut reads on this device. */
const launcherShortcut = (): string => (isMac() ? "⌘K" : "Ctrl+K");

// The launcher is a chunk of its own, fetched when it is first opened.
const launcherModule = lazyModule("launcher", () => import("./Launcher.js"));

/** The launcher once it is wanted: a fetch that fails closes it again with a notice, and the next opening fetches again. */
function LazyLauncher({ notifications, ...props }: LauncherProps & { readonly notifications: Notifications }) {
  if (!props.open && launcherModule.current() === undefined) return null;
  return <LoadedLauncher notifications={notifications} {...props} />;
}

function LoadedLauncher({ notifications, ...props }: LauncherProps & { readonly notifications: Notifications }) {
  const state = useLazyModule(launcherModule);
  useEffect(() => {
    if (state.status !== "failed") return;
    notifications.push(t("shell.couldNotOpenLauncher", { reason: reasonText(state.error) }), "error");
    props.onClose();
  }, [state.status]);
  return state.status === "loaded" ? <state.module.Launcher {...props} /> : null;
}

// Chat is the first screen; Apps and Settings are chunks of their own, fetched when first opened.
const registryApp = lazyModule("Apps", () => import("../core-apps/registry/RegistryApp.js"));
const settingsApp = lazyModule("Settings", () => import("../core-apps/settings/SettingsApp.js"));

/** A core app from its chunk: "Loading…" until it arrives; a failed fetch is the app's crash (its boundary takes the shell back to chat, and opening it again fetches again). */
function Deferred<M>({ module, children }: { module: LazyModule<M>; children: (loaded: M) => JSX.Element }) {
  const state = useLazyModule(module);
  if (state.status === "failed") throw state.error;
  if (state.status === "loading") {
    return (
      <div class="center-page" aria-busy="true">
        <p class="muted">{t("host.loading")}</p>
      </div>
    );
  }
  return children(state.module);
}

/** The open link in the address (`#/open/…`), taken off it so that a reload does not follow it again. */
function takeOpenLink(): OpenLink | undefined {
  const link = parseOpenLink(globalThis.location?.hash ?? "");
  if (link !== undefined) globalThis.history?.replaceState(globalThis.history.state, "", `${location.pathname}${location.search}`);
  return link;
}

/** What the launcher lists: every enabled app a person may open here, and the core apps. */
function launcherApps(runtime: LineUpRuntime): LauncherApp[] {
  const installed = runtime.appManager.listApps({ kind: "installed", enabled: true }).flatMap((record): LauncherApp[] => {
    const details = runtime.appManager.getApp(record.app_scope);
    const entry = details === undefined ? undefined : launcherEntrypoint(details.projection);
    if (details === undefined || entry === undefined || runtime.instances.whyCannotOpen(record.app_scope, entry.id) !== undefined) return [];
    return [{ app_scope: record.app_scope, name: localizedAppName(details.projection)!, description: localizedDescription(details.projection), entrypoint: entry.id, core: false }];
  });
  return [...installed, ...CORE_APPS.map((app) => ({ app_scope: app.app_scope, name: t(app.label), description: t(app.description), core: true }))];
}
