/**
 * The Capability Gateway in the loop (spec 6.3, RELIABILITY P5). An app's request, the user's and
 * the system's answers, the host's result and the request timer are inputs like any other; the pure
 * gateway (`capabilities/gateway.ts`, `resolve.ts`) decides, and this handler folds its decision into
 * one commit: the waiting requests (`state.capabilities`), the user's remembered decisions (folded
 * into `state.grants`, persisted under `settings/grants`, so Settings shows them), and the decision's
 * audit facts. The decision's steps (ask the user, ask the system, invoke or abort the host, respond
 * to the app) become `capability` effects, which the shell runs only after that commit — so no host
 * call happens that is not already in the audit log.
 *
 * Settings and App Manager changes reach the gateway too (`afterSettings`, `afterAppRequest`): a
 * grant revoked in settings ends that capability's waiting requests and aborts its host call; an app
 * that is disabled or removed has its requests ended.
 */
import type { JsonValue } from "@lineup/protocol";
import { foregroundInstance, getInstance } from "../../app-lifecycle/instances/state.js";
import { activeManifest, getApp, getManagedApp } from "../../app-lifecycle/manager/records.js";
import { decideCapabilityRequest, refuseCapability, type CapabilityContext, type CapabilityPolicy } from "../../capabilities/gateway.js";
import { capabilitiesAfter, gatewayStateOf, grantsAfter, type CapabilityHostSnapshot } from "../../capabilities/loop-state.js";
import { answerSystemPermission, answerUserPrompt, changeCapabilitySetting, completeHostCall, expireCapabilityRequests, refuseAppCapabilityRequests } from "../../capabilities/resolve.js";
import type { CapabilityDecision, CapabilityGatewayState } from "../../capabilities/state.js";
import { RUNTIME_COLLECTIONS as C } from "../../persistence/runtime-schema.js";
import { Step } from "../step.js";
import type { RuntimeInput, TransitionResult } from "../inputs.js";
import type { RuntimeState } from "../state.js";
import type { TransitionEnv } from "./env.js";

/** Longest purpose text kept with a request (it is shown in the confirmation dialog and audited). */
const MAX_PURPOSE_LENGTH = 500;

/** What the gateway reads about the world: the state, the host's facts and the shell's snapshot. */
function contextOf(state: RuntimeState, env: TransitionEnv, host: CapabilityHostSnapshot): CapabilityContext {
  return {
    declared: (appScope) => {
      const app = getManagedApp(state.apps, appScope);
      if (app === undefined) return undefined;
      return (activeManifest(app)?.capabilities ?? []).map((c) => c.name);
    },
    appEnabled: (appScope) => {
      const record = getApp(state.apps, appScope);
      return record?.enabled === true && record.install_state !== "failed";
    },
    hostSupports: (capability) => env.host.capabilities.includes(capability),
    foregroundInstanceId: foregroundInstance(state.instances)?.instance_id,
    systemPermission: () => host.system_permission,
    policy: host.policy,
  };
}

/** What the confirmation dialog shows besides the request: the app's name and the purpose its manifest declares. */
function promptFacts(state: RuntimeState, appScope: string, capability: string): { app_name: string; declared_purpose?: string } {
  const app = getManagedApp(state.apps, appScope);
  const manifest = app === undefined ? undefined : activeManifest(app);
  const declared = manifest?.capabilities?.find((c) => c.name === capability)?.purpose;
  return { app_name: manifest?.name ?? appScope, ...(declared === undefined ? {} : { declared_purpose: declared }) };
}

/**
 * Folds a gateway decision made over `before` into the step: the waiting requests, the remembered
 * decisions (as grants, written when they changed), the audit facts, and the steps as effects.
 */
function applyCapabilityDecision(step: Step, env: TransitionEnv, before: CapabilityGatewayState, decision: CapabilityDecision, policy: CapabilityPolicy | undefined): void {
  const now = env.now();
  const grants = grantsAfter(step.state.grants, before.decisions, decision.state.decisions, now);
  if (grants !== step.state.grants) step.writes.push({ op: "put", collection: C.settings, key: "grants", value: grants as unknown as JsonValue });
  step.state = { ...step.state, grants, capabilities: capabilitiesAfter(decision.state, policy, now) };
  step.audit.push(...decision.audit);
  for (const s of decision.steps) {
    step.effects.push(s.kind === "ask_user" ? { kind: "capability", step: s, ...promptFacts(step.state, s.app_scope, s.capability) } : { kind: "capability", step: s });
  }
}

function decideOn(state: RuntimeState, env: TransitionEnv, policy: CapabilityPolicy | undefined, decide: (gateway: CapabilityGatewayState) => CapabilityDecision): TransitionResult {
  const step = new Step(state);
  const before = gatewayStateOf(state.capabilities, state.grants);
  applyCapabilityDecision(step, env, before, decide(before), policy);
  return step.result();
}

/** An app asks for a capability. The reply is nothing: the app's answer is the `respond` step. */
export function onCapabilityRequest(state: RuntimeState, input: Extract<RuntimeInput, { kind: "capability.request" }>, env: TransitionEnv): TransitionResult {
  const { request, host } = input;
  const context = contextOf(state, env, host);
  return decideOn(state, env, host.policy, (gateway) => {
    let instanceId = request.instance_id;
    if (request.view !== undefined) {
      // A view speaks only for its own app: one of the app's tools names it.
      const app = getManagedApp(state.apps, request.app_scope);
      const manifest = app === undefined ? undefined : activeManifest(app);
      if (manifest !== undefined && !(manifest.tools ?? []).some((tool) => tool.view?.resource_uri === request.view)) {
        return refuseCapability(gateway, request, "permission_denied", `${request.view} is not a view of ${request.app_scope}`, "not_owner");
      }
      instanceId = "";
    } else if (instanceId !== undefined) {
      // An app speaks only for its own instances (it may not borrow another app's place in front).
      if (getInstance(state.instances, instanceId)?.app_scope !== request.app_scope) {
        return refuseCapability(gateway, request, "permission_denied", `${instanceId} is not an instance of ${request.app_scope}`, "not_owner");
      }
    } else {
      const front = context.foregroundInstanceId;
      instanceId = front !== undefined && getInstance(state.instances, front)?.app_scope === request.app_scope ? front : "";
    }
    return decideCapabilityRequest(gateway, { ...request, instance_id: instanceId, purpose: request.purpose.slice(0, MAX_PURPOSE_LENGTH), now: env.now() }, context);
  });
}

export function onCapabilityUserAnswer(state: RuntimeState, input: Extract<RuntimeInput, { kind: "capability.user_answer" }>, env: TransitionEnv): TransitionResult {
  const context = contextOf(state, env, input.host);
  return decideOn(state, env, input.host.policy, (gateway) => answerUserPrompt(gateway, { request_id: input.request_id, answer: input.answer, now: env.now() }, context));
}

export function onCapabilitySystemAnswer(state: RuntimeState, input: Extract<RuntimeInput, { kind: "capability.system_answer" }>, env: TransitionEnv): TransitionResult {
  const context = contextOf(state, env, input.host);
  return decideOn(state, env, input.host.policy, (gateway) => answerSystemPermission(gateway, { request_id: input.request_id, granted: input.granted, now: env.now() }, context));
}

export function onCapabilityHostCompleted(state: RuntimeState, input: Extract<RuntimeInput, { kind: "capability.host_completed" }>, env: TransitionEnv): TransitionResult {
  return decideOn(state, env, undefined, (gateway) => completeHostCall(gateway, { request_id: input.request_id, result: input.result }));
}

/** The request timer: waiting requests past their time end `expired` (a running host call is aborted). */
export function onCapabilitiesTick(state: RuntimeState, env: TransitionEnv): TransitionResult {
  return decideOn(state, env, undefined, (gateway) => expireCapabilityRequests(gateway, env.now()));
}

/** Folds a further gateway decision into a transition's result (after settings or App Manager changes). */
function extend(result: TransitionResult, env: TransitionEnv, decide: (gateway: CapabilityGatewayState) => CapabilityDecision): TransitionResult {
  const step = new Step(result.state);
  const before = gatewayStateOf(result.state.capabilities, result.state.grants);
  applyCapabilityDecision(step, env, before, decide(before), undefined);
  return { ...result, state: step.state, writes: [...result.writes, ...step.writes], effects: [...result.effects, ...step.effects], audit: [...result.audit, ...step.audit] };
}

/**
 * After a settings change: a grant changed in settings is the gateway's decision too (the grants are
 * already updated); a denial ends that app's waiting requests for the capability and aborts its host call.
 */
export function afterSettings(result: TransitionResult, input: Extract<RuntimeInput, { kind: "settings" }>, env: TransitionEnv): TransitionResult {
  const { change } = input;
  // Only a denial has consequences beyond the grants list itself (`granted` / `ask` are read at the next request).
  if (change.type !== "grant" || change.decision !== "denied" || result.error !== undefined) return result;
  return extend(result, env, (gateway) => changeCapabilitySetting(gateway, { app_scope: change.app_scope, capability: change.capability, decision: change.decision, now: env.now() }));
}

/** After an App Manager request: requests of apps that are no longer enabled (or installed) end. */
export function afterAppRequest(result: TransitionResult, env: TransitionEnv): TransitionResult {
  const scopes = new Set(Object.values(result.state.capabilities.pending).map((p) => p.app_scope));
  let next = result;
  for (const scope of scopes) {
    if (getApp(next.state.apps, scope)?.enabled === true) continue;
    next = extend(next, env, (gateway) => refuseAppCapabilityRequests(gateway, scope));
  }
  return next;
}

