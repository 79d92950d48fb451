/**
 * The origins a person let an MCP Apps view reach (its declared `_meta.ui.csp`, allowed from the view's card in the
 * chat): one row per view, each with Revoke. A revoked view reaches no network from its next mount on.
 */
import { useEffect, useState } from "preact/hooks";
import type { ProtocolError } from "@lineup/protocol";
import type { RuntimeSettings, ViewGrant } from "../registry/manager-api.js";
import { refusalOf } from "./refusal.js";
import { NotChanged } from "./NotChanged.js";
import { AppLabel, type AppNames } from "./app-label.js";
import { t } from "../../i18n/index.js";

export function ViewGrants({ settings, appName }: { settings: RuntimeSettings; appName?: AppNames | undefined }) {
  const [grants, setGrants] = useState<readonly ViewGrant[]>([]);
  const [error, setError] = useState<ProtocolError | undefined>(undefined);
  const [revision, setRevision] = useState(0);

  useEffect(() => {
    let live = true;
    void settings.viewGrants().then((read) => live && setGrants(read), (refused: unknown) => live && setError(refusalOf(refused)));
    return () => {
      live = false;
    };
  }, [settings, revision]);

  const revoke = async (grant: ViewGrant) => {
    try {
      await settings.setViewGrant(grant.app_scope, grant.resource_uri, { connect_domains: [], resource_domains: [] });
      setError(undefined);
    } catch (refused) {
      setError(refusalOf(refused));
    }
    setRevision((r) => r + 1);
  };

  return (
    <section class="field" aria-labelledby="view-grants-title">
      <h2 id="view-grants-title">{t("settings.viewGrants")}</h2>
      {grants.length === 0 ? (
        <p class="muted">{t("settings.viewGrantsNone")}</p>
      ) : (
        <ul class="settings-list">
          {grants.map((g) => (
            <li key={`${g.app_scope} ${g.resource_uri}`} class="settings-row" data-app={g.app_scope} data-view={g.resource_uri}>
              <AppLabel scope={g.app_scope} appName={appName} />
              <span>
                <code>{g.resource_uri}</code>
                <span class="muted"> → {[...g.connect_domains, ...g.resource_domains].join(", ")}</span>
              </span>
              <span class="row-end">
                <button type="button" class="secondary" aria-label={t("settings.viewGrantRevoke", { view: g.resource_uri })} onClick={() => void revoke(g)}>
                  {t("settings.revoke")}
                </button>
              </span>
            </li>
          ))}
        </ul>
      )}
      <NotChanged error={error} />
    </section>
  );
}
