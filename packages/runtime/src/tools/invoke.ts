/**
 * Receiving `lineup.tool.invoke` (spec 7.3): duplicate detection, the checks in their fixed order,
 * acceptance, routing, and — when the app must start or come to the front — the activation.
 *
 * Checks, each a terminal `lineup.tool.error` recorded under the call_id:
 *   app not installed → `app_not_installed`; disabled → `app_disabled`;
 *   `inventory_revision` not the current one → `stale_inventory_revision`;
 *   not in this agent's inventory → `tool_not_visible`; other `contract_version` → `app_version_mismatch`;
 *   arguments against the input schema → `invalid_arguments`; the router cannot reach the app → its code.
 * A repeated call_id with the same body replays the stored outputs; with another body it is refused
 * (`duplicate_call`) without touching the stored call.
 */
import { canonicalJson, type JsonValue } from "@lineup/protocol";
import type { ToolInvokePayload } from "./payloads.js";
import { foregroundInstance, type InstancesState } from "../app-lifecycle/instances/state.js";
import { releaseCall } from "./activation.js";
import { CallDraft, getCall, refuseReport, type CallDecision, type CallRecord, type ToolCallsState } from "./call-state.js";
import type { InventoryTool } from "./inventory.js";
import type { ToolRegistry } from "./registry.js";
import { routeToolCall } from "./router.js";

export interface InvokeRequest {
  readonly call_id: string;
  readonly agent_id: string;
  readonly conversation_id: string;
  readonly app_scope: string;
  /** As on the wire: the decimal string of the revision the agent saw. */
  readonly inventory_revision: string;
  readonly payload: ToolInvokePayload;
  readonly now: number;
  /** The id a new instance gets if this call has to launch one. */
  readonly launch_instance_id: string;
  /** The invoke envelope's id, for `reply_to` on every output. */
  readonly envelope_id?: string;
  /** The conversation's running turn when the invoke was applied (not part of the call's body). */
  readonly turn_id?: string;
  /** A workflow step's call (handlers/workflow-tools.ts); its key is in `call_id` and `agent_id`. */
  readonly workflow?: { readonly run_id: string; readonly step_id: string };
}

export interface InvokeContext {
  /** The current inventory of this agent + conversation. */
  readonly inventory: { readonly revision: number; readonly tools: readonly InventoryTool[] };
  readonly registry: ToolRegistry;
  readonly appStatus: (appScope: string) => { readonly installed: boolean; readonly enabled: boolean };
  readonly instances: InstancesState;
}

/** What makes two invokes the same call: their canonical JSON without the call_id and what the Runtime adds. */
export function invokeBody(request: Pick<InvokeRequest, "agent_id" | "app_scope" | "conversation_id" | "inventory_revision" | "payload">): string {
  const p = request.payload;
  // Keys in canonical order: canonicalJson then writes this level natively.
  return canonicalJson({
    agent_id: request.agent_id,
    app_scope: request.app_scope,
    arguments: p.arguments,
    contract_version: p.contract_version ?? null,
    conversation_id: request.conversation_id,
    inventory_revision: request.inventory_revision,
    method: p.method,
    timeout_ms: p.timeout_ms ?? null,
  } as JsonValue);
}

export function receiveInvoke(state: ToolCallsState, request: InvokeRequest, context: InvokeContext): CallDecision {
  const body = invokeBody(request);
  const existing = getCall(state, request.call_id);
  if (existing !== undefined) {
    if (existing.body === body) return { state, outputs: existing.outputs, actions: [], audit: [], replayed: true };
    return refuseReport(
      state,
      { code: "duplicate_call", message: `call_id ${request.call_id} was already used by a different call` },
      { type: "tool.call.refused", code: "duplicate_call", conversation_id: request.conversation_id, subject: request.call_id },
    );
  }
  const { payload, now } = request;
  const tool = context.inventory.tools.find((t) => t.app_scope === request.app_scope && t.method === payload.method);
  const draft = new CallDraft(state);
  const record: CallRecord = {
    call_id: request.call_id,
    body,
    agent_id: request.agent_id,
    conversation_id: request.conversation_id,
    app_scope: request.app_scope,
    method: payload.method,
    arguments: payload.arguments,
    handling: tool?.call_model === "operation" ? "operation" : "direct",
    activation_requirement: tool?.activation_requirement ?? "app_ready",
    call_model: tool?.call_model ?? "command",
    received_at: now,
    ...(request.envelope_id === undefined ? {} : { reply_to: request.envelope_id }),
    ...(request.turn_id === undefined ? {} : { turn_id: request.turn_id }),
    ...(request.workflow === undefined ? {} : { workflow: request.workflow }),
    deadline_at: now + Math.min(payload.timeout_ms ?? Number.MAX_SAFE_INTEGER, tool?.timeout_ms ?? Number.MAX_SAFE_INTEGER),
    phase: "running",
    outputs: [],
  };
  draft.calls[request.call_id] = record;
  const refuse = (code: Parameters<CallDraft["error"]>[1], message: string): CallDecision => {
    draft.error(request.call_id, code, message);
    return draft.done();
  };

  const app = context.appStatus(request.app_scope);
  if (!app.installed) return refuse("app_not_installed", `no app "${request.app_scope}" is installed`);
  if (!app.enabled) return refuse("app_disabled", `"${request.app_scope}" is disabled`);
  if (String(context.inventory.revision) !== request.inventory_revision) {
    return refuse("stale_inventory_revision", `inventory revision ${request.inventory_revision} is not the current ${context.inventory.revision}; refresh the inventory`);
  }
  if (tool === undefined) return refuse("tool_not_visible", `${request.app_scope}/${payload.method} is not in the current inventory`);
  if (payload.contract_version !== undefined && payload.contract_version !== tool.contract_version) {
    return refuse("app_version_mismatch", `${payload.method} is at contract version ${tool.contract_version}, not ${payload.contract_version}`);
  }
  const registered = context.registry.get(request.app_scope, payload.method);
  if (registered === undefined) return refuse("tool_not_visible", `${request.app_scope}/${payload.method} is not registered`);
  const args = registered.validateInput(payload.arguments);
  if (!args.ok) return refuse("invalid_arguments", `${args.error.message}${args.error.path === undefined ? "" : ` (at ${args.error.path})`}`);
  draft.update(request.call_id, {
    handling: registered.descriptor.handling,
    ...(tool.requires_foreground ? { requires_foreground: true as const } : {}),
    ...(tool.idempotent ? {} : { at_most_once: true as const }),
  });

  // Accepted: from here on the call is the Runtime's to finish.
  // The receipt names the tool by the app's own title for it, so whoever shows the call can too.
  draft.receipt(request.call_id, "accepted", undefined, undefined, { method: payload.method, title: (tool.title ?? payload.method).slice(0, 200) });
  draft.audit.push({ type: "tool.call.accepted", conversation_id: request.conversation_id, subject: request.call_id, detail: `${request.app_scope}/${payload.method}` });

  // An activation of this app for this conversation already under way: wait for it (never for activation_not_required).
  if (tool.activation_requirement !== "activation_not_required" && tool.launch_policy !== "new_instance") {
    const pending = Object.values(draft.activations).find((a) => a.app_scope === request.app_scope && a.conversation_id === request.conversation_id);
    if (pending !== undefined) {
      draft.activations[pending.instance_id] = { ...pending, waiting: [...pending.waiting, request.call_id] };
      draft.update(request.call_id, { phase: "waiting_activation", instance_id: pending.instance_id });
      return draft.done();
    }
  }

  const route = routeToolCall(tool, context.instances, request.app_scope, request.conversation_id);
  switch (route.action) {
    case "refuse":
      return refuse(route.code, route.message);
    case "run_directly":
    case "wait_for_user":
      releaseCall(draft, request.call_id, route.instance_id);
      return draft.done();
    case "launch_app":
    case "bring_to_foreground":
    case "restore_behind":
    case "wait_for_activation": {
      const instanceId = route.action === "launch_app" ? request.launch_instance_id : route.instance_id;
      draft.activations[instanceId] = { instance_id: instanceId, app_scope: request.app_scope, conversation_id: request.conversation_id, trigger_call_id: request.call_id, waiting: [] };
      // This call moves the app in front: with `restore_focus` it gives the front back when it ends.
      const bringsForward = route.action === "bring_to_foreground" || (route.action === "launch_app" && route.foreground);
      const displaced = foregroundInstance(context.instances)?.instance_id;
      const focusReturn = tool.restore_focus && bringsForward && displaced !== instanceId ? { focus_return: displaced === undefined ? {} : { displaced_instance_id: displaced } } : {};
      draft.update(request.call_id, { phase: "starting", instance_id: instanceId, ...focusReturn });
      draft.receipt(request.call_id, "starting");
      if (route.action === "launch_app") {
        draft.actions.push({ kind: "launch_instance", call_id: request.call_id, instance_id: instanceId, app_scope: request.app_scope, conversation_id: request.conversation_id, foreground: route.foreground, new_instance: route.new_instance });
      } else if (route.action === "bring_to_foreground") {
        draft.actions.push({ kind: "focus_instance", call_id: request.call_id, instance_id: instanceId });
      } else if (route.action === "restore_behind") {
        draft.actions.push({ kind: "restore_instance", call_id: request.call_id, instance_id: instanceId });
      }
      return draft.done();
    }
  }
}
