/**
 * App inboxes (spec 5.4): every message the Runtime routes to an app is stored here, per app and
 * conversation, in the same commit that advances the sync cursor — before any delivery. A message stays
 * pending until acknowledged (display messages on delivery, the rest by the app), so unacknowledged
 * messages come back after a restart. An explicit-ack message's pending mark is a row of its own in
 * `inbox-pending`; a display message's is in its chunk's `inbox-unseen` row (`log-chunks.ts`), one row for many.
 */
import type { JsonValue } from "@lineup/protocol";
import { compareKeys } from "./keys.js";
import { asMarks, chunkKey, chunkOf, parseChunkKey, unseenOf } from "./log-chunks.js";
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
  /** The app the envelope is about (its scope), when it is not the recipient: chat shows a tool card of the whiteboard. */
  readonly source_app_scope?: string;
  readonly turn_id?: string;
  readonly instance_id?: string;
  readonly correlation?: { readonly [key: string]: JsonValue };
  /** Interaction cards only (`lineup.action.required`, `lineup.interaction.request`): how the card was answered, by this device or another of the user's. */
  readonly answer?: RecordedAnswer;
}

/** How an interaction card was answered. */
export interface RecordedAnswer {
  readonly outcome: string;
  readonly choice_ids?: readonly string[];
  readonly text?: string;
  readonly confirmed?: boolean;
}

/** The `answers` key of a card's answer: by the card's `action_id` or `interaction_id` (undefined for other messages). */
export function cardAnswerKey(message: Pick<AgentAppMessage, "type" | "conversation_id" | "payload">): string | undefined {
  const payload = message.payload;
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) return undefined;
  if (message.type === "lineup.action.required") {
    const id = payload["action_id"];
    return typeof id === "string" ? answerKey(message.conversation_id, "action", id) : undefined;
  }
  if (message.type === "lineup.interaction.request") {
    const id = payload["interaction_id"];
    return typeof id === "string" ? answerKey(message.conversation_id, "interaction", id) : undefined;
  }
  return undefined;
}

export function answerKey(conversationId: string, kind: "action" | "interaction", id: string): string {
  return `${conversationId}/${kind}:${id}`;
}

/** A RecordedAnswer from a response object (an `action.responded` response, an interaction response, or a device's answer); undefined without an outcome. */
export function cardAnswerOf(response: unknown): RecordedAnswer | undefined {
  if (response === null || typeof response !== "object" || Array.isArray(response)) return undefined;
  const r = response as { [key: string]: unknown };
  if (typeof r["outcome"] !== "string") return undefined;
  const choiceIds = Array.isArray(r["choice_ids"]) ? r["choice_ids"].filter((v): v is string => typeof v === "string") : undefined;
  return {
    outcome: r["outcome"],
    ...(choiceIds === undefined ? {} : { choice_ids: choiceIds }),
    ...(typeof r["text"] === "string" ? { text: r["text"] } : {}),
    ...(typeof r["confirmed"] === "boolean" ? { confirmed: r["confirmed"] } : {}),
  };
}

/** The write that records `answer` for the card at `key` (an `answerKey`). */
export function answerWrite(key: string, answer: RecordedAnswer): StoreWrite {
  return { op: "put", collection: C.answers, key, value: answer as unknown as JsonValue };
}

/** `messages` with their recorded answers attached (cards only; other messages unchanged). */
export async function withAnswers(store: RuntimeStore, messages: readonly AgentAppMessage[]): Promise<AgentAppMessage[]> {
  const out: AgentAppMessage[] = [];
  for (const message of messages) {
    const key = cardAnswerKey(message);
    const answer = key === undefined ? undefined : await store.get(C.answers, key);
    const parsed = answer === undefined || answer instanceof Uint8Array ? undefined : cardAnswerOf(answer);
    out.push(parsed === undefined ? message : { ...message, answer: parsed });
  }
  return out;
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

/**
 * The writes that store `message` in its app's inbox, with the pending row of an explicit-ack message.
 * A display message's pending mark goes into its log chunk instead (the caller's, `log-chunks.ts`).
 */
export function storeMessageWrites(message: AgentAppMessage): StoreWrite[] {
  const key = inboxKey(message.app_scope, message.conversation_id, message.seq);
  const stored: StoreWrite = { op: "put", collection: C.inbox, key, value: message as unknown as JsonValue };
  return message.delivery === "display" ? [stored] : [stored, { op: "put", collection: C.inboxPending, key, value: { message_id: message.message_id } }];
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

export interface PendingPage {
  /** Pending messages, in inbox-key order (per conversation, oldest first). */
  readonly messages: readonly AgentAppMessage[];
  /** Where the next page starts (`afterKey`), or undefined when this was the last page. */
  readonly next?: string;
}

/**
 * One page of an app's pending (unacknowledged) messages: the explicit-ack messages' pending rows and
 * the display messages' marks in their log chunks, merged in inbox-key order. A mark whose message is
 * gone (its app was removed and installed again) is passed over.
 */
export async function readPendingPage(store: RuntimeStore, query: PendingQuery): Promise<PendingPage> {
  const prefix = query.conversationId === undefined ? `${query.appScope}/` : `${query.appScope}/${query.conversationId}/`;
  const [explicit, display] = await Promise.all([
    store.range(C.inboxPending, { prefix, ...(query.afterKey === undefined ? {} : { gt: query.afterKey }), limit: query.limit }),
    displayPendingKeys(store, query),
  ]);
  const keys = [...new Set([...explicit.map((row) => row.key), ...display])].sort(compareKeys).slice(0, query.limit);
  const found = keys.length === 0 ? [] : await store.getMany(keys.map((key) => ({ collection: C.inbox, key })));
  const messages = found.filter((message): message is JsonValue => message !== undefined && !(message instanceof Uint8Array)) as unknown as AgentAppMessage[];
  return { messages: await withAnswers(store, messages), ...(keys.length === query.limit ? { next: keys[keys.length - 1]! } : {}) };
}

/** Up to `limit` inbox keys of the app's display messages still marked unseen, after `afterKey`, in key order. */
async function displayPendingKeys(store: RuntimeStore, query: PendingQuery): Promise<string[]> {
  const after = query.afterKey === undefined ? undefined : parseInboxKey(query.afterKey);
  let conversations: string[];
  if (query.conversationId !== undefined) conversations = [query.conversationId];
  else {
    const all = new Set<string>();
    for (const { key } of await store.range(C.inboxUnseen)) {
      const parsed = parseChunkKey(key);
      if (parsed !== undefined) all.add(parsed.conversation_id);
    }
    // In the order of their inbox keys (`<app>/<conversation>/…`).
    conversations = [...all].sort((a, b) => compareKeys(`${a}/`, `${b}/`));
  }
  const keys: string[] = [];
  for (const conversationId of conversations) {
    if (after !== undefined && compareKeys(`${conversationId}/`, `${after.conversation_id}/`) < 0) continue;
    const afterSeq = after !== undefined && after.conversation_id === conversationId ? after.seq : 0;
    let from: { gte: string } | { gt: string } = { gte: chunkKey(conversationId, chunkOf(afterSeq)) };
    for (;;) {
      const rows = await store.range(C.inboxUnseen, { prefix: `${conversationId}/`, ...from, limit: CHUNK_PAGE });
      for (const { value } of rows) {
        for (const seq of unseenOf(asMarks(value), query.appScope)) if (seq > afterSeq) keys.push(inboxKey(query.appScope, conversationId, seq));
      }
      if (keys.length >= query.limit || rows.length < CHUNK_PAGE) break;
      from = { gt: rows[rows.length - 1]!.key };
    }
    if (keys.length >= query.limit) break;
  }
  return keys;
}

/** Chunk rows read at a time while looking for an app's unseen display messages. */
const CHUNK_PAGE = 32;

/** The parts of an inbox key (`inboxKey`): `<app_scope>/<conversation_id>/<seq>`; a conversation id may hold `/`. */
export function parseInboxKey(key: string): { app_scope: string; conversation_id: string; seq: number } | undefined {
  const first = key.indexOf("/");
  const last = key.lastIndexOf("/");
  if (first <= 0 || last <= first) return undefined;
  const seq = Number(key.slice(last + 1));
  return Number.isSafeInteger(seq) ? { app_scope: key.slice(0, first), conversation_id: key.slice(first + 1, last), seq } : undefined;
}

/** How many messages of `appScope` in `conversationId` are pending: explicit-ack rows and unseen display marks. */
export async function countPending(store: RuntimeStore, appScope: string, conversationId: string): Promise<number> {
  let count = await store.count(C.inboxPending, { prefix: `${appScope}/${conversationId}/` });
  for (const { value } of await store.range(C.inboxUnseen, { prefix: `${conversationId}/` })) count += unseenOf(asMarks(value), appScope).length;
  return count;
}

/** Every pending message id of every app (explicit-ack rows and unseen display marks), for checks and tests. */
export async function listPendingMessageIds(store: RuntimeStore): Promise<string[]> {
  const ids = (await store.range(C.inboxPending)).map((row) => (row.value as { message_id: string }).message_id);
  for (const { key, value } of await store.range(C.inboxUnseen)) {
    const parsed = parseChunkKey(key);
    if (parsed === undefined) continue;
    for (const seqs of Object.values(asMarks(value))) for (const seq of seqs) ids.push(messageIdFor(parsed.conversation_id, seq));
  }
  return ids;
}
