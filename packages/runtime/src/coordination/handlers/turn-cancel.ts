/**
 * The person stops the agent (the chat's Stop, or any core app through `AppPort.cancelTurn`): the
 * conversation's running turn — else the one waiting first — is cancelled on the AppServer with
 * `agentSession/turn/cancel`, stored in the outbox with its idempotency key in this commit and sent in
 * order behind whatever the conversation sent before (a turn started offline is started, then cancelled).
 * Nothing to stop is a refusal (`invalid_state`), never a silent success; a second Stop while the first
 * is still waiting to be sent is the same Stop (its receipt again). What the cancel ends on the device —
 * the turn's open tool calls — follows from the log's `turn.cancelled`, on every device alike (ingest.ts).
 */
import { LineUpError, type JsonValue } from "@lineup/protocol";
import { receiptOf } from "../../communication/outbox.js";
import { Step } from "../apps-step.js";
import { unchanged, type RuntimeInput, type TransitionResult } from "../inputs.js";
import type { RuntimeState } from "../state.js";
import { pendingCancel, turnToCancel } from "../turns.js";
import type { TransitionEnv } from "./env.js";

export function onTurnCancel(state: RuntimeState, input: Extract<RuntimeInput, { kind: "turn.cancel" }>, env: TransitionEnv): TransitionResult {
  const conversation = state.conversations.get(input.conversation_id);
  if (conversation === undefined) return unchanged(state, { error: new LineUpError("conversation_unknown", `no conversation ${input.conversation_id}`, { path: "/conversation_id" }) });
  const turnId = turnToCancel(conversation, state.outbox.values());
  if (turnId === undefined) return unchanged(state, { error: new LineUpError("invalid_state", `the agent is not working on a turn in ${input.conversation_id}: nothing to stop`) });
  const waiting = pendingCancel(conversation.conversation_id, turnId, state.outbox.values());
  if (waiting !== undefined) return unchanged(state, { reply: receiptOf(waiting) as unknown as JsonValue });
  const step = new Step(state);
  const entry = step.enqueue(env, {
    conversation_id: conversation.conversation_id,
    app_scope: input.app_scope,
    action_type: "turn.cancel",
    method: "agentSession/turn/cancel",
    params: { session_id: conversation.conversation_id, turn_id: turnId },
  });
  step.audit.push({ type: "ingress.user.action", conversation_id: conversation.conversation_id, subject: entry.receipt_id, detail: `${input.app_scope}: turn.cancel ${turnId} → agentSession/turn/cancel` });
  return step.result({ reply: receiptOf(entry) as unknown as JsonValue });
}
