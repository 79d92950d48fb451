/**
 * Remembered capability decisions (spec 6.3), per app: each can be changed to Allowed, Denied or Ask
 * next time (which forgets it, so the app's next request asks again).
 */
import { useState } from "preact/hooks";
import type { ProtocolError } from "@lineup/protocol";
import type { RuntimeSettings } from "../registry/manager-api.js";
import { GRANT_CHOICES, isGrantChoice, sortGrants } from "./grant-order.js";
import { refusalOf } from "./refusal.js";
import { NotChanged } from "./NotChanged.js";
import { AppLabel, type AppNames } from "./app-label.js";
import { t } from "../../i18n/index.js";

export function CapabilityGrants({ settings, appName }: { settings: RuntimeSettings; appName?: AppNames | undefined }) {
  const [error, setError] = useState<ProtocolError | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const grants = sortGrants(settings.grants());

  const change = async (appScope: string, capability: string, value: string) => {
    if (!isGrantChoice(value)) return;
    setBusy(true);
    try {
      await settings.setGrant(appScope, capability, value);
      setError(undefined);
    } catch (refused) {
      setError(refusalOf(refused));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="field" aria-labelledby="grants-title">
      <h2 id="grants-title">{t("grants.title")}</h2>
      <p class="muted hint">{t("grants.hint")}</p>
      {grants.length === 0 ? (
        <p class="muted">{t("grants.none")}</p>
      ) : (
        <ul class="settings-list" aria-label={t("grants.list")}>
          {grants.map((g) => {
            const selectId = `grant-${g.app_scope}-${g.capability}`;
            return (
              <li key={`${g.app_scope} ${g.capability}`} class="settings-row" data-app={g.app_scope} data-capability={g.capability} data-decision={g.decision}>
                <AppLabel scope={g.app_scope} appName={appName} />
                <span>
                  {t("grants.mayUse")}
                  <code>{g.capability}</code>
                </span>
                <span class="row-end">
                  <label class="sr-only" for={selectId}>
                    {t("grants.selectLabel", { capability: g.capability, app: appName?.(g.app_scope) ?? g.app_scope })}
                  </label>
                  <select id={selectId} value={g.decision} disabled={busy} onChange={(e) => void change(g.app_scope, g.capability, (e.currentTarget as HTMLSelectElement).value)}>
                    {GRANT_CHOICES.map((c) => (
                      <option key={c.value} value={c.value}>
                        {t(c.label)}
                      </option>
                    ))}
                  </select>
                </span>
              </li>
            );
          })}
        </ul>
      )}
      <NotChanged error={error} />
    </section>
  );
}
