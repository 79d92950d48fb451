/**
 * The App Registry core app (spec 4.3): the apps on this device with what each is and what can be
 * done with it, installing a signed bundle after reading what it adds, and the manager's recent
 * operations. Everything goes through the Runtime's `RuntimeAppManager`; the list re-renders on each
 * of its change notifications.
 */
import "./registry.css";
import { useState } from "preact/hooks";
import { compareVersions, type RuntimeCatalog } from "@lineup/runtime";
import { AppCard } from "./AppCard.js";
import { sortApps } from "./app-order.js";
import { InstallPanel, type AvailableBundle } from "./InstallPanel.js";
import type { AppDetails, AppOperation, RuntimeAppManager } from "./manager-api.js";
import { OperationResult } from "./OperationResult.js";
import { OperationsList } from "./OperationsList.js";
import { useSubscription } from "./use-subscription.js";
import { t } from "../../i18n/index.js";
import { appDisplayName } from "./app-name.js";
import { useCatalog } from "./catalog.js";

export function RegistryApp({ manager, available, catalog }: { manager: RuntimeAppManager; available?: readonly AvailableBundle[]; catalog?: RuntimeCatalog }) {
  useSubscription(manager);
  const { view: catalogView, refresh: refreshCatalog } = useCatalog(catalog);
  const fromCatalog = catalogView.status === "ready" ? catalogView.bundles : [];
  const [removed, setRemoved] = useState<{ operation: AppOperation; message: string } | undefined>(undefined);
  const apps = sortApps(
    manager
      .listApps()
      .map((record) => manager.getApp(record.app_scope))
      .filter((details): details is AppDetails => details !== undefined)
      .map((details) => ({ app_scope: details.record.app_scope, kind: details.record.kind, name: appDisplayName(details), details })),
  );
  return (
    <section class="page registry" aria-labelledby="registry-title">
      <h1 id="registry-title">{t("registry.title")}</h1>
      <InstallPanel
        manager={manager}
        available={(available ?? []).filter((bundle) => bundle.app_scope === undefined || !apps.some((app) => app.app_scope === bundle.app_scope))}
        {...(catalog === undefined ? {} : { catalog: catalogView, onRefreshCatalog: refreshCatalog, installed: apps.map((app) => app.app_scope) })}
      />
      <section aria-labelledby="installed-title">
        <h2 id="installed-title">{t("registry.onThisDevice")}</h2>
        <div aria-live="polite">{removed !== undefined ? <OperationResult operation={removed.operation} success={removed.message} /> : null}</div>
        <ul class="app-list">
          {apps.map(({ details }) => {
            const bundled = newerBundle([...(available ?? []), ...fromCatalog], details);
            return <AppCard key={details.record.app_scope} manager={manager} details={details} onRemoved={(operation, message) => setRemoved({ operation, message })} {...(bundled === undefined ? {} : { bundled })} />;
          })}
        </ul>
      </section>
      <OperationsList operations={manager.operations()} />
    </section>
  );
}

/** The newest bundle of this app, the host's or the catalog's, when it is newer than the installed version (core apps are never updated). */
function newerBundle(available: readonly AvailableBundle[], details: AppDetails): AvailableBundle | undefined {
  if (details.record.kind === "core") return undefined;
  const newer = available.filter((bundle) => bundle.app_scope === details.record.app_scope && bundle.version !== undefined && compareVersions(bundle.version, details.record.installed_version) > 0);
  return newer.sort((a, b) => compareVersions(b.version!, a.version!))[0];
}
