/**
 * A manifest projection as a person reads it before approving an install or update (spec 003): name,
 * version, what it is, its overall risk, the tools agents may call (title, call model, risk), the
 * device capabilities it may request (name, the app's purpose, what the capability does, risk), each tool's MCP Apps
 * view and the origins it may ask to reach (the manifest's `view.csp`), the
 * messages it listens to, and how much it may store.
 */
import type { ManifestProjection, ProjectedBackend, ProjectedCapability, ProjectedTool } from "@lineup/protocol";
import { formatBytes } from "./format.js";
import { callModelLabel, riskLabel, subscriptionScopeLabel } from "./operation-text.js";
import { format, t, type MessageKey } from "../../i18n/index.js";
import { localizedAppName, localizedDescription } from "../../i18n/app-text.js";
import { capabilityDescription } from "../../i18n/capabilities.js";

export function RiskBadge({ risk }: { risk: ManifestProjection["risk"] }) {
  return (
    <span class={`risk risk-${risk}`} data-risk={risk}>
      {riskLabel(risk)}
    </span>
  );
}

export function ToolList({ tools }: { tools: readonly ProjectedTool[] }) {
  return (
    <ul class="facts">
      {tools.map((tool) => (
        <li key={tool.method} class="fact" data-tool={tool.method}>
          <div class="fact-head">
            <strong translate={false}>{tool.title}</strong> <code>{tool.method}</code>
            <RiskBadge risk={tool.risk_level} />
          </div>
          <div class="muted">
            {callModelLabel(tool.call_model)} (<code>{tool.call_model}</code>){tool.requires_foreground ? t("projection.needsForeground") : ""}
          </div>
          {tool.view === undefined ? null : (
            <div class="muted" data-view={tool.view}>
              {t("projection.toolView")}
              <code>{tool.view}</code>
              {tool.view_origins === undefined ? (
                t("projection.toolViewNetwork")
              ) : (
                <>
                  {t("projection.toolViewOrigins")}
                  <code class="view-origins">{tool.view_origins.join(", ")}</code>
                  {t("projection.toolViewOriginsEnd")}
                </>
              )}
            </div>
          )}
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
            <span class="muted">{t("projection.appSays")}</span>
            <span translate={false}>{capability.purpose}</span>
          </div>
          <div class="muted">
            {capabilityDescription(capability.name, capability.description)}
            {capability.requires_confirmation ? t("projection.askedFirst") : ""}
          </div>
        </li>
      ))}
    </ul>
  );
}

const STEP_WORDS: Record<string, MessageKey> = {
  tool: "step.tool",
  "agent.task": "step.agent.task",
  "storage.get": "step.storage.read",
  "storage.list": "step.storage.read",
  "storage.put": "step.storage.put",
  "storage.delete": "step.storage.delete",
  "artifact.create": "step.artifact.create",
  "evidence.record": "step.evidence.record",
  "backend.call": "step.backend.call",
  confirm: "step.confirm",
};

/** One back-end in the words a person reads: what runs, where, and what it may use. */
export function backendSentence(backend: ProjectedBackend): string {
  const where =
    backend.protocol === "mcp-http"
      ? t("projection.backendMcpRemote", { host: backend.endpoint_host ?? t("projection.aServer") })
      : backend.plane === "cloud-remote"
        ? t("projection.backendRemote", { host: backend.endpoint_host ?? t("projection.aServer") })
        : backend.protocol === "mcp-stdio"
          ? t("projection.backendMcpProcess", { memory: backend.memory_mb })
          : backend.protocol === "wasm"
            ? t("projection.backendWasm", { memory: backend.memory_mb })
            : t("projection.backendProcess", { memory: backend.memory_mb });
  const uses = [backend.uses_storage ? t("projection.ownData") : "", ...backend.capabilities].filter((u) => u !== "");
  return t("projection.backend", {
    title: backend.title,
    where,
    uses: uses.length === 0 ? "" : t("projection.backendUses", { uses: format().list(uses) }),
    optional: backend.optional ? t("projection.backendOptional") : "",
  });
}

/** The app's own storage, execution and code, as sentences: what it keeps, where its work runs, what it sends. */
export function appCodeSentences(projection: ManifestProjection): string[] {
  const lines: string[] = [];
  if (projection.execution.mode === "server-assisted") {
    for (const endpoint of projection.execution.endpoints) lines.push(t("projection.sendsTo", { host: endpoint.host, purpose: endpoint.purpose }));
    if (projection.execution.data_boundary !== null) lines.push(t("projection.boundary", { boundary: projection.execution.data_boundary }));
  }
  if (projection.storage.quota_bytes !== null) {
    lines.push(t("projection.keeps", { size: formatBytes(projection.storage.quota_bytes), collections: projection.storage.collections.join(", ") }));
  }
  for (const backend of projection.backends) lines.push(backendSentence(backend));
  for (const workflow of projection.workflows) {
    const steps = format().list(workflow.step_kinds.map((k) => (STEP_WORDS[k] === undefined ? k : t(STEP_WORDS[k]))).filter((w, i, all) => all.indexOf(w) === i));
    const others = workflow.other_app_tools.length === 0 ? "" : t("projection.otherAppTools", { tools: workflow.other_app_tools.join(", ") });
    lines.push(t("projection.workflow", { title: workflow.title, steps, others }));
  }
  return lines;
}

export function ProjectionView({ projection, headingId }: { projection: ManifestProjection; headingId: string }) {
  return (
    <article class="projection" aria-labelledby={headingId} data-app={projection.app_scope}>
      <header class="projection-head">
        <h3 id={headingId} tabIndex={-1}>
          {localizedAppName(projection)} <span class="projection-version">{t("projection.version", { version: projection.version })}</span>
        </h3>
        <RiskBadge risk={projection.risk} />
      </header>
      {localizedDescription(projection) === "" ? null : <p class="projection-description">{localizedDescription(projection)}</p>}
      <p class="muted">
        {t("projection.scope")} <code>{projection.app_scope}</code>
      </p>
      <section aria-label={t("projection.tools")}>
        <h4>{t("projection.toolsHeading")}</h4>
        {projection.tools.length === 0 ? <p class="muted">{t("projection.noTools")}</p> : <ToolList tools={projection.tools} />}
      </section>
      <section aria-label={t("projection.capabilities")}>
        <h4>{t("projection.capabilitiesHeading")}</h4>
        {projection.capabilities.length === 0 ? <p class="muted">{t("common.none")}</p> : <CapabilityList capabilities={projection.capabilities} />}
      </section>
      <section aria-label={t("projection.messages")}>
        <h4>{t("projection.messages")}</h4>
        {projection.subscriptions.length === 0 ? (
          <p class="muted">{t("common.none")}</p>
        ) : (
          <ul class="facts compact">
            {projection.subscriptions.map((s) => (
              <li key={`${s.type} ${s.scope}`}>
                <code>{s.type}</code> <span class="muted">{subscriptionScopeLabel(s.scope)}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-label={t("projection.events")}>
        <h4>{t("projection.eventsHeading")}</h4>
        {projection.events.length === 0 ? (
          <p class="muted">{t("projection.noEvents")}</p>
        ) : (
          <ul class="facts compact">
            {projection.events.map((event) => (
              <li key={event.name}>
                <code>{event.name}</code> {event.description === "" ? <span class="muted">{t("projection.eventDefault")}</span> : <span class="muted" translate={false}>{event.description}</span>}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-label={t("projection.tasks")}>
        <h4>{t("projection.tasksHeading")}</h4>
        {projection.agent_tasks.length === 0 ? (
          <p class="muted">{t("projection.noTasks")}</p>
        ) : (
          <ul class="facts compact">
            {projection.agent_tasks.map((task) => (
              <li key={task.id}>
                <span translate={false}>{task.title}</span> <span class="muted">{task.tools.length === 0 ? t("projection.taskNoTools") : t("projection.taskTools", { tools: task.tools.join(", ") })}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-label={t("projection.code")}>
        <h4>{t("projection.codeHeading")}</h4>
        {appCodeSentences(projection).length === 0 ? (
          <p class="muted">{t("projection.onlyPages")}</p>
        ) : (
          <ul class="facts compact" data-app-code="">
            {appCodeSentences(projection).map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        )}
      </section>
      <section aria-label={t("projection.storage")}>
        <h4>{t("projection.storage")}</h4>
        <p>
          {projection.storage.session_data_quota_bytes === null
            ? t("projection.defaultQuota")
            : t("projection.quota", { size: formatBytes(projection.storage.session_data_quota_bytes) })}
        </p>
      </section>
    </article>
  );
}
