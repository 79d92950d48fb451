/**
 * The agent-visible inventory (spec 7.2): the standard components the host renders, the enabled apps with
 * their entrypoints, the display modes of surfaces, the host's capabilities, and the tools
 *
 *   verified manifest tools ∩ app enabled ∩ host supported ∩ user/organisation policy
 *   ∩ agent + conversation scope ∩ preconditions
 *
 * and its revision. The revision belongs to one agent session (agent + conversation) and rises
 * exactly when the visible content changes — an enable, disable, update, removal, host capability
 * change or tighter policy that changes nothing this agent sees does not bump it.
 */
import { PersistentMap } from "../core/persistent-map.js";
import {
  canonicalJson,
  DISPLAY_MODES,
  resolveToolDescriptor,
  riskRank,
  STANDARD_COMPONENTS,
  type DisplayMode,
  type InventoryApp,
  type JsonValue,
  type ResolvedToolDescriptor,
  type RiskLevel,
  type StandardComponent,
} from "@lineup/protocol";
import type { ToolSourceApp } from "./registry.js";

/** One tool as the agent sees it: the resolved descriptor (no bundle paths, tokens or user content) and its app. */
export type InventoryTool = Omit<ResolvedToolDescriptor, "handling" | "delivery" | "entrypoint"> & { readonly app_scope: string };

/** What may be visible, by whom. Every list narrows; none widens what an earlier rule removed. */
export interface InventoryPolicy {
  readonly blocked_apps?: readonly string[];
  /** `app_scope/method` */
  readonly blocked_tools?: readonly string[];
  /** Tools above this risk are hidden. */
  readonly max_risk?: RiskLevel;
  /** Per agent: only these apps (absent: all). */
  readonly agents?: Readonly<Record<string, { readonly allowed_apps?: readonly string[]; readonly blocked_tools?: readonly string[] }>>;
  /** Per conversation: only these apps (absent: all). */
  readonly conversations?: Readonly<Record<string, { readonly allowed_apps?: readonly string[] }>>;
}

export interface InventoryInput {
  readonly apps: readonly ToolSourceApp[];
  /** Capabilities the host can carry out. */
  readonly hostCapabilities: readonly string[];
  /**
   * Capabilities not offered now though the host could carry them out — the system denied them (a browser permission
   * set to "block") or policy blocks them: left out of `capabilities`, not out of the tools, whose calls are refused.
   */
  readonly withheldCapabilities?: readonly string[];
  /** Runtime SDK features the host offers (an app needing more is not ready). */
  readonly hostFeatures?: readonly string[];
  /** The display modes in which the host shows app surfaces (`HostProvider.displayModes`); absent: none. */
  readonly displayModes?: readonly DisplayMode[];
  readonly policy: InventoryPolicy;
  readonly agentId: string;
  readonly conversationId: string;
  /** Any further precondition a tool must meet (e.g. an account linked); default: none. */
  readonly precondition?: (tool: InventoryTool) => boolean;
}

export interface Inventory {
  /** Sorted by app_scope, then method. */
  readonly tools: readonly InventoryTool[];
  /** The apps the agent may use here (the same rules as for their tools, without the per-tool ones), sorted by app_scope. */
  readonly apps: readonly InventoryApp[];
  /** The standard components every host renders (spec 8.1). */
  readonly components: readonly StandardComponent[];
  /** Where the host shows an app's surface: the display modes it declares, none when it does not offer surfaces (`surface.state.v1`). */
  readonly surfaces: readonly DisplayMode[];
  /** The host's capabilities that the system has not denied, sorted. */
  readonly capabilities: readonly string[];
  /** Canonical JSON of all of the above: equal fingerprints mean the agent sees the same thing. */
  readonly fingerprint: string;
}

function own<T>(record: Readonly<Record<string, T>> | undefined, k: string): T | undefined {
  return record !== undefined && Object.prototype.hasOwnProperty.call(record, k) ? record[k] : undefined;
}

export function computeInventory(input: InventoryInput): Inventory {
  const { policy } = input;
  const hostCapabilities = new Set(input.hostCapabilities);
  const hostFeatures = input.hostFeatures === undefined ? undefined : new Set(input.hostFeatures);
  const blockedApps = new Set(policy.blocked_apps ?? []);
  const agent = own(policy.agents, input.agentId);
  const conversation = own(policy.conversations, input.conversationId);
  const blockedTools = new Set([...(policy.blocked_tools ?? []), ...(agent?.blocked_tools ?? [])]);
  const surfaces: readonly DisplayMode[] = hostFeatures === undefined || hostFeatures.has("surface.state.v1") ? DISPLAY_MODES.filter((m) => input.displayModes?.includes(m) === true) : [];
  const tools: InventoryTool[] = [];
  const apps: InventoryApp[] = [];
  for (const app of input.apps) {
    if (!app.enabled || app.install_state === "failed") continue;
    if (blockedApps.has(app.app_scope)) continue;
    if (agent?.allowed_apps !== undefined && !agent.allowed_apps.includes(app.app_scope)) continue;
    if (conversation?.allowed_apps !== undefined && !conversation.allowed_apps.includes(app.app_scope)) continue;
    if (hostFeatures !== undefined && !app.manifest.runtime_sdk.required_features.every((f) => hostFeatures.has(f))) continue;
    apps.push(inventoryApp(app, surfaces));
    for (const declared of app.manifest.tools ?? []) {
      const d = resolveToolDescriptor(declared, app.kind);
      if (blockedTools.has(`${app.app_scope}/${d.method}`)) continue;
      if (!d.capabilities.every((c) => hostCapabilities.has(c))) continue;
      if (policy.max_risk !== undefined && riskRank(d.risk_level) > riskRank(policy.max_risk)) continue;
      const tool: InventoryTool = {
        app_scope: app.app_scope,
        method: d.method,
        contract_version: d.contract_version,
        title: d.title,
        description: d.description,
        input_schema: d.input_schema,
        output_schema: d.output_schema,
        call_model: d.call_model,
        activation_requirement: d.activation_requirement,
        launch_policy: d.launch_policy,
        requires_foreground: d.requires_foreground,
        restore_focus: d.restore_focus,
        timeout_ms: d.timeout_ms,
        idempotent: d.idempotent,
        risk_level: d.risk_level,
        capabilities: d.capabilities,
      };
      if (input.precondition !== undefined && !input.precondition(tool)) continue;
      tools.push(tool);
    }
  }
  tools.sort((a, b) => (a.app_scope === b.app_scope ? (a.method < b.method ? -1 : a.method > b.method ? 1 : 0) : a.app_scope < b.app_scope ? -1 : 1));
  // The versions of the apps behind the tools count too: a publication names them (provenance), so an update
  // that keeps every tool the same is still published.
  const versions: Record<string, string> = {};
  for (const app of input.apps) if (tools.some((t) => t.app_scope === app.app_scope)) versions[app.app_scope] = app.manifest.version;
  apps.sort((a, b) => (a.app_scope < b.app_scope ? -1 : a.app_scope > b.app_scope ? 1 : 0));
  const denied = new Set(input.withheldCapabilities ?? []);
  const capabilities = [...new Set(input.hostCapabilities)].filter((c) => !denied.has(c)).sort();
  const rest = { apps, components: STANDARD_COMPONENTS, surfaces, capabilities };
  return {
    tools,
    ...rest,
    fingerprint: `${canonicalJson(tools as unknown as JsonValue)}\u0000${canonicalJson(versions)}\u0000${canonicalJson(rest as unknown as JsonValue)}`,
  };
}

/** An app as the agent sees it: its names and entrypoints, no bundle, files or private content. */
function inventoryApp(app: ToolSourceApp, surfaces: readonly DisplayMode[]): InventoryApp {
  const { manifest } = app;
  return {
    app_scope: app.app_scope,
    version: manifest.version,
    kind: app.kind,
    ...(manifest.name === undefined ? {} : { name: manifest.name }),
    ...(manifest.description === undefined ? {} : { description: manifest.description }),
    ...(manifest.localized === undefined ? {} : { localized: manifest.localized }),
    entrypoints: manifest.entrypoints.map((e) => ({
      id: e.id,
      kind: e.kind,
      ...(e.title === undefined ? {} : { title: e.title }),
      display_modes: (e.display_modes ?? (e.kind === "background" ? [] : ["foreground" as const])).filter((m) => surfaces.includes(m)),
    })),
  };
}

/** The revision state of every agent session's inventory. */
export interface InventoryRevisions {
  /** By `inventorySessionKey`; a persistent map, as an app change republishes to every conversation. */
  readonly sessions: PersistentMap<string, PublishedRevision>;
}

/** What was published last in one agent session. */
export interface PublishedRevision {
  readonly revision: number;
  readonly fingerprint: string;
  /**
   * A digest of the publication as sent (`inventory/publish` without the session and revision). Absent in a record
   * of a Runtime from before it was kept: what that Runtime sent is unknown, so it is published again.
   */
  readonly publication?: string;
  /**
   * The session's revision as the AppServer last reported it (its log's `inventory.published` records, its session
   * reads): the revision counter is the session's, shared by every device of its user, so this device publishes above it.
   */
  readonly server_revision?: number;
  /** The device whose publication is the latest in the session's log so far (`actor.id` of its `inventory.published`). */
  readonly publisher?: string;
  /** The latest revision of this device's that the AppServer applied. */
  readonly acknowledged?: number;
  /** The AppServer refused `revision` as stale: it is published again above the server's revision once that is known. */
  readonly refused?: true;
}

export const EMPTY_INVENTORY_REVISIONS: InventoryRevisions = { sessions: PersistentMap.empty() };

export function inventorySessionKey(agentId: string, conversationId: string): string {
  return `${agentId}\u0000${conversationId}`;
}

export interface PublishedInventory {
  readonly revisions: InventoryRevisions;
  /** The revision to publish (`inventory_revision` on the wire is its decimal string). */
  readonly revision: number;
  /** True when the content changed and the inventory must be republished to the agent. */
  readonly changed: boolean;
}

/**
 * Records a freshly computed inventory; the revision rises only when the content differs. The first revision is 1.
 * With `publication` (the digest of what would be sent), it rises too when that differs from what was sent with the
 * current revision: a Runtime upgraded to one that publishes the same inventory in another form publishes it again.
 * With `force`, it rises whatever the content (the AppServer refused or lost the current one). A new revision is
 * above both this device's last one and the session's revision the server reported, since other devices of the
 * user publish to the same session.
 */
export function publishInventory(
  revisions: InventoryRevisions,
  agentId: string,
  conversationId: string,
  inventory: Pick<Inventory, "fingerprint">,
  publication?: string,
  force = false,
): PublishedInventory {
  const k = inventorySessionKey(agentId, conversationId);
  const current = revisions.sessions.get(k);
  if (!force && current !== undefined && current.fingerprint === inventory.fingerprint && (publication === undefined || current.publication === publication)) {
    return { revisions, revision: current.revision, changed: false };
  }
  const revision = Math.max(current?.revision ?? 0, current?.server_revision ?? 0) + 1;
  const { refused: _refused, publication: _publication, ...kept } = current ?? { revision, fingerprint: inventory.fingerprint };
  const next: PublishedRevision = { ...kept, revision, fingerprint: inventory.fingerprint, ...(publication === undefined ? {} : { publication }) };
  return { revisions: withPublishedRevision(revisions, k, next), revision, changed: true };
}

/** The record of one agent session, or undefined before its first publication. */
export function publishedRevisionOf(revisions: InventoryRevisions, agentId: string, conversationId: string): PublishedRevision | undefined {
  return revisions.sessions.get(inventorySessionKey(agentId, conversationId));
}

export function withPublishedRevision(revisions: InventoryRevisions, key: string, record: PublishedRevision): InventoryRevisions {
  return { sessions: revisions.sessions.with(key, record) };
}

/**
 * What the AppServer reported of a session's inventory: its revision (from a session read or the log) and, from
 * the log, the device that published it. The server's revision only rises here: a lower one is a report of a
 * server that lost publications, which `inventoryLost` judges.
 */
export function withServerReport(record: PublishedRevision, report: { readonly revision: number; readonly publisher?: string }): PublishedRevision {
  const server = Math.max(record.server_revision ?? 0, report.revision);
  if (server === record.server_revision && (report.publisher === undefined || report.publisher === record.publisher)) return record;
  return { ...record, server_revision: server, ...(report.publisher === undefined ? {} : { publisher: report.publisher }) };
}

/**
 * Whether a session's revision as the AppServer reports it at connect says the server no longer holds this device's
 * last acknowledged publication (a restored backup, a new server with the same sessions, a wiped inventory): it is
 * below that publication's revision, which it once applied and never goes below.
 */
export function inventoryLost(record: PublishedRevision | undefined, serverRevision: number): boolean {
  return record?.acknowledged !== undefined && serverRevision < record.acknowledged;
}

/**
 * Whether this device answers an agent's tool call in the session now: the session's inventory is its latest
 * publication, whole, and only the device that made it answers calls made against it (or refuses a stale one), so
 * an agent gets one answer per call however many of the user's devices follow the session. A device that has not
 * seen any publication in the log, or does not know its own id, answers as a lone device does; so does one whose
 * acknowledged revision is the session's latest, whatever id it published under (a device paired again keeps its store).
 */
export function answersToolCalls(record: PublishedRevision | undefined, deviceId: string | undefined): boolean {
  return record?.publisher === undefined || deviceId === undefined || record.publisher === deviceId || (record.acknowledged !== undefined && record.acknowledged === record.server_revision);
}

export function currentInventoryRevision(revisions: InventoryRevisions, agentId: string, conversationId: string): number {
  return publishedRevisionOf(revisions, agentId, conversationId)?.revision ?? 0;
}
