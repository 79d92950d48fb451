/**
 * Storage: what each app uses in this Runtime's store (`storageUsage()`: bundles, session data, the
 * files it made; the files kept from conversations on a row of their own), largest first, and what this browser reports for the whole site. Re-read after each
 * settings change and on Refresh.
 */
import { useEffect, useState } from "preact/hooks";
import { formatBytes } from "../registry/format.js";
import type { RuntimeSettings } from "../registry/manager-api.js";
import { sortUsage } from "./grant-order.js";
import { refusalOf } from "./refusal.js";
import { AppLabel, type AppNames } from "./app-label.js";
import { t } from "../../i18n/index.js";

type Usage = { readonly state: "loading" } | { readonly state: "ready"; readonly rows: readonly { readonly app_scope: string; readonly bytes: number }[] } | { readonly state: "failed"; readonly code: string };

export function AppStorage({ settings, revision, appName }: { settings: RuntimeSettings; revision: number; appName?: AppNames | undefined }) {
  const [usage, setUsage] = useState<Usage>({ state: "loading" });
  const [asked, setAsked] = useState(0);
  /** What the browser reports for the whole site: bytes, unknown, or not yet known. */
  const [site, setSite] = useState<number | "unknown" | undefined>(undefined);
  useEffect(() => {
    let live = true;
    settings.storageUsage().then(
      (rows) => live && setUsage({ state: "ready", rows: sortUsage(rows) }),
      (error: unknown) => live && setUsage({ state: "failed", code: refusalOf(error).code }),
    );
    return () => {
      live = false;
    };
  }, [settings, revision, asked]);
  useEffect(() => {
    let live = true;
    void navigator.storage
      ?.estimate?.()
      .then((estimate) => {
        if (live) setSite(estimate.usage ?? 0);
      })
      .catch(() => live && setSite("unknown"));
    return () => {
      live = false;
    };
  }, [asked]);
  const total = usage.state === "ready" ? usage.rows.reduce((sum, row) => sum + row.bytes, 0) : 0;
  return (
    <section class="field" aria-labelledby="storage-title">
      <h2 id="storage-title">{t("storage.title")}</h2>
      {usage.state === "loading" ? <p class="muted">{t("storage.measuring")}</p> : null}
      {usage.state === "failed" ? (
        <p class="error-text" role="alert">
          {t("storage.failed")}
          {t("common.errorCode")} <code class="error-code">{usage.code}</code>
        </p>
      ) : null}
      {usage.state === "ready" ? (
        usage.rows.length === 0 ? (
          <p class="muted">{t("storage.none")}</p>
        ) : (
          <ul class="settings-list" aria-label={t("storage.list")}>
            {usage.rows.map((row) => (
              <li key={row.app_scope} class="settings-row" data-app={row.app_scope}>
                {row.app_scope === "runtime" ? <span>{t("storage.runtimeFiles")}</span> : <AppLabel scope={row.app_scope} appName={appName} />}
                <span class="row-end usage-bytes">{formatBytes(row.bytes)}</span>
              </li>
            ))}
          </ul>
        )
      ) : null}
      {usage.state === "ready" && usage.rows.length > 0 ? <p class="muted">{t("storage.total", { size: formatBytes(total) })}</p> : null}
      <p class="muted">{site === undefined ? "…" : site === "unknown" ? t("common.unknown") : t("storage.site", { size: formatBytes(site) })}</p>
      <button type="button" class="secondary" onClick={() => setAsked((n) => n + 1)}>
        {t("common.refresh")}
      </button>
    </section>
  );
}
