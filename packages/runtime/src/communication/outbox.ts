/**
 * The outbox (spec 3.3): app actions become requests to the AppServer that are stored — with their
 * idempotency key and full body — in the same commit that accepts them, and are sent in order per
 * conversation whenever the Runtime is connected. Because the body and key are fixed at acceptance, a
 * resend after a lost response or a crash is the same request, and the server applies it once. (The
 * one part of a request that is not stored is `after_key`, the ordered-writes precondition the sync
 * driver adds when it pipelines; it is not part of the body.)
 *
 * Pure helpers here; the connection shell (`sync-driver.ts`) does the sending.
 */
import type { ErrorCode, JsonObject, JsonValue } from "@lineup/protocol";
import { RUNTIME_COLLECTIONS as C, padNumber } from "../persistence/runtime-schema.js";
import type { StoreWrite } from "../persistence/store.js";

export type OutboxMethod =
  | "agentSession/start"
  | "agentSession/turn/start"
  | "agentSession/turn/cancel"
  | "agentSession/action/respond"
  | "agentSession/envelope/send"
  | "inventory/publish"
  | "artifact/put";

export interface OutboxEntry {
  /** Global acceptance order; per conversation, entries are sent in this order. */
  readonly order: number;
  readonly conversation_id: string;
  /** The app whose action this is (`runtime` for the Runtime's own replies, such as a refused tool call). */
  readonly app_scope: string;
  readonly receipt_id: string;
  readonly action_type: string;
  readonly accepted_at: string;
  readonly method: OutboxMethod;
  /** The request params, idempotency_key included: fixed at acceptance, resent the same (plus `after_key` when pipelined). */
  readonly params: JsonObject;
  readonly status: "pending" | "failed";
  readonly error?: { readonly code: ErrorCode; readonly message: string };
}

/** What `actions.dispatch` resolves with: the action is stored and will be sent (spec 6.2). */
export interface CommandReceipt {
  readonly receipt_id: string;
  readonly action_type: string;
  readonly conversation_id: string;
  readonly idempotency_key: string;
  readonly accepted_at: string;
  readonly status: "queued";
}

/**
 * A new entry accepted now, at `order`: a fresh receipt id and a fresh idempotency key, or `idempotency_key`
 * when it repeats a request already sent (the server answers from its record).
 */
export function newOutboxEntry(
  order: number,
  newId: (prefix: string) => string,
  acceptedAt: string,
  fields: { conversation_id: string; app_scope: string; action_type: string; method: OutboxMethod; params: JsonObject; idempotency_key?: string },
): OutboxEntry {
  const { idempotency_key: repeatedKey, ...rest } = fields;
  return {
    order,
    receipt_id: newId("rcpt"),
    accepted_at: acceptedAt,
    status: "pending",
    ...rest,
    params: { ...rest.params, idempotency_key: repeatedKey ?? newId("idem") },
  };
}

/** Whether an entry with this idempotency key waits in the outbox (or failed there): sending it twice would do nothing more. */
export function outboxHolds(outbox: ReadonlyMap<number, OutboxEntry>, idempotencyKey: string): boolean {
  for (const entry of outbox.values()) if (entry.params["idempotency_key"] === idempotencyKey) return true;
  return false;
}

export function outboxKey(order: number): string {
  return padNumber(order);
}

export function putOutboxEntry(entry: OutboxEntry): StoreWrite {
  return { op: "put", collection: C.outbox, key: outboxKey(entry.order), value: entry as unknown as JsonValue };
}

export function deleteOutboxEntry(order: number): StoreWrite {
  return { op: "delete", collection: C.outbox, key: outboxKey(order) };
}

export function receiptOf(entry: OutboxEntry): CommandReceipt {
  return {
    receipt_id: entry.receipt_id,
    action_type: entry.action_type,
    conversation_id: entry.conversation_id,
    idempotency_key: String(entry.params["idempotency_key"]),
    accepted_at: entry.accepted_at,
    status: "queued",
  };
}

/** Entries of one conversation in flight at once when the server announces ordered writes. */
export const OUTBOX_PIPELINE_DEPTH = 32;
/** Entries in flight at once over all conversations (the server's bounded queues stay far from full). */
export const OUTBOX_MAX_IN_FLIGHT = 64;

/** What the sync driver knows about its sends, for `nextSendable`. */
export interface SendState {
  /** Per conversation, the orders of its entries sent and not answered yet. */
  readonly inFlight: ReadonlyMap<string, ReadonlySet<number>>;
  /** Entries the server applied whose outcome is being committed: done, as far as sending goes. */
  readonly settling?: ReadonlySet<number>;
  /** Entries that must not go now (a retry waiting for its pause, a refused successor waiting for its predecessor's answer): they and every later entry of their conversation wait. */
  readonly held?: (entry: OutboxEntry) => boolean;
  /** Entries one conversation may have in flight: 1 is stop-and-wait (a server without ordered writes). */
  readonly depth?: number;
  /** Entries all conversations together may have in flight (default OUTBOX_MAX_IN_FLIGHT): the oldest go first. */
  readonly limit?: number;
  /**
   * The entries come oldest first (the Runtime's outbox, a persistent map, iterates in acceptance order): the scan
   * stops once the room is filled, so a send costs what is in flight, not the whole outbox. Otherwise all are sorted.
   */
  readonly oldestFirst?: boolean;
}

/**
 * The entries to send now, oldest first. Per conversation, its pending entries go strictly in order: an
 * entry goes only when every earlier pending entry of its conversation is in flight (or being settled),
 * and while fewer than `depth` are in flight; a held entry stops its conversation there. Failed entries
 * block nothing: they are skipped, as the server never applied them. An `artifact/put` chunk is sent
 * alone (nothing of its conversation in flight beside it). Over all conversations at most `limit` are
 * in flight: the oldest go (a cut keeps each conversation's entries a prefix).
 */
export function nextSendable(entries: Iterable<OutboxEntry>, state: SendState): OutboxEntry[] {
  let room = state.limit ?? OUTBOX_MAX_IN_FLIGHT;
  for (const sent of state.inFlight.values()) room -= sent.size;
  if (room <= 0) return [];
  const sorted = (all: Iterable<OutboxEntry>): OutboxEntry[] => {
    const schedule = scheduler(state, room);
    for (const entry of [...all].sort((x, y) => x.order - y.order)) if (schedule.offer(entry)) break;
    return schedule.sendable;
  };
  if (state.oldestFirst !== true) return sorted(entries);
  // Oldest first: each entry is scheduled as it comes, and the scan stops once the room is filled (the ones after are
  // younger). An app change queues an inventory publication per conversation, so an outbox can hold thousands.
  const schedule = scheduler(state, room);
  const scanned: OutboxEntry[] = [];
  const iterator = entries[Symbol.iterator]();
  for (let next = iterator.next(); next.done !== true; next = iterator.next()) {
    // Not oldest first after all: every entry (those scanned, this one and the rest), sorted.
    if (scanned.length > 0 && next.value.order < scanned[scanned.length - 1]!.order) return sorted([...scanned, next.value, ...{ [Symbol.iterator]: () => iterator }]);
    scanned.push(next.value);
    if (schedule.offer(next.value)) break;
  }
  return schedule.sendable;
}

/** `nextSendable`'s rules over entries offered oldest first; `offer` is true once `room` entries are picked. */
function scheduler(state: SendState, room: number): { readonly sendable: OutboxEntry[]; offer(entry: OutboxEntry): boolean } {
  const settling = state.settling ?? NONE;
  const depth = state.depth ?? 1;
  // Per conversation: its entries in flight with the ones picked, and whether nothing more of it may go now.
  const conversations = new Map<string, { inFlight: number; blocked: boolean }>();
  const sendable: OutboxEntry[] = [];
  return {
    sendable,
    offer(entry) {
      if (entry.status !== "pending" || settling.has(entry.order)) return false;
      const sent = state.inFlight.get(entry.conversation_id);
      let conversation = conversations.get(entry.conversation_id);
      if (conversation === undefined) conversations.set(entry.conversation_id, (conversation = { inFlight: sent?.size ?? 0, blocked: false }));
      if (conversation.blocked) return false;
      if (sent?.has(entry.order) === true) {
        // Nothing goes behind an upload chunk in flight.
        if (entry.method === "artifact/put") conversation.blocked = true;
        return false;
      }
      // An upload chunk (up to the server's chunk size) goes alone: pipelined chunks would queue megabytes on the
      // connection ahead of other conversations' small writes.
      if (conversation.inFlight >= depth || state.held?.(entry) === true || (entry.method === "artifact/put" && conversation.inFlight > 0)) {
        conversation.blocked = true;
        return false;
      }
      sendable.push(entry);
      conversation.inFlight += 1;
      if (entry.method === "artifact/put") conversation.blocked = true;
      return sendable.length >= room;
    },
  };
}

const NONE: ReadonlySet<number> = new Set();

/** Failures worth retrying with the same key: the server did not (durably) decide. Everything else is permanent. */
export const TRANSIENT_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "request_timeout",
  "request_cancelled",
  "overloaded",
  "internal_error",
  "store_write_failed",
  "not_initialized",
]);
