/**
 * Instances and the focus stack in the loop (spec 4.4, 4.5): the shell launches, focuses and closes
 * instances and reports how their surfaces went (ready, failed, closed); each report is a pure
 * instance transition folded, with the activations it settles, into one commit.
 */
import { LineUpError, type JsonValue } from "@lineup/protocol";
import { activeManifest, getApp, getManagedApp } from "../../app-lifecycle/manager/records.js";
import { findLiveInstance, getInstance, instancePolicyFor } from "../../app-lifecycle/instances/state.js";
import {
  backgroundInstance,
  closeInstance,
  crashInstance,
  focusInstance,
  launchInstance,
  markInstanceClosed,
  markInstanceReady,
  markInstanceRestored,
  resumeInstance,
  type InstanceResult,
} from "../../app-lifecycle/instances/transitions.js";
import { endClosedInstanceCalls } from "../../tools/reports.js";
import { suspendIdle } from "../../app-lifecycle/instances/suspend.js";
import { applyCallDecision } from "../call-folding.js";
import { applyInstanceResult, applyInstances, busyInstances } from "../instance-folding.js";
import { Step } from "../step.js";
import type { RuntimeInput, TransitionResult } from "../inputs.js";
import type { RuntimeState } from "../state.js";
import type { TransitionEnv } from "./env.js";

/** The idle timer: background instances idle for `suspendIdleMs` are suspended, their frames unmounted. */
export function onInstancesTick(state: RuntimeState, env: TransitionEnv): TransitionResult {
  const step = new Step(state);
  if (env.suspendIdleMs === undefined) return step.result();
  const idle = suspendIdle(state.instances, { idle_ms: env.suspendIdleMs, busy: busyInstances(state.tools), now: env.now() });
  if (idle.changes.length === 0) return step.result();
  applyInstances(step, env, idle.state, idle.changes);
  for (const change of idle.changes) step.audit.push({ type: "instance.changed", subject: change.instance_id, detail: `${change.app_scope}: ${change.from} → ${change.to} (idle)` });
  return step.result();
}

/** A host intent (app-lifecycle/host-intents.ts): audited; memory pressure suspends every idle background instance at once. */
export function onHostIntent(state: RuntimeState, input: Extract<RuntimeInput, { kind: "host.intent" }>, env: TransitionEnv): TransitionResult {
  const step = new Step(state);
  const { intent } = input;
  const about = [intent.app_scope, intent.conversation_id, intent.entrypoint].filter((v) => v !== undefined).join(" ");
  step.audit.push({ type: "host.intent", subject: intent.intent, ...(about === "" ? {} : { detail: about }) });
  if (intent.intent !== "memory_pressure") return step.result();
  const freed = suspendIdle(state.instances, { idle_ms: 0, busy: busyInstances(state.tools), now: env.now() });
  if (freed.changes.length === 0) return step.result();
  applyInstances(step, env, freed.state, freed.changes);
  for (const change of freed.changes) step.audit.push({ type: "instance.changed", subject: change.instance_id, detail: `${change.app_scope}: ${change.from} → ${change.to} (memory pressure)` });
  return step.result();
}

export function onInstance(state: RuntimeState, input: Extract<RuntimeInput, { kind: "instance" }>, env: TransitionEnv): TransitionResult {
  const { request } = input;
  const now = env.now();
  const step = new Step(state);
  let result: InstanceResult;
  let reply: JsonValue | undefined;
  switch (request.op) {
    case "launch": {
      const record = getApp(state.apps, request.app_scope);
      if (record === undefined) return step.result({ error: new LineUpError("app_not_installed", `no app ${request.app_scope}`) });
      if (!record.enabled) return step.result({ error: new LineUpError("app_disabled", `${request.app_scope} is disabled`) });
      if (record.install_state === "failed") return step.result({ error: new LineUpError("app_disabled", `${request.app_scope}'s installation failed; update or remove it`) });
      const policy = instancePolicyFor(request.app_scope);
      const live = request.new_instance === true ? undefined : findLiveInstance(state.instances, request.app_scope, request.conversation_id);
      if (live !== undefined) {
        // Launching what already runs brings it to the front (spec 4.4: one instance per app and conversation).
        result = request.foreground ? focusInstance(state.instances, live.instance_id, now) : { ok: true, value: { state: state.instances, changes: [] } };
        reply = live.instance_id;
        break;
      }
      const instanceId = env.newId("inst");
      result = launchInstance(state.instances, {
        instance_id: instanceId,
        app_scope: request.app_scope,
        policy,
        foreground: request.foreground,
        now,
        ...(request.conversation_id === undefined ? {} : { conversation_id: request.conversation_id }),
        ...(request.entrypoint === undefined ? {} : { entrypoint: request.entrypoint }),
        ...(request.new_instance === undefined ? {} : { new_instance: request.new_instance }),
        ...(request.parent_instance_id === undefined ? {} : { parent_instance_id: request.parent_instance_id }),
        ...(request.opened_by === undefined ? {} : { opened_by: request.opened_by }),
      });
      reply = instanceId;
      break;
    }
    case "ready": {
      const instance = getInstance(state.instances, request.instance_id);
      result =
        instance?.status === "restoring"
          ? markInstanceRestored(state.instances, request.instance_id, now)
          : instance?.status === "suspended"
            ? resumeInstance(state.instances, request.instance_id, now)
            : markInstanceReady(state.instances, request.instance_id, now);
      break;
    }
    case "focus":
      result = focusInstance(state.instances, request.instance_id, now);
      break;
    case "background":
      result = backgroundInstance(state.instances, request.instance_id, now);
      break;
    case "close":
      result = closeInstance(state.instances, request.instance_id, now);
      break;
    case "closed":
      result = markInstanceClosed(state.instances, request.instance_id, now);
      break;
    case "failed":
      result = crashInstance(state.instances, request.instance_id, now, request.reason.slice(0, 200));
      break;
  }
  if (!result.ok) return step.result({ error: new LineUpError(result.error.code, result.error.message) });
  const decision = applyInstanceResult(step, env, result);
  if (decision !== undefined) applyCallDecision(step, env, decision);
  if (request.op === "close") {
    const closed = getInstance(state.instances, request.instance_id);
    const managed = closed === undefined ? undefined : getManagedApp(state.apps, closed.app_scope);
    const name = (managed === undefined ? undefined : activeManifest(managed)?.name) ?? closed?.app_scope ?? "the app";
    const ended = endClosedInstanceCalls(step.state.tools, { instance_id: request.instance_id, app_name: name, by: request.by ?? "app" });
    if (ended !== undefined) applyCallDecision(step, env, ended);
  }
  for (const change of result.value.changes) {
    step.audit.push({ type: "instance.changed", subject: change.instance_id, detail: `${change.app_scope}: ${change.from} → ${change.to}` });
  }
  return step.result(reply === undefined ? {} : { reply });
}
