import { RUNTIME_SCOPE, validateEnvelope, type ErrorCode, type JsonValue, type RuntimeEnvelope } from "@lineup/protocol";
import { newOutboxEntry, putOutboxEntry, type OutboxEntry } from "../../communication/outbox.js";
import { toTimestamp } from "../../core/ports.js";
import { answerKey, answerWrite, cardAnswerOf, inboxKey, messageIdFor, storeMessageWrites, type AgentAppMessage } from "../../persistence/inbox.js";
import { conversationArtifactWrite, isArtifactRef, type ConversationArtifact } from "../../persistence/conversation-artifacts.js";
import { messageCursor } from "../../persistence/history.js";
import { asChunk, asMarks, chunkWrite, marksWrite, withEnvelope, withUnseen } from "../../persistence/log-chunks.js";
import { padNumber } from "../../persistence/runtime-schema.js";
import type { StoreWrite } from "../../persistence/store.js";
import { CHAT_APP_SCOPE } from "../../app-lifecycle/core-app-registry.js";
import { chunkReads, filterEvent, type FilterOutcome } from "../filter-chain.js";
import { appDirectoryOf } from "../app-directory.js";
import { applyCallDecision } from "../call-folding.js";
import { Step, stepAfter } from "../step.js";
import { endTurnCalls } from "../../tools/reports.js";
import { withActivity, withTurnEvent } from "../turns.js";
import { foldLogEvent, TASK_LOG_KINDS, TaskDraft, withTaskChange } from "../../tasks/records.js";
import { instanceDirectoryOf } from "../instance-ownership.js";
import { onToolEnvelope, recordCallElsewhere } from "./tools.js";
import { echoedHere } from "./outbox-settled.js";
import { answersCallsIn } from "./inventory-sync.js";
import { readId, type AuditDraft, type Delivery, type Effect, type Reads, type RuntimeInput, type TransitionResult } from "../inputs.js";
import { isLiveFor, withConversation, type Conversation, type RuntimeState } from "../state.js";
import type { TransitionEnv } from "./env.js";
import { cursorWrite } from "./sessions.js";
import { goOnlineIfReady } from "./go-online.js";
import { DEFAULT_MAX_PENDING_PER_APP, pendingOf, withPending } from "../backlog.js";
import { noticeMessage, takeNotice } from "./notices.js";
import { decisionsOf } from "../../capabilities/loop-state.js";
import { decisionKey } from "../../capabilities/state.js";

/** A tool call left to the device whose inventory is the session's latest (handlers/inventory-sync.ts): it answers, this one does not. */
const elsewhereAudit = (event: Extract<RuntimeInput, { kind: "event" }>["event"], envelope: RuntimeEnvelope): AuditDraft => ({
  type: "tool.elsewhere",
  conversation_id: event.session_id,
  subject: envelope.correlation?.call_id ?? envelope.id,
  detail: `${envelope.type} at seq ${event.seq}: the session's inventory is another device's, which answers it`,
});

/** The instance an envelope is about or addressed to (the filter chain has checked it belongs to the conversation). */
const instanceOf = (envelope: RuntimeEnvelope | undefined): string | undefined => envelope?.scope.instance_id ?? envelope?.target.instance_id;

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
    blockedApps: env.host.inventoryPolicy.blocked_apps ?? [],
    granted: (appScope, capability) => decisionsOf(state.grants)[decisionKey(appScope, capability)]?.decision === "granted",
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

  // The log's turns move with its cursor, whatever apps see of the event (coordination/turns.ts).
  // Something said counts only when accepted: a refused message was not said to anyone here.
  const moved: Conversation = withTurnEvent({ ...conversation, cursor: event.seq }, event);
  let next: Conversation = outcome.kind === "accepted" ? withActivity(moved, event) : moved;
  const writes: StoreWrite[] = [cursorWrite(next)];
  const shared = sharedArtifact(conversation.conversation_id, event);
  if (shared !== undefined) writes.push(conversationArtifactWrite(shared));
  let nextState = state;
  const effects: Effect[] = [];
  const deliveries: Delivery[] = [];

  if (outcome.kind === "tool") {
    const step = new Step(withConversation(state, next));
    const own = chunkReads(conversation.conversation_id, event.seq).chunks[0]!;
    step.writes.push(...writes, chunkWrite(own.key, withEnvelope(asChunk(reads.get(readId(own))), outcome.envelope.id, event.seq)));
    // A cancel goes to every device: only the one that holds the call has anything to stop.
    if (outcome.envelope.type === "lineup.tool.cancel" || answersCallsIn(state, conversation.conversation_id)) onToolEnvelope(step, env, outcome.envelope, event.actor.id, reads);
    else {
      step.audit.push(elsewhereAudit(event, outcome.envelope));
      recordCallElsewhere(step, env, outcome.envelope, event.actor.id, reads);
    }
    return step.result();
  }

  if (outcome.kind === "refused") {
    writes.push(...answerWrites(conversation.conversation_id, event.actor.role, outcome));
    const refused = outcome.envelope;
    const records: AuditDraft[] = [refusedAudit(event, outcome)];
    if (refused?.type === "lineup.tool.invoke" && !answersCallsIn(state, conversation.conversation_id)) {
      records.push(elsewhereAudit(event, refused));
    } else if (refused?.type === "lineup.tool.invoke") {
      const reply = toolErrorReply(state, refused, outcome.refusal, env);
      if (reply !== undefined) {
        nextState = queueReply(state, reply, writes, effects);
        records.push({ type: "tool.refused", code: outcome.refusal.code, conversation_id: event.session_id, subject: refused.correlation?.call_id ?? "", detail: `replied with lineup.tool.error (outbox ${reply.order})` });
      }
    } else if (refused !== undefined && event.actor.role === "agent" && isLiveFor(state, conversation.conversation_id)) {
      // The agent hears why its message went nowhere, once, while the conversation is live (not for old
      // history), as long as this conversation's notices are not spent (handlers/notices.ts).
      const about = { conversation_id: conversation.conversation_id, reply_to: refused.id };
      const taken = takeNotice(next, env.now());
      const notice = taken === undefined ? undefined : noticeReply(state, about, outcome.refusal.code, noticeMessage(`${refused.type} ${refused.id} was not delivered: ${outcome.refusal.message}`, taken.last), env);
      if (notice !== undefined) {
        next = taken!.conversation;
        nextState = queueReply(state, notice, writes, effects);
        records.push({ type: "ingress.agent.notified", code: outcome.refusal.code, conversation_id: event.session_id, subject: refused.id, detail: `replied with lineup.runtime.notice (outbox ${notice.order})` });
      }
    }
    return endCancelledTurn(event, { state: withConversation(nextState, next), writes, effects, deliveries, audit: records }, env);
  }

  // The envelope's id goes into the event's log chunk and the display messages' pending marks into its
  // unseen marks: a row or two written per chunk and turn, not one per event (persistence/log-chunks.ts).
  const chunk = chunkReads(conversation.conversation_id, event.seq);
  const chunkAt = chunk.marks.key;
  // The Runtime's own envelopes coming back are not recorded: their ids are its own, each sent once under
  // its idempotency key, and the server takes an id once in the whole log (its echo settles the outbox entry).
  if (outcome.envelope !== undefined && echoedHere(state, event) === undefined) writes.push(chunkWrite(chunkAt, withEnvelope(asChunk(reads.get(readId(chunk.chunks[0]!))), outcome.envelope.id, event.seq)));
  const storedMarks = asMarks(reads.get(readId(chunk.marks)));
  let marks = storedMarks;
  writes.push(...answerWrites(conversation.conversation_id, event.actor.role, outcome));
  const draft = outcome.draft;
  const audit: AuditDraft[] = [];
  const full: string[] = [];
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
          full.push(appScope);
          continue;
        }
        next = withPending(next, appScope, 1);
      }
      const envelope = draft.envelope;
      const instanceId = instanceOf(envelope);
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
        ...(instanceId === undefined ? {} : { instance_id: instanceId }),
        ...(envelope?.correlation === undefined ? {} : { correlation: envelope.correlation as { [key: string]: JsonValue } }),
      };
      writes.push(...storeMessageWrites(message));
      if (message.delivery === "display") marks = withUnseen(marks, appScope, event.seq);
      if (appScope === CHAT_APP_SCOPE) next = { ...next, unread: next.unread + 1 };
      if (isLiveFor(state, conversation.conversation_id)) deliveries.push({ kind: "message", message });
    }
  }
  if (marks !== storedMarks) writes.push(marksWrite(chunkAt, marks));
  if (full.length > 0 && draft !== undefined && event.actor.role === "agent" && isLiveFor(state, conversation.conversation_id)) {
    // The agent hears that this one did not reach the app(s), and can send it again once they caught up.
    const envelope = outcome.envelope;
    const what = envelope === undefined ? `${draft.type} (event ${event.seq})` : `${envelope.type} ${envelope.id}`;
    const message = `${what} was not delivered to ${full.join(", ")}: too many messages wait for acknowledgement there; send it again once the app has caught up`;
    const taken = takeNotice(next, env.now());
    const notice = taken === undefined ? undefined : noticeReply(nextState, { conversation_id: conversation.conversation_id, ...(envelope === undefined ? {} : { reply_to: envelope.id }) }, "inbox_full", noticeMessage(message, taken.last), env);
    if (notice !== undefined) {
      next = taken!.conversation;
      nextState = queueReply(nextState, notice, writes, effects);
      audit.push({ type: "ingress.agent.notified", code: "inbox_full", conversation_id: event.session_id, subject: envelope?.id ?? `${event.session_id}#${event.seq}`, detail: `replied with lineup.runtime.notice (outbox ${notice.order})` });
    }
  }
  return endCancelledTurn(event, { state: withConversation(nextState, next), writes, effects, deliveries, audit }, env);
}

/**
 * The apps' agent tasks follow the log (tasks/records.ts): an applied event of one of their turns becomes the
 * task's next events, stored and numbered in the same commit as the cursor advance, delivered after it.
 */
export function foldTaskEvent(before: RuntimeState, event: Extract<RuntimeInput, { kind: "event" }>["event"], result: TransitionResult, env: TransitionEnv): TransitionResult {
  if (result.state.tasks.tasks.size === 0 || !TASK_LOG_KINDS.has(event.kind)) return result;
  const was = before.conversations.get(event.session_id)?.cursor ?? 0;
  const now = result.state.conversations.get(event.session_id)?.cursor ?? 0;
  if (!(was < event.seq && now === event.seq)) return result;
  const draft = new TaskDraft(result.state.tasks, toTimestamp(env.now()));
  foldLogEvent(draft, event);
  return withTaskChange(result, draft.done());
}

/**
 * A cancelled turn (the person's Stop on any of their devices, or a newer turn that interrupted it) ends
 * the calls the agent made in it that are still open: `cancelled_by_user` to the agent, `tool.cancel` to
 * the app handling one. A timed operation that already runs on its own (a pomodoro) is kept.
 */
function endCancelledTurn(event: Extract<RuntimeInput, { kind: "event" }>["event"], result: TransitionResult, env: TransitionEnv): TransitionResult {
  if (event.kind !== "turn.cancelled") return result;
  const data = event.data as { turn_id?: unknown; reason?: unknown };
  if (typeof data.turn_id !== "string") return result;
  const message = data.reason === "interrupted" ? "a newer message interrupted the agent's turn" : "the person stopped the agent's turn";
  const decision = endTurnCalls(result.state.tools, { conversation_id: event.session_id, turn_id: data.turn_id, message });
  if (decision === undefined) return result;
  const step = stepAfter(result);
  applyCallDecision(step, env, decision);
  return step.result();
}

/**
 * The conversation's new artifact an `artifact.added` event records, or the pack an `evidence.exported` one
 * does (the export is a file of the conversation too), whatever apps it reaches (it is listed either way).
 */
function sharedArtifact(conversationId: string, event: Extract<RuntimeInput, { kind: "event" }>["event"]): ConversationArtifact | undefined {
  if (event.kind !== "artifact.added" && event.kind !== "evidence.exported") return undefined;
  const artifact = (event.data as { artifact?: unknown } | null)?.artifact;
  if (!isArtifactRef(artifact)) return undefined;
  return { artifact, conversation_id: conversationId, added_by: event.actor.role === "agent" ? "agent" : "device", added_at: event.created_at, seq: event.seq };
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
/** Refusals the sender is not answered for: it is not who the conversation trusts, or it sent the same envelope again. */
const UNANSWERED = new Set<string>(["unknown_agent", "scope_mismatch", "duplicate_message"]);

/** A refused tool invocation's one `lineup.tool.error`, or undefined when the refusal is not answered. */
function toolErrorReply(state: RuntimeState, invoke: RuntimeEnvelope, refusal: { readonly code: ErrorCode; readonly message: string }, env: TransitionEnv): OutboxEntry | undefined {
  const callId = invoke.correlation?.call_id;
  if (UNANSWERED.has(refusal.code) || callId === undefined) return undefined;
  return replyEntry(state, { conversation_id: invoke.scope.conversation_id, app_scope: invoke.scope.app_scope }, "tool.refuse", {
    type: "lineup.tool.error",
    target: { kind: "runtime", app_scope: RUNTIME_SCOPE },
    correlation: { call_id: callId, reply_to: invoke.id },
    payload: { code: refusal.code, message: refusal.message.slice(0, 2000) },
  }, env);
}

/** Where a reply goes: the conversation and app scope of what it answers, and that envelope's id when there is one. */
interface ReplyTo {
  readonly conversation_id: string;
  readonly app_scope: string;
  readonly reply_to?: string;
}

/**
 * A `lineup.runtime.notice` about what the agent sent (not delivered, and why), or undefined when the refusal
 * is not answered. It goes into the conversation for the agent and, addressed to chat, for the person too: on
 * every device the chat shows why something the agent sent went nowhere.
 */
function noticeReply(state: RuntimeState, about: Omit<ReplyTo, "app_scope">, code: ErrorCode, message: string, env: TransitionEnv): OutboxEntry | undefined {
  if (UNANSWERED.has(code)) return undefined;
  const correlation: Record<string, string> = about.reply_to === undefined ? {} : { reply_to: about.reply_to };
  return replyEntry(state, { ...about, app_scope: CHAT_APP_SCOPE }, "notice", {
    type: "lineup.runtime.notice",
    target: { kind: "app", app_scope: CHAT_APP_SCOPE },
    correlation,
    payload: { level: "warning", code, message: message.slice(0, 2000) },
  }, env);
}

/** What the Runtime answers with: the envelope's type, target, correlation and payload. */
interface Reply {
  readonly type: string;
  readonly target: { readonly kind: "runtime" | "app"; readonly app_scope: string };
  readonly correlation: Record<string, string>;
  readonly payload: Record<string, JsonValue>;
}

/** The Runtime's envelope answering in a conversation, as the next outbox entry; undefined if it would not be valid. */
function replyEntry(state: RuntimeState, to: ReplyTo, actionType: string, reply: Reply, env: TransitionEnv): OutboxEntry | undefined {
  const envelope = {
    v: 1,
    id: env.newId("env"),
    type: reply.type,
    timestamp: toTimestamp(env.now()),
    sender: { kind: "runtime", id: state.runtime_id },
    target: reply.target,
    scope: { app_scope: to.app_scope, conversation_id: to.conversation_id },
    ...(Object.keys(reply.correlation).length === 0 ? {} : { correlation: reply.correlation }),
    payload: reply.payload,
  };
  if (!validateEnvelope(envelope).ok) return undefined;
  return newOutboxEntry(state.next_outbox_order, (prefix) => env.newId(prefix), toTimestamp(env.now()), {
    conversation_id: to.conversation_id,
    app_scope: "runtime",
    action_type: actionType,
    method: "agentSession/envelope/send",
    params: { session_id: to.conversation_id, envelope },
  });
}

/** Puts `entry` in the outbox (state, its write, a flush); returns the state with it. */
function queueReply(state: RuntimeState, entry: OutboxEntry, writes: StoreWrite[], effects: Effect[]): RuntimeState {
  writes.push(putOutboxEntry(entry));
  effects.push({ kind: "outbox.flush" });
  return { ...state, outbox: state.outbox.with(entry.order, entry), next_outbox_order: entry.order + 1 };
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
  const consumed = { ...conversation, cursor: input.seq };
  return { state: withConversation(state, consumed), writes: [cursorWrite(consumed)], effects: [], deliveries: [], audit: [audit] };
}
