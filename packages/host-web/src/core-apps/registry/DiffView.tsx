/**
 * What an update changes (a `ProjectionDiff`), for the approval an update waits for: the capabilities
 * it newly asks for first — they are what the user approves — then tools added, changed and removed,
 * subscriptions and events added and removed, and capabilities it no longer asks for.
 */
import type { ProjectionDiff } from "@lineup/protocol";
import { CapabilityList, RiskBadge, ToolList, backendSentence } from "./ProjectionView.js";
import { callModelLabel, riskLabel, subscriptionScopeLabel } from "./operation-text.js";
import { t } from "../../i18n/index.js";

export function DiffView({ diff }: { diff: ProjectionDiff }) {
  const nothing =
    diff.added_capabilities.length +
      diff.added_tools.length +
      diff.changed_tools.length +
      diff.removed_tools.length +
      diff.added_subscriptions.length +
      diff.removed_subscriptions.length +
      diff.added_events.length +
      diff.removed_events.length +
      diff.removed_capabilities.length +
      diff.added_endpoints.length +
      diff.added_backends.length ===
    0;
  return (
    <div class="diff">
      {diff.added_capabilities.length > 0 ? (
        <section class="diff-added-capabilities" aria-label={t("diff.newCapabilities")}>
          <h4>{t("diff.newCapabilitiesHeading")}</h4>
          <CapabilityList capabilities={diff.added_capabilities} />
        </section>
      ) : null}
      {diff.added_endpoints.length > 0 ? (
        <section class="diff-added-endpoints" aria-label={t("diff.newServers")}>
          <h4>{t("diff.newServersHeading")}</h4>
          <ul class="facts compact">
            {diff.added_endpoints.map((host) => (
              <li key={host}>{host}</li>
            ))}
          </ul>
        </section>
      ) : null}
      {diff.added_backends.length > 0 ? (
        <section class="diff-added-backends" aria-label={t("diff.newBackends")}>
          <h4>{t("diff.newBackendsHeading")}</h4>
          <ul class="facts compact">
            {diff.added_backends.map((backend) => (
              <li key={backend.id}>{backendSentence(backend)}</li>
            ))}
          </ul>
        </section>
      ) : null}
      {diff.added_tools.length > 0 ? (
        <section aria-label={t("diff.newTools")}>
          <h4>{t("diff.newTools")}</h4>
          <ToolList tools={diff.added_tools} />
        </section>
      ) : null}
      {diff.changed_tools.length > 0 ? (
        <section aria-label={t("diff.changedTools")}>
          <h4>{t("diff.changedTools")}</h4>
          <ul class="facts">
            {diff.changed_tools.map((change) => (
              <li key={change.method} class="fact">
                <div class="fact-head">
                  <strong translate={false}>{change.after.title}</strong> <code>{change.method}</code> <RiskBadge risk={change.after.risk_level} />
                </div>
                <div class="muted">
                  {t("diff.toolChange", {
                    before: callModelLabel(change.before.call_model),
                    beforeRisk: riskLabel(change.before.risk_level),
                    beforeContract: change.before.contract_version,
                    after: callModelLabel(change.after.call_model),
                    afterRisk: riskLabel(change.after.risk_level),
                    afterContract: change.after.contract_version,
                  })}
                </div>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {diff.removed_tools.length > 0 ? (
        <section aria-label={t("diff.removedTools")}>
          <h4>{t("diff.removedToolsHeading")}</h4>
          <ul class="facts compact">
            {diff.removed_tools.map((tool) => (
              <li key={tool.method}>
                <span translate={false}>{tool.title}</span> <code>{tool.method}</code>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {diff.added_subscriptions.length + diff.removed_subscriptions.length > 0 ? (
        <section aria-label={t("diff.messages")}>
          <h4>{t("projection.messages")}</h4>
          <ul class="facts compact">
            {diff.added_subscriptions.map((s) => (
              <li key={`+${s.type} ${s.scope}`}>
                {t("diff.adds")}
                <code>{s.type}</code> <span class="muted">{subscriptionScopeLabel(s.scope)}</span>
              </li>
            ))}
            {diff.removed_subscriptions.map((s) => (
              <li key={`-${s.type} ${s.scope}`}>
                {t("diff.stops")}
                <code>{s.type}</code> <span class="muted">{subscriptionScopeLabel(s.scope)}</span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {diff.added_events.length + diff.removed_events.length > 0 ? (
        <section aria-label={t("diff.events")}>
          <h4>{t("projection.eventsHeading")}</h4>
          <ul class="facts compact">
            {diff.added_events.map((name) => (
              <li key={`+${name}`}>
                {t("diff.adds")}
                <code>{name}</code>
              </li>
            ))}
            {diff.removed_events.map((name) => (
              <li key={`-${name}`}>
                {t("diff.stops")}
                <code>{name}</code>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {diff.removed_capabilities.length > 0 ? (
        <section aria-label={t("diff.capabilitiesDropped")}>
          <h4>{t("diff.capabilitiesDroppedHeading")}</h4>
          <ul class="facts compact">
            {diff.removed_capabilities.map((c) => (
              <li key={c.name}>
                <code>{c.name}</code>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {nothing ? <p class="muted">{t("diff.nothing")}</p> : null}
    </div>
  );
}
