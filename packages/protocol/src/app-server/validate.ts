/**
 * Request validation for the App Server: method, role, handshake state and params, in that order.
 *
 * - unknown method, or a method outside the caller's role → `method_not_found` (the two are
 *   indistinguishable on purpose: see catalogue.ts);
 * - any method but `initialize` before the handshake → `not_initialized`; `initialize` after it →
 *   `already_initialized`;
 * - params against the method's schema → `invalid_params` with a JSON Pointer; params must be an
 *   object (by-name) or absent (treated as `{}`);
 * - then the rules a schema cannot say (an envelope's own checks, outcome/error pairing, chunk
 *   arithmetic), each with its most precise code.
 *
 * Pure and total: never throws, touches no state. What needs the store (visibility, idempotency,
 * turn states) is the server's job.
 */
import { fail, ok, type ProtocolError, type Result } from "../errors.js";
import { validators } from "../generated/app-server.js";
import { validators as clientSide } from "../generated/app-server-client.js";
import type { JsonObject } from "../json.js";
import { checkWith } from "../validation.js";
import { validateEnvelope } from "../envelope/decode.js";
import type { SenderKind } from "../envelope/schemas.js";
import { RUNTIME_GLOBAL_CONVERSATION } from "../ids.js";
import { APP_SERVER_METHODS, APP_SERVER_NOTIFICATIONS, isAppServerMethod, type AppServerMethod, type MethodParams, type MethodSpec } from "./catalogue.js";
import { decodeJsonRpc, type DecodedJsonRpc, type JsonRpcLimits, type JsonRpcNotification } from "./jsonrpc.js";
import { DEFAULT_SERVER_LIMITS, type AppServerRole, type ServerLimits } from "./records.js";
import { SERVER_NOTIFICATION_PARAMS_SCHEMA_IDS } from "./terms.js";
import { isRecord } from "../json.js";

/** A validated call: the method narrows the params. */
export type ValidatedCall = { [M in AppServerMethod]: { readonly method: M; readonly params: MethodParams<M> } }[AppServerMethod];

/** Envelope sender kinds each role may put on the wire. The device speaks for its Runtime, its user and its apps; an agent only for itself. */
export const SENDER_KINDS_BY_ROLE: Readonly<Record<AppServerRole, readonly SenderKind[]>> = {
  device: ["runtime", "user", "app"],
  agent: ["agent"],
};

/** Decoded size of standard padded base64 text (already checked against the pattern). */
export function base64DecodedLength(text: string): number {
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  return (text.length / 4) * 3 - padding;
}

function withPrefix(error: ProtocolError, prefix: string): { ok: false; error: ProtocolError } {
  return fail(error.code, error.message, `${prefix}${error.path ?? ""}`);
}

type Checked = ProtocolError | undefined;

/** Rules beyond the schema, per method. */
function semanticCheck(call: ValidatedCall, role: AppServerRole, limits: ServerLimits): Checked {
  switch (call.method) {
    case "agentSession/start":
      if (call.params.session_id?.startsWith("runtime:") === true) {
        return { code: "scope_invalid", message: `session ids starting with "runtime:" are reserved (${RUNTIME_GLOBAL_CONVERSATION} is the Runtime's own)`, path: "/session_id" };
      }
      return undefined;
    case "agentSession/envelope/send": {
      const checked = validateEnvelope(call.params.envelope);
      if (!checked.ok) return withPrefix(checked.error, "/envelope").error;
      const envelope = checked.value;
      if (envelope.scope.conversation_id !== call.params.session_id) {
        return { code: "scope_mismatch", message: `envelope conversation "${envelope.scope.conversation_id}" is not session "${call.params.session_id}"`, path: "/envelope/scope/conversation_id" };
      }
      if (!SENDER_KINDS_BY_ROLE[role].includes(envelope.sender.kind)) {
        return { code: "sender_not_allowed", message: `a ${role} may not send envelopes as sender kind "${envelope.sender.kind}"`, path: "/envelope/sender/kind" };
      }
      return undefined;
    }
    case "agentSession/turn/update": {
      const { status, label, text_delta: textDelta, progress, data } = call.params;
      if (status === undefined && label === undefined && textDelta === undefined && progress === undefined && data === undefined) {
        return { code: "invalid_params", message: "an update needs at least one of status, label, text_delta, progress, data", path: "" };
      }
      return undefined;
    }
    case "agentSession/turn/complete":
      if (call.params.outcome === "failed" && call.params.error === undefined) return { code: "invalid_params", message: "a failed turn needs an error", path: "/error" };
      if (call.params.outcome === "completed" && call.params.error !== undefined) return { code: "invalid_params", message: "a completed turn has no error", path: "/error" };
      return undefined;
    case "agentSession/action/request": {
      const { kind, options, input_schema: inputSchema, multiple } = call.params;
      if (kind === "choice" && options === undefined) return { code: "invalid_params", message: "a choice needs options", path: "/options" };
      if (kind !== "choice" && options !== undefined) return { code: "invalid_params", message: `a ${kind} action has no options`, path: "/options" };
      if (kind !== "choice" && multiple !== undefined) return { code: "invalid_params", message: `a ${kind} action has no multiple`, path: "/multiple" };
      if (kind !== "input" && inputSchema !== undefined) return { code: "invalid_params", message: `a ${kind} action has no input_schema`, path: "/input_schema" };
      if (options !== undefined) {
        const seen = new Set<string>();
        for (const [i, option] of options.entries()) {
          if (seen.has(option.id)) return { code: "invalid_params", message: `option id "${option.id}" is repeated`, path: `/options/${i}/id` };
          seen.add(option.id);
        }
      }
      return undefined;
    }
    case "inventory/publish": {
      const seen = new Set<string>();
      for (const [i, tool] of call.params.tools.entries()) {
        const key = `${tool.app_scope}/${tool.method}`;
        if (seen.has(key)) return { code: "invalid_params", message: `tool ${key} is listed twice`, path: `/tools/${i}/method` };
        seen.add(key);
        if (tool.provenance !== undefined && tool.provenance.app_scope !== tool.app_scope) {
          return { code: "invalid_params", message: `tool ${key} names the provenance of app "${tool.provenance.app_scope}"`, path: `/tools/${i}/provenance/app_scope` };
        }
      }
      const apps = new Set<string>();
      for (const [i, app] of (call.params.apps ?? []).entries()) {
        if (apps.has(app.app_scope)) return { code: "invalid_params", message: `app ${app.app_scope} is listed twice`, path: `/apps/${i}/app_scope` };
        apps.add(app.app_scope);
        const entrypoints = new Set<string>();
        for (const [j, entrypoint] of app.entrypoints.entries()) {
          if (entrypoints.has(entrypoint.id)) return { code: "invalid_params", message: `app ${app.app_scope} lists entrypoint "${entrypoint.id}" twice`, path: `/apps/${i}/entrypoints/${j}/id` };
          entrypoints.add(entrypoint.id);
        }
      }
      return undefined;
    }
    case "artifact/put": {
      const { size, offset, data } = call.params;
      const length = base64DecodedLength(data);
      if (size > limits.max_artifact_bytes) return { code: "invalid_params", message: `artifact of ${size} bytes exceeds ${limits.max_artifact_bytes}`, path: "/size" };
      if (length > limits.max_chunk_bytes) return { code: "invalid_params", message: `chunk of ${length} bytes exceeds ${limits.max_chunk_bytes}`, path: "/data" };
      if (offset + length > size) return { code: "invalid_params", message: `chunk ends at ${offset + length}, past the size ${size}`, path: "/data" };
      if (length === 0 && size !== 0) return { code: "invalid_params", message: "an empty chunk uploads nothing", path: "/data" };
      // Provenance says which installed app made the artifact: only the device, whose Runtime runs the apps, can say so.
      if (call.params.provenance !== undefined && role !== "device") return { code: "forbidden", message: `a ${role} may not upload an artifact with an app's provenance`, path: "/provenance" };
      return undefined;
    }
    case "evidence/export":
      if (call.params.task_id !== undefined && call.params.through_seq !== undefined) {
        return { code: "invalid_params", message: "a task's pack ends at the task's last event: give task_id or through_seq, not both", path: "/through_seq" };
      }
      return undefined;
    case "catalog/publish": {
      const { size, offset, data } = call.params;
      const length = base64DecodedLength(data);
      if (size > limits.max_artifact_bytes) return { code: "invalid_params", message: `a bundle of ${size} bytes exceeds ${limits.max_artifact_bytes}`, path: "/size" };
      if (length > limits.max_chunk_bytes) return { code: "invalid_params", message: `chunk of ${length} bytes exceeds ${limits.max_chunk_bytes}`, path: "/data" };
      if (offset + length > size) return { code: "invalid_params", message: `chunk ends at ${offset + length}, past the size ${size}`, path: "/data" };
      if (length === 0) return { code: "invalid_params", message: "an empty chunk uploads nothing", path: "/data" };
      return undefined;
    }
    case "catalog/read":
    case "artifact/read":
      if (call.params.length !== undefined && call.params.length > limits.max_chunk_bytes) {
        return { code: "invalid_params", message: `length exceeds max_chunk_bytes ${limits.max_chunk_bytes}`, path: "/length" };
      }
      return undefined;
    case "agentSession/events/read":
      if (call.params.limit !== undefined && call.params.limit > limits.max_page_events) {
        return { code: "invalid_params", message: `limit exceeds max_page_events ${limits.max_page_events}`, path: "/limit" };
      }
      return undefined;
    default:
      return undefined;
  }
}

/**
 * Validates a request for `method` from a caller whose role is `role` (undefined before a
 * successful `initialize`). Never throws.
 */
export function validateRequestParams(
  method: string,
  role: AppServerRole | undefined,
  params: unknown,
  limits: ServerLimits = DEFAULT_SERVER_LIMITS,
): Result<ValidatedCall> {
  if (!isAppServerMethod(method)) return fail("method_not_found", `method "${method.slice(0, 128)}" does not exist`);
  const spec: MethodSpec = APP_SERVER_METHODS[method];
  if (role === undefined && spec.handshake !== true) return fail("not_initialized", `call initialize before ${method}`);
  if (role !== undefined && spec.handshake === true) return fail("already_initialized", "this connection is already initialized");
  if (role !== undefined && !spec.roles.includes(role)) return fail("method_not_found", `method "${method}" is not available to the ${role} role`);
  const value = params === undefined ? {} : params;
  if (!isRecord(value)) return fail("invalid_params", "params must be an object (by-name)", "");
  const validator = spec.params.$id === undefined ? undefined : validators[spec.params.$id];
  if (validator === undefined) return fail("internal_error", `no generated validator for ${method}: run npm run gen`);
  const checked = checkWith<JsonObject>(validator, value, "invalid_params");
  if (!checked.ok) return checked;
  const call = { method, params: checked.value } as unknown as ValidatedCall;
  if (role !== undefined) {
    const problem = semanticCheck(call, role, limits);
    if (problem !== undefined) return { ok: false, error: problem };
  }
  return ok(call);
}

/**
 * Validates a client → server notification. The server acts only on valid ones and, as
 * JSON-RPC requires, never answers a notification, so a refusal here is only logged.
 */
export function validateNotificationParams(method: string, params: unknown): Result<{ method: string; params: JsonObject }> {
  const spec = Object.prototype.hasOwnProperty.call(APP_SERVER_NOTIFICATIONS, method)
    ? APP_SERVER_NOTIFICATIONS[method as keyof typeof APP_SERVER_NOTIFICATIONS]
    : undefined;
  if (spec === undefined || spec.direction !== "client_to_server") return fail("method_not_found", `notification "${method.slice(0, 128)}" does not exist`);
  const value = params === undefined ? {} : params;
  if (!isRecord(value)) return fail("invalid_params", "params must be an object (by-name)", "");
  const validator = spec.params.$id === undefined ? undefined : validators[spec.params.$id];
  if (validator === undefined) return fail("internal_error", `no generated validator for ${method}: run npm run gen`);
  const checked = checkWith<JsonObject>(validator, value, "invalid_params");
  return checked.ok ? ok({ method, params: checked.value }) : checked;
}

/**
 * Validates a server → client notification frame (one JSON-RPC notification, not a batch) against
 * the catalogue: what a client checks before acting on `agentSession/event`, `agentSession/caughtUp`
 * or `agentSession/bound`. Never throws.
 */
export function decodeServerNotification(input: string | Uint8Array, limits: JsonRpcLimits = {}): Result<JsonRpcNotification & { readonly params: JsonObject }> {
  const decoded = decodeJsonRpc(input, limits);
  if (decoded.kind === "invalid") return { ok: false, error: decoded.error };
  if (decoded.kind === "batch") return fail("invalid_request", "the server sends notifications one per frame, never in a batch");
  const item = decoded.item;
  if (item.kind === "invalid") return { ok: false, error: item.error };
  if (item.kind !== "notification") return fail("invalid_request", `a ${item.kind} is not a notification`);
  const checked = checkServerNotificationParams(item.message.method, item.message.params);
  if (!checked.ok) return checked.error.path === undefined ? checked : withPrefix(checked.error, "/params");
  return ok({ ...item.message, params: checked.value });
}

/** The params of a server → client notification, checked against the catalogue's schema for `method`. Never throws. */
export function checkServerNotificationParams(method: string, params: unknown): Result<JsonObject> {
  const id = Object.prototype.hasOwnProperty.call(SERVER_NOTIFICATION_PARAMS_SCHEMA_IDS, method) ? SERVER_NOTIFICATION_PARAMS_SCHEMA_IDS[method] : undefined;
  if (id === undefined) return fail("method_not_found", `server notification "${method.slice(0, 128)}" does not exist`);
  if (!isRecord(params)) return fail("invalid_params", "params must be an object (by-name)", "");
  const validator = clientSide[id];
  if (validator === undefined) return fail("internal_error", `no generated validator for ${method}: run npm run gen`);
  return checkWith<JsonObject>(validator, params, "invalid_params");
}

/**
 * Decodes a frame and validates every request and notification in it as `role` would send it;
 * the first refusal wins. This is the whole inbound check of one frame, as golden fixtures and
 * conformance tests use it. Never throws.
 */
export function validateInboundFrame(
  input: string | Uint8Array,
  role: AppServerRole | undefined,
  limits: JsonRpcLimits & { server?: ServerLimits } = {},
): Result<DecodedJsonRpc> {
  const decoded = decodeJsonRpc(input, limits);
  if (decoded.kind === "invalid") return { ok: false, error: decoded.error };
  const items = decoded.kind === "single" ? [decoded.item] : decoded.items;
  for (const [i, item] of items.entries()) {
    const prefix = decoded.kind === "batch" ? `/${i}` : "";
    if (item.kind === "invalid") return { ok: false, error: item.error };
    if (item.kind === "request") {
      const checked = validateRequestParams(item.message.method, role, item.message.params, limits.server);
      if (!checked.ok) return checked.error.path === undefined ? checked : withPrefix(checked.error, `${prefix}/params`);
    }
    if (item.kind === "notification") {
      const checked = validateNotificationParams(item.message.method, item.message.params);
      if (!checked.ok) return checked.error.path === undefined ? checked : withPrefix(checked.error, `${prefix}/params`);
    }
  }
  return ok(decoded);
}
