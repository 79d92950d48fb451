/**
 * Folds a tool decision (`tools/`) into a `Step`: its outputs become envelopes in the outbox, its changed
 * call records and activations are written in the same commit, and its actions run here — launching or
 * focusing an instance is itself a pure step, so a call that launches an app is one commit.
 */
import type { JsonValue } from "@lineup/protocol";
import { instancePolicyFor } from "../app-lifecycle/instances/state.js";
import { focusInstance, launchInstance, restoreInstanceInBackground, returnFocus } from "../app-lifecycle/instances/transitions.js";
import { toTimestamp } from "../core/ports.js";
import { RUNTIME_COLLECTIONS as C } from "../persistence/runtime-schema.js";
import { settleActivation } from "../tools/activation.js";
import { CallDraft, isTerminalOutput, type CallAction, type CallDecision, type CallRecord, type ToolCallsState, type ToolOutput } from "../tools/call-state.js";
import { TaskDraft } from "../tasks/records.js";
import type { TransitionEnv } from "./handlers/env.js";
import { applyInstanceResult, enforceSurfaceBound } from "./instance-folding.js";
import { commitTaskDraft, type Step } from "./step.js";
import { sendOutputs, withSentOutputs } from "./tool-envelopes.js";

/** Codes that mean the agent was kept from a tool (a permission block), shown to the task's app as such. */
const BLOCK_CODES: ReadonlySet<string> = new Set(["tool_not_visible", "permission_denied", "foreground_required", "policy_denied", "capability_not_declared", "app_disabled", "app_not_installed", "unsupported_on_host"]);

/** The terminal outputs of calls an agent made for an app's task, as that task's events. */
function recordTaskToolOutputs(step: Step, env: TransitionEnv, calls: Readonly<Record<string, CallRecord>>, outputs: readonly ToolOutput[]): void {
  const tasks = step.state.tasks;
  // Most calls are no task's: only then is a draft made.
  if (tasks.tasks.size === 0 || !outputs.some((o) => (o.type === "lineup.tool.result" || o.type === "lineup.tool.error") && tasks.by_turn.has(calls[o.call_id]?.turn_id ?? ""))) return;
  const draft = new TaskDraft(tasks, toTimestamp(env.now()));
  for (const output of outputs) {
    if (output.type !== "lineup.tool.result" && output.type !== "lineup.tool.error") continue;
    const turn = draft.turn(calls[output.call_id]?.turn_id);
    if (turn === undefined) continue;
    if (output.type === "lineup.tool.result") {
      draft.append(turn.task.task_id, turn.attempt, { kind: "tool_result", call_id: output.call_id, outcome: "result" });
      continue;
    }
    const code = output.payload.code;
    draft.append(turn.task.task_id, turn.attempt, { kind: "tool_result", call_id: output.call_id, outcome: "error", code });
    if (BLOCK_CODES.has(code)) draft.append(turn.task.task_id, turn.attempt, { kind: "blocked", code, message: (output.payload.message ?? code).slice(0, 2000), call_id: output.call_id });
  }
  commitTaskDraft(step, draft);
}

/** The calls state without terminal calls (their records are in the store). */
export function withoutFinished(tools: ToolCallsState): ToolCallsState {
  let finished = false;
  for (const call of Object.values(tools.calls)) if (call.phase === "terminal") finished = true;
  if (!finished) return tools;
  const calls: Record<string, CallRecord> = {};
  for (const [id, call] of Object.entries(tools.calls)) if (call.phase !== "terminal") calls[id] = call;
  return { calls, activations: tools.activations };
}

/** Writes the call records and activations that changed between `before` and `after`. */
function persistCalls(step: Step, before: ToolCallsState, after: ToolCallsState): void {
  for (const [id, call] of Object.entries(after.calls)) {
    if (before.calls[id] !== call) step.writes.push({ op: "put", collection: C.toolCalls, key: id, value: call as unknown as JsonValue });
  }
  if (before.activations !== after.activations) step.writes.push({ op: "put", collection: C.meta, key: "tool-activations", value: after.activations as unknown as JsonValue });
}

/**
 * Folds a tool decision into the step: state, writes, outputs to the agent, audit, and its actions
 * (which may change instances and settle more activations, folded in turn).
 */
export function applyCallDecision(step: Step, env: TransitionEnv, decision: CallDecision): void {
  const queue: CallDecision[] = [decision];
  let ended = false;
  for (let rounds = 0; queue.length > 0 && rounds < 64; rounds++) {
    const current = queue.shift()!;
    const before = step.state.tools;
    // Each output is recorded with the envelope and key it went in, in the commit that queues it.
    const sent = sendOutputs(step, env, current.state.calls, current.outputs);
    const tools = sent.size === 0 ? current.state : { ...current.state, calls: withSentOutputs(current.state.calls, sent) };
    persistCalls(step, before, tools);
    // Finished calls live on in the store (the replay log); the state keeps only the ones still running.
    step.state = { ...step.state, tools: withoutFinished(tools) };
    if (current.replayed !== true) recordTaskToolOutputs(step, env, current.state.calls, current.outputs);
    step.audit.push(...current.audit);
    if (current.refusal !== undefined) step.audit.push({ type: "tool.report.refused", code: current.refusal.code, detail: current.refusal.message });
    for (const action of current.actions) {
      const next = runCallAction(step, env, action);
      if (next !== undefined) queue.push(next);
    }
    for (const output of current.outputs) {
      if (current.replayed === true || !isTerminalOutput(output)) continue;
      ended = true;
      const next = returnFocusAfter(step, env, current.state.calls[output.call_id]);
      if (next !== undefined) queue.push(next);
    }
  }
  // A call's end leaves its instance idle: one past the bound of live surfaces may be suspended now.
  if (ended) enforceSurfaceBound(step, env);
}

/** A call with `restore_focus` that brought its instance forward has ended: the front goes back (spec 4.5). */
function returnFocusAfter(step: Step, env: TransitionEnv, call: CallRecord | undefined): CallDecision | undefined {
  if (call?.focus_return === undefined || call.instance_id === undefined) return undefined;
  const returned = returnFocus(step.state.instances, call.instance_id, call.focus_return.displaced_instance_id, env.now());
  if (!returned.ok || returned.value.changes.length === 0) return undefined;
  step.audit.push({ type: "instance.focus_returned", subject: call.instance_id, detail: `${call.app_scope}/${call.method} ended (call ${call.call_id})` });
  return applyInstanceResult(step, env, returned);
}

function runCallAction(step: Step, env: TransitionEnv, action: CallAction): CallDecision | undefined {
  const now = env.now();
  switch (action.kind) {
    case "deliver_to_app":
      step.deliveries.push({ kind: "tool.call", call_id: action.call_id, app_scope: action.app_scope, conversation_id: action.conversation_id, method: action.method, arguments: action.arguments, mode: "run", ...(action.instance_id === undefined ? {} : { instance_id: action.instance_id }) });
      return surfaceFor(step, env, action.instance_id);
    case "start_operation": {
      const call = step.state.tools.calls[action.call_id];
      if (call === undefined) return undefined;
      step.deliveries.push({ kind: "tool.call", call_id: call.call_id, app_scope: call.app_scope, conversation_id: call.conversation_id, method: call.method, arguments: call.arguments, mode: "operation", ...(action.instance_id === undefined ? {} : { instance_id: action.instance_id }) });
      return surfaceFor(step, env, action.instance_id);
    }
    case "cancel_in_app":
      step.deliveries.push({ kind: "tool.cancel", call_id: action.call_id, ...(action.instance_id === undefined ? {} : { instance_id: action.instance_id }) });
      return undefined;
    case "launch_instance": {
      const launched = launchInstance(step.state.instances, {
        instance_id: action.instance_id,
        app_scope: action.app_scope,
        policy: instancePolicyFor(action.app_scope),
        conversation_id: action.conversation_id,
        foreground: action.foreground,
        new_instance: action.new_instance,
        now,
      });
      if (!launched.ok) return settled(step, action.instance_id, "failed", launched.error.message);
      return applyInstanceResult(step, env, launched);
    }
    case "focus_instance": {
      const focused = focusInstance(step.state.instances, action.instance_id, now);
      if (!focused.ok) return settled(step, action.instance_id, "failed", focused.error.message);
      return applyInstanceResult(step, env, focused);
    }
    case "restore_instance": {
      const restored = restoreInstanceInBackground(step.state.instances, action.instance_id, now);
      if (!restored.ok) return settled(step, action.instance_id, "failed", restored.error.message);
      return applyInstanceResult(step, env, restored);
    }
  }
}

/** A call delivered to a suspended instance (after a restart, or one that needs no activation): its surface comes back, behind. */
function surfaceFor(step: Step, env: TransitionEnv, instanceId: string | undefined): CallDecision | undefined {
  if (instanceId === undefined || step.state.instances.instances[instanceId]?.status !== "suspended") return undefined;
  const restored = restoreInstanceInBackground(step.state.instances, instanceId, env.now());
  return restored.ok ? applyInstanceResult(step, env, restored) : undefined;
}

function settled(step: Step, instanceId: string, outcome: "ready" | "failed" | "cancelled", message?: string, foreground = false): CallDecision | undefined {
  if (step.state.tools.activations[instanceId] === undefined) return undefined;
  const draft = new CallDraft(step.state.tools);
  settleActivation(draft, { instance_id: instanceId, outcome, foreground, ...(message === undefined ? {} : { message }) });
  return draft.done();
}
