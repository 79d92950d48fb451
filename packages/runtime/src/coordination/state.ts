/**
 * The Runtime's top-level state (spec 3.2), as far as this issue needs it: the lifecycle, the identity
 * the server gave, the followed conversations with their sync cursors, and the outbox. Plain data,
 * replaced (never mutated) by transitions. Messages are not here: they live in the store (inbox, history).
 */
import { compareLastActivity, type AppManifest, type Session } from "@lineup/protocol";
import { PersistentMap } from "../core/persistent-map.js";
import { EMPTY_INSTANCES } from "../app-lifecycle/instances/state.js";
import { createAppRegistryState } from "../app-lifecycle/manager/records.js";
import { EMPTY_TOOL_CALLS } from "../tools/call-state.js";
import { EMPTY_INVENTORY_REVISIONS } from "../tools/inventory.js";
import type { CapabilityGrant, TrustedPublisher } from "../app-lifecycle/app-manager-api.js";
import { EMPTY_CAPABILITIES, type CapabilitiesState } from "../capabilities/loop-state.js";
import type { InstancesState } from "../app-lifecycle/instances/state.js";
import type { AppOperation } from "../app-lifecycle/manager/operation.js";
import type { AppRegistryState } from "../app-lifecycle/manager/records.js";
import type { OutboxEntry } from "../communication/outbox.js";
import type { InventoryRevisions } from "../tools/inventory.js";
import type { ToolCallsState } from "../tools/call-state.js";
import type { Lifecycle } from "./lifecycle.js";
import { EMPTY_TASKS, type TasksState } from "../tasks/records.js";
import type { WorkflowRun } from "../workflows/run.js";

/**
 * How a conversation's log is being followed on the current connection:
 * `idle` (not subscribed), `catching_up` (subscribed, before the caughtUp seam), `live`, or
 * `unavailable` (the server refused to follow it; the code says why — e.g. `cursor_invalid`).
 */
export type Following =
  | { readonly status: "idle" }
  | { readonly status: "catching_up" }
  | { readonly status: "live" }
  | { readonly status: "unavailable"; readonly code: string };

export interface Conversation {
  readonly conversation_id: string;
  readonly app_scope: string;
  readonly agent_id: string;
  readonly workspace_id: string;
  readonly title?: string;
  /**
   * When the conversation was started: the AppServer's time for one it lists, this device's clock for one it starts
   * (until the server lists it); absent in records stored before it was kept.
   */
  readonly created_at?: string;
  /** `local` until this device's `agentSession/start` is applied by the server. */
  readonly origin: "server" | "local";
  /** The last applied seq of the session log (0 = none). Never moves back. */
  readonly cursor: number;
  /**
   * When something was last said in it: the AppServer's time of the newest event in which the person or the agent
   * spoke (`isActivityEvent`), applied here or named by the server's session list (`Session.active_at`), whichever is
   * later; absent before any. Never moves back. Stored with the cursor. The same on every device that applied the log.
   */
  readonly active_at?: string;
  readonly following: Following;
  /** Pending (unacknowledged) messages in chat's inbox. */
  readonly unread: number;
  /** Explicit-ack messages waiting in each app's inbox (absent: none); bounded, see `backlog.ts`. Not stored: counted at restore. */
  readonly pending?: { readonly [appScope: string]: number };
  /** The notices about the agent's refused envelopes in the current window (see `handlers/notices.ts`). Not stored. */
  readonly notices?: NoticeWindow;
  /**
   * Whether the bound agent is connected to the AppServer, as the server last said while this device
   * followed the session (`agentSession/presence`); absent when unknown (not following, or an older
   * server). Not stored: it is how things are now.
   */
  readonly agent_connected?: boolean;
  /**
   * The conversation's turns the applied log has open (`coordination/turns.ts`), the running one first;
   * absent when none. Stored with the cursor: both say how far the log was applied.
   */
  readonly open_turns?: readonly OpenTurn[];
}

/** A turn the server has not ended yet: `running`, or `queued` behind the running one. */
export interface OpenTurn {
  readonly turn_id: string;
  readonly state: "running" | "queued";
}

export interface NoticeWindow {
  /** When the window began (the Clock's ms). */
  readonly since: number;
  readonly sent: number;
}

export interface Identity {
  readonly user_id?: string;
  readonly device_id?: string;
}

export interface RuntimeState {
  readonly lifecycle: Lifecycle;
  /** This Runtime's own id, made once per store: the sender id of what it sends as `runtime`. */
  readonly runtime_id: string;
  readonly identity: Identity;
  /** Persistent maps (core/persistent-map.ts), as `workflows` and the tasks: a step that changes one copies a part, not all. */
  readonly conversations: PersistentMap<string, Conversation>;
  readonly outbox: PersistentMap<number, OutboxEntry>;
  readonly next_outbox_order: number;
  /** The App Manager's records: installed apps, retained versions, pending updates, the default app. */
  readonly apps: AppRegistryState;
  /** Live instances and the focus stack. */
  readonly instances: InstancesState;
  /** Every tool call this Runtime received and the activations calls wait for. */
  readonly tools: ToolCallsState;
  /** The inventory revision published per agent + conversation. */
  readonly inventory: InventoryRevisions;
  /** Publisher keys whose bundles this Runtime installs (settings). */
  readonly trusted_publishers: readonly TrustedPublisher[];
  /** Remembered capability decisions (settings; the gateway consults them). */
  readonly grants: readonly CapabilityGrant[];
  /** The UI language the person chose in Settings (canonical BCP 47); null follows the device's. */
  readonly language: string | null;
  /**
   * The Capability Gateway's waiting requests and recent uses (not persisted: a restart ends every
   * waiting request). Its remembered decisions are `grants` (capabilities/loop-state.ts).
   */
  readonly capabilities: CapabilitiesState;
  /** The latest app operations, newest first (not persisted: the audit log is the durable record). */
  readonly operations: readonly AppOperation[];
  /** Apps' agent tasks (`tasks/records.ts`); stored, each event a row of its own. */
  readonly tasks: TasksState;
  /** Apps' workflow runs (`workflows/run.ts`), by run id; stored, each trace entry a row of its own. */
  readonly workflows: PersistentMap<string, WorkflowRun>;
}

/** The apps part of a fresh Runtime's state: the core apps installed and enabled, nothing else. */
export function freshAppsState(coreManifests: readonly AppManifest[], now: number): Pick<RuntimeState, "apps" | "instances" | "tools" | "inventory" | "trusted_publishers" | "grants" | "language" | "capabilities" | "operations" | "tasks" | "workflows"> {
  return {
    apps: createAppRegistryState(coreManifests, now),
    instances: EMPTY_INSTANCES,
    tools: EMPTY_TOOL_CALLS,
    inventory: EMPTY_INVENTORY_REVISIONS,
    trusted_publishers: [],
    grants: [],
    language: null,
    capabilities: EMPTY_CAPABILITIES,
    operations: [],
    tasks: EMPTY_TASKS,
    workflows: PersistentMap.empty(),
  };
}

export function conversationFromSession(session: Session, previous: Conversation | undefined): Conversation {
  return {
    conversation_id: session.session_id,
    app_scope: session.app_scope,
    agent_id: session.agent_id,
    workspace_id: session.workspace_id,
    ...(session.title === undefined ? {} : { title: session.title }),
    created_at: session.created_at,
    origin: "server",
    cursor: previous?.cursor ?? 0,
    following: previous?.following ?? { status: "idle" },
    unread: previous?.unread ?? 0,
    ...(previous?.pending === undefined ? {} : { pending: previous.pending }),
    ...(previous?.agent_connected === undefined ? {} : { agent_connected: previous.agent_connected }),
    ...(previous?.open_turns === undefined ? {} : { open_turns: previous.open_turns }),
    ...activeAt(previous?.active_at, session.active_at),
  };
}

/** The later of two times something was last said (ISO 8601 in UTC, so text order is time order), as a member. */
function activeAt(known: string | undefined, listed: string | undefined): { active_at?: string } {
  const later = known === undefined || (listed !== undefined && listed > known) ? listed : known;
  return later === undefined ? {} : { active_at: later };
}

/**
 * The conversations a connection subscribes to: the server's ones it does not follow yet, in the order they are listed
 * (`compareLastActivity`: the one where something was last said first), so those a person is likeliest to look at are
 * live first. The session list's turn subscribes these, and the sync driver the same ones right behind the handshake.
 */
export function conversationsToFollow(conversations: Iterable<Conversation>): Conversation[] {
  return [...conversations].filter((c) => c.origin === "server" && c.following.status === "idle").sort(compareLastActivity);
}

export function withConversation(state: RuntimeState, conversation: Conversation): RuntimeState {
  return { ...state, conversations: state.conversations.with(conversation.conversation_id, conversation) };
}

/** True when every followed conversation has passed its seam (or cannot be followed). */
export function allCaughtUp(state: RuntimeState): boolean {
  for (const conversation of state.conversations.values()) {
    if (conversation.origin === "local") continue;
    if (conversation.following.status === "idle" || conversation.following.status === "catching_up") return false;
  }
  return true;
}

/** Live delivery is open for a conversation only online and past its seam (spec 3.3). */
export function isLiveFor(state: RuntimeState, conversationId: string): boolean {
  return state.lifecycle.status === "online" && state.conversations.get(conversationId)?.following.status === "live";
}
