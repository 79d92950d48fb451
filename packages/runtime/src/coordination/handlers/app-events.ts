/**
 * App events (spec 8.2): what a person does in an app's surface reaches the agent only as an event the
 * app's manifest declares. The Runtime checks, in order — the app is enabled, the instance is a live
 * one of this app and serves a conversation the Runtime knows, the event name is declared, its data
 * passes the declared `data_schema`, and the `lineup.app.event` envelope passes its own checks (size,
 * depth, shape) — and then sends it to the conversation's agent through the outbox, in order with
 * everything else the device sends, so an event raised offline reaches the agent after reconnect.
 * A refusal is a typed error to the app and an audit record; nothing is sent.
 */
import { LineUpError, validateEnvelope, type AppManifest, type ErrorCode, type JsonValue, type ProtocolError, type ToolValueValidator } from "@lineup/protocol";
import { createToolSchemaValidator } from "../../tools/schema-engine.js";
import { toTimestamp } from "../../core/ports.js";
import { getInstance } from "../../app-lifecycle/instances/state.js";
import { activeManifest } from "../../app-lifecycle/manager/records.js";
import { Step } from "../step.js";
import type { RuntimeInput, TransitionResult } from "../inputs.js";
import type { RuntimeState } from "../state.js";
import type { TransitionEnv } from "./env.js";

type AppEventInput = Extract<RuntimeInput, { kind: "app.event" }>;

/** Per manifest (validators are pure functions of the schema): each declared event's data check. */
const validatorCache = new WeakMap<AppManifest, Map<string, ToolValueValidator | ProtocolError>>();

function dataValidator(manifest: AppManifest, name: string): ToolValueValidator | ProtocolError | undefined {
  const declared = (manifest.events ?? []).find((event) => event.name === name);
  if (declared === undefined) return undefined;
  let cache = validatorCache.get(manifest);
  if (cache === undefined) validatorCache.set(manifest, (cache = new Map()));
  let validator = cache.get(name);
  if (validator === undefined) {
    // No schema: any JSON value (docs/manifest.md §7).
    const built = createToolSchemaValidator(declared.data_schema ?? {}, { code: "invalid_params" });
    validator = built.ok ? built.value : built.error;
    cache.set(name, validator);
  }
  return validator;
}

export function onAppEvent(state: RuntimeState, input: AppEventInput, env: TransitionEnv): TransitionResult {
  const step = new Step(state);
  const refuse = (code: ErrorCode, message: string, path?: string, conversationId?: string) => {
    step.audit.push({ type: "app.event.refused", code, subject: `${input.app_scope}/${input.name}`, detail: message, ...(conversationId === undefined ? {} : { conversation_id: conversationId }) });
    return step.result({ error: new LineUpError(code, message, path === undefined ? {} : { path }) });
  };

  const app = Object.hasOwn(state.apps.apps, input.app_scope) ? state.apps.apps[input.app_scope] : undefined;
  if (app === undefined) return refuse("app_not_installed", `no app ${input.app_scope}`);
  if (!app.record.enabled) return refuse("app_disabled", `app ${input.app_scope} is disabled`);
  const instance = getInstance(state.instances, input.instance_id);
  if (instance === undefined || instance.app_scope !== input.app_scope || instance.status === "closed" || instance.status === "failed") {
    return refuse("not_found", `${input.instance_id} is not a live instance of ${input.app_scope}`, "/instance_id");
  }
  const conversationId = instance.conversation_id;
  if (conversationId === undefined) return refuse("invalid_state", `instance ${input.instance_id} serves no conversation, so there is no agent to tell`);
  const conversation = state.conversations.get(conversationId);
  if (conversation === undefined) return refuse("conversation_unknown", `no conversation ${conversationId}`, undefined, conversationId);

  const manifest = activeManifest(app);
  const validator = manifest === undefined ? undefined : dataValidator(manifest, input.name);
  if (validator === undefined) return refuse("invalid_params", `${input.app_scope} declares no event ${input.name}`, "/name", conversationId);
  if (typeof validator !== "function") return refuse("invalid_params", `the data schema of ${input.name} cannot be used: ${validator.message}`, "/name", conversationId);
  const data = validator(input.data);
  if (!data.ok) return refuse("invalid_params", `the data of ${input.name} does not match its schema: ${data.error.message}`, `/data${data.error.path ?? ""}`, conversationId);

  const envelope = {
    v: 1,
    id: env.newId("env"),
    type: "lineup.app.event",
    timestamp: toTimestamp(env.now()),
    sender: { kind: "app", id: input.app_scope },
    target: { kind: "runtime", app_scope: "runtime" },
    scope: { app_scope: input.app_scope, conversation_id: conversationId, instance_id: input.instance_id },
    payload: { name: input.name, data: data.value },
  };
  const checked = validateEnvelope(envelope);
  if (!checked.ok) return refuse(checked.error.code, `the event ${input.name} cannot be sent: ${checked.error.message}`, checked.error.path, conversationId);
  step.enqueue(env, {
    conversation_id: conversationId,
    app_scope: input.app_scope,
    action_type: "lineup.app.event",
    method: "agentSession/envelope/send",
    params: { session_id: conversationId, envelope: envelope as unknown as JsonValue },
  });
  return step.result();
}
