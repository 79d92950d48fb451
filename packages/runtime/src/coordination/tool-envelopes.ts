/**
 * Tool outputs as envelopes to the agent: each output goes through the outbox in a `lineup.tool.*`
 * envelope with an idempotency key, and is stamped with that envelope's id, timestamp and key so that a
 * replay sends the very same request.
 */
import { validateEnvelope, type JsonObject, type JsonValue } from "@lineup/protocol";
import { outboxHolds } from "../communication/outbox.js";
import { toTimestamp } from "../core/ports.js";
import { isTerminalOutput, type CallRecord, type ToolOutput } from "../tools/call-state.js";
import type { RuntimeState } from "./state.js";
import type { TransitionEnv } from "./handlers/env.js";
import type { Step } from "./step.js";

/** The envelope that carries one tool output to the agent, through the session log: the one it went in before, if it was sent. */
function toolEnvelope(state: RuntimeState, env: TransitionEnv, call: Pick<CallRecord, "call_id" | "conversation_id" | "app_scope" | "reply_to">, output: ToolOutput): JsonObject {
  return {
    v: 1,
    id: output.sent?.envelope_id ?? env.newId("env"),
    type: output.type,
    timestamp: output.sent?.timestamp ?? toTimestamp(env.now()),
    sender: { kind: "runtime", id: state.runtime_id },
    target: { kind: "runtime", app_scope: "runtime" },
    scope: { app_scope: call.app_scope, conversation_id: call.conversation_id },
    correlation: call.reply_to === undefined ? { call_id: call.call_id } : { call_id: call.call_id, reply_to: call.reply_to },
    payload: output.payload as unknown as JsonValue,
  };
}

/**
 * Why the envelope carrying `output` would not be sent (its payload fails the envelope's schema), or
 * undefined. Lets a report with such a payload be refused to the app up front instead of dropped.
 */
export function toolOutputProblem(state: RuntimeState, env: TransitionEnv, call: Pick<CallRecord, "call_id" | "conversation_id" | "app_scope" | "reply_to">, output: ToolOutput): string | undefined {
  const checked = validateEnvelope(toolEnvelope(state, env, call, output));
  return checked.ok ? undefined : checked.error.message;
}

/**
 * Sends `outputs` of calls in `calls` to their agents. A new output goes in a new envelope; one sent before
 * (a replay) goes as the very same request — its envelope and idempotency key — unless that request is still
 * in the outbox. Returns each new output sent, stamped with how it went (to be stored in its call's record).
 */
export function sendOutputs(step: Step, env: TransitionEnv, calls: Readonly<Record<string, CallRecord>>, outputs: readonly ToolOutput[]): Map<ToolOutput, ToolOutput> {
  const stamped = new Map<ToolOutput, ToolOutput>();
  for (const output of outputs) {
    const call = calls[output.call_id];
    if (call === undefined) continue;
    if (call.workflow !== undefined) {
      // No agent made it: the step that did hears its end, after the commit.
      if (isTerminalOutput(output)) step.deliveries.push({ kind: "tool.settled", app_scope: call.app_scope, call_id: call.call_id, output });
      continue;
    }
    const sent = output.sent;
    if (sent !== undefined && outboxHolds(step.state.outbox, sent.idempotency_key)) continue;
    const envelope = toolEnvelope(step.state, env, call, output);
    const checked = validateEnvelope(envelope);
    if (!checked.ok) {
      step.audit.push({ type: "tool.output.invalid", code: checked.error.code, conversation_id: call.conversation_id, subject: call.call_id, detail: checked.error.message });
      continue;
    }
    const entry = step.enqueue(env, {
      conversation_id: call.conversation_id,
      app_scope: "runtime",
      action_type: output.type,
      method: "agentSession/envelope/send",
      params: { session_id: call.conversation_id, envelope },
      ...(sent === undefined ? {} : { idempotency_key: sent.idempotency_key }),
    });
    if (sent === undefined) stamped.set(output, { ...output, sent: { envelope_id: String(envelope["id"]), timestamp: String(envelope["timestamp"]), idempotency_key: String(entry.params["idempotency_key"]) } });
  }
  return stamped;
}

/** `calls` with each stamped output in place of the one it stamps. */
export function withSentOutputs(calls: Readonly<Record<string, CallRecord>>, stamped: ReadonlyMap<ToolOutput, ToolOutput>): Readonly<Record<string, CallRecord>> {
  if (stamped.size === 0) return calls;
  const next = { ...calls };
  for (const output of stamped.keys()) {
    const call = next[output.call_id];
    if (call !== undefined) next[output.call_id] = { ...call, outputs: call.outputs.map((o) => stamped.get(o) ?? o) };
  }
  return next;
}
