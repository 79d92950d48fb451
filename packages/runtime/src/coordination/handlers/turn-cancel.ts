/**
 * The person stops the agent (the chat's Stop, any core app through `AppPort.cancelTurn`, an installed app's
 * own Stop as one of its instances): the conversation's running turn — else the one waiting first — is
 * cancelled on the AppServer with `agentSession/turn/cancel`, stored in the outbox with its idempotency key
 * in this commit and sent in order behind whatever the conversation sent before (a turn started offline is started, then cancelled).
 * Nothing to stop is a refusal (`invalid_state`), never a silent success; a second Stop while the first
 * is still waiting to be sent is the same Stop (its receipt again). What the cancel ends on the device —
 * the turn's open tool calls — follows from the log's `turn.cancelled`, on every device alike (ingest.ts).
 *
 * A Stop pressed in an installed app's surface (`agent.cancel_turn` on the Surface Bridge) names its instance.
 * The app may stop only the turn of the conversation that instance is bound to, and only while the person has
 * the instance in front — by the rule the Capability Gateway's foreground check uses (`foregroundInstance`: the
 * top of the focus stack, active): a hidden or backgrounded instance's Stop is nobody's press, and is refused
 * `foreground_required`. Those refusals are audited (`turn.cancel.refused`); an accepted Stop's audit record
 * names the app and the instance it came from.
 */
import { LineUpError, type ErrorCode, type JsonValue } from "@lineup/protocol";
import { foregroundInstance, getInstance } from "../../app-lifecycle/instances/state.js";
import { receiptOf } from "../../communication/outbox.js";
import { Step } from "../step.js";
import { unchanged, type RuntimeInput, type TransitionResult } from "../inputs.js";
import type { RuntimeState } from "../state.js";
import { pendingCancel, turnToCancel } from "../turns.js";
import type { TransitionEnv } from "./env.js";

type TurnCancelInput = Extract<RuntimeInput, { kind: "turn.cancel" }>;

export function onTurnCancel(state: RuntimeState, input: TurnCancelInput, env: TransitionEnv): TransitionResult {
  if (input.instance_id !== undefined) {
    const refused = refuseInstanceStop(state, input, input.instance_id);
    if (refused !== undefined) return refused;
  }
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
  const by = input.instance_id === undefined ? input.app_scope : `${input.app_scope} instance ${input.instance_id}`;
  step.audit.push({ type: "ingress.user.action", conversation_id: conversation.conversation_id, subject: entry.receipt_id, detail: `${by}: turn.cancel ${turnId} → agentSession/turn/cancel` });
  return step.result({ reply: receiptOf(entry) as unknown as JsonValue });
}

/** Why the instance that asked may not stop this conversation's turn, as an audited refusal; undefined when it may. */
function refuseInstanceStop(state: RuntimeState, input: TurnCancelInput, instanceId: string): TransitionResult | undefined {
  const refuse = (code: ErrorCode, message: string, path?: string): TransitionResult =>
    unchanged(state, {
      audit: [{ type: "turn.cancel.refused", code, conversation_id: input.conversation_id, subject: `${input.app_scope}/${instanceId}`, detail: message }],
      error: new LineUpError(code, message, path === undefined ? {} : { path }),
    });
  const instance = getInstance(state.instances, instanceId);
  if (instance === undefined || instance.app_scope !== input.app_scope || instance.status === "closed" || instance.status === "failed") {
    return refuse("not_found", `${instanceId} is not a live instance of ${input.app_scope}`, "/instance_id");
  }
  if (instance.conversation_id === undefined) return refuse("invalid_state", `instance ${instanceId} serves no conversation, so it has no agent turn to stop`);
  if (instance.conversation_id !== input.conversation_id) return refuse("not_owner", `instance ${instanceId} does not serve ${input.conversation_id}`, "/conversation_id");
  if (foregroundInstance(state.instances)?.instance_id !== instanceId) return refuse("foreground_required", `${input.app_scope} may stop the agent only while it is in front`);
  return undefined;
}
