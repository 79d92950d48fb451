/**
 * A manifest projection as a person reads it before approving an install or update (spec 003): name,
 * version, what it is, its overall risk, the tools agents may call (title, call model, risk), the
 * device capabilities it may request (name, the app's purpose, what the capability does, risk), the
 * messages it listens to, and how much it may store.
 */
import type { ManifestProjection, ProjectedBackend, ProjectedCapability, ProjectedTool } from "@lineup/protocol";
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

const STEP_WORDS: Record<string, string> = {
  tool: "calls tools",
  "agent.task": "asks the agent",
  "storage.get": "reads its data",
  "storage.list": "reads its data",
  "storage.put": "writes its data",
  "storage.delete": "deletes some of its data",
  "artifact.create": "makes files",
  "evidence.record": "records evidence",
  "backend.call": "calls its back-ends",
  confirm: "asks you before going on",
};

/** One back-end in the words a person reads: what runs, where, and what it may use. */
export function backendSentence(backend: ProjectedBackend): string {
  const where =
    backend.protocol === "mcp-http"
      ? `is an MCP server on ${backend.endpoint_host ?? "a server"} whose tools are offered to the agent: data you use it with is sent there`
      : backend.plane === "cloud-remote"
      ? `runs on ${backend.endpoint_host ?? "a server"}: data you use it with is sent there`
      : backend.protocol === "mcp-stdio"
        ? `is an MCP server that runs as a background program on this device (up to ${backend.memory_mb} MB), with no network and only its own folder; its tools are offered to the agent`
        : backend.protocol === "wasm"
        ? `runs sandboxed code on this device, with no access to files or the network (up to ${backend.memory_mb} MB)`
        : `runs a background program on this device (up to ${backend.memory_mb} MB), with no network and only its own folder`;
  const uses = [backend.uses_storage ? "its own data" : "", ...backend.capabilities].filter((u) => u !== "");
  return `${backend.title} ${where}${uses.length === 0 ? "" : `; it may use ${uses.join(", ")}`}${backend.optional ? " (optional: skipped where this device cannot run it)" : ""}.`;
}

/** The app's own storage, execution and code, as sentences: what it keeps, where its work runs, what it sends. */
export function appCodeSentences(projection: ManifestProjection): string[] {
  const lines: string[] = [];
  if (projection.execution.mode === "server-assisted") {
    for (const endpoint of projection.execution.endpoints) lines.push(`Sends data to ${endpoint.host}: ${endpoint.purpose}`);
    if (projection.execution.data_boundary !== null) lines.push(`What leaves this device, in its words: ${projection.execution.data_boundary}`);
  }
  if (projection.storage.quota_bytes !== null) {
    lines.push(`Keeps up to ${formatBytes(projection.storage.quota_bytes)} of its own data on this device (${projection.storage.collections.join(", ")}), deleted when you remove it.`);
  }
  for (const backend of projection.backends) lines.push(backendSentence(backend));
  for (const workflow of projection.workflows) {
    const others = workflow.other_app_tools.length === 0 ? "" : `; it calls other apps' tools: ${workflow.other_app_tools.join(", ")}`;
    lines.push(`Workflow “${workflow.title}”: ${workflow.step_kinds.map((k) => STEP_WORDS[k] ?? k).filter((w, i, all) => all.indexOf(w) === i).join(", ")}${others}.`);
  }
  return lines;
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
      <section aria-label="Its own code and data">
        <h4>What it runs and keeps</h4>
        {appCodeSentences(projection).length === 0 ? (
          <p class="muted">Only its pages: no back-end, no workflow, nothing sent to a server.</p>
        ) : (
          <ul class="facts compact" data-app-code="">
            {appCodeSentences(projection).map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        )}
      </section>
      <section aria-label="Storage">
        <h4>Storage</h4>
        <p>
          {projection.storage.session_data_quota_bytes === null
            ? "Session data up to this device's default quota."
            : `Up to ${formatBytes(projection.storage.session_data_quota_bytes)} of session data.`}
        </p>
      </section>
    </article>
  );
}
