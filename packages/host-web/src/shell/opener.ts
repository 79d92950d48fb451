/**
 * How the shell opens things (spec 4.3): at start-up through the Runtime's own order — explicit target
 * (a deep link, a notification's click) → the restorable foreground instance → the default app → chat —
 * and afterwards from the launcher or a link followed while running. The Runtime decides
 * (`instances.startupTarget`, `whyCannotOpen`) before anything launches; this module carries the decision
 * out and says why when a target was passed over.
 */
import type { ExplicitStartupTarget, LineUpRuntime, StartupTarget } from "@lineup/runtime";
import { isLive } from "@lineup/runtime";
import { t } from "../i18n/index.js";
import { cannotOpenText, reasonText } from "../i18n/reasons.js";
import type { Notifications } from "./notifications.js";
import type { OpenLink } from "./open-link.js";

/** What the app area shows: a core app, or an installed app's instance. */
export type Showing = { readonly kind: "core"; readonly app_scope: string } | { readonly kind: "instance"; readonly instance_id: string };

/** The core apps the shell renders itself, in the switcher's order. */
export const CORE_APPS = [
  { app_scope: "chat", label: "core.chat", description: "core.chat.description" },
  { app_scope: "app-registry", label: "core.apps", description: "core.apps.description" },
  { app_scope: "settings", label: "core.settings", description: "core.settings.description" },
] as const;

export const isCoreApp = (appScope: string): boolean => CORE_APPS.some((app) => app.app_scope === appScope);

/** A core app's name in the UI language; undefined for any other app. */
export function coreLabel(appScope: string): string | undefined {
  const core = CORE_APPS.find((a) => a.app_scope === appScope);
  return core === undefined ? undefined : t(core.label);
}

/** Where the launcher opens an app: the conversation on screen, or a new one. */
export type OpenWhere = { readonly kind: "conversation"; readonly conversation_id: string } | { readonly kind: "new" };

export interface OpenerDeps {
  readonly runtime: LineUpRuntime;
  readonly notifications: Notifications;
  /** Puts `showing` on screen. */
  show(showing: Showing): void;
  /** The conversation on screen: the shown instance's, else the chat's; undefined when there is none. */
  currentConversation(): string | undefined;
  /** Starts a new conversation titled `title` with the configured agent; resolves with its id. */
  newConversation(title: string): Promise<string>;
  /** An installed app's name for people; undefined when it is not installed. */
  appName(appScope: string): string | undefined;
}

export interface Opener {
  /** Start-up: opens what the Runtime's order picks, with `link` (if any) as the explicit target. */
  start(link: OpenLink | undefined): void;
  /** A link followed while running (a notification's click, a pasted link): opens it, or says why not and stays. */
  follow(link: OpenLink): void;
  /** The launcher: opens `appScope` at `entrypoint` in `where`, as a new instance only if none serves that conversation. */
  openApp(appScope: string, where: OpenWhere, entrypoint?: string): Promise<void>;
  /** Brings a live instance to the front. */
  switchTo(instanceId: string): void;
}


export function createOpener(deps: OpenerDeps): Opener {
  const { runtime, notifications } = deps;
  const label = (appScope: string): string => deps.appName(appScope) ?? coreLabel(appScope) ?? `“${appScope}”`;

  const switchTo = (instanceId: string): void => {
    deps.show({ kind: "instance", instance_id: instanceId });
    void runtime.instances.focus(instanceId).catch((error: unknown) => notifications.push(t("open.couldNotOpenApp", { reason: reasonText(error) }), "error"));
  };

  const launch = async (request: { readonly app_scope: string; readonly conversation_id?: string; readonly entrypoint?: string }): Promise<void> => {
    if (isCoreApp(request.app_scope)) {
      deps.show({ kind: "core", app_scope: request.app_scope });
      return;
    }
    try {
      const instance = await runtime.appManager.launch({
        app_scope: request.app_scope,
        foreground: true,
        ...(request.conversation_id === undefined ? {} : { conversation_id: request.conversation_id }),
        ...(request.entrypoint === undefined ? {} : { entrypoint: request.entrypoint }),
      });
      deps.show({ kind: "instance", instance_id: instance.instance_id });
    } catch (error) {
      notifications.push(t("open.couldNotOpenHereIsChat", { name: label(request.app_scope), reason: reasonText(error) }), "error");
      deps.show({ kind: "core", app_scope: "chat" });
    }
  };

  /**
   * An explicit target as the person meant it: a named conversation must be on this device; without one,
   * the app's most recent live instance comes forward, else it opens in the conversation on screen.
   */
  const explicitOf = (link: OpenLink | undefined): { target?: ExplicitStartupTarget; refused?: string } => {
    if (link === undefined) return {};
    if (!link.ok) return { refused: t("open.badLink", { reason: link.reason }) };
    const { target } = link;
    if (target.conversation_id !== undefined && !runtime.conversations.list().some((c) => c.conversation_id === target.conversation_id)) {
      return { refused: t("open.conversationNotHere", { name: label(target.app_scope) }) };
    }
    if (target.conversation_id !== undefined || isCoreApp(target.app_scope)) return { target };
    const view = runtime.instances.snapshot();
    const live = [...view.focus_stack].reverse().find((id) => view.instances.some((i) => i.instance_id === id && i.app_scope === target.app_scope && isLive(i.status)));
    if (live !== undefined) return { target: { ...target, instance_id: live } };
    const current = deps.currentConversation();
    return { target: current === undefined ? target : { ...target, conversation_id: current } };
  };

  const why = (target: StartupTarget): string[] =>
    target.kind === "explicit"
      ? []
      : target.skipped.map((s) =>
          s.target === "explicit"
            ? t("open.couldNotOpen", { name: label(s.app_scope), reason: cannotOpenText(s.cause) })
            : s.target === "default"
              ? t("open.defaultDidNotOpen", { name: label(s.app_scope), reason: cannotOpenText(s.cause) })
              : t("open.couldNotComeBack", { name: label(s.app_scope), reason: cannotOpenText(s.cause) }),
        );

  const carryOut = (target: StartupTarget): void => {
    switch (target.kind) {
      case "explicit":
        if (target.instance_id !== undefined) switchTo(target.instance_id);
        else void launch(target);
        return;
      case "restore":
        if (isCoreApp(target.app_scope)) deps.show({ kind: "core", app_scope: target.app_scope });
        else switchTo(target.instance_id);
        return;
      case "default":
        void launch({ app_scope: target.app_scope });
        return;
      case "recovery":
        deps.show({ kind: "core", app_scope: "chat" });
    }
  };

  return {
    start(link) {
      const { target: explicit, refused } = explicitOf(link);
      const target = runtime.instances.startupTarget(explicit);
      const notes = [...(refused === undefined ? [] : [refused]), ...why(target)];
      if (notes.length > 0) notifications.push(`${notes.join(" ")}${target.kind === "recovery" ? t("open.hereIsChat") : ""}`, "error");
      carryOut(target);
    },
    follow(link) {
      const { target, refused } = explicitOf(link);
      if (target === undefined) {
        if (refused !== undefined) notifications.push(refused, "error");
        return;
      }
      const cause = runtime.instances.cannotOpen(target.app_scope, target.entrypoint);
      if (cause !== undefined) {
        notifications.push(t("open.couldNotOpen", { name: label(target.app_scope), reason: cannotOpenText(cause) }), "error");
        return;
      }
      carryOut({ kind: "explicit", ...target });
    },
    async openApp(appScope, where, entrypoint) {
      if (isCoreApp(appScope)) {
        deps.show({ kind: "core", app_scope: appScope });
        return;
      }
      const cause = runtime.instances.cannotOpen(appScope, entrypoint);
      if (cause !== undefined) {
        notifications.push(t("open.couldNotOpen", { name: label(appScope), reason: cannotOpenText(cause) }), "error");
        return;
      }
      let conversationId: string;
      try {
        conversationId = where.kind === "new" ? await deps.newConversation(label(appScope)) : where.conversation_id;
      } catch (error) {
        notifications.push(t("open.couldNotStartConversation", { name: label(appScope), reason: reasonText(error) }), "error");
        return;
      }
      await launch({ app_scope: appScope, conversation_id: conversationId, ...(entrypoint === undefined ? {} : { entrypoint }) });
    },
    switchTo,
  };
}
