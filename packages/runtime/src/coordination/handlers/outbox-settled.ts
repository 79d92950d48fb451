import type { ErrorCode, JsonValue, SessionEvent } from "@lineup/protocol";
import { isTerminal, TaskDraft, withTaskChange } from "../../tasks/records.js";
import { deleteOutboxEntry, putOutboxEntry, type OutboxEntry } from "../../communication/outbox.js";
import type { AuditDraft, Effect, RuntimeInput, TransitionResult } from "../inputs.js";
import { withConversation, type RuntimeState } from "../state.js";
import { sessionRecordWrite } from "./sessions.js";

/**
 * The server decided an outbox entry. Applied: the entry is removed (a started conversation becomes a
 * server conversation and is followed). Failed permanently: the entry is kept as `failed` so the app can
 * show it, and audited — except a refusal something else supersedes (`supersededRefusal`), removed like an
 * applied one with its own audit record. Transient failures never get here: the shell retries them with the
 * same key.
 */
export function onOutboxSettled(state: RuntimeState, input: Extract<RuntimeInput, { kind: "outbox.settled" }>, now: string): TransitionResult {
  const entry = state.outbox.get(input.order);
  // Already settled (a duplicate answer): nothing to record, but the outbox must keep moving.
  if (entry === undefined || entry.status !== "pending") return { state, writes: [], effects: [{ kind: "outbox.flush" }], deliveries: [], audit: [] };
  const effects: Effect[] = [{ kind: "outbox.flush" }];
  const superseded = input.outcome.status === "failed" ? supersededRefusal(entry, input.outcome.code, input.outcome.message) : undefined;
  if (superseded !== undefined) {
    return { state: { ...state, outbox: state.outbox.without(entry.order) }, writes: [deleteOutboxEntry(entry.order)], effects, deliveries: [], audit: [superseded] };
  }
  if (input.outcome.status === "failed") {
    const failed = { ...entry, status: "failed" as const, error: { code: input.outcome.code, message: input.outcome.message.slice(0, 2000) } };
    const result: TransitionResult = {
      state: { ...state, outbox: state.outbox.with(entry.order, failed) },
      writes: [putOutboxEntry(failed)],
      effects,
      deliveries: [],
      audit: [{ type: "outbox.failed", code: input.outcome.code, conversation_id: entry.conversation_id, subject: entry.receipt_id, detail: `${entry.method}: ${input.outcome.message}` }],
    };
    return entry.method === "agentSession/turn/start" ? failTaskAttempt(result, entry.params["turn_id"], input.outcome.code, input.outcome.message, now) : result;
  }
  let next: RuntimeState = { ...state, outbox: state.outbox.without(entry.order) };
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

/** The id of the envelope `event` carries when this Runtime sent it (a device wrote it, and the sender is this Runtime), else undefined. */
export function echoedHere(state: RuntimeState, event: SessionEvent): string | undefined {
  if (event.kind !== "envelope" || event.actor.role !== "device") return undefined;
  const envelope = (event.data as { envelope?: { id?: unknown; sender?: { kind?: unknown; id?: unknown } } } | null)?.envelope;
  return typeof envelope?.id === "string" && envelope.sender?.kind === "runtime" && envelope.sender.id === state.runtime_id ? envelope.id : undefined;
}

/**
 * The log holds one of this Runtime's own envelopes (`agentSession/envelope/send`: a tool receipt, result or
 * error, a notice): the server applied that outbox entry, so the entry goes in the commit that applies the
 * event, as the server's answer to the send would remove it. Its echo is proof enough: the server stamps the
 * actor (only a device writes as one), the sender is this Runtime, and the envelope id is the entry's own,
 * which the server takes once in the whole log. The answer arriving later finds nothing left to settle, so
 * the two make one commit instead of two. Only after the event's cursor advance (`after` applied it).
 */
export function settleEchoedEntry(before: RuntimeState, event: SessionEvent, after: TransitionResult): TransitionResult {
  const envelopeId = echoedHere(before, event);
  if (envelopeId === undefined) return after;
  const was = before.conversations.get(event.session_id)?.cursor ?? 0;
  if (!(was < event.seq && after.state.conversations.get(event.session_id)?.cursor === event.seq)) return after;
  for (const entry of after.state.outbox.values()) {
    if (entry.status !== "pending" || entry.method !== "agentSession/envelope/send" || entry.conversation_id !== event.session_id) continue;
    if ((entry.params["envelope"] as { id?: unknown } | undefined)?.id !== envelopeId) continue;
    return { ...after, state: { ...after.state, outbox: after.state.outbox.without(entry.order) }, writes: [...after.writes, deleteOutboxEntry(entry.order)] };
  }
  return after;
}

/** The AppServer refused an app task's turn for good (an attachment it does not hold, a schema it refuses): the attempt failed. */
function failTaskAttempt(result: TransitionResult, turnId: JsonValue | undefined, code: ErrorCode, message: string, now: string): TransitionResult {
  const draft = new TaskDraft(result.state.tasks, now);
  const turn = draft.turn(turnId);
  if (turn === undefined || turn.attempt !== turn.task.attempt || isTerminal(turn.task.status)) return result;
  const error = { code, message: `the AppServer refused the task: ${message}`.slice(0, 2000) };
  draft.append(turn.task.task_id, turn.attempt, { kind: "error", ...error });
  draft.append(turn.task.task_id, turn.attempt, { kind: "status", status: "failed" }, { status: "failed", error });
  return withTaskChange(result, draft.done());
}

/** Why the server may refuse a turn cancel that has nothing left to do: the turn ended first, or was never started. */
const MOOT_CANCEL: ReadonlySet<ErrorCode> = new Set<ErrorCode>(["invalid_state", "not_found"]);

/**
 * The audit record of a refusal that leaves nothing to show, or undefined: a turn cancel whose turn is already
 * over or never started (what the person asked for holds), and an inventory publication refused as stale because
 * another device of the user published meanwhile (a new one replaces it: handlers/inventory-sync.ts).
 */
function supersededRefusal(entry: OutboxEntry, code: ErrorCode, message: string): AuditDraft | undefined {
  if (entry.method === "agentSession/turn/cancel" && MOOT_CANCEL.has(code)) {
    return { type: "turn.cancel.moot", code, conversation_id: entry.conversation_id, subject: entry.receipt_id, detail: `turn ${String(entry.params["turn_id"])}: ${message}` };
  }
  if (entry.method === "inventory/publish" && code === "stale_inventory_revision") {
    return { type: "inventory.stale", code, conversation_id: entry.conversation_id, detail: `revision ${String(entry.params["revision"])}: ${message}`.slice(0, 500) };
  }
  return undefined;
}
