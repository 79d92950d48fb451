import { deleteOutboxEntry, putOutboxEntry } from "../../communication/outbox.js";
import type { Effect, RuntimeInput, TransitionResult } from "../inputs.js";
import { withConversation, type RuntimeState } from "../state.js";
import { sessionRecordWrite } from "./sessions.js";

/**
 * The server decided an outbox entry. Applied: the entry is removed (a started conversation becomes a
 * server conversation and is followed). Failed permanently: the entry is kept as `failed` so the app can
 * show it, and audited. Transient failures never get here: the shell retries them with the same key.
 */
export function onOutboxSettled(state: RuntimeState, input: Extract<RuntimeInput, { kind: "outbox.settled" }>): TransitionResult {
  const entry = state.outbox.get(input.order);
  // Already settled (a duplicate answer): nothing to record, but the outbox must keep moving.
  if (entry === undefined || entry.status !== "pending") return { state, writes: [], effects: [{ kind: "outbox.flush" }], deliveries: [], audit: [] };
  const outbox = new Map(state.outbox);
  const effects: Effect[] = [{ kind: "outbox.flush" }];
  if (input.outcome.status === "failed") {
    const failed = { ...entry, status: "failed" as const, error: { code: input.outcome.code, message: input.outcome.message.slice(0, 2000) } };
    outbox.set(entry.order, failed);
    return {
      state: { ...state, outbox },
      writes: [putOutboxEntry(failed)],
      effects,
      deliveries: [],
      audit: [{ type: "outbox.failed", code: input.outcome.code, conversation_id: entry.conversation_id, subject: entry.receipt_id, detail: `${entry.method}: ${input.outcome.message}` }],
    };
  }
  outbox.delete(entry.order);
  let next: RuntimeState = { ...state, outbox };
  const writes = [deleteOutboxEntry(entry.order)];
  const conversation = state.conversations.get(entry.conversation_id);
  if (entry.method === "agentSession/start" && conversation !== undefined && conversation.origin === "local") {
    const started = { ...conversation, origin: "server" as const };
    next = withConversation(next, started);
    writes.push(sessionRecordWrite(started));
    effects.push({ kind: "relist" });
  }
  return { state: next, writes, effects, deliveries: [], audit: [] };
}
