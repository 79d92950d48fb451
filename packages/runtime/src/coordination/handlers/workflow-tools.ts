/**
 * A workflow's `tool` step calls one of its app's own tools, or another app's tool that the step names (shown in the
 * install review; docs/protocol.md "Workflows"). The call goes where an agent's goes once it is past the log: the
 * tools core (`receiveInvoke`) checks it — the tool's app installed and enabled, the tool visible under the host's
 * support and the user's policy, registered, arguments against its input schema — the router reaches the tool's app
 * (runs it, or launches or focuses an instance in the run's conversation and waits for it), the handler reports
 * through `tool.report` with the same owner, one-terminal-result and output-schema checks,
 * the deadline timer ends it, and every step is audited as a call. What differs is who hears the outputs: no agent
 * made the call, so none is sent to a session; the terminal one is a `tool.settled` delivery for the waiting step.
 *
 * The call's id comes from the step's effect key: the step run again after a restart is the same call, which the
 * core answers from its record (a repeated invoke replays, never runs again), so the tool's effect happens once.
 * The workflow has no inventory of its own to be stale, so the inventory revision is not checked.
 */
import { LineUpError, type ErrorCode, type JsonObject } from "@lineup/protocol";
import { getApp } from "../../app-lifecycle/manager/records.js";
import { receiveInvoke } from "../../tools/invoke.js";
import { getCall, isTerminalOutput, type CallRecord } from "../../tools/call-state.js";
import { cancelCall } from "../../tools/reports.js";
import { isRunEnded } from "../../workflows/run.js";
import { RUNTIME_COLLECTIONS as C } from "../../persistence/runtime-schema.js";
import { applyCallDecision } from "../call-folding.js";
import { inventoryFor, toolRegistryOf } from "../inventories.js";
import { Step } from "../step.js";
import { readId, unchanged, type ReadKey, type Reads, type RuntimeInput, type TransitionResult } from "../inputs.js";
import type { RuntimeState } from "../state.js";
import type { TransitionEnv } from "./env.js";

type WorkflowToolInput = Extract<RuntimeInput, { kind: "workflow.tool_call" }>;

/** The call's stored record: a finished call is no longer in the state, and answers a repeated step from the store. */
export function workflowToolReads(input: WorkflowToolInput): ReadKey[] {
  return [{ collection: C.toolCalls, key: input.call_id }];
}

function refuse(state: RuntimeState, input: WorkflowToolInput, code: ErrorCode, message: string): TransitionResult {
  return unchanged(state, {
    audit: [{ type: "workflow.tool.refused", code, subject: input.call_id, detail: `${input.app_scope} ${input.run_id}/${input.step_id}: ${message}`.slice(0, 500) }],
    error: new LineUpError(code, message),
  });
}

/** Replies with the call's terminal output once it has one (`{ output }`), else `{ output: null }`: the step waits for `tool.settled`. */
export function onWorkflowToolCall(state: RuntimeState, input: WorkflowToolInput, reads: Reads, env: TransitionEnv): TransitionResult {
  const run = state.workflows.get(input.run_id);
  if (run === undefined || run.app_scope !== input.app_scope) return refuse(state, input, "not_found", `${input.app_scope} has no workflow run ${input.run_id}`);
  if (isRunEnded(run) || run.steps[input.step_id]?.status !== "running") return refuse(state, input, "invalid_state", `step ${input.step_id} of run ${input.run_id} is not running`);
  // Instances live in conversations: an app's tool runs in one, as an agent's call does.
  if (run.conversation_id === undefined) return refuse(state, input, "invalid_state", "a tool step needs the run to have a conversation");
  if (typeof input.arguments !== "object" || input.arguments === null || Array.isArray(input.arguments)) return refuse(state, input, "invalid_arguments", "a tool step's input is the call's arguments: a JSON object");

  const step = new Step(state);
  let tools = step.state.tools;
  const stored = reads.get(readId({ collection: C.toolCalls, key: input.call_id })) as CallRecord | undefined;
  if (stored !== undefined && tools.calls[input.call_id] === undefined) {
    tools = { ...tools, calls: { ...tools.calls, [input.call_id]: stored } };
    step.state = { ...step.state, tools };
  }
  // One caller name per app (not per run): the inventory cache keeps one entry per caller and conversation.
  const agentId = `workflow:${input.app_scope}`;
  // The tool's app: the run's own, or the other app its step names (installed, enabled and its tool visible, as for an agent).
  const toolScope = input.tool_app_scope ?? input.app_scope;
  const visible = inventoryFor(state, env, agentId, run.conversation_id).tools.filter((t) => t.app_scope === toolScope);
  const decision = receiveInvoke(
    tools,
    {
      call_id: input.call_id,
      agent_id: agentId,
      conversation_id: run.conversation_id,
      app_scope: toolScope,
      inventory_revision: "0",
      payload: { method: input.method, arguments: input.arguments as JsonObject, ...(input.timeout_ms === undefined ? {} : { timeout_ms: input.timeout_ms }) },
      now: env.now(),
      launch_instance_id: env.newId("inst"),
      workflow: { run_id: input.run_id, step_id: input.step_id },
    },
    {
      inventory: { revision: 0, tools: visible },
      registry: toolRegistryOf(state),
      appStatus: (scope) => {
        const record = getApp(state.apps, scope);
        return { installed: record !== undefined, enabled: record?.enabled === true && record.install_state !== "failed" };
      },
      instances: state.instances,
    },
  );
  if (decision.refusal !== undefined) {
    // The same call_id with another body: the step's input changed under the same key.
    step.audit.push({ type: "workflow.tool.refused", code: decision.refusal.code, subject: input.call_id, detail: decision.refusal.message });
    return step.result({ error: new LineUpError(decision.refusal.code, decision.refusal.message) });
  }
  if (decision.replayed === true) step.audit.push({ type: "tool.call.replayed", conversation_id: run.conversation_id, subject: input.call_id });
  applyCallDecision(step, env, decision);
  const outputs = decision.replayed === true ? decision.outputs : (getCall(decision.state, input.call_id)?.outputs ?? []);
  const terminal = outputs.find(isTerminalOutput);
  return step.result({ reply: { output: terminal === undefined ? null : (terminal as unknown as JsonObject) } });
}

/**
 * After a workflow input or an App Manager request: a call a step made whose run has ended (cancelled, the app
 * disabled or removed) ends `request_cancelled`, and its handler hears `tool.cancel` — no call outlives its run.
 */
export function endCallsOfEndedRuns(result: TransitionResult, env: TransitionEnv): TransitionResult {
  const live = (runId: string): boolean => {
    const run = result.state.workflows.get(runId);
    return run !== undefined && !isRunEnded(run);
  };
  const orphaned = Object.values(result.state.tools.calls).filter((call) => call.workflow !== undefined && call.phase !== "terminal" && !live(call.workflow.run_id));
  if (orphaned.length === 0) return result;
  const step = new Step(result.state);
  for (const call of orphaned) applyCallDecision(step, env, cancelCall(step.state.tools, { call_id: call.call_id, agent_id: call.agent_id, reason: "its workflow run ended" }));
  const ended = step.result();
  return { ...result, state: ended.state, writes: [...result.writes, ...ended.writes], effects: [...result.effects, ...ended.effects], deliveries: [...result.deliveries, ...ended.deliveries], audit: [...result.audit, ...ended.audit] };
}
