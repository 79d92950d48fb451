/**
 * `agentSession/envelope/send`: a RuntimeEnvelope into the session log. The envelope was checked
 * by `validateRequestParams` (validateEnvelope, conversation = session, sender kind for the role);
 * here: an agent speaks only as itself, and an envelope id enters a log once. What a tool call may
 * do is the device Runtime's decision, not the server's.
 */
import type { JsonObject, MethodParams, MethodResult, RuntimeEnvelope } from "@lineup/protocol";
import { recordEnvelope } from "../store/inventories.js";
import { actorOf, refuse, type CallContext, sessionPrecheck } from "./context.js";

export function sendEnvelope(ctx: CallContext, params: MethodParams<"agentSession/envelope/send">) {
  const { services, principal } = ctx;
  const envelope = params.envelope as unknown as RuntimeEnvelope;
  if (principal.role === "agent" && envelope.sender.id !== principal.agent_id) {
    throw refuse("sender_not_allowed", `agent ${principal.agent_id} may not send as ${envelope.sender.id}`, "/envelope/sender/id");
  }
  return services.idempotent.run(principal, "agentSession/envelope/send", params, async (w): Promise<MethodResult<"agentSession/envelope/send">> => {
    const event = await w.append(params.session_id, "envelope", actorOf(principal), { envelope: params.envelope as JsonObject });
    // One statement both checks and records the id; a duplicate undoes the append with the write's savepoint.
    if (!(await recordEnvelope(w.db, params.session_id, envelope.id, event.seq))) throw refuse("duplicate_message", `envelope ${envelope.id} is already in the session`, "/envelope/id");
    return { envelope_id: envelope.id, seq: event.seq };
  }, sessionPrecheck(principal, params.session_id));
}
