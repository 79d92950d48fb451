/**
 * App inboxes (spec 5.4): every message the Runtime routes to an app is stored here, per app and
 * conversation, in the same commit that advances the sync cursor — before any delivery. A message stays
 * pending until acknowledged (display messages on delivery, the rest by the app), so unacknowledged
 * messages come back after a restart.
 */
import type { JsonValue } from "@lineup/protocol";
import { RUNTIME_COLLECTIONS as C, padNumber } from "./runtime-schema.js";
import type { RuntimeStore, StoreWrite } from "./store.js";

/** What an app receives: a validated, scoped projection of one session event. */
export interface AgentAppMessage {
  /** Unique per Runtime: `<conversation_id>:<seq>`. Apps must handle a message idempotently by it. */
  readonly message_id: string;
  /** Opaque position for `list({ after })`. */
  readonly cursor: string;
  readonly app_scope: string;
  readonly conversation_id: string;
  readonly seq: number;
  /** An envelope type (`lineup.message`, `lineup.tool.invoke`, …) or a turn/action projection (`lineup.turn.completed`, `lineup.action.required`, …). */
  readonly type: string;
  readonly delivery: "display" | "explicit_ack";
  readonly sender: { readonly kind: string; readonly id: string };
  readonly created_at: string;
  readonly payload: JsonValue;
  readonly envelope_id?: string;
  readonly turn_id?: string;
  readonly instance_id?: string;
  readonly correlation?: { readonly [key: string]: JsonValue };
}

export function inboxKey(appScope: string, conversationId: string, seq: number): string {
  return `${appScope}/${conversationId}/${padNumber(seq)}`;
}

export function messageIdFor(conversationId: string, seq: number): string {
  return `${conversationId}:${seq}`;
}

/** The inverse of `messageIdFor` (undefined for anything it could not have made). */
export function parseMessageId(messageId: string): { conversation_id: string; seq: number } | undefined {
  const colon = messageId.lastIndexOf(":");
  if (colon <= 0) return undefined;
  const digits = messageId.slice(colon + 1);
  if (!/^[1-9][0-9]{0,15}$/.test(digits)) return undefined;
  const seq = Number(digits);
  return Number.isSafeInteger(seq) ? { conversation_id: messageId.slice(0, colon), seq } : undefined;
}

/** The writes that store `message` as pending in its app's inbox. */
export function storeMessageWrites(message: AgentAppMessage): StoreWrite[] {
  const key = inboxKey(message.app_scope, message.conversation_id, message.seq);
  return [
    { op: "put", collection: C.inbox, key, value: message as unknown as JsonValue },
    { op: "put", collection: C.inboxPending, key, value: { message_id: message.message_id } },
  ];
}

/** The writes that acknowledge the message stored at inbox `key`. */
export function acknowledgeWrites(key: string): StoreWrite[] {
  return [{ op: "delete", collection: C.inboxPending, key }];
}

export interface PendingQuery {
  readonly appScope: string;
  readonly conversationId?: string;
  /** Exclusive lower bound: an inbox key already handled. */
  readonly afterKey?: string;
  readonly limit: number;
}

/** Pending (unacknowledged) messages of an app, oldest first per conversation, one page. */
export async function readPendingPage(store: RuntimeStore, query: PendingQuery): Promise<AgentAppMessage[]> {
  const prefix = query.conversationId === undefined ? `${query.appScope}/` : `${query.appScope}/${query.conversationId}/`;
  const rows = await store.range(C.inboxPending, { prefix, ...(query.afterKey === undefined ? {} : { gt: query.afterKey }), limit: query.limit });
  const messages: AgentAppMessage[] = [];
  for (const row of rows) {
    const message = await store.get(C.inbox, row.key);
    if (message !== undefined && !(message instanceof Uint8Array)) messages.push(message as unknown as AgentAppMessage);
  }
  return messages;
}
