/**
 * Tool calls in the loop (spec 7.3). An agent's `lineup.tool.invoke` arrives through the session log
 * and the filter chain (its conversation, order, envelope and agent identity checked there); here the
 * tools core decides — installed, enabled, current inventory revision, visible, contract version,
 * arguments — and every output (receipt, progress, the one terminal result or error) is recorded on
 * the call and sent to the agent through the outbox in the same commit. App reports, the agent's
 * cancel and the deadline timer are inputs like any other.
 */
import { LineUpError, type JsonValue, type RuntimeEnvelope } from "@lineup/protocol";
import { getApp } from "../../app-lifecycle/manager/records.js";
import { invokeBody, receiveInvoke } from "../../tools/invoke.js";
import { currentInventoryRevision } from "../../tools/inventory.js";
import { expireDueCalls, interruptOperations, startOperation } from "../../tools/operations.js";
import type { ToolInvokePayload } from "../../tools/payloads.js";
import { cancelCall, reportError, reportProgress, reportResult } from "../../tools/reports.js";
import { resumeAfterRestart } from "../../tools/restart.js";
import { foregroundInstance } from "../../app-lifecycle/instances/state.js";
import { applyCallDecision } from "../call-folding.js";
import { inventoryFor, toolRegistryOf } from "../inventories.js";
import { commitTaskDraft, Step } from "../step.js";
import { toolOutputProblem } from "../tool-envelopes.js";
import { TaskDraft, taskOfTurn } from "../../tasks/records.js";
import { toTimestamp } from "../../core/ports.js";
import { readId, type Reads, type RuntimeInput, type TransitionResult } from "../inputs.js";
import { RUNTIME_COLLECTIONS as C } from "../../persistence/runtime-schema.js";
import type { CallDecision, CallRecord } from "../../tools/call-state.js";
import type { RuntimeState } from "../state.js";
import type { TransitionEnv } from "./env.js";
import { runningTurn } from "../turns.js";

/** What an invoke says of its call: its conversation, its app (the target's, else the scope's), the revision it read and its payload. */
function invokeOf(envelope: RuntimeEnvelope, callId: string, agentId: string) {
  return {
    call_id: callId,
    agent_id: agentId,
    conversation_id: envelope.scope.conversation_id,
    app_scope: envelope.target.kind === "app" && envelope.target.app_scope !== undefined ? envelope.target.app_scope : envelope.scope.app_scope,
    inventory_revision: envelope.correlation?.inventory_revision ?? "",
    payload: envelope.payload as unknown as ToolInvokePayload,
  };
}

/** Folds an accepted `lineup.tool.invoke` (or `lineup.tool.cancel`) envelope into `step`. */
export function onToolEnvelope(step: Step, env: TransitionEnv, envelope: RuntimeEnvelope, agentId: string, reads: Reads): void {
  const callId = envelope.correlation?.call_id;
  if (callId === undefined) return;
  let state = step.state;
  // A finished call is no longer in the state: its stored record answers a repeated call_id.
  const stored = reads.get(readId({ collection: C.toolCalls, key: callId })) as CallRecord | undefined;
  if (stored !== undefined && state.tools.calls[callId] === undefined) {
    state = { ...state, tools: { ...state.tools, calls: { ...state.tools.calls, [callId]: stored } } };
    step.state = state;
  }
  const conversationId = envelope.scope.conversation_id;
  if (envelope.type === "lineup.tool.cancel") {
    const reason = (envelope.payload as { reason?: unknown } | null)?.reason;
    applyCallDecision(step, env, cancelCall(state.tools, { call_id: callId, agent_id: agentId, ...(typeof reason === "string" ? { reason } : {}) }));
    return;
  }
  const invoke = invokeOf(envelope, callId, agentId);
  const appScope = invoke.app_scope;
  const inventory = inventoryFor(state, env, agentId, conversationId);
  // The call is the running turn's: the log is in the server's order, and it runs one turn at a time.
  const turnId = runningTurn(state.conversations.get(conversationId));
  // Working on an app's task, the agent may call only the tools the task requested (docs/protocol.md "In-app agent tasks").
  const task = taskOfTurn(state.tasks, turnId);
  const forTask = task !== undefined && task.turn_id === turnId ? task : undefined;
  const method = (envelope.payload as { method?: unknown } | null)?.method;
  const tools = forTask === undefined ? inventory.tools : inventory.tools.filter((t) => forTask.requested.some((r) => r.app_scope === t.app_scope && r.method === t.method));
  const decision = receiveInvoke(
    state.tools,
    {
      ...invoke,
      now: env.now(),
      launch_instance_id: env.newId("inst"),
      envelope_id: envelope.id,
      ...(turnId === undefined ? {} : { turn_id: turnId }),
    },
    {
      inventory: { revision: currentInventoryRevision(state.inventory, agentId, conversationId), tools },
      registry: toolRegistryOf(state),
      appStatus: (scope) => {
        const record = getApp(state.apps, scope);
        return { installed: record !== undefined, enabled: record?.enabled === true && record.install_state !== "failed" };
      },
      instances: state.instances,
    },
  );
  if (forTask !== undefined && decision.replayed !== true) {
    if (typeof method === "string" && !tools.some((t) => t.app_scope === appScope && t.method === method)) {
      step.audit.push({ type: "task.tool.refused", code: "tool_not_visible", conversation_id: conversationId, subject: callId, detail: `task ${forTask.task_id} of ${forTask.app_scope} did not request ${appScope}/${method}` });
    }
    const draft = new TaskDraft(step.state.tasks, toTimestamp(env.now()));
    draft.append(forTask.task_id, forTask.attempt, { kind: "tool_call", call_id: callId, app_scope: appScope, method: typeof method === "string" ? method : "" });
    commitTaskDraft(step, draft);
  }
  if (decision.replayed === true) {
    // A duplicate invoke (same call_id, same body): the stored outputs again, nothing decided anew. A call another
    // device answered has none here: that device's outputs are the call's.
    const elsewhere = state.tools.calls[callId]?.answered_elsewhere === true;
    step.audit.push({ type: "tool.call.replayed", conversation_id: conversationId, subject: callId, ...(elsewhere ? { detail: "answered by another device of the user: nothing to send again" } : {}) });
    applyCallDecision(step, env, decision);
    return;
  }
  applyCallDecision(step, env, decision);
}

/**
 * A `lineup.tool.invoke` that another device answers (the session's inventory is its): its call_id is recorded here,
 * terminal and answered elsewhere (`CallRecord.answered_elsewhere`), unless this device already holds a record of it,
 * so that the call_id coming again after this device's inventory became the session's is not run a second time.
 */
export function recordCallElsewhere(step: Step, env: TransitionEnv, envelope: RuntimeEnvelope, agentId: string, reads: Reads): void {
  const callId = envelope.correlation?.call_id;
  if (envelope.type !== "lineup.tool.invoke" || callId === undefined) return;
  if (step.state.tools.calls[callId] !== undefined || reads.get(readId({ collection: C.toolCalls, key: callId })) !== undefined) return;
  const invoke = invokeOf(envelope, callId, agentId);
  const { payload } = invoke;
  const now = env.now();
  const record: CallRecord = {
    call_id: callId,
    body: invokeBody(invoke),
    agent_id: agentId,
    conversation_id: invoke.conversation_id,
    app_scope: invoke.app_scope,
    method: payload.method,
    arguments: payload.arguments,
    handling: "direct",
    activation_requirement: "activation_not_required",
    call_model: "command",
    received_at: now,
    reply_to: envelope.id,
    deadline_at: now,
    phase: "terminal",
    answered_elsewhere: true,
    outputs: [],
  };
  step.writes.push({ op: "put", collection: C.toolCalls, key: callId, value: record as unknown as JsonValue });
}

/** An app's handler reported on a call delivered to it. */
export function onToolReport(state: RuntimeState, input: Extract<RuntimeInput, { kind: "tool.report" }>, env: TransitionEnv): TransitionResult {
  const step = new Step(state);
  const call = state.tools.calls[input.call_id];
  const report = { call_id: input.call_id, instance_id: input.instance_id ?? call?.instance_id ?? "" };
  if (call !== undefined && call.app_scope !== input.app_scope && input.report.kind !== "interrupt_operations") {
    step.audit.push({ type: "tool.report.refused", code: "not_owner", subject: input.call_id, detail: `${input.app_scope} reported on a call of ${call.app_scope}` });
    return step.result({ error: notOwner(input.call_id) });
  }
  if (input.report.kind === "progress" && call !== undefined) {
    // A progress payload the envelope would refuse is the app's mistake: it hears so, and nothing is recorded.
    const problem = toolOutputProblem(state, env, call, { type: "lineup.tool.progress", call_id: call.call_id, payload: input.report.progress });
    if (problem !== undefined) {
      step.audit.push({ type: "tool.report.refused", code: "invalid_params", conversation_id: call.conversation_id, subject: input.call_id, detail: problem });
      return step.result({ error: new LineUpError("invalid_params", `the progress of ${input.call_id} was not sent: ${problem}`) });
    }
  }
  const decision = decideReport(state, input, report, call, env);
  applyCallDecision(step, env, decision);
  if (decision.refusal !== undefined) return step.result({ error: new LineUpError(decision.refusal.code, decision.refusal.message) });
  return step.result();
}

function decideReport(state: RuntimeState, input: Extract<RuntimeInput, { kind: "tool.report" }>, report: { call_id: string; instance_id: string }, call: CallRecord | undefined, env: TransitionEnv): CallDecision {
  const r = input.report;
  switch (r.kind) {
    case "progress":
      return reportProgress(state.tools, { ...report, progress: r.progress });
    case "result":
      return reportResult(state.tools, { ...report, result: r.result }, toolRegistryOf(state));
    case "error":
      return reportError(state.tools, { ...report, code: r.code, ...(r.message === undefined ? {} : { message: r.message }) });
    case "start_operation": {
      const now = env.now();
      return startOperation(state.tools, {
        call_id: input.call_id,
        operation_id: env.newId("op"),
        now,
        // Timed: the Runtime ends it after `duration_ms`. App-run: the tool's own deadline is the end.
        ends_at: r.duration_ms === undefined ? (call?.deadline_at ?? now) : now + Math.max(0, Math.min(r.duration_ms, 86_400_000)),
        ...(r.duration_ms === undefined ? { app_run: true } : {}),
        // Only a call that needs its app in front waits for the front to start.
        foreground: call?.activation_requirement !== "foreground_required" || call.instance_id === undefined || foregroundInstance(state.instances)?.instance_id === call.instance_id,
      });
    }
    case "interrupt_operations":
      return interruptOperations(state.tools, { app_scope: input.app_scope, conversation_id: r.conversation_id, reason: r.reason, now: env.now() }, toolRegistryOf(state));
  }
}

/** The deadline timer: finished operations get their result, overdue calls `operation_expired`. */
export function onToolsTick(state: RuntimeState, env: TransitionEnv): TransitionResult {
  const step = new Step(state);
  applyCallDecision(step, env, expireDueCalls(state.tools, env.now(), toolRegistryOf(state)));
  return step.result();
}

/** After a restart: activations in progress failed, delivered calls are delivered again, due ones end. */
export function resumeTools(step: Step, env: TransitionEnv): void {
  applyCallDecision(step, env, resumeAfterRestart(step.state.tools, env.now(), toolRegistryOf(step.state)));
}

function notOwner(callId: string): LineUpError {
  return new LineUpError("not_owner", `call ${callId} belongs to another app`);
}
