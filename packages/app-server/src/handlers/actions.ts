/** `action.required` raised by the agent and answered by the device. */
import { TERMINAL_TURN_STATES, type Action, type ActionResponse, type JsonObject, type MethodParams, type MethodResult } from "@lineup/protocol";
import { findAction, saveAction } from "../store/actions.js";
import { findTurn } from "../store/turns.js";
import { actorOf, refuse, type CallContext, sessionPrecheck } from "./context.js";
import { checkAgainst, checkSchema } from "./schema-check.js";

const OUTCOMES: Readonly<Record<Action["kind"], readonly ActionResponse["outcome"][]>> = {
  approval: ["approved", "rejected", "cancelled"],
  choice: ["answered", "cancelled"],
  input: ["answered", "cancelled"],
};

/** Why a response does not fit its action, as a refusal; undefined when it fits. */
function checkResponse(action: Action, response: ActionResponse): void {
  if (!OUTCOMES[action.kind].includes(response.outcome)) {
    throw refuse("invalid_params", `a ${action.kind} is answered with ${OUTCOMES[action.kind].join(", ")}, not ${response.outcome}`, "/response/outcome");
  }
  if (response.outcome !== "answered") return;
  if (action.kind === "choice") {
    const ids = response.choice_ids ?? [];
    if (ids.length === 0) throw refuse("invalid_params", "an answered choice names its choice_ids", "/response/choice_ids");
    if (action.multiple !== true && ids.length > 1) throw refuse("invalid_params", "this choice takes one option", "/response/choice_ids");
    const known = new Set((action.options ?? []).map((o) => o.id));
    ids.forEach((id, i) => {
      if (!known.has(id)) throw refuse("invalid_params", `option ${id} is not offered`, `/response/choice_ids/${i}`);
    });
  }
  if (action.kind === "input") {
    if (response.text === undefined && response.data === undefined) throw refuse("invalid_params", "an answered input carries text or data", "/response");
    if (action.input_schema !== undefined) {
      if (response.data === undefined) throw refuse("invalid_params", "the action's input_schema requires data", "/response/data");
      checkAgainst(action.input_schema, response.data, "/response/data");
    }
  }
}

export function requestAction(ctx: CallContext, params: MethodParams<"agentSession/action/request">) {
  const { services, principal } = ctx;
  return services.idempotent.run(principal, "agentSession/action/request", params, async (w): Promise<MethodResult<"agentSession/action/request">> => {
    const actionId = params.action_id ?? services.ids.next("a");
    if (await findAction(w.db, params.session_id, actionId) !== undefined) throw refuse("invalid_state", `action ${actionId} already exists`, "/action_id");
    if (params.turn_id !== undefined) {
      const turn = await findTurn(w.db, params.session_id, params.turn_id);
      if (turn === undefined) throw refuse("not_found", `no turn ${params.turn_id}`, "/turn_id");
      if (TERMINAL_TURN_STATES.has(turn.state)) throw refuse("invalid_state", `turn ${params.turn_id} is ${turn.state}`, "/turn_id");
    }
    if (params.input_schema !== undefined) checkSchema(params.input_schema, "/input_schema");
    const { idempotency_key: _k, action_id: _a, ...fields } = params;
    const action: Action = { ...fields, action_id: actionId, state: "pending", requested_at: w.now };
    await saveAction(w.db, action);
    const event = await w.append(params.session_id, "action.required", actorOf(principal), { action: action as unknown as JsonObject });
    return { action, seq: event.seq };
  }, sessionPrecheck(principal, params.session_id));
}

export function respondAction(ctx: CallContext, params: MethodParams<"agentSession/action/respond">) {
  const { services, principal } = ctx;
  return services.idempotent.run(principal, "agentSession/action/respond", params, async (w): Promise<MethodResult<"agentSession/action/respond">> => {
    const action = await findAction(w.db, params.session_id, params.action_id);
    if (action === undefined) throw refuse("not_found", `no action ${params.action_id}`, "/action_id");
    if (action.state !== "pending") throw refuse("invalid_state", `action ${action.action_id} was already answered`, "/action_id");
    if (action.expires_at !== undefined && Date.parse(action.expires_at) <= Date.parse(w.now)) throw refuse("invalid_state", `action ${action.action_id} expired at ${action.expires_at}`, "/action_id");
    checkResponse(action, params.response);
    const answered: Action = { ...action, state: "responded", response: params.response, responded_at: w.now };
    await saveAction(w.db, answered);
    const event = await w.append(params.session_id, "action.responded", actorOf(principal), { action_id: action.action_id, response: params.response as unknown as JsonObject });
    return { action: answered, seq: event.seq };
  }, sessionPrecheck(principal, params.session_id));
}
