/**
 * The app directory the filter chain consults (spec 4.3): which apps exist, whether they are enabled,
 * and what each declared it subscribes to. `CoreAppRegistry` holds the three core apps; the full app
 * manager of the next issue implements the same `AppDirectory` port (installed apps, enable/disable,
 * versions) and plugs into the Runtime in its place.
 */
import { isAppScope } from "@lineup/protocol";

/**
 * A declared subscription. `reach: "target"` — messages whose target app is this app (the spec 5.4
 * intersection). `reach: "conversation"` — a core-app privilege: observe these types for every app of
 * a conversation the app shows (chat renders tool receipts and results as cards).
 *
 * `scope` is the manifest's (docs/manifest.md §4): `instance` — only messages naming one of the app's
 * instances; `conversation` — only in conversations where the app has an instance, and there also the
 * conversation's own projections (the agent's status, the person's messages); `app` (and absent, as
 * core apps have it) — every message for the app, kept in its inbox with no instance running.
 */
export interface AppSubscription {
  readonly types: readonly string[];
  readonly reach: "target" | "conversation";
  readonly scope?: SubscriptionScope;
  /** The capability the manifest ties this subscription to: it admits messages only while the app is granted it. */
  readonly capability?: string;
}

export type SubscriptionScope = "instance" | "conversation" | "app";

export interface AppRecord {
  readonly app_scope: string;
  readonly kind: "core" | "installed";
  readonly installed_version: string;
  readonly enabled: boolean;
  readonly removable: boolean;
  readonly subscriptions: readonly AppSubscription[];
}

/** The port: what the Runtime asks about apps. Pure reads; changes come from the app manager. */
export interface AppDirectory {
  get(appScope: string): AppRecord | undefined;
  list(): readonly AppRecord[];
  /** The app the shell opens when nothing else is asked for; always an enabled app (falls back to `chat`). */
  defaultApp(): string;
}

export const CHAT_APP_SCOPE = "chat";

/** Types chat shows in a conversation. */
export const CHAT_MESSAGE_TYPES = [
  "lineup.message",
  "lineup.status",
  "lineup.task.progress",
  "lineup.interaction.request",
  "lineup.artifact",
  "lineup.runtime.notice",
  "lineup.turn.update",
  "lineup.turn.completed",
  "lineup.turn.failed",
  "lineup.turn.cancelled",
  "lineup.action.required",
  "lineup.action.responded",
  "lineup.task.request",
] as const;

/** Tool traffic of any app in the conversation, which chat renders as cards, and apps' decisions on their agent tasks. */
export const CHAT_CARD_TYPES = ["lineup.tool.receipt", "lineup.tool.progress", "lineup.tool.result", "lineup.tool.error", "lineup.task.decision"] as const;

const CORE_APPS: readonly AppRecord[] = [
  {
    app_scope: CHAT_APP_SCOPE,
    kind: "core",
    installed_version: "1.0.0",
    enabled: true,
    removable: false,
    subscriptions: [
      { types: CHAT_MESSAGE_TYPES, reach: "target" },
      { types: CHAT_CARD_TYPES, reach: "conversation" },
    ],
  },
  { app_scope: "app-registry", kind: "core", installed_version: "1.0.0", enabled: true, removable: false, subscriptions: [] },
  { app_scope: "settings", kind: "core", installed_version: "1.0.0", enabled: true, removable: false, subscriptions: [] },
];

export class CoreAppRegistry implements AppDirectory {
  private readonly apps = new Map(CORE_APPS.map((app) => [app.app_scope, app]));
  private preferredDefault: string = CHAT_APP_SCOPE;

  get(appScope: string): AppRecord | undefined {
    return this.apps.get(appScope);
  }

  list(): readonly AppRecord[] {
    return [...this.apps.values()];
  }

  /** The user's choice of default app; takes effect only while that app exists and is enabled. */
  setDefaultApp(appScope: string): void {
    if (!isAppScope(appScope)) throw new TypeError(`not an app scope: ${appScope}`);
    this.preferredDefault = appScope;
  }

  defaultApp(): string {
    const preferred = this.apps.get(this.preferredDefault);
    // chat is the recovery app: whatever else happens, the shell can always open it.
    return preferred?.enabled === true ? preferred.app_scope : CHAT_APP_SCOPE;
  }
}
