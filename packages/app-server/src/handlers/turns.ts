/**
 * Turns: one runs at a time per session. `enqueue` waits behind the open turns; `interrupt` cancels
 * them. When the running turn ends, the oldest queued turn runs (`turn.activated`, by the server).
 */
import { TERMINAL_TURN_STATES, type JsonObject, type MethodParams, type MethodResult, type Turn } from "@lineup/protocol";
import { findArtifact } from "../store/artifacts.js";
import { headSeq } from "../store/log.js";
import { findTurn, openTurns, saveTurn } from "../store/turns.js";
import type { WriteContext } from "../write-queue.js";
import { actorOf, refuse, SERVER_ACTOR, type CallContext, sessionPrecheck } from "./context.js";
import { checkAgainst, checkSchema } from "./schema-check.js";

async function requireTurn(w: WriteContext, sessionId: string, turnId: string): Promise<Turn> {
  const turn = await findTurn(w.db, sessionId, turnId);
  if (turn === undefined) throw refuse("not_found", `no turn ${turnId} in session ${sessionId}`, "/turn_id");
  return turn;
}

/** After the running turn ended: the oldest queued turn runs. */
async function activateNext(w: WriteContext, sessionId: string): Promise<void> {
  const open = await openTurns(w.db, sessionId);
  if (open.some((t) => t.state === "running")) return;
  const next = open.find((t) => t.state === "queued");
  if (next === undefined) return;
  await saveTurn(w.db, { ...next, state: "running", updated_at: w.now });
  await w.append(sessionId, "turn.activated", SERVER_ACTOR, { turn_id: next.turn_id });
}

export function startTurn(ctx: CallContext, params: MethodParams<"agentSession/turn/start">) {
  const { services, principal } = ctx;
  return services.idempotent.run(principal, "agentSession/turn/start", params, async (w): Promise<MethodResult<"agentSession/turn/start">> => {
    const sessionId = params.session_id;
    const turnId = params.turn_id ?? services.ids.next("t");
    if (await findTurn(w.db, sessionId, turnId) !== undefined) throw refuse("invalid_state", `turn ${turnId} already exists`, "/turn_id");
    for (const [i, ref] of (params.input.attachments ?? []).entries()) {
      const artifact = await findArtifact(w.db, sessionId, ref.artifact_id);
      if (artifact === undefined || artifact.state !== "complete" || artifact.sha256 !== ref.sha256) {
        throw refuse("not_found", `attachment ${ref.artifact_id} is not a complete artifact of this session with that sha256`, `/input/attachments/${i}`);
      }
    }
    if (params.output_schema !== undefined) checkSchema(params.output_schema, "/output_schema");
    const queue = params.queue ?? "enqueue";
    const open = await openTurns(w.db, sessionId);
    if (queue === "interrupt") {
      for (const t of open) {
        await saveTurn(w.db, { ...t, state: "cancelled", cancel_reason: "interrupted", updated_at: w.now });
        await w.append(sessionId, "turn.cancelled", actorOf(principal), { turn_id: t.turn_id, reason: "interrupted", by_turn_id: turnId });
      }
    }
    const turn: Turn = {
      turn_id: turnId,
      session_id: sessionId,
      state: queue === "interrupt" || open.length === 0 ? "running" : "queued",
      queue,
      input: params.input,
      created_at: w.now,
      updated_at: w.now,
      started_seq: ((await headSeq(w.db, sessionId)) ?? 0) + 1,
    };
    if (params.output_schema !== undefined) turn.output_schema = params.output_schema;
    if (params.capability_id !== undefined) turn.capability_id = params.capability_id;
    if (params.options !== undefined) turn.options = params.options;
    await saveTurn(w.db, turn);
    const event = await w.append(sessionId, "turn.started", actorOf(principal), { turn: turn as unknown as JsonObject });
    return { turn, seq: event.seq };
  }, sessionPrecheck(principal, params.session_id));
}

export function cancelTurn(ctx: CallContext, params: MethodParams<"agentSession/turn/cancel">) {
  const { services, principal } = ctx;
  return services.idempotent.run(principal, "agentSession/turn/cancel", params, async (w): Promise<MethodResult<"agentSession/turn/cancel">> => {
    const turn = await requireTurn(w, params.session_id, params.turn_id);
    if (TERMINAL_TURN_STATES.has(turn.state)) throw refuse("invalid_state", `turn ${turn.turn_id} is already ${turn.state}`, "/turn_id");
    const cancelled: Turn = { ...turn, state: "cancelled", cancel_reason: "cancelled", updated_at: w.now };
    await saveTurn(w.db, cancelled);
    const data: JsonObject = { turn_id: turn.turn_id, reason: "cancelled" };
    if (params.reason !== undefined) data["note"] = params.reason;
    const event = await w.append(params.session_id, "turn.cancelled", actorOf(principal), data);
    if (turn.state === "running") await activateNext(w, params.session_id);
    return { turn: cancelled, seq: event.seq };
  }, sessionPrecheck(principal, params.session_id));
}

export function updateTurn(ctx: CallContext, params: MethodParams<"agentSession/turn/update">) {
  const { services, principal } = ctx;
  return services.idempotent.run(principal, "agentSession/turn/update", params, async (w): Promise<MethodResult<"agentSession/turn/update">> => {
    const turn = await requireTurn(w, params.session_id, params.turn_id);
    if (turn.state !== "running") throw refuse("invalid_state", `turn ${turn.turn_id} is ${turn.state}, not running`, "/turn_id");
    const { session_id: _s, idempotency_key: _k, ...update } = params;
    const event = await w.append(params.session_id, "turn.updated", actorOf(principal), update as JsonObject);
    return { turn_id: turn.turn_id, seq: event.seq };
  }, sessionPrecheck(principal, params.session_id));
}

export function completeTurn(ctx: CallContext, params: MethodParams<"agentSession/turn/complete">) {
  const { services, principal } = ctx;
  return services.idempotent.run(principal, "agentSession/turn/complete", params, async (w): Promise<MethodResult<"agentSession/turn/complete">> => {
    const turn = await requireTurn(w, params.session_id, params.turn_id);
    if (turn.state !== "running") throw refuse("invalid_state", `turn ${turn.turn_id} is ${turn.state}, not running`, "/turn_id");
    const ended: Turn = { ...turn, state: params.outcome, updated_at: w.now };
    if (params.outcome === "completed" && turn.output_schema !== undefined) {
      if (params.output === undefined) throw refuse("invalid_params", "the turn's output_schema requires an output", "/output");
      checkAgainst(turn.output_schema, params.output, "/output");
    }
    if (params.output !== undefined) ended.output = params.output;
    if (params.text !== undefined) ended.text = params.text;
    if (params.error !== undefined) ended.error = params.error;
    await saveTurn(w.db, ended);
    const data: JsonObject = { turn_id: turn.turn_id };
    if (params.outcome === "completed") {
      if (params.output !== undefined) data["output"] = params.output;
      if (params.text !== undefined) data["text"] = params.text;
    } else data["error"] = params.error as unknown as JsonObject;
    const event = await w.append(params.session_id, params.outcome === "completed" ? "turn.completed" : "turn.failed", actorOf(principal), data);
    await activateNext(w, params.session_id);
    return { turn: ended, seq: event.seq };
  }, sessionPrecheck(principal, params.session_id));
}
