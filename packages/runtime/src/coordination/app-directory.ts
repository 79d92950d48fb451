/**
 * The `AppDirectory` the filter chain and the views consult, derived from the App Manager's records
 * (one directory per registry state object, cached: transitions replace the registry, never mutate it).
 * Installed apps subscribe to what their manifest's `agent_subscriptions` name, for themselves, one
 * subscription per declared scope (the filter chain honours it); core apps keep their built-in subscriptions.
 */
import type { AppManifest } from "@lineup/protocol";
import type { AppDirectory, AppRecord as DirectoryRecord, AppSubscription, SubscriptionScope } from "../app-lifecycle/core-app-registry.js";
import { CHAT_APP_SCOPE } from "../app-lifecycle/core-app-registry.js";
import { CORE_SUBSCRIPTIONS } from "../app-lifecycle/core-manifests.js";
import { isDefaultEligible } from "../app-lifecycle/manager/decide-state.js";
import { activeManifest, type AppRegistryState } from "../app-lifecycle/manager/records.js";

const cache = new WeakMap<AppRegistryState, AppDirectory>();

export function appDirectoryOf(registry: AppRegistryState): AppDirectory {
  const cached = cache.get(registry);
  if (cached !== undefined) return cached;
  const records = new Map<string, DirectoryRecord>();
  for (const app of Object.values(registry.apps)) {
    const r = app.record;
    const manifest = activeManifest(app);
    const declared = declaredSubscriptions(manifest?.agent_subscriptions ?? []);
    records.set(r.app_scope, {
      app_scope: r.app_scope,
      kind: r.kind,
      installed_version: r.installed_version,
      enabled: r.enabled && r.install_state !== "failed",
      removable: r.kind !== "core",
      subscriptions: r.kind === "core" ? (CORE_SUBSCRIPTIONS[r.app_scope] ?? []) : declared,
    });
  }
  const list = [...records.values()];
  const directory: AppDirectory = {
    get: (appScope) => records.get(appScope),
    list: () => list,
    defaultApp: () => (registry.default_app !== CHAT_APP_SCOPE && records.get(registry.default_app)?.enabled === true && isDefaultEligible(registry, registry.default_app) ? registry.default_app : CHAT_APP_SCOPE),
  };
  cache.set(registry, directory);
  return directory;
}

/** The manifest's subscriptions, one per scope and capability it uses (types in the order declared). */
function declaredSubscriptions(declared: NonNullable<AppManifest["agent_subscriptions"]>): AppSubscription[] {
  const grouped = new Map<string, { scope: SubscriptionScope; capability: string | undefined; types: string[] }>();
  for (const s of declared) {
    const key = `${s.scope}\u0000${s.capability ?? ""}`;
    const group = grouped.get(key) ?? { scope: s.scope, capability: s.capability, types: [] };
    group.types.push(s.type);
    grouped.set(key, group);
  }
  return [...grouped.values()].map(({ scope, capability, types }) => ({ types, reach: "target", scope, ...(capability === undefined ? {} : { capability }) }));
}
