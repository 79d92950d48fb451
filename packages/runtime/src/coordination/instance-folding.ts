/**
 * Folds an instance change (`app-lifecycle/instances`) into a `Step`: the new state, its snapshot, the apps'
 * instance counts, and the calls that wait for it (activation ready / failed / cancelled).
 */
import type { JsonValue } from "@lineup/protocol";
import { liveInstanceCount, type InstanceChange, type InstancesState } from "../app-lifecycle/instances/state.js";
import { snapshotInstances } from "../app-lifecycle/instances/snapshot.js";
import { closeAppInstances, pruneFinishedInstances, type InstanceResult } from "../app-lifecycle/instances/transitions.js";
import { DEFAULT_MAX_LIVE_SURFACES, suspendPastBound, type SurfaceBound } from "../app-lifecycle/instances/suspend.js";
import { withActiveInstanceCount } from "../app-lifecycle/manager/records.js";
import { RUNTIME_COLLECTIONS as C } from "../persistence/runtime-schema.js";
import { settleActivation } from "../tools/activation.js";
import { failInstanceCalls } from "../tools/reports.js";
import { CallDraft, type CallDecision, type ToolCallsState } from "../tools/call-state.js";
import type { TransitionEnv } from "./handlers/env.js";
import { applyCallDecision } from "./call-folding.js";
import { writeApp, type Step } from "./step.js";

/**
 * Folds an instance transition into the step: the new state (finished instances pruned), its
 * snapshot, the apps' instance counts, and the activations it settles. Returns the tool decision
 * those settlements produced (the caller folds it with `applyCallDecision`).
 */
export function applyInstanceResult(step: Step, env: TransitionEnv, result: Extract<InstanceResult, { ok: true }>): CallDecision | undefined {
  return applyInstances(step, env, result.value.state, result.value.changes);
}

/** Suspends what is past the bound of live surfaces now, if anything (spec 4.4). */
export function enforceSurfaceBound(step: Step, env: TransitionEnv): void {
  const bounded = suspendPastBound(step.state.instances, surfaceBound(step, env));
  if (bounded.changes.length > 0) applyInstances(step, env, bounded.state, bounded.changes);
}

function surfaceBound(step: Step, env: TransitionEnv): SurfaceBound {
  return { max_live_surfaces: env.maxLiveSurfaces ?? DEFAULT_MAX_LIVE_SURFACES, busy: busyInstances(step.state.tools), now: env.now() };
}

export function applyInstances(step: Step, env: TransitionEnv, given: InstancesState, made: readonly InstanceChange[]): CallDecision | undefined {
  // Past the bound of live surfaces, the least recently used idle background instances are suspended in the same commit.
  const bounded = made.length === 0 ? { state: given, changes: [] } : suspendPastBound(given, surfaceBound(step, env));
  const instances = bounded.state;
  const changes = bounded.changes.length === 0 ? made : [...made, ...bounded.changes];
  const pruned = pruneFinishedInstances(instances);
  if (changes.length > 0) step.deliveries.push({ kind: "instances.changed", changes });
  let apps = step.state.apps;
  const touched = new Set(changes.map((c) => instances.instances[c.instance_id]?.app_scope).filter((s): s is string => s !== undefined));
  for (const scope of touched) apps = withActiveInstanceCount(apps, scope, liveInstanceCount(pruned, scope));
  if (apps !== step.state.apps) for (const scope of touched) writeApp(step, apps, scope);
  step.state = { ...step.state, instances: pruned, apps };
  step.writes.push({ op: "put", collection: C.instances, key: "snapshot", value: snapshotInstances(pruned) as unknown as JsonValue });

  // Activations: an instance that finished starting (or came back) is ready; one that failed or closed is not,
  // and the calls a failed one was handling fail with it (runtime-owned operations keep their deadline).
  const draft = new CallDraft(step.state.tools);
  let touchedCalls = false;
  for (const change of changes) {
    const waited = draft.activations[change.instance_id] !== undefined;
    const instance = instances.instances[change.instance_id];
    if (change.from === "active" && change.to === "backgrounded" && endForegroundCalls(draft, change.instance_id)) touchedCalls = true;
    switch (change.to) {
      case "active":
      case "backgrounded": {
        if (!waited) break;
        const top = instances.focus_stack[instances.focus_stack.length - 1];
        settleActivation(draft, { instance_id: change.instance_id, outcome: "ready", foreground: change.to === "active" && top === change.instance_id });
        touchedCalls = true;
        break;
      }
      case "failed":
        failInstanceCalls(draft, change.instance_id, instance?.status === "failed" ? `the app failed to start: ${instance.reason}` : "the app failed to start");
        touchedCalls = true;
        break;
      case "closing":
      case "closed":
        if (!waited) break;
        settleActivation(draft, { instance_id: change.instance_id, outcome: "cancelled", foreground: false, message: "the app was closed before it was ready" });
        touchedCalls = true;
        break;
    }
  }
  return touchedCalls ? draft.done() : undefined;
}

/** Instances a tool call or an activation is on: they keep their surface. */
export function busyInstances(tools: ToolCallsState): ReadonlySet<string> {
  const busy = new Set(Object.keys(tools.activations));
  for (const call of Object.values(tools.calls)) if (call.phase !== "terminal" && call.instance_id !== undefined) busy.add(call.instance_id);
  return busy;
}

/** The instance left the front: the calls on it that need the front for their whole run end `foreground_required`. */
function endForegroundCalls(draft: CallDraft, instanceId: string): boolean {
  let ended = false;
  for (const call of Object.values(draft.calls)) {
    if (call.instance_id !== instanceId || call.requires_foreground !== true) continue;
    if (call.phase !== "running" && call.phase !== "awaiting_operation" && call.phase !== "operation_running") continue;
    draft.error(call.call_id, "foreground_required", `${call.method} needs its app in the foreground, and the app left it`);
    draft.actions.push({ kind: "cancel_in_app", call_id: call.call_id, instance_id: instanceId });
    ended = true;
  }
  return ended;
}

/** Closes every live instance of an app (disable, remove). */
export function closeInstancesOf(step: Step, env: TransitionEnv, appScope: string): void {
  const closed = closeAppInstances(step.state.instances, appScope, env.now());
  if (closed.changes.length === 0) return;
  const decision = applyInstances(step, env, closed.state, closed.changes);
  if (decision !== undefined) applyCallDecision(step, env, decision);
}
