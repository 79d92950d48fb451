/**
 * The tool registry and the inventory each agent sees, cached per set of App Manager records, and their
 * publication: after a change, every conversation's inventory is recomputed and, when what its agent
 * sees changed, published with the next revision through the outbox.
 */
import { canonicalJson, type InventoryTool as WireInventoryTool, type JsonValue } from "@lineup/protocol";
import { appProvenance, publisherTrusted } from "../app-lifecycle/manager/records.js";
import { sha256Hex } from "../core/sha256.js";
import { RUNTIME_COLLECTIONS as C } from "../persistence/runtime-schema.js";
import type { StoreWrite } from "../persistence/store.js";
import {
  computeInventory,
  currentInventoryRevision,
  inventorySessionKey,
  publishedRevisionOf,
  publishInventory,
  withPublishedRevision,
  type Inventory,
  type InventoryTool,
  type PublishedRevision,
} from "../tools/inventory.js";
import { buildToolRegistry, toolSourcesFromRegistry, type ToolRegistry } from "../tools/registry.js";
import type { RuntimeState } from "./state.js";
import type { TransitionEnv } from "./handlers/env.js";
import type { Step } from "./step.js";

const registryCache = new WeakMap<RuntimeState["apps"], ToolRegistry>();

/** The tool registry of the current App Manager records (rebuilt only when the records change). */
export function toolRegistryOf(state: RuntimeState): ToolRegistry {
  let registry = registryCache.get(state.apps);
  if (registry === undefined) registryCache.set(state.apps, (registry = buildToolRegistry(toolSourcesFromRegistry(state.apps)).registry));
  return registry;
}

const inventoryCache = new WeakMap<RuntimeState["apps"], { host: TransitionEnv["host"]; trusted: RuntimeState["trusted_publishers"]; byAgent: Map<string, Inventory> }>();

/**
 * The inventory one agent sees in one conversation, now. It depends only on the App Manager records,
 * the host facts and policy (replaced, never mutated, when they change at run time) and the trusted
 * publishers, so it is computed once per set of those and agent session, not on every call. An app whose
 * active version was signed by a key no longer trusted shows nothing.
 */
export function inventoryFor(state: RuntimeState, env: TransitionEnv, agentId: string, conversationId: string): Inventory {
  let cached = inventoryCache.get(state.apps);
  if (cached === undefined || cached.host !== env.host || cached.trusted !== state.trusted_publishers) {
    inventoryCache.set(state.apps, (cached = { host: env.host, trusted: state.trusted_publishers, byAgent: new Map() }));
  }
  // The conversation matters only when the policy says something of it: otherwise every conversation of the agent
  // sees the same (a person with a thousand conversations gets one inventory computed, not a thousand).
  const policy = env.host.inventoryPolicy.conversations;
  const key = policy !== undefined && Object.prototype.hasOwnProperty.call(policy, conversationId) ? inventorySessionKey(agentId, conversationId) : `${agentId}\u0001`;
  let inventory = cached.byAgent.get(key);
  if (inventory === undefined) {
    inventory = computeInventory({
      apps: toolSourcesFromRegistry(state.apps).filter((app) => publisherTrusted(state.apps.apps[app.app_scope]!, trustedKeyIds(state))),
      hostCapabilities: env.host.capabilities,
      // Not offered: what the system denies this host now, and what policy (a tenant's included) blocks.
      withheldCapabilities: [...(env.host.systemDenied ?? []), ...(env.host.appPolicy.blocked_capabilities ?? [])],
      hostFeatures: env.host.features,
      displayModes: env.host.displayModes ?? [],
      policy: env.host.inventoryPolicy,
      agentId,
      conversationId,
    });
    cached.byAgent.set(key, inventory);
  }
  return inventory;
}

/** The public summary the App Server keeps of a tool (app-server.inventory-tool): no launch or focus internals. */
function wireTool(tool: InventoryTool, apps: RuntimeState["apps"]): WireInventoryTool {
  const provenance = appProvenance(apps, tool.app_scope);
  return {
    app_scope: tool.app_scope,
    method: tool.method,
    contract_version: tool.contract_version,
    title: tool.title,
    description: tool.description,
    input_schema: tool.input_schema,
    output_schema: tool.output_schema,
    call_model: tool.call_model,
    timeout_ms: tool.timeout_ms,
    requires_foreground: tool.requires_foreground,
    risk_level: tool.risk_level,
    activation_requirement: tool.activation_requirement,
    // Evidence names the app, version and bundle behind each tool result (docs/app-server-protocol.md section 10).
    ...(provenance === undefined ? {} : { provenance }),
  };
}

/** The key ids of the trusted publishers (one set per list). */
const trustedCache = new WeakMap<RuntimeState["trusted_publishers"], ReadonlySet<string>>();
function trustedKeyIds(state: RuntimeState): ReadonlySet<string> {
  let ids = trustedCache.get(state.trusted_publishers);
  if (ids === undefined) trustedCache.set(state.trusted_publishers, (ids = new Set(state.trusted_publishers.map((k) => k.key_id))));
  return ids;
}

/** What `inventory/publish` carries besides the session and revision. */
type Publication = { readonly tools: JsonValue; readonly apps: JsonValue; readonly components: string[]; readonly surfaces: string[]; readonly capabilities: string[] };

const publicationCache = new WeakMap<RuntimeState["apps"], Map<string, { readonly body: Publication; readonly digest: string }>>();

/**
 * The inventory as it is published, and a digest of that: a function of the inventory's content (its fingerprint)
 * and the App Manager records (the tools' provenance), so computed once per such pair and not once per conversation.
 */
function publicationOf(inventory: Inventory, apps: RuntimeState["apps"]): { readonly body: Publication; readonly digest: string } {
  let byFingerprint = publicationCache.get(apps);
  if (byFingerprint === undefined) publicationCache.set(apps, (byFingerprint = new Map()));
  let publication = byFingerprint.get(inventory.fingerprint);
  if (publication === undefined) {
    const body: Publication = {
      tools: inventory.tools.map((tool) => wireTool(tool, apps)) as unknown as JsonValue,
      apps: inventory.apps as unknown as JsonValue,
      components: [...inventory.components],
      surfaces: [...inventory.surfaces],
      capabilities: [...inventory.capabilities],
    };
    byFingerprint.set(inventory.fingerprint, (publication = { body, digest: sha256Hex(canonicalJson(body as unknown as JsonValue)) }));
  }
  return publication;
}

/**
 * Recomputes the inventory of every conversation the server knows and publishes the ones whose
 * visible content changed (spec 7.2: enable, disable, update, remove, host capability, policy), or whose
 * published form differs from what was sent last (at start after an upgrade, through `apps.resume`).
 * The conversations in `force` are published whatever their content: the AppServer refused their last
 * publication as stale, or no longer holds it.
 */
export function republishInventories(step: Step, env: TransitionEnv, only?: ReadonlySet<string>, force?: ReadonlySet<string>): void {
  for (const conversation of step.state.conversations.values()) {
    if (only !== undefined && !only.has(conversation.conversation_id)) continue;
    const inventory = inventoryFor(step.state, env, conversation.agent_id, conversation.conversation_id);
    // Nothing published and nothing to publish: revision 0 already means "no tools and no installed apps" (the
    // core apps alone are the host's own screens and are published with the first tool or installed app).
    if (inventory.tools.length === 0 && inventory.apps.every((app) => app.kind === "core") && currentInventoryRevision(step.state.inventory, conversation.agent_id, conversation.conversation_id) === 0) continue;
    const publication = publicationOf(inventory, step.state.apps);
    const published = publishInventory(step.state.inventory, conversation.agent_id, conversation.conversation_id, inventory, publication.digest, force?.has(conversation.conversation_id) === true);
    if (!published.changed) continue;
    step.state = { ...step.state, inventory: published.revisions };
    step.writes.push(inventoryRecordWrite(conversation.conversation_id, conversation.agent_id, publishedRevisionOf(published.revisions, conversation.agent_id, conversation.conversation_id)!));
    step.enqueue(env, {
      conversation_id: conversation.conversation_id,
      app_scope: "runtime",
      action_type: "inventory.publish",
      method: "inventory/publish",
      params: { session_id: conversation.conversation_id, revision: published.revision, ...publication.body },
    });
    step.audit.push({
      type: "inventory.published",
      conversation_id: conversation.conversation_id,
      detail: `revision ${published.revision}, ${inventory.apps.length} apps, ${inventory.tools.length} tools, ${inventory.capabilities.length} capabilities`,
    });
  }
}

/** The stored record of one conversation's inventory (`restore.ts` reads it back). */
export function inventoryRecordWrite(conversationId: string, agentId: string, record: PublishedRevision): StoreWrite {
  return { op: "put", collection: C.inventory, key: conversationId, value: { agent_id: agentId, ...record } };
}

/** The record of a conversation this device has published nothing to yet: what the server reports is kept in it. */
const UNPUBLISHED: PublishedRevision = { revision: 0, fingerprint: "" };

/**
 * Replaces one conversation's inventory record after something the AppServer said of it (a report, an
 * acknowledgement, a refusal), and publishes the inventory again when a refused publication can now go above
 * the server's revision. A record that did not change writes nothing. With `seed`, a conversation without a
 * record gets one (the server's report about a session this device has not published to).
 */
export function updateInventoryRecord(step: Step, env: TransitionEnv, conversationId: string, update: (record: PublishedRevision) => PublishedRevision, seed = false): void {
  const conversation = step.state.conversations.get(conversationId);
  if (conversation === undefined) return;
  const record = publishedRevisionOf(step.state.inventory, conversation.agent_id, conversationId) ?? (seed ? UNPUBLISHED : undefined);
  if (record === undefined) return;
  const next = update(record);
  if (next === record) return;
  step.state = { ...step.state, inventory: withPublishedRevision(step.state.inventory, inventorySessionKey(conversation.agent_id, conversationId), next) };
  step.writes.push(inventoryRecordWrite(conversationId, conversation.agent_id, next));
  // The server holds a revision at least as high as the refused one: publish again, above it.
  if (next.refused === true && (next.server_revision ?? 0) >= next.revision) republishInventories(step, env, new Set([conversationId]), new Set([conversationId]));
}
