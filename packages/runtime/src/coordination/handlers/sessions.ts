import { RUNTIME_COLLECTIONS as C } from "../../persistence/runtime-schema.js";
import type { StoreWrite } from "../../persistence/store.js";
import type { AuditDraft, Delivery, Effect, RuntimeInput, TransitionResult } from "../inputs.js";
import { compareSessionStarts, type JsonValue, type Session } from "@lineup/protocol";
import { conversationFromSession, conversationsToFollow, withConversation, type Conversation, type RuntimeState } from "../state.js";
import type { TransitionEnv } from "./env.js";
import { goOnlineIfReady } from "./go-online.js";
import { republishInventories } from "../inventories.js";
import { reconcileListedInventories } from "./inventory-sync.js";
import { Step } from "../step.js";

/** The stored form of a conversation: what survives a restart besides its cursor. */
export function sessionRecordWrite(conversation: Conversation): StoreWrite {
  const { following: _following, cursor: _cursor, unread: _unread, pending: _pending, notices: _notices, agent_connected: _agent, open_turns: _turns, active_at: _active, ...record } = conversation;
  return { op: "put", collection: C.sessions, key: conversation.conversation_id, value: { ...record } };
}

/**
 * The conversation's cursor row: how far its log was applied, the turns open at that point and when something was
 * last said (the later of its applied log's and the AppServer's session list's time).
 */
export const cursorWrite = (conversation: Conversation): StoreWrite => ({
  op: "put",
  collection: C.cursors,
  key: conversation.conversation_id,
  value: {
    seq: conversation.cursor,
    ...(conversation.open_turns === undefined ? {} : { open_turns: conversation.open_turns as unknown as JsonValue }),
    ...(conversation.active_at === undefined ? {} : { active_at: conversation.active_at }),
  },
});

/** `sessions` oldest first (`compareSessionStarts`). */
function byCreation(sessions: readonly Session[]): Session[] {
  return [...sessions].sort((a, b) => compareSessionStarts(a.created_at, a.session_id, b.created_at, b.session_id));
}

/**
 * The server's list of visible sessions: new ones are followed, every idle one is subscribed after its
 * stored cursor (re-listing on each connect is how sessions started on other devices are found).
 */
export function onSessionsListed(state: RuntimeState, input: Extract<RuntimeInput, { kind: "sessions.listed" }>, env: TransitionEnv): TransitionResult {
  let conversations = state.conversations;
  const writes: StoreWrite[] = [];
  const effects: Effect[] = [];
  // Oldest first (the server lists newest first): a conversation this device did not know goes after those it knew,
  // in the order they were started, as one it starts itself does.
  for (const session of byCreation(input.sessions)) {
    const previous = conversations.get(session.session_id);
    const next = conversationFromSession(session, previous);
    if (previous === undefined || previous.origin !== "server" || previous.title !== next.title || previous.agent_id !== next.agent_id || previous.created_at !== next.created_at) {
      writes.push(sessionRecordWrite(next));
    }
    // Something was said in it that this device has not applied yet (or it is new here): its place in the list is kept
    // across a restart, before its log is read.
    if (next.active_at !== previous?.active_at) writes.push(cursorWrite(next));
    conversations = conversations.with(session.session_id, next);
  }
  const connected = state.lifecycle.status === "synchronizing" || state.lifecycle.status === "online";
  if (connected) {
    // The one where something was last said first; the quiet and the old ones last, which the scan for the last one
    // caught up (`allCaughtUp`, the oldest started first) meets early while they catch up.
    for (const conversation of conversationsToFollow(conversations.values())) {
      conversations = conversations.with(conversation.conversation_id, { ...conversation, following: { status: "catching_up" } });
      effects.push({ kind: "subscribe", session_id: conversation.conversation_id, after_seq: conversation.cursor });
    }
  }
  // Conversations this device did not know yet get the inventory their agent may call (the others got
  // theirs when they were new, after every app change, and once at start).
  const step = new Step({ ...state, conversations });
  const fresh = new Set(input.sessions.map((session) => session.session_id).filter((id) => !state.conversations.has(id)));
  // What the server reports of each session's inventory revision, kept first so a new publication goes above it:
  // a refused publication goes again above it, a lost one again.
  reconcileListedInventories(step, env, input.sessions, state.lifecycle.status === "synchronizing");
  if (fresh.size > 0) republishInventories(step, env, fresh);
  const online = goOnlineIfReady(step.state, env.now());
  return { state: online.state, writes: [...writes, ...step.writes], effects: [...effects, ...step.effects, ...online.effects], deliveries: online.deliveries, audit: step.audit };
}

/** The server refused to follow a session (`session_not_found`, or `cursor_invalid` when our cursor is ahead of its head). */
export function onSubscribeFailed(state: RuntimeState, input: Extract<RuntimeInput, { kind: "session.subscribe_failed" }>, env: TransitionEnv): TransitionResult {
  const conversation = state.conversations.get(input.session_id);
  if (conversation === undefined) return { state, writes: [], effects: [], deliveries: [], audit: [] };
  // The cursor is kept as it is: an impossible cursor is refused, never rewound (RELIABILITY R6).
  const conversations = state.conversations.with(input.session_id, { ...conversation, following: { status: "unavailable", code: input.code } });
  const audit: AuditDraft[] = [{ type: "sync.subscribe_refused", code: input.code, conversation_id: input.session_id, detail: input.message }];
  const online = goOnlineIfReady({ ...state, conversations }, env.now());
  const deliveries: Delivery[] = online.deliveries;
  return { state: online.state, writes: [], effects: online.effects, deliveries, audit };
}

/** The server says whether a followed session's agent is connected: kept with the conversation, not stored. */
export function onAgentPresence(state: RuntimeState, input: Extract<RuntimeInput, { kind: "agent.presence" }>): TransitionResult {
  const conversation = state.conversations.get(input.session_id);
  if (conversation === undefined || conversation.following.status === "idle" || conversation.agent_id !== input.agent_id || conversation.agent_connected === input.connected) {
    return { state, writes: [], effects: [], deliveries: [], audit: [] };
  }
  return { state: withConversation(state, { ...conversation, agent_connected: input.connected }), writes: [], effects: [], deliveries: [], audit: [] };
}
