/**
 * What an update changes (a `ProjectionDiff`), for the approval an update waits for: the capabilities
 * it newly asks for first — they are what the user approves — then tools added, changed and removed,
 * subscriptions and events added and removed, and capabilities it no longer asks for.
 */
import type { ProjectionDiff } from "@lineup/protocol";
import { CapabilityList, RiskBadge, ToolList, backendSentence } from "./ProjectionView.js";
import { CALL_MODEL_LABELS, SUBSCRIPTION_SCOPE_LABELS } from "./operation-text.js";

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
        <section class="diff-added-capabilities" aria-label="New capabilities">
          <h4>New capabilities it asks for</h4>
          <CapabilityList capabilities={diff.added_capabilities} />
        </section>
      ) : null}
      {diff.added_endpoints.length > 0 ? (
        <section class="diff-added-endpoints" aria-label="New servers">
          <h4>New servers it sends data to</h4>
          <ul class="facts compact">
            {diff.added_endpoints.map((host) => (
              <li key={host}>{host}</li>
            ))}
          </ul>
        </section>
      ) : null}
      {diff.added_backends.length > 0 ? (
        <section class="diff-added-backends" aria-label="New back-ends">
          <h4>New programs it runs</h4>
          <ul class="facts compact">
            {diff.added_backends.map((backend) => (
              <li key={backend.id}>{backendSentence(backend)}</li>
            ))}
          </ul>
        </section>
      ) : null}
      {diff.added_tools.length > 0 ? (
        <section aria-label="New tools">
          <h4>New tools</h4>
          <ToolList tools={diff.added_tools} />
        </section>
      ) : null}
      {diff.changed_tools.length > 0 ? (
        <section aria-label="Changed tools">
          <h4>Changed tools</h4>
          <ul class="facts">
            {diff.changed_tools.map((change) => (
              <li key={change.method} class="fact">
                <div class="fact-head">
                  <strong>{change.after.title}</strong> <code>{change.method}</code> <RiskBadge risk={change.after.risk_level} />
                </div>
                <div class="muted">
                  was {CALL_MODEL_LABELS[change.before.call_model] ?? change.before.call_model}, {change.before.risk_level} risk, contract {change.before.contract_version}; now{" "}
                  {CALL_MODEL_LABELS[change.after.call_model] ?? change.after.call_model}, {change.after.risk_level} risk, contract {change.after.contract_version}
                </div>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {diff.removed_tools.length > 0 ? (
        <section aria-label="Removed tools">
          <h4>Tools it no longer offers</h4>
          <ul class="facts compact">
            {diff.removed_tools.map((tool) => (
              <li key={tool.method}>
                {tool.title} <code>{tool.method}</code>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {diff.added_subscriptions.length + diff.removed_subscriptions.length > 0 ? (
        <section aria-label="Messages">
          <h4>Messages it listens to</h4>
          <ul class="facts compact">
            {diff.added_subscriptions.map((s) => (
              <li key={`+${s.type} ${s.scope}`}>
                Adds <code>{s.type}</code> <span class="muted">{SUBSCRIPTION_SCOPE_LABELS[s.scope] ?? s.scope}</span>
              </li>
            ))}
            {diff.removed_subscriptions.map((s) => (
              <li key={`-${s.type} ${s.scope}`}>
                Stops <code>{s.type}</code> <span class="muted">{SUBSCRIPTION_SCOPE_LABELS[s.scope] ?? s.scope}</span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {diff.added_events.length + diff.removed_events.length > 0 ? (
        <section aria-label="Events">
          <h4>What it may tell agents</h4>
          <ul class="facts compact">
            {diff.added_events.map((name) => (
              <li key={`+${name}`}>
                Adds <code>{name}</code>
              </li>
            ))}
            {diff.removed_events.map((name) => (
              <li key={`-${name}`}>
                Stops <code>{name}</code>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {diff.removed_capabilities.length > 0 ? (
        <section aria-label="Capabilities dropped">
          <h4>Capabilities it no longer asks for</h4>
          <ul class="facts compact">
            {diff.removed_capabilities.map((c) => (
              <li key={c.name}>
                <code>{c.name}</code>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {nothing ? <p class="muted">Nothing an agent or you would notice changes.</p> : null}
    </div>
  );
}
