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

type Usage = { readonly state: "loading" } | { readonly state: "ready"; readonly rows: readonly { readonly app_scope: string; readonly bytes: number }[] } | { readonly state: "failed"; readonly code: string };

export function AppStorage({ settings, revision, appName }: { settings: RuntimeSettings; revision: number; appName?: AppNames | undefined }) {
  const [usage, setUsage] = useState<Usage>({ state: "loading" });
  const [asked, setAsked] = useState(0);
  const [site, setSite] = useState<string>("…");
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
        if (live) setSite(`${formatBytes(estimate.usage ?? 0)} used by this site in the browser`);
      })
      .catch(() => live && setSite("unknown"));
    return () => {
      live = false;
    };
  }, [asked]);
  const total = usage.state === "ready" ? usage.rows.reduce((sum, row) => sum + row.bytes, 0) : 0;
  return (
    <section class="field" aria-labelledby="storage-title">
      <h2 id="storage-title">Storage</h2>
      {usage.state === "loading" ? <p class="muted">Measuring…</p> : null}
      {usage.state === "failed" ? (
        <p class="error-text" role="alert">
          Could not measure app storage. Error code <code class="error-code">{usage.code}</code>
        </p>
      ) : null}
      {usage.state === "ready" ? (
        usage.rows.length === 0 ? (
          <p class="muted">No app stores anything yet.</p>
        ) : (
          <ul class="settings-list" aria-label="Storage used per app">
            {usage.rows.map((row) => (
              <li key={row.app_scope} class="settings-row" data-app={row.app_scope}>
                {row.app_scope === "runtime" ? <span>Files kept from conversations</span> : <AppLabel scope={row.app_scope} appName={appName} />}
                <span class="row-end usage-bytes">{formatBytes(row.bytes)}</span>
              </li>
            ))}
          </ul>
        )
      ) : null}
      {usage.state === "ready" && usage.rows.length > 0 ? <p class="muted">Apps in total: {formatBytes(total)}</p> : null}
      <p class="muted">{site}</p>
      <button type="button" class="secondary" onClick={() => setAsked((n) => n + 1)}>
        Refresh
      </button>
    </section>
  );
}
