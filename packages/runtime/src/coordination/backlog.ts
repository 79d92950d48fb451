/**
 * The bound on an app's inbox backlog (spec 5.4, spec 12 box 3): messages that need an explicit ACK
 * (cards, state patches) wait in the app's inbox until it acknowledges them, and at most
 * `maxPendingPerApp` of them per app and conversation. A message past the bound is refused for that app
 * with `inbox_full` — consumed and audited like every refusal, never stored, never a silent drop —
 * while other recipients still get it. Display messages are not counted: they are acknowledged when
 * shown, and their marks cost one row per chunk.
 *
 * The counts live on the conversation (`Conversation.pending`), are kept by the transitions that add
 * and clear pending rows, and are counted again from the store at restore.
 */
import type { Conversation } from "./state.js";

/** Default bound per app and conversation. */
export const DEFAULT_MAX_PENDING_PER_APP = 1_000;

/** The explicit-ack messages of `appScope` waiting in `conversation`. */
export function pendingOf(conversation: Conversation, appScope: string): number {
  const pending = conversation.pending;
  return pending !== undefined && Object.prototype.hasOwnProperty.call(pending, appScope) ? pending[appScope]! : 0;
}

/** `conversation` with `appScope`'s count moved by `delta` (never below zero; a zero count is dropped). */
export function withPending(conversation: Conversation, appScope: string, delta: number): Conversation {
  const count = Math.max(0, pendingOf(conversation, appScope) + delta);
  const { [appScope]: _dropped, ...rest } = conversation.pending ?? {};
  const pending = count === 0 ? rest : { ...rest, [appScope]: count };
  const { pending: _old, ...base } = conversation;
  return Object.keys(pending).length === 0 ? base : { ...base, pending };
}
