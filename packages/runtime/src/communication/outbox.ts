/**
 * The outbox (spec 3.3): app actions become requests to the AppServer that are stored — with their
 * idempotency key and full body — in the same commit that accepts them, and are sent in order per
 * conversation whenever the Runtime is connected. Because the body and key are fixed at acceptance, a
 * resend after a lost response or a crash is the same request, and the server applies it once.
 *
 * Pure helpers here; the connection shell (`sync-driver.ts`) does the sending.
 */
import type { ErrorCode, JsonObject, JsonValue } from "@lineup/protocol";
import { RUNTIME_COLLECTIONS as C, padNumber } from "../persistence/runtime-schema.js";
import type { StoreWrite } from "../persistence/store.js";

export type OutboxMethod = "agentSession/start" | "agentSession/turn/start" | "agentSession/action/respond" | "agentSession/envelope/send" | "inventory/publish" | "artifact/put";

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
  /** The request params, idempotency_key included: fixed at acceptance, resent byte-identical. */
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

/**
 * The entries to send now: for each conversation, its oldest pending entry, unless that conversation
 * already has one in flight or its oldest entry failed (a failed entry blocks nothing: it is skipped, as
 * the server never applied it). Entries in `settling` were applied by the server and only wait for that
 * outcome's commit: they are skipped too, so the next entry may go. Oldest conversation first.
 */
export function nextSendable(entries: Iterable<OutboxEntry>, inFlight: { has(conversationId: string): boolean }, settling: ReadonlySet<number> = NONE): OutboxEntry[] {
  // One pass for each conversation's oldest pending entry (no sorted copy of the whole outbox per flush).
  let oldest: Map<string, OutboxEntry> | undefined;
  for (const entry of entries) {
    if (entry.status !== "pending" || settling.has(entry.order)) continue;
    const current = oldest?.get(entry.conversation_id);
    if (current === undefined || entry.order < current.order) (oldest ??= new Map()).set(entry.conversation_id, entry);
  }
  const sendable: OutboxEntry[] = [];
  if (oldest === undefined) return sendable;
  for (const entry of oldest.values()) if (!inFlight.has(entry.conversation_id)) sendable.push(entry);
  if (sendable.length > 1) sendable.sort((a, b) => a.order - b.order);
  return sendable;
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
