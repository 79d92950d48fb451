/**
 * The core apps that ship with the Runtime (spec 4.2): their manifests and the subscriptions only a
 * core app may hold. They are records in the App Manager like any other app, so the registry, the
 * directory and the start-up target treat every app alike; they cannot be overridden or removed.
 */
import type { AppManifest, AppScope } from "@lineup/protocol";
import { CHAT_APP_SCOPE, CHAT_CARD_TYPES, CHAT_MESSAGE_TYPES, type AppSubscription } from "./core-app-registry.js";

function coreManifest(scope: string, name: string, description: string, defaultEligible: boolean): AppManifest {
  return {
    format: "lineup.app.v1",
    app_scope: scope as AppScope,
    version: "1.0.0",
    name,
    description,
    runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.state.v1"] },
    entrypoints: [{ id: "main", kind: "primary", default_eligible: defaultEligible }],
  } as AppManifest;
}

export const CORE_MANIFESTS: readonly AppManifest[] = [
  coreManifest(CHAT_APP_SCOPE, "Chat", "Conversations with agents; the recovery app.", true),
  coreManifest("app-registry", "Apps", "Install, enable, update, roll back and remove apps.", false),
  coreManifest("settings", "Settings", "Trusted publishers, permissions, storage and theme.", false),
];

/** What core apps observe beyond their own target: chat renders every conversation's messages and tool cards. */
export const CORE_SUBSCRIPTIONS: Readonly<Record<string, readonly AppSubscription[]>> = {
  [CHAT_APP_SCOPE]: [
    { types: CHAT_MESSAGE_TYPES, reach: "target" },
    { types: CHAT_CARD_TYPES, reach: "conversation" },
  ],
};
