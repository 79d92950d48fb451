/**
 * The projection of a manifest (spec 003, "package verification → projection → readiness →
 * authorization"): what a person reads before enabling an app — where it appears, what agents
 * may ask it to do and how risky that is, which messages it listens to, which device capabilities
 * it may request and why, and how much it may store.
 *
 * A projection is plain data with every default applied (so two manifests that mean the same
 * thing project the same), and `diffProjections` compares two of them for an update: an update
 * that adds a capability waits for the user's approval, and refusing it leaves the old version
 * running (RELIABILITY P4).
 */
import { CAPABILITIES, isCapabilityName, maxRisk, riskRank, type CapabilityName, type RiskLevel } from "./capabilities.js";
import type { AppManifest, CallModel, DisplayMode, EntrypointKind, LocalizedTexts, SubscriptionScope } from "./schemas.js";
import type { BackendPlane, BackendProtocol, ExecutionMode, WorkflowStepKind } from "./app-code.js";
import { resolveToolDescriptor } from "./tool-defaults.js";
import { DEFAULT_APP_STORAGE_QUOTA_BYTES } from "./terms.js";

export interface ProjectedEntrypoint {
  readonly id: string;
  readonly kind: EntrypointKind;
  readonly title: string;
  readonly default_eligible: boolean;
  readonly display_modes: readonly DisplayMode[];
}

export interface ProjectedTool {
  readonly method: string;
  readonly contract_version: string;
  readonly title: string;
  readonly call_model: CallModel;
  readonly risk_level: RiskLevel;
  readonly requires_foreground: boolean;
  readonly capabilities: readonly CapabilityName[];
  /** The MCP Apps view (`ui://…`) the tool shows in the chat, if it names one. */
  readonly view?: string;
  /** The origins the view declares it may ask to reach (`view.csp`, both directives); none when it declares none. */
  readonly view_origins?: readonly string[];
}

export interface ProjectedSubscription {
  readonly type: string;
  readonly scope: SubscriptionScope;
}

export interface ProjectedCapability {
  readonly name: CapabilityName;
  /** The app's own words: why it asks. */
  readonly purpose: string;
  /** The registry's words: what the capability does. */
  readonly description: string;
  readonly risk: RiskLevel;
  readonly requires_foreground: boolean;
  readonly requires_confirmation: boolean;
  /** Methods of the tools that may use it. */
  readonly used_by_tools: readonly string[];
}

export interface ProjectedEvent {
  readonly name: string;
  /** The app's description of the event; empty when it gives none. */
  readonly description: string;
}

/** Where the app's work runs (`execution`): what a server-assisted app sends, and where. */
export interface ProjectedExecution {
  readonly mode: ExecutionMode;
  /** Each server the Runtime may call for the app, with its host name (what a person recognises) and the author's reason. */
  readonly endpoints: readonly { readonly id: string; readonly url: string; readonly host: string; readonly purpose: string }[];
  /** What leaves the device, in the author's words; null for an app that sends nothing. */
  readonly data_boundary: string | null;
}

/** A back-end the host starts for the app: where it runs and what it may use. */
export interface ProjectedBackend {
  readonly id: string;
  readonly title: string;
  readonly plane: BackendPlane;
  readonly protocol: BackendProtocol;
  /** `remote-http`: the host name of its endpoint; null on this device. */
  readonly endpoint_host: string | null;
  readonly memory_mb: number;
  readonly call_timeout_ms: number;
  readonly capabilities: readonly CapabilityName[];
  readonly uses_storage: boolean;
  readonly optional: boolean;
}

export interface ProjectedWorkflow {
  readonly id: string;
  readonly title: string;
  /** The kinds of its steps, in order, each once: what the workflow may do. */
  readonly step_kinds: readonly WorkflowStepKind[];
  /** Whether a step asks the person before going on. */
  readonly asks_person: boolean;
  /** Other apps' tools its `tool` steps call, as `app_scope/method`, each once: what it may make another app do. */
  readonly other_app_tools: readonly string[];
}

export interface ManifestProjection {
  readonly app_scope: string;
  readonly name: string;
  readonly version: string;
  readonly description: string;
  /** The name and description in other languages, by language tag, when the manifest gives them. */
  readonly localized?: LocalizedTexts;
  readonly entrypoints: readonly ProjectedEntrypoint[];
  readonly tools: readonly ProjectedTool[];
  readonly subscriptions: readonly ProjectedSubscription[];
  /** Highest risk first; equal risks keep the manifest's order. */
  readonly capabilities: readonly ProjectedCapability[];
  /** The events the app's surface may raise: what it can tell agents about what the person does, in its own words. */
  readonly events: readonly ProjectedEvent[];
  /** The agent tasks the app may start from its UI (`agent_tasks`), with the tools each may give the agent. */
  readonly agent_tasks: readonly { readonly id: string; readonly title: string; readonly tools: readonly string[] }[];
  readonly required_features: readonly string[];
  /**
   * What the app may keep: session data (null: the Runtime's default quota) and its own storage namespace —
   * `quota_bytes` null when it declares no collections.
   */
  readonly storage: {
    readonly session_data_quota_bytes: number | null;
    readonly quota_bytes: number | null;
    readonly schema_version: number | null;
    readonly collections: readonly string[];
  };
  readonly execution: ProjectedExecution;
  readonly backends: readonly ProjectedBackend[];
  readonly workflows: readonly ProjectedWorkflow[];
  /** The highest risk of any capability or tool: the one word an install prompt leads with. */
  readonly risk: RiskLevel;
}

/** The host name of an endpoint URL (what a person recognises: `api.example.com`). */
function hostOf(url: string): string {
  const match = /^[a-z]+:\/\/(\[[^\]]+\]|[^/:]+)/.exec(url);
  return match?.[1] ?? url;
}

/** Projects a validated manifest. Pure. */
export function projectManifest(manifest: AppManifest): ManifestProjection {
  const tools = (manifest.tools ?? []).map((tool): ProjectedTool => {
    const resolved = resolveToolDescriptor(tool);
    const viewOrigins = [...new Set([...(tool.view?.csp?.connect_domains ?? []), ...(tool.view?.csp?.resource_domains ?? [])])];
    return {
      method: resolved.method,
      contract_version: resolved.contract_version,
      title: resolved.title,
      call_model: resolved.call_model,
      risk_level: resolved.risk_level,
      requires_foreground: resolved.requires_foreground,
      capabilities: resolved.capabilities,
      ...(tool.view === undefined ? {} : { view: tool.view.resource_uri }),
      ...(viewOrigins.length === 0 ? {} : { view_origins: viewOrigins }),
    };
  });
  const capabilities = (manifest.capabilities ?? [])
    .filter((declared) => isCapabilityName(declared.name))
    .map((declared): ProjectedCapability => {
      const name = declared.name as CapabilityName;
      const info = CAPABILITIES[name];
      return {
        name,
        purpose: declared.purpose,
        description: info.description,
        risk: info.risk,
        requires_foreground: info.requires_foreground,
        requires_confirmation: info.requires_confirmation,
        used_by_tools: tools.filter((t) => t.capabilities.includes(name)).map((t) => t.method),
      };
    })
    .map((capability, index) => ({ capability, index }))
    .sort((a, b) => riskRank(b.capability.risk) - riskRank(a.capability.risk) || a.index - b.index)
    .map(({ capability }) => capability);
  const endpoints = manifest.execution?.endpoints ?? [];
  const hasAppStorage = (manifest.storage?.collections ?? []).length > 0;
  // Data leaving the device, or a program of the app's running on it, is at least a medium risk.
  const codeRisk: RiskLevel = endpoints.length > 0 || (manifest.backends ?? []).some((b) => b.protocol === "stdio-jsonrpc" || b.protocol === "local-http" || b.protocol === "mcp-stdio") ? "medium" : "low";
  const risk = [...tools.map((t) => t.risk_level), ...capabilities.map((c) => c.risk), codeRisk].reduce<RiskLevel>(maxRisk, "low");
  return {
    app_scope: manifest.app_scope,
    name: manifest.name ?? manifest.app_scope,
    version: manifest.version,
    description: manifest.description ?? "",
    ...(manifest.localized === undefined ? {} : { localized: manifest.localized }),
    entrypoints: manifest.entrypoints.map((e) => ({
      id: e.id,
      kind: e.kind,
      title: e.title ?? e.id,
      default_eligible: e.default_eligible ?? false,
      display_modes: e.display_modes ?? (e.kind === "background" ? [] : ["foreground"]),
    })),
    tools,
    subscriptions: (manifest.agent_subscriptions ?? []).map((s) => ({ type: s.type, scope: s.scope })),
    capabilities,
    events: (manifest.events ?? []).map((e) => ({ name: e.name, description: e.description ?? "" })),
    agent_tasks: (manifest.agent_tasks?.entries ?? []).map((e) => ({ id: e.id, title: e.title, tools: (e.tools ?? []).map((t) => `${t.app_scope ?? manifest.app_scope}/${t.method}`) })),
    required_features: manifest.runtime_sdk.required_features,
    storage: {
      session_data_quota_bytes: manifest.storage?.session_data_quota_bytes ?? null,
      quota_bytes: hasAppStorage ? (manifest.storage?.quota_bytes ?? DEFAULT_APP_STORAGE_QUOTA_BYTES) : null,
      schema_version: hasAppStorage ? (manifest.storage?.schema_version ?? 1) : null,
      collections: (manifest.storage?.collections ?? []).map((c) => c.name),
    },
    execution: {
      mode: manifest.execution?.mode ?? "local",
      endpoints: endpoints.map((e) => ({ id: e.id, url: e.url, host: hostOf(e.url), purpose: e.purpose })),
      data_boundary: manifest.execution?.data_boundary ?? null,
    },
    backends: (manifest.backends ?? []).map((b): ProjectedBackend => {
      const endpoint = b.endpoint === undefined ? undefined : endpoints.find((e) => e.id === b.endpoint);
      return {
        id: b.id,
        title: b.title ?? b.id,
        plane: b.plane,
        protocol: b.protocol,
        endpoint_host: endpoint === undefined ? null : hostOf(endpoint.url),
        memory_mb: b.limits?.memory_mb ?? 64,
        call_timeout_ms: b.limits?.call_timeout_ms ?? 10_000,
        capabilities: (b.capabilities ?? []).filter(isCapabilityName),
        uses_storage: b.storage === true,
        optional: b.optional === true,
      };
    }),
    workflows: (manifest.workflows ?? []).map((w) => ({
      id: w.id,
      title: w.title,
      step_kinds: [...new Set(w.steps.map((step) => step.kind))],
      asks_person: w.steps.some((step) => step.kind === "confirm"),
      other_app_tools: [
        ...new Set(
          w.steps.flatMap((step) => (step.kind === "tool" && step.tool?.app_scope !== undefined && step.tool.app_scope !== manifest.app_scope ? [`${step.tool.app_scope}/${step.tool.method}`] : [])),
        ),
      ],
    })),
    risk,
  };
}

export interface ChangedTool {
  readonly method: string;
  readonly before: ProjectedTool;
  readonly after: ProjectedTool;
}

export interface ProjectionDiff {
  readonly added_capabilities: readonly ProjectedCapability[];
  readonly removed_capabilities: readonly ProjectedCapability[];
  readonly added_tools: readonly ProjectedTool[];
  readonly removed_tools: readonly ProjectedTool[];
  /** Same method, but another contract version, call model, risk, foreground need or capability set. */
  readonly changed_tools: readonly ChangedTool[];
  readonly added_subscriptions: readonly ProjectedSubscription[];
  readonly removed_subscriptions: readonly ProjectedSubscription[];
  /** Event names the app may newly tell agents about, and ones it no longer declares. */
  readonly added_events: readonly string[];
  readonly removed_events: readonly string[];
  /** Servers the new version may send data to that the old one could not (host names). */
  readonly added_endpoints: readonly string[];
  /** Back-ends the new version runs that the old one did not, or that now run another way (plane or protocol). */
  readonly added_backends: readonly ProjectedBackend[];
  /**
   * True when the new version may request a capability the old one could not, send data to a server the old
   * one did not, or run a back-end it did not: the update waits for the user's approval of exactly
   * `added_capabilities`, `added_endpoints` and `added_backends`. Other differences are shown, not gated.
   */
  readonly requires_approval: boolean;
}

function sameTool(a: ProjectedTool, b: ProjectedTool): boolean {
  return (
    a.contract_version === b.contract_version &&
    a.call_model === b.call_model &&
    a.risk_level === b.risk_level &&
    a.requires_foreground === b.requires_foreground &&
    a.capabilities.length === b.capabilities.length &&
    a.capabilities.every((c) => b.capabilities.includes(c))
  );
}

/** What changes from `before` to `after` (an installed version and its update). Pure. */
export function diffProjections(before: ManifestProjection, after: ManifestProjection): ProjectionDiff {
  const capabilitiesBefore = new Set(before.capabilities.map((c) => c.name));
  const capabilitiesAfter = new Set(after.capabilities.map((c) => c.name));
  const toolsBefore = new Map(before.tools.map((t) => [t.method, t]));
  const toolsAfter = new Map(after.tools.map((t) => [t.method, t]));
  const key = (s: ProjectedSubscription) => `${s.type} ${s.scope}`;
  const subscriptionsBefore = new Set(before.subscriptions.map(key));
  const subscriptionsAfter = new Set(after.subscriptions.map(key));
  const added_capabilities = after.capabilities.filter((c) => !capabilitiesBefore.has(c.name));
  const hostsBefore = new Set(before.execution.endpoints.map((e) => e.host));
  const added_endpoints = [...new Set(after.execution.endpoints.map((e) => e.host))].filter((h) => !hostsBefore.has(h));
  const backendKey = (b: ProjectedBackend) => `${b.id} ${b.plane} ${b.protocol}`;
  const backendsBefore = new Set(before.backends.map(backendKey));
  const added_backends = after.backends.filter((b) => !backendsBefore.has(backendKey(b)));
  const changed_tools: ChangedTool[] = [];
  for (const [method, next] of toolsAfter) {
    const previous = toolsBefore.get(method);
    if (previous !== undefined && !sameTool(previous, next)) changed_tools.push({ method, before: previous, after: next });
  }
  return {
    added_capabilities,
    removed_capabilities: before.capabilities.filter((c) => !capabilitiesAfter.has(c.name)),
    added_tools: after.tools.filter((t) => !toolsBefore.has(t.method)),
    removed_tools: before.tools.filter((t) => !toolsAfter.has(t.method)),
    changed_tools,
    added_subscriptions: after.subscriptions.filter((s) => !subscriptionsBefore.has(key(s))),
    removed_subscriptions: before.subscriptions.filter((s) => !subscriptionsAfter.has(key(s))),
    added_events: after.events.filter((e) => !before.events.some((b) => b.name === e.name)).map((e) => e.name),
    removed_events: before.events.filter((e) => !after.events.some((a) => a.name === e.name)).map((e) => e.name),
    added_endpoints,
    added_backends,
    requires_approval: added_capabilities.length > 0 || added_endpoints.length > 0 || added_backends.length > 0,
  };
}
