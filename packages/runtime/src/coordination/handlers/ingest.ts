import { validateEnvelope, type JsonValue, type RuntimeEnvelope } from "@lineup/protocol";
import { putOutboxEntry, type OutboxEntry } from "../../communication/outbox.js";
import { toTimestamp } from "../../core/ports.js";
import { answerKey, answerWrite, cardAnswerOf, inboxKey, messageIdFor, storeMessageWrites, type AgentAppMessage } from "../../persistence/inbox.js";
import { messageCursor } from "../../persistence/history.js";
import { asChunk, asMarks, chunkWrite, marksWrite, withEnvelope, withUnseen } from "../../persistence/log-chunks.js";
import { RUNTIME_COLLECTIONS as C, padNumber } from "../../persistence/runtime-schema.js";
import type { StoreWrite } from "../../persistence/store.js";
import { CHAT_APP_SCOPE } from "../../apps/core-app-registry.js";
import { chunkReads, filterEvent, type FilterOutcome } from "../filter-chain.js";
import { appDirectoryOf } from "../app-directory.js";
import { Step } from "../apps-step.js";
import { instanceDirectoryOf } from "../instance-ownership.js";
import { onToolEnvelope } from "./tools.js";
import { readId, type AuditDraft, type Delivery, type Effect, type Reads, type RuntimeInput, type TransitionResult } from "../inputs.js";
import { isLiveFor, withConversation, type Conversation, type RuntimeState } from "../state.js";
import type { TransitionEnv } from "./env.js";
import { goOnlineIfReady } from "./go-online.js";
import { DEFAULT_MAX_PENDING_PER_APP, pendingOf, withPending } from "../backlog.js";

const cursorWrite = (conversationId: string, seq: number): StoreWrite => ({ op: "put", collection: C.cursors, key: conversationId, value: { seq } });

/**
 * One inbound session event: the filter chain decides; the inbox rows, the envelope-id record, the
 * audit record and the cursor advance are written in the same commit (RELIABILITY R6), and the
 * message is delivered only after it, and only when the conversation is live.
 */
export function onEvent(state: RuntimeState, input: Extract<RuntimeInput, { kind: "event" }>, reads: Reads, env: TransitionEnv): TransitionResult {
  const { event } = input;
  const conversation = state.conversations.get(event.session_id);
  const outcome = filterEvent(event, {
    conversation,
    reads,
    apps: appDirectoryOf(state.apps),
    instances: env.instances ?? instanceDirectoryOf(state),
    now: stamperOf(env),
  });

  if (outcome.kind === "ignored") return { state, writes: [], effects: [], deliveries: [], audit: [refusedAudit(event, outcome)] };
  if (outcome.kind === "gap" && conversation !== undefined) {
    // Resubscribe after the cursor: the server resends from there, in order.
    return {
      state: withConversation(state, { ...conversation, following: { status: "catching_up" } }),
      writes: [],
      effects: [{ kind: "subscribe", session_id: conversation.conversation_id, after_seq: conversation.cursor }],
      deliveries: [],
      audit: [refusedAudit(event, outcome)],
    };
  }
  if (conversation === undefined || outcome.kind === "gap") return { state, writes: [], effects: [], deliveries: [], audit: [] };

  const writes: StoreWrite[] = [cursorWrite(conversation.conversation_id, event.seq)];
  let next: Conversation = { ...conversation, cursor: event.seq };
  let nextState = state;
  const effects: Effect[] = [];
  const deliveries: Delivery[] = [];

  if (outcome.kind === "tool") {
    const step = new Step(withConversation(state, next));
    const own = chunkReads(conversation.conversation_id, event.seq).chunks[0]!;
    step.writes.push(...writes, chunkWrite(own.key, withEnvelope(asChunk(reads.get(readId(own))), outcome.envelope.id, event.seq)));
    onToolEnvelope(step, env, outcome.envelope, event.actor.id, reads);
    return step.result();
  }

  if (outcome.kind === "refused") {
    writes.push(...answerWrites(conversation.conversation_id, event.actor.role, outcome));
    const reply = outcome.envelope?.type === "lineup.tool.invoke" ? toolErrorReply(state, outcome, env) : undefined;
    if (reply !== undefined) {
      writes.push(putOutboxEntry(reply));
      const outbox = new Map(state.outbox);
      outbox.set(reply.order, reply);
      nextState = { ...state, outbox, next_outbox_order: reply.order + 1 };
      effects.push({ kind: "outbox.flush" });
    }
    const records: AuditDraft[] = [refusedAudit(event, outcome)];
    if (reply !== undefined) records.push({ type: "tool.refused", code: outcome.refusal.code, conversation_id: event.session_id, subject: outcome.envelope?.correlation?.call_id ?? "", detail: `replied with lineup.tool.error (outbox ${reply.order})` });
    return { state: withConversation(nextState, next), writes, effects, deliveries, audit: records };
  }

  // The envelope's id goes into the event's log chunk and the display messages' pending marks into its
  // unseen marks: a row or two written per chunk and turn, not one per event (persistence/log-chunks.ts).
  const chunk = chunkReads(conversation.conversation_id, event.seq);
  const chunkAt = chunk.marks.key;
  if (outcome.envelope !== undefined) writes.push(chunkWrite(chunkAt, withEnvelope(asChunk(reads.get(readId(chunk.chunks[0]!))), outcome.envelope.id, event.seq)));
  const storedMarks = asMarks(reads.get(readId(chunk.marks)));
  let marks = storedMarks;
  writes.push(...answerWrites(conversation.conversation_id, event.actor.role, outcome));
  const draft = outcome.draft;
  const audit: AuditDraft[] = [];
  if (draft !== undefined) {
    const seqKey = padNumber(event.seq);
    const limit = env.maxPendingPerApp ?? DEFAULT_MAX_PENDING_PER_APP;
    for (const appScope of outcome.recipients) {
      if (draft.delivery !== "display") {
        // The app's backlog of messages awaiting its ACK is bounded: past it, this app is refused the message.
        const waiting = pendingOf(next, appScope);
        if (waiting >= limit) {
          audit.push({
            type: "ingress.agent.refused",
            code: "inbox_full",
            conversation_id: event.session_id,
            subject: `${event.session_id}#${event.seq}`,
            detail: `${appScope} has ${waiting} messages waiting for acknowledgement in ${event.session_id} (at most ${limit}); ${draft.type} not stored for it`,
          });
          continue;
        }
        next = withPending(next, appScope, 1);
      }
      const envelope = draft.envelope;
      const message: AgentAppMessage = {
        message_id: messageIdFor(conversation.conversation_id, event.seq),
        cursor: messageCursor(conversation.conversation_id, seqKey),
        app_scope: appScope,
        conversation_id: conversation.conversation_id,
        seq: event.seq,
        type: draft.type,
        delivery: draft.delivery,
        sender: draft.sender,
        created_at: envelope?.timestamp ?? event.created_at,
        payload: draft.payload,
        ...(envelope === undefined ? {} : { envelope_id: envelope.id }),
        ...(envelope === undefined || envelope.scope.app_scope === appScope ? {} : { source_app_scope: envelope.scope.app_scope }),
        ...(draft.turn_id === undefined ? {} : { turn_id: draft.turn_id }),
        ...(envelope?.scope.instance_id === undefined ? {} : { instance_id: envelope.scope.instance_id }),
        ...(envelope?.correlation === undefined ? {} : { correlation: envelope.correlation as { [key: string]: JsonValue } }),
      };
      writes.push(...storeMessageWrites(message));
      if (message.delivery === "display") marks = withUnseen(marks, appScope, event.seq);
      if (appScope === CHAT_APP_SCOPE) next = { ...next, unread: next.unread + 1 };
      if (isLiveFor(state, conversation.conversation_id)) deliveries.push({ kind: "message", message });
    }
  }
  if (marks !== storedMarks) writes.push(marksWrite(chunkAt, marks));
  return { state: withConversation(nextState, next), writes, effects, deliveries, audit };
}

/** Each environment's clock as timestamps, made once (not a closure per event). */
const stampers = new WeakMap<TransitionEnv, () => string>();

function stamperOf(env: TransitionEnv): () => string {
  let stamp = stampers.get(env);
  if (stamp === undefined) stampers.set(env, (stamp = () => toTimestamp(env.now())));
  return stamp;
}

/** The audit record of an event the filter chain did not accept. */
function refusedAudit(event: Extract<RuntimeInput, { kind: "event" }>["event"], outcome: Exclude<FilterOutcome, { kind: "accepted" | "tool" }>): AuditDraft {
  return {
    type: "ingress.agent.refused",
    code: outcome.refusal.code,
    conversation_id: event.session_id,
    subject: `${event.session_id}#${event.seq}`,
    detail: outcome.refusal.message,
  };
}

/** An answer to a card, from any of the user's devices (`action.responded`, `lineup.interaction.response`): recorded against the card. */
function answerWrites(conversationId: string, actorRole: string, outcome: Extract<FilterOutcome, { kind: "accepted" | "refused" }>): StoreWrite[] {
  const draft = outcome.kind === "accepted" ? outcome.draft : undefined;
  if (draft?.type === "lineup.action.responded") {
    const p = draft.payload as { action_id?: unknown; response?: unknown } | null;
    const answer = cardAnswerOf(p?.response);
    return typeof p?.action_id === "string" && answer !== undefined ? [answerWrite(answerKey(conversationId, "action", p.action_id), answer)] : [];
  }
  // Only the user answers a card: an interaction response from anyone else (the agent) is not recorded. Addressed
  // to the Runtime, no app subscribes to it, so it arrives refused as `not_subscribed`; any other refusal is not recorded.
  const delivered = outcome.kind === "accepted" || outcome.refusal.code === "not_subscribed";
  if (delivered && outcome.envelope?.type === "lineup.interaction.response" && actorRole === "device" && outcome.envelope.sender.kind === "user") {
    const p = outcome.envelope.payload as { interaction_id?: unknown } | null;
    const answer = cardAnswerOf(p);
    return typeof p?.interaction_id === "string" && answer !== undefined ? [answerWrite(answerKey(conversationId, "interaction", p.interaction_id), answer)] : [];
  }
  return [];
}

/** The definite refusal a tool call gets (spec 5.4.5): a `lineup.tool.error` back to the agent, through the outbox. */
function toolErrorReply(state: RuntimeState, outcome: Extract<FilterOutcome, { kind: "refused" }>, env: TransitionEnv): OutboxEntry | undefined {
  const invoke = outcome.envelope as RuntimeEnvelope;
  // Identity and scope refusals are not answered: the sender is not who the conversation trusts.
  if (outcome.refusal.code === "unknown_agent" || outcome.refusal.code === "scope_mismatch" || outcome.refusal.code === "duplicate_message") return undefined;
  const callId = invoke.correlation?.call_id;
  if (callId === undefined) return undefined;
  const envelope = {
    v: 1,
    id: env.newId("env"),
    type: "lineup.tool.error",
    timestamp: toTimestamp(env.now()),
    sender: { kind: "runtime", id: state.runtime_id },
    target: { kind: "runtime", app_scope: "runtime" },
    scope: { app_scope: invoke.scope.app_scope, conversation_id: invoke.scope.conversation_id },
    correlation: { call_id: callId, reply_to: invoke.id },
    payload: { code: outcome.refusal.code, message: outcome.refusal.message.slice(0, 2000) },
  };
  if (!validateEnvelope(envelope).ok) return undefined;
  const order = state.next_outbox_order;
  return {
    order,
    conversation_id: invoke.scope.conversation_id,
    app_scope: "runtime",
    receipt_id: env.newId("rcpt"),
    action_type: "tool.refuse",
    accepted_at: toTimestamp(env.now()),
    method: "agentSession/envelope/send",
    params: { session_id: invoke.scope.conversation_id, idempotency_key: env.newId("idem"), envelope },
    status: "pending",
  };
}

/** The seam of one session: everything stored when it was subscribed has been applied. */
export function onCaughtUp(state: RuntimeState, input: Extract<RuntimeInput, { kind: "caught_up" }>, env: TransitionEnv): TransitionResult {
  const conversation = state.conversations.get(input.session_id);
  if (conversation === undefined || conversation.following.status !== "catching_up") return { state, writes: [], effects: [], deliveries: [], audit: [] };
  if (input.seq > conversation.cursor) {
    // A seam ahead of what was applied means events went missing on the way: follow again from the cursor.
    return {
      state,
      writes: [],
      effects: [{ kind: "subscribe", session_id: conversation.conversation_id, after_seq: conversation.cursor }],
      deliveries: [],
      audit: [{ type: "sync.gap", code: "out_of_order", conversation_id: conversation.conversation_id, detail: `caughtUp at ${input.seq} but applied through ${conversation.cursor}` }],
    };
  }
  const audit: AuditDraft[] =
    input.seq < conversation.cursor
      ? [{ type: "sync.cursor_refused", code: "cursor_invalid", conversation_id: conversation.conversation_id, detail: `server head ${input.seq} is behind the stored cursor ${conversation.cursor}; the cursor is kept` }]
      : [];
  let next = withConversation(state, { ...conversation, following: { status: "live" } });
  const deliveries: Delivery[] = [];
  const effects: Effect[] = [];
  if (next.lifecycle.status === "online") deliveries.push({ kind: "flush", conversation_id: conversation.conversation_id });
  const online = goOnlineIfReady(next, env.now());
  next = online.state;
  return { state: next, writes: [], effects: [...effects, ...online.effects], deliveries: [...deliveries, ...online.deliveries], audit };
}

export { inboxKey };

/**
 * An event the server framed soundly but whose content this Runtime cannot read (a newer or malformed
 * event): in order, it is consumed — the cursor moves past it, the refusal is audited — so the log keeps
 * flowing; early (a gap) it resubscribes like any gap; late, it was already applied.
 */
export function onMalformedEvent(state: RuntimeState, input: Extract<RuntimeInput, { kind: "event.malformed" }>): TransitionResult {
  const conversation = state.conversations.get(input.session_id);
  if (conversation === undefined || input.seq <= conversation.cursor) return { state, writes: [], effects: [], deliveries: [], audit: [] };
  const audit: AuditDraft = { type: "ingress.agent.refused", code: input.code, conversation_id: input.session_id, subject: `${input.session_id}#${input.seq}`, detail: input.message };
  if (input.seq !== conversation.cursor + 1) {
    return {
      state: withConversation(state, { ...conversation, following: { status: "catching_up" } }),
      writes: [],
      effects: [{ kind: "subscribe", session_id: conversation.conversation_id, after_seq: conversation.cursor }],
      deliveries: [],
      audit: [audit],
    };
  }
  return { state: withConversation(state, { ...conversation, cursor: input.seq }), writes: [cursorWrite(conversation.conversation_id, input.seq)], effects: [], deliveries: [], audit: [audit] };
}
