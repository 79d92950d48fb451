/**
 * The turns a conversation has open, as its log says (docs/app-server-protocol.md section 7.4): a session
 * runs one turn at a time, the others wait queued behind it. The Runtime folds the log's turn events into
 * the conversation (`open_turns`, stored with the cursor, so they survive a restart exactly as far as the
 * log was applied) for two things:
 *
 * - a tool call belongs to the turn running when its invoke is applied (the log's order is the server's
 *   order, and the server runs one turn at a time), so a cancelled turn can end the calls it made;
 * - `turn.cancel` knows which turn to stop, and refuses when there is none.
 */
import { isActivityEvent, type SessionEvent } from "@lineup/protocol";
import type { OutboxEntry } from "../communication/outbox.js";
import type { Conversation, OpenTurn } from "./state.js";

const NONE: readonly OpenTurn[] = [];

/** The conversation after `event` (the same object when the event changes no turn). */
export function withTurnEvent(conversation: Conversation, event: SessionEvent): Conversation {
  const open = conversation.open_turns ?? NONE;
  const data = event.data as { turn_id?: unknown; turn?: { turn_id?: unknown; state?: unknown } } | null;
  let next: readonly OpenTurn[];
  switch (event.kind) {
    case "turn.started": {
      const turnId = data?.turn?.turn_id;
      const state = data?.turn?.state;
      if (typeof turnId !== "string" || (state !== "running" && state !== "queued") || open.some((t) => t.turn_id === turnId)) return conversation;
      // A running turn goes first: the server runs it now (an `interrupt` cancelled the others just before).
      next = state === "running" ? [{ turn_id: turnId, state }, ...open] : [...open, { turn_id: turnId, state }];
      break;
    }
    case "turn.activated": {
      const turnId = data?.turn_id;
      if (typeof turnId !== "string") return conversation;
      const activated = open.find((t) => t.turn_id === turnId);
      next = [{ turn_id: turnId, state: "running" }, ...open.filter((t) => t !== activated)];
      break;
    }
    case "turn.completed":
    case "turn.failed":
    case "turn.cancelled": {
      const turnId = data?.turn_id;
      if (typeof turnId !== "string" || !open.some((t) => t.turn_id === turnId)) return conversation;
      next = open.filter((t) => t.turn_id !== turnId);
      break;
    }
    default:
      return conversation;
  }
  if (next.length === 0) {
    const { open_turns: _gone, ...rest } = conversation;
    return rest;
  }
  return { ...conversation, open_turns: next };
}

/** The turn running in the conversation now, as far as its log was applied; undefined between turns. */
export function runningTurn(conversation: Conversation | undefined): string | undefined {
  return conversation?.open_turns?.find((t) => t.state === "running")?.turn_id;
}

/**
 * The turn a person's Stop is about: the running one, else the oldest queued one, else the oldest turn this
 * device started that is still waiting in the outbox (sent offline, or not yet answered). Undefined: no turn
 * of the conversation is running or waiting.
 */
export function turnToCancel(conversation: Conversation, outbox: Iterable<OutboxEntry>): string | undefined {
  const open = conversation.open_turns ?? NONE;
  const running = open.find((t) => t.state === "running") ?? open[0];
  if (running !== undefined) return running.turn_id;
  let oldest: OutboxEntry | undefined;
  for (const entry of outbox) {
    if (entry.conversation_id !== conversation.conversation_id || entry.method !== "agentSession/turn/start" || entry.status !== "pending") continue;
    if (oldest === undefined || entry.order < oldest.order) oldest = entry;
  }
  const turnId = oldest?.params["turn_id"];
  return typeof turnId === "string" ? turnId : undefined;
}

/** The pending cancel of `turnId` already in the outbox, if any (a second Stop is the same Stop). */
export function pendingCancel(conversationId: string, turnId: string, outbox: Iterable<OutboxEntry>): OutboxEntry | undefined {
  for (const entry of outbox) {
    if (entry.conversation_id === conversationId && entry.method === "agentSession/turn/cancel" && entry.status === "pending" && entry.params["turn_id"] === turnId) return entry;
  }
  return undefined;
}

/** The conversation after `event` as to when something was last said in it (the same object when nothing was). */
export function withActivity(conversation: Conversation, event: SessionEvent): Conversation {
  if (!isActivityEvent(event.kind, event.data) || (conversation.active_at !== undefined && conversation.active_at >= event.created_at)) return conversation;
  return { ...conversation, active_at: event.created_at };
}
