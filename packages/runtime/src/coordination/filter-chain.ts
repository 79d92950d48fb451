/**
 * The Runtime filter chain for inbound session events (spec 5.3), in order:
 *
 *  1. the conversation is followed                          → `conversation_unknown`
 *  2. seq dedup and order against the stored cursor         → `duplicate_message` / `out_of_order`
 *  3. legacy adapter at ingress, then version/type/scope/size/schema (`validateEnvelope`)
 *  4. agent identity and conversation                       → `unknown_agent` / `scope_mismatch`
 *  5. envelope id dedup                                     → `duplicate_message`
 *  6. app installed and enabled (the AppDirectory port)     → `app_not_installed` / `app_disabled`
 *  7. ownership of instance / operation                     → `not_owner`
 *  8. subscription intersection (declared ∩ permissions ∩ scope ∩ target ∩ policy) → `not_subscribed` /
 *     `permission_denied` / `policy_denied`
 *
 * Pure: everything it needs from the store arrives in `reads`. Every refusal is a stable code; the
 * transition turns it into an audit record (and, for a tool call, a definite `lineup.tool.error` reply).
 * Refusals from step 3 on consume the event (the cursor moves past it); steps 1–2 do not.
 */
import { adaptLegacy, isLegacyMessage, validateEnvelope, type ErrorCode, type RuntimeEnvelope, type SessionEvent } from "@lineup/protocol";
import type { AppDirectory, SubscriptionScope } from "../app-lifecycle/core-app-registry.js";
import type { InstanceDirectory } from "../app-lifecycle/instance-directory.js";
import { asChunk, chunkKeyOf, chunkOf, dedupChunkKeys, hasEnvelope } from "../persistence/log-chunks.js";
import { RUNTIME_COLLECTIONS as C } from "../persistence/runtime-schema.js";
import { projectEnvelope, projectEvent, type MessageDraft } from "./projection.js";
import { memoReadKey, readId, type ReadKey, type Reads } from "./inputs.js";
import type { Conversation } from "./state.js";

export interface FilterContext {
  readonly conversation: Conversation | undefined;
  readonly reads: Reads;
  readonly apps: AppDirectory;
  readonly instances: InstanceDirectory;
  /** Installed apps the Runtime policy keeps from agent messages (the inventory policy's `blocked_apps`). */
  readonly blockedApps?: readonly string[];
  /** Whether the app is granted the capability now (its Settings decision); absent: every capability is. */
  readonly granted?: (appScope: string, capability: string) => boolean;
  /** The injected clock as RFC 3339, for legacy messages without a timestamp. */
  readonly now: () => string;
}

export interface Refusal {
  readonly code: ErrorCode;
  readonly message: string;
}

export type FilterOutcome =
  /** Nothing applied, cursor unchanged: not ours, or already applied. */
  | { readonly kind: "ignored"; readonly refusal: Refusal }
  /** A gap: resync from the cursor. */
  | { readonly kind: "gap"; readonly refusal: Refusal }
  /** Consumed and refused; `envelope` is set when the refused event carried one (a tool call gets an error reply). */
  | { readonly kind: "refused"; readonly refusal: Refusal; readonly envelope?: RuntimeEnvelope; readonly target_app?: string }
  /** A tool call or cancel from the conversation's agent: the tools core decides (spec 7.3 codes). */
  | { readonly kind: "tool"; readonly envelope: RuntimeEnvelope }
  /** Consumed and accepted: one message per recipient app (none for state-only events). */
  | { readonly kind: "accepted"; readonly draft?: MessageDraft; readonly recipients: readonly string[]; readonly envelope?: RuntimeEnvelope };

/** The store reads step 5 needs for `event`. */
export function filterReads(event: SessionEvent): ReadKey[] {
  // The unseen marks of this event's chunk (a display message's pending mark goes there); for an envelope
  // also the log chunks of this seq and the ones before it, whose envelope ids the duplicate check reads.
  const reads = chunkReads(event.session_id, event.seq);
  if (event.kind !== "envelope") return [reads.marks];
  const envelope = (event.data as { envelope?: { id?: unknown; type?: unknown; correlation?: { call_id?: unknown } } }).envelope;
  // A tool call's id may name a finished call: its stored record decides whether this is a replay or a conflict.
  const callId = envelope?.correlation?.call_id;
  if (envelope?.type === "lineup.tool.invoke" && typeof callId === "string" && callId.length <= 128) return [...reads.all, { collection: C.toolCalls, key: callId }];
  return reads.all as ReadKey[];
}

export interface ChunkReads {
  /** The unseen marks of the event's chunk. */
  readonly marks: ReadKey;
  /** The log chunks the envelope-id check looks at. */
  readonly chunks: readonly ReadKey[];
  /** Both, marks first. */
  readonly all: readonly ReadKey[];
}

/** The last conversation and chunk asked for, and their reads: consecutive events share them. */
let chunkReadsMemo: { readonly conversationId: string; readonly chunk: number; readonly reads: ChunkReads } | undefined;

/** The chunk reads of an event at `seq` (shared, never mutated). */
export function chunkReads(conversationId: string, seq: number): ChunkReads {
  const chunk = chunkOf(seq);
  if (chunkReadsMemo === undefined || chunkReadsMemo.conversationId !== conversationId || chunkReadsMemo.chunk !== chunk) {
    const marks = memoReadKey(C.inboxUnseen, chunkKeyOf(conversationId, seq));
    const chunks = dedupChunkKeys(conversationId, seq).map((key) => memoReadKey(C.logChunks, key));
    chunkReadsMemo = { conversationId, chunk, reads: { marks, chunks, all: [marks, ...chunks] } };
  }
  return chunkReadsMemo.reads;
}

const refuse = (code: ErrorCode, message: string, extra: { envelope?: RuntimeEnvelope; target_app?: string } = {}): FilterOutcome => ({
  kind: "refused",
  refusal: { code, message },
  ...extra,
});

export function filterEvent(event: SessionEvent, ctx: FilterContext): FilterOutcome {
  // 1. conversation
  const conversation = ctx.conversation;
  if (conversation === undefined) {
    return { kind: "ignored", refusal: { code: "conversation_unknown", message: `no followed conversation ${event.session_id}` } };
  }
  // 2. seq dedup and order
  if (event.seq <= conversation.cursor) {
    return { kind: "ignored", refusal: { code: "duplicate_message", message: `seq ${event.seq} is at or before the cursor ${conversation.cursor}` } };
  }
  if (event.seq !== conversation.cursor + 1) {
    return { kind: "gap", refusal: { code: "out_of_order", message: `seq ${event.seq} after cursor ${conversation.cursor}: a gap` } };
  }

  // 3. ingress: legacy adapter, then the envelope's own checks
  let envelope: RuntimeEnvelope | undefined;
  if (event.kind === "envelope") {
    const raw: unknown = (event.data as { envelope?: unknown }).envelope;
    const checked = isLegacyMessage(raw)
      ? adaptLegacy(raw, { currentConversationId: conversation.conversation_id, knownAppScopes: new Set(ctx.apps.list().map((app) => app.app_scope)), now: ctx.now })
      : validateEnvelope(raw);
    if (!checked.ok) return refuse(checked.error.code, checked.error.message);
    envelope = checked.value;
  }

  // 4. agent identity and conversation
  if (event.actor.role === "agent" && event.actor.id !== conversation.agent_id) {
    return refuse("unknown_agent", `agent ${event.actor.id} is not the agent of ${conversation.conversation_id}`, envelope === undefined ? {} : { envelope });
  }
  if (envelope !== undefined) {
    if (envelope.sender.kind === "agent" && envelope.sender.id !== conversation.agent_id) {
      return refuse("unknown_agent", `envelope sender ${envelope.sender.id} is not the agent of ${conversation.conversation_id}`, { envelope });
    }
    if (envelope.scope.conversation_id !== conversation.conversation_id) {
      return refuse("scope_mismatch", `envelope conversation ${envelope.scope.conversation_id} is not ${conversation.conversation_id}`, { envelope });
    }
    // 5. envelope id dedup
    // The same envelope again at a new position: consumed (the cursor moves past it) and refused, never reapplied.
    const id = envelope.id;
    if (chunkReads(conversation.conversation_id, event.seq).chunks.some((read) => hasEnvelope(asChunk(ctx.reads.get(readId(read))), id))) {
      return refuse("duplicate_message", `envelope ${id} was already applied`);
    }
  }

  // Tool calls are not app messages: the Runtime decides them (installed, enabled, inventory, arguments).
  if (envelope !== undefined && (envelope.type === "lineup.tool.invoke" || envelope.type === "lineup.tool.cancel") && envelope.sender.kind === "agent") {
    return { kind: "tool", envelope };
  }

  const draft = envelope === undefined ? projectEvent(event) : projectEnvelope(envelope);
  if (draft === undefined) return { kind: "accepted", recipients: [] };

  // 6. app installed and enabled. An envelope addressed to the Runtime (a tool result this device sent)
  // belongs to no app: only conversation-wide observers (chat's cards) may see it.
  const toRuntime = envelope?.target.kind === "runtime";
  const targetApp = envelope === undefined ? conversation.app_scope : envelope.target.kind === "app" ? envelope.target.app_scope : envelope.scope.app_scope;
  // What a refusal from here on carries (built only when one is made).
  const about = (): { envelope?: RuntimeEnvelope; target_app: string } => (envelope === undefined ? { target_app: targetApp } : { envelope, target_app: targetApp });
  if (!toRuntime) {
    const app = ctx.apps.get(targetApp);
    if (app === undefined) return refuse("app_not_installed", `no app ${targetApp} is installed`, about());
    if (!app.enabled) return refuse("app_disabled", `app ${targetApp} is disabled`, about());
  }

  // 7. ownership
  if (envelope !== undefined) {
    const instanceId = envelope.scope.instance_id ?? envelope.target.instance_id;
    if (instanceId !== undefined && !ctx.instances.ownsInstance(conversation.conversation_id, targetApp, instanceId)) {
      return refuse("not_owner", `instance ${instanceId} does not belong to ${conversation.conversation_id}`, about());
    }
    const operationId = envelope.scope.operation_id;
    if (operationId !== undefined && !ctx.instances.ownsOperation(conversation.conversation_id, operationId)) {
      return refuse("not_owner", `operation ${operationId} does not belong to ${conversation.conversation_id}`, about());
    }
  }

  // 8. subscription intersection: declared subscriptions ∩ target app ∩ the subscription's scope ∩ policy
  const instanceId = envelope === undefined ? undefined : (envelope.scope.instance_id ?? envelope.target.instance_id);
  // The conversation's own projections (the agent's status and task progress), addressed to the
  // conversation's app and no instance: apps with an instance in the conversation may observe them too.
  const conversationWide = !toRuntime && targetApp === conversation.app_scope && instanceId === undefined && CONVERSATION_PROJECTIONS.has(draft.type);
  const blocked = new Set(ctx.blockedApps ?? []);
  const candidates = candidatesOf(ctx.apps, draft.type, toRuntime, targetApp, conversation.app_scope, conversationWide);
  // A subscription tied to a capability admits a message only while the app is granted that capability (spec
  // 5.4, "the app's current permissions"); one that only that withholds is refused `permission_denied`.
  const granted = ctx.granted ?? (() => true);
  let withheld: { app_scope: string; capability: string } | undefined;
  const recipients = candidates
    .filter((candidate) => !(candidate.installed && blocked.has(candidate.app_scope)))
    .filter((candidate) => {
      const admitting = candidate.scopes.filter(({ scope }) => inScope(scope, candidate, ctx.instances, conversation.conversation_id, instanceId));
      if (admitting.some(({ capability }) => capability === undefined || granted(candidate.app_scope, capability))) return true;
      const needed = admitting.find(({ capability }) => capability !== undefined)?.capability;
      if (needed !== undefined) withheld ??= { app_scope: candidate.app_scope, capability: needed };
      return false;
    })
    .map((candidate) => candidate.app_scope);
  // What the user's devices sent to the Runtime (an app's event, an answer to a card) is their own record:
  // it needs no app to see it, and is no one's mistake.
  if (recipients.length === 0 && toRuntime && event.actor.role === "device") return envelope === undefined ? { kind: "accepted", recipients } : { kind: "accepted", recipients, envelope };
  if (recipients.length === 0 && !toRuntime && blocked.has(targetApp) && ctx.apps.get(targetApp)?.kind === "installed") {
    return refuse("policy_denied", `the Runtime policy keeps agent messages from ${targetApp}`, about());
  }
  if (recipients.length === 0 && withheld !== undefined) {
    return refuse("permission_denied", `${withheld.app_scope} receives ${draft.type} only while it is granted ${withheld.capability}`, about());
  }
  if (recipients.length === 0) {
    return refuse(
      draft.type === "lineup.tool.invoke" ? "tool_not_visible" : "not_subscribed",
      `no app subscribes to ${draft.type} for ${targetApp} in ${conversation.conversation_id}`,
      about(),
    );
  }
  return envelope === undefined ? { kind: "accepted", draft, recipients } : { kind: "accepted", draft, recipients, envelope };
}

/** Types that say where the conversation stands rather than speak to one app: an app working in it may follow them. */
const CONVERSATION_PROJECTIONS: ReadonlySet<string> = new Set(["lineup.status", "lineup.task.progress"]);

/** An app that subscribes to a type, by the scopes of its subscriptions that match. */
interface Candidate {
  readonly app_scope: string;
  readonly installed: boolean;
  /** The target app's own subscriptions, or (`observer`) another app's reaching the conversation's projections. */
  readonly observer: boolean;
  /** The scope of each matching subscription, and the capability it needs granted, if any. */
  readonly scopes: readonly { readonly scope: SubscriptionScope; readonly capability?: string }[];
}

/** Per directory (one per registry state, never mutated): the candidates for each kind of message seen. */
const candidatesMemo = new WeakMap<AppDirectory, Map<string, readonly Candidate[]>>();

/**
 * The enabled apps that subscribe to `type` sent to `targetApp` (or the Runtime) in a conversation of
 * `conversationApp`, and — for a conversation-wide message — the installed apps whose `conversation` or
 * `app` subscriptions name the type (they receive it where they have an instance).
 */
function candidatesOf(apps: AppDirectory, type: string, toRuntime: boolean, targetApp: string, conversationApp: string, conversationWide: boolean): readonly Candidate[] {
  let memo = candidatesMemo.get(apps);
  if (memo === undefined) candidatesMemo.set(apps, (memo = new Map()));
  const key = `${type}\u0000${toRuntime ? "runtime" : targetApp}\u0000${conversationApp}\u0000${conversationWide ? "wide" : ""}`;
  let candidates = memo.get(key);
  if (candidates === undefined) {
    const found: Candidate[] = [];
    for (const app of apps.list()) {
      if (!app.enabled) continue;
      const own = app.subscriptions.filter(
        (subscription) =>
          subscription.types.includes(type) && (subscription.reach === "target" ? !toRuntime && app.app_scope === targetApp : app.app_scope === conversationApp),
      );
      if (own.length > 0) {
        found.push({
          app_scope: app.app_scope,
          installed: app.kind === "installed",
          observer: false,
          scopes: own.map((s) => (s.capability === undefined ? { scope: s.scope ?? "app" } : { scope: s.scope ?? "app", capability: s.capability })),
        });
        continue;
      }
      if (!conversationWide || app.kind !== "installed") continue;
      const observing = app.subscriptions.filter((s) => s.types.includes(type) && (s.scope === "conversation" || s.scope === "app"));
      if (observing.length > 0) {
        found.push({ app_scope: app.app_scope, installed: true, observer: true, scopes: observing.map((s) => (s.capability === undefined ? { scope: "conversation" } : { scope: "conversation", capability: s.capability })) });
      }
    }
    memo.set(key, (candidates = found));
  }
  return candidates;
}

/** Whether a message in `conversationId` (naming `instanceId`, if any) is within one of the candidate's subscription scopes. */
function inScope(scope: SubscriptionScope, candidate: Candidate, instances: InstanceDirectory, conversationId: string, instanceId: string | undefined): boolean {
  switch (scope) {
    case "app":
      return true;
    case "conversation":
      return instances.hasInstanceIn(conversationId, candidate.app_scope);
    case "instance":
      // Step 7 checked that a named instance is the target app's and serves this conversation.
      return instanceId !== undefined && !candidate.observer;
  }
}
