/**
 * A manifest projection as a person reads it before approving an install or update (spec 003): name,
 * version, what it is, its overall risk, the tools agents may call (title, call model, risk), the
 * device capabilities it may request (name, the app's purpose, what the capability does, risk), the
 * messages it listens to, and how much it may store.
 */
import type { ManifestProjection, ProjectedCapability, ProjectedTool } from "@lineup/protocol";
import { formatBytes } from "./format.js";
import { CALL_MODEL_LABELS, RISK_LABELS, SUBSCRIPTION_SCOPE_LABELS } from "./operation-text.js";

export function RiskBadge({ risk }: { risk: ManifestProjection["risk"] }) {
  return (
    <span class={`risk risk-${risk}`} data-risk={risk}>
      {RISK_LABELS[risk]}
    </span>
  );
}

export function ToolList({ tools }: { tools: readonly ProjectedTool[] }) {
  return (
    <ul class="facts">
      {tools.map((tool) => (
        <li key={tool.method} class="fact" data-tool={tool.method}>
          <div class="fact-head">
            <strong>{tool.title}</strong> <code>{tool.method}</code>
            <RiskBadge risk={tool.risk_level} />
          </div>
          <div class="muted">
            {CALL_MODEL_LABELS[tool.call_model] ?? tool.call_model} ({tool.call_model}){tool.requires_foreground ? " · needs the app on screen" : ""}
          </div>
        </li>
      ))}
    </ul>
  );
}

export function CapabilityList({ capabilities }: { capabilities: readonly ProjectedCapability[] }) {
  return (
    <ul class="facts">
      {capabilities.map((capability) => (
        <li key={capability.name} class="fact" data-capability={capability.name}>
          <div class="fact-head">
            <code>{capability.name}</code>
            <RiskBadge risk={capability.risk} />
          </div>
          <div>
            <span class="muted">The app says: </span>
            {capability.purpose}
          </div>
          <div class="muted">
            {capability.description}
            {capability.requires_confirmation ? " You are asked before each first use." : ""}
          </div>
        </li>
      ))}
    </ul>
  );
}

export function ProjectionView({ projection, headingId }: { projection: ManifestProjection; headingId: string }) {
  return (
    <article class="projection" aria-labelledby={headingId} data-app={projection.app_scope}>
      <header class="projection-head">
        <h3 id={headingId} tabIndex={-1}>
          {projection.name} <span class="projection-version">version {projection.version}</span>
        </h3>
        <RiskBadge risk={projection.risk} />
      </header>
      {projection.description === "" ? null : <p class="projection-description">{projection.description}</p>}
      <p class="muted">
        App scope <code>{projection.app_scope}</code>
      </p>
      <section aria-label="Tools agents can call">
        <h4>What agents can ask it to do</h4>
        {projection.tools.length === 0 ? <p class="muted">No tools.</p> : <ToolList tools={projection.tools} />}
      </section>
      <section aria-label="Device capabilities">
        <h4>Device capabilities it may request</h4>
        {projection.capabilities.length === 0 ? <p class="muted">None.</p> : <CapabilityList capabilities={projection.capabilities} />}
      </section>
      <section aria-label="Messages it listens to">
        <h4>Messages it listens to</h4>
        {projection.subscriptions.length === 0 ? (
          <p class="muted">None.</p>
        ) : (
          <ul class="facts compact">
            {projection.subscriptions.map((s) => (
              <li key={`${s.type} ${s.scope}`}>
                <code>{s.type}</code> <span class="muted">{SUBSCRIPTION_SCOPE_LABELS[s.scope] ?? s.scope}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-label="What it tells agents">
        <h4>What it may tell agents</h4>
        {projection.events.length === 0 ? (
          <p class="muted">Nothing beyond its tools' results.</p>
        ) : (
          <ul class="facts compact">
            {projection.events.map((event) => (
              <li key={event.name}>
                <code>{event.name}</code> <span class="muted">{event.description === "" ? "when you act in the app" : event.description}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-label="Agent tasks">
        <h4>What it may ask the agent to do</h4>
        {projection.agent_tasks.length === 0 ? (
          <p class="muted">Nothing: it does not start agent tasks.</p>
        ) : (
          <ul class="facts compact">
            {projection.agent_tasks.map((task) => (
              <li key={task.id}>
                {task.title}{" "}
                <span class="muted">{task.tools.length === 0 ? "without using any tool" : `letting the agent use ${task.tools.join(", ")}`}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-label="Storage">
        <h4>Storage</h4>
        <p>
          {projection.storage.session_data_quota_bytes === null
            ? "Up to this device's default quota."
            : `Up to ${formatBytes(projection.storage.session_data_quota_bytes)} of session data.`}
        </p>
      </section>
    </article>
  );
}
