import { LineUpError, validateEnvelope, type JsonObject, type JsonValue } from "@lineup/protocol";
import { newOutboxEntry, putOutboxEntry, receiptOf, type OutboxEntry, type OutboxMethod } from "../../communication/outbox.js";
import { toTimestamp } from "../../core/ports.js";
import { answerKey, answerWrite, cardAnswerOf, inboxKey, parseMessageId, acknowledgeWrites, type AgentAppMessage } from "../../persistence/inbox.js";
import { RUNTIME_COLLECTIONS as C } from "../../persistence/runtime-schema.js";
import type { StoreWrite } from "../../persistence/store.js";
import { CHAT_APP_SCOPE } from "../../app-lifecycle/core-app-registry.js";
import { readId, unchanged, type AppAction, type InteractionAnswer, type ReadKey, type Reads, type RuntimeInput, type TransitionResult } from "../inputs.js";
import { withConversation, type Conversation, type RuntimeState } from "../state.js";
import type { TransitionEnv } from "./env.js";
import { sessionRecordWrite } from "./sessions.js";
import { appDirectoryOf } from "../app-directory.js";
import { republishInventories } from "../inventories.js";
import { Step } from "../step.js";
import { withPending } from "../backlog.js";

const MAX_TEXT = 65_536;

/** Reads an answer needs: the card's inbox row and whether it is still pending. */
export function dispatchReads(input: Extract<RuntimeInput, { kind: "dispatch" }>): ReadKey[] {
  if (input.action.type !== "interaction.answer") return [];
  const parsed = parseMessageId(input.action.message_id);
  if (parsed === undefined) return [];
  const key = inboxKey(input.app_scope, parsed.conversation_id, parsed.seq);
  return [
    { collection: C.inbox, key },
    { collection: C.inboxPending, key },
  ];
}

const refuse = (state: RuntimeState, code: ConstructorParameters<typeof LineUpError>[0], message: string, path?: string): TransitionResult =>
  unchanged(state, { error: new LineUpError(code, message, path === undefined ? {} : { path }) });

function newEntry(state: RuntimeState, env: TransitionEnv, fields: { conversation_id: string; app_scope: string; action_type: string; method: OutboxMethod; params: JsonObject }): OutboxEntry {
  return newOutboxEntry(state.next_outbox_order, (prefix) => env.newId(prefix), toTimestamp(env.now()), fields);
}

/** Stores `entry` (and `extra` writes) in the commit that accepts the action; replies with its receipt. */
function accept(state: RuntimeState, entry: OutboxEntry, extra: { writes?: StoreWrite[]; conversation?: Conversation; acknowledged?: string } = {}): TransitionResult {
  let next: RuntimeState = { ...state, outbox: state.outbox.with(entry.order, entry), next_outbox_order: entry.order + 1 };
  if (extra.conversation !== undefined) next = withConversation(next, extra.conversation);
  return {
    state: next,
    writes: [putOutboxEntry(entry), ...(extra.writes ?? [])],
    effects: [{ kind: "outbox.flush" }],
    deliveries: extra.acknowledged === undefined ? [] : [{ kind: "acknowledged", app_scope: entry.app_scope, message_ids: [extra.acknowledged] }],
    audit: [{ type: "ingress.user.action", conversation_id: entry.conversation_id, subject: entry.receipt_id, detail: `${entry.app_scope}: ${entry.action_type} → ${entry.method}` }],
    reply: receiptOf(entry) as unknown as JsonValue,
  };
}

/** An app action (the user's ingress path): checked, turned into an outbox entry, stored, then acknowledged with a receipt. */
export function onDispatch(state: RuntimeState, input: Extract<RuntimeInput, { kind: "dispatch" }>, reads: Reads, env: TransitionEnv): TransitionResult {
  const action: AppAction = input.action;
  const conversation = state.conversations.get(action.conversation_id);
  if (conversation === undefined) return refuse(state, "conversation_unknown", `no conversation ${action.conversation_id}`, "/conversation_id");
  switch (action.type) {
    case "conversation.send_text": {
      if (typeof action.text !== "string" || action.text.trim() === "" || action.text.length > MAX_TEXT) {
        return refuse(state, "invalid_params", `text must be 1-${MAX_TEXT} characters`, "/text");
      }
      const entry = newEntry(state, env, {
        conversation_id: conversation.conversation_id,
        app_scope: input.app_scope,
        action_type: action.type,
        method: "agentSession/turn/start",
        params: { session_id: conversation.conversation_id, turn_id: env.newId("turn"), input: { text: action.text } },
      });
      return accept(state, entry);
    }
    case "interaction.answer":
      return answer(state, input.app_scope, conversation, action, reads, env);
  }
}

function answer(state: RuntimeState, appScope: string, conversation: Conversation, action: Extract<AppAction, { type: "interaction.answer" }>, reads: Reads, env: TransitionEnv): TransitionResult {
  const parsed = parseMessageId(action.message_id);
  if (parsed === undefined || parsed.conversation_id !== conversation.conversation_id) {
    return refuse(state, "not_found", `no card ${action.message_id} in ${conversation.conversation_id}`, "/message_id");
  }
  const key = inboxKey(appScope, parsed.conversation_id, parsed.seq);
  const card = reads.get(readId({ collection: C.inbox, key })) as AgentAppMessage | undefined;
  if (card === undefined) return refuse(state, "not_found", `no card ${action.message_id}`, "/message_id");
  if (reads.get(readId({ collection: C.inboxPending, key })) === undefined) {
    return refuse(state, "invalid_state", `card ${action.message_id} was already answered or acknowledged`, "/message_id");
  }
  const response = action.response;
  const ack = acknowledgeWrites(key);
  // Answering a card acknowledges it: it leaves the app's backlog (and chat's unread count).
  const answered = withPending(conversation, appScope, -1);
  const unread = appScope === CHAT_APP_SCOPE ? { ...answered, unread: Math.max(0, answered.unread - 1) } : answered;

  if (card.type === "lineup.action.required") {
    const record = card.payload as { action_id: string; kind: "approval" | "choice" | "input" };
    const allowed = { approval: ["approved", "rejected", "cancelled"], choice: ["answered", "cancelled"], input: ["answered", "cancelled"] }[record.kind] ?? [];
    if (!allowed.includes(response.outcome)) return refuse(state, "invalid_params", `a ${record.kind} card takes ${allowed.join(" | ")}`, "/response/outcome");
    const entry = newEntry(state, env, {
      conversation_id: conversation.conversation_id,
      app_scope: appScope,
      action_type: action.type,
      method: "agentSession/action/respond",
      params: { session_id: conversation.conversation_id, action_id: record.action_id, response: actionResponse(response) },
    });
    const recorded = answerWrite(answerKey(conversation.conversation_id, "action", record.action_id), cardAnswerOf({ ...actionResponse(response), ...(response.confirmed === undefined ? {} : { confirmed: response.confirmed }) })!);
    return accept(state, entry, { writes: [...ack, recorded], conversation: unread, acknowledged: action.message_id });
  }
  if (card.type === "lineup.interaction.request" && card.envelope_id !== undefined) {
    const request = card.payload as { interaction_id: string };
    const envelope = {
      v: 1,
      id: env.newId("env"),
      type: "lineup.interaction.response",
      timestamp: toTimestamp(env.now()),
      sender: { kind: "user", id: state.identity.user_id ?? state.runtime_id },
      target: { kind: "runtime", app_scope: "runtime" },
      scope: { app_scope: card.app_scope, conversation_id: conversation.conversation_id },
      correlation: { reply_to: card.envelope_id },
      payload: interactionResponse(request.interaction_id, response),
    };
    const checked = validateEnvelope(envelope);
    if (!checked.ok) return refuse(state, checked.error.code, checked.error.message, `/response${checked.error.path ?? ""}`);
    const entry = newEntry(state, env, {
      conversation_id: conversation.conversation_id,
      app_scope: appScope,
      action_type: action.type,
      method: "agentSession/envelope/send",
      params: { session_id: conversation.conversation_id, envelope: envelope as unknown as JsonValue },
    });
    const recorded = answerWrite(answerKey(conversation.conversation_id, "interaction", request.interaction_id), cardAnswerOf(envelope.payload)!);
    return accept(state, entry, { writes: [...ack, recorded], conversation: unread, acknowledged: action.message_id });
  }
  return refuse(state, "invalid_params", `message ${action.message_id} (${card.type}) is not an interaction card`, "/message_id");
}

function actionResponse(answer: InteractionAnswer): JsonObject {
  const out: JsonObject = { outcome: answer.outcome };
  if (answer.choice_ids !== undefined) out["choice_ids"] = [...answer.choice_ids];
  if (answer.text !== undefined) out["text"] = answer.text;
  if (answer.data !== undefined) out["data"] = answer.data;
  return out;
}

function interactionResponse(interactionId: string, answer: InteractionAnswer): JsonObject {
  const out: JsonObject = { interaction_id: interactionId, outcome: answer.outcome === "cancelled" ? "cancelled" : "answered" };
  if (answer.choice_ids !== undefined) out["choice_ids"] = [...answer.choice_ids];
  if (answer.text !== undefined) out["text"] = answer.text;
  const confirmed = answer.confirmed ?? (answer.outcome === "approved" ? true : answer.outcome === "rejected" ? false : undefined);
  if (confirmed !== undefined) out["confirmed"] = confirmed;
  return out;
}

/** A new conversation with an agent: stored locally now, started on the server through the outbox. */
export function onStartConversation(state: RuntimeState, input: Extract<RuntimeInput, { kind: "conversation.start" }>, env: TransitionEnv): TransitionResult {
  const { request } = input;
  const appScope = request.app_scope ?? CHAT_APP_SCOPE;
  if (appDirectoryOf(state.apps).get(appScope)?.enabled !== true) return refuse(state, "app_not_installed", `no enabled app ${appScope}`, "/app_scope");
  const conversation: Conversation = {
    conversation_id: env.newId("conv"),
    app_scope: appScope,
    agent_id: request.agent_id,
    workspace_id: request.workspace_id,
    ...(request.title === undefined ? {} : { title: request.title }),
    created_at: toTimestamp(env.now()),
    origin: "local",
    cursor: 0,
    following: { status: "idle" },
    unread: 0,
  };
  const params: JsonObject = {
    session_id: conversation.conversation_id,
    app_scope: appScope,
    workspace_id: request.workspace_id,
    agent_id: request.agent_id,
  };
  if (request.title !== undefined) params["title"] = request.title;
  const entry = newEntry(state, env, { conversation_id: conversation.conversation_id, app_scope: input.app_scope, action_type: "conversation.start", method: "agentSession/start", params });
  const accepted = accept(state, entry, { writes: [sessionRecordWrite(conversation)], conversation });
  // The new conversation's agent gets the tools it may call, right after the session is started.
  const step = new Step(accepted.state);
  republishInventories(step, env);
  return { ...accepted, state: step.state, writes: [...accepted.writes, ...step.writes], effects: [...accepted.effects, ...step.effects], audit: [...accepted.audit, ...step.audit] };
}
