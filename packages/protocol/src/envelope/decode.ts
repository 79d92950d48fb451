/**
 * Envelope ingress: text → safe JSON → RuntimeEnvelope v1, or a typed refusal.
 *
 * Checks run in a fixed order so that each problem gets its most precise code: JSON limits, the
 * version, the type, the scope (presence, grammar, reserved names), the frame schema, the target
 * against the scope, the sender kind for the type, correlation needs, and the payload schema.
 */
import { fail, ok, type ProtocolError, type Result } from "../errors.js";
import { isAppScope, isConversationId, reservedScopeViolation, RUNTIME_SCOPE } from "../ids.js";
import { decodeJson, type JsonLimits, isRecord } from "../json.js";
import { validators } from "../generated/envelope.js";
import { checkWith, type CompiledValidator } from "../validation.js";
import type { RuntimeEnvelope } from "./schemas.js";
import { ENVELOPE_TYPE_TERMS, RUNTIME_ENVELOPE_SCHEMA_ID, envelopePayloadSchemaId, isEnvelopeType, type EnvelopeTypeTerms } from "./terms.js";

export type DecodeResult<T> = { ok: true; value: T } | { ok: false; error: ProtocolError };

function validatorFor(id: string | undefined): CompiledValidator {
  const v = id === undefined ? undefined : validators[id];
  if (v === undefined) throw new Error(`no generated validator for ${String(id)}: run npm run gen`);
  return v;
}

const validateFrame = validatorFor(RUNTIME_ENVELOPE_SCHEMA_ID);
const payloadValidators = new Map<string, CompiledValidator>(
  Object.values(ENVELOPE_TYPE_TERMS).map((spec: EnvelopeTypeTerms) => [spec.type, validatorFor(envelopePayloadSchemaId(spec.type))]),
);

/** Scope presence, grammar and reserved names; returns undefined when the scope is fine. */
function checkScope(scope: unknown): ProtocolError | undefined {
  if (!isRecord(scope)) return { code: "scope_missing", message: "scope is required", path: "/scope" };
  const { app_scope: appScope, conversation_id: conversationId } = scope;
  if (appScope === undefined) return { code: "scope_missing", message: "scope.app_scope is required", path: "/scope/app_scope" };
  if (conversationId === undefined) return { code: "scope_missing", message: "scope.conversation_id is required", path: "/scope/conversation_id" };
  if (!isAppScope(appScope)) return { code: "scope_invalid", message: "scope.app_scope is not a valid app scope", path: "/scope/app_scope" };
  if (!isConversationId(conversationId)) return { code: "scope_invalid", message: "scope.conversation_id is not a valid id", path: "/scope/conversation_id" };
  const reserved = reservedScopeViolation(appScope, conversationId);
  if (reserved !== undefined) return { code: "scope_invalid", message: reserved, path: "/scope/conversation_id" };
  return undefined;
}

/** Checks `payload` against the payload schema of envelope type `type` alone (an ingress that carries no envelope frame). Never throws. */
export function validateEnvelopePayload(type: string, payload: unknown): DecodeResult<unknown> {
  const validator = payloadValidators.get(type);
  if (validator === undefined) return fail("envelope_unknown_type", `unknown envelope type "${type.slice(0, 96)}"`, "/type");
  const checked = checkWith(validator, payload, "payload_invalid");
  return checked.ok ? ok(payload) : fail("payload_invalid", `${type} payload: ${checked.error.message}`, checked.error.path ?? "");
}

/**
 * Validates an already-parsed value as a RuntimeEnvelope v1. Never throws.
 */
export function validateEnvelope(value: unknown): DecodeResult<RuntimeEnvelope> {
  if (!isRecord(value)) return fail("envelope_schema_violation", "an envelope is a JSON object", "");
  if (value["v"] !== 1) return fail("envelope_unsupported_version", `unsupported envelope version ${JSON.stringify(value["v"] ?? null)}`, "/v");
  const type = value["type"];
  if (typeof type !== "string") return fail("envelope_schema_violation", "type is required", "/type");
  if (!isEnvelopeType(type)) return fail("envelope_unknown_type", `unknown envelope type "${type.slice(0, 96)}"`, "/type");
  // The frame schema checks the scope grammar too; only when it fails is the scope examined on
  // its own, so that a scope problem gets its precise code (hot path: one validator pass).
  const framed = checkWith<RuntimeEnvelope>(validateFrame, value, "envelope_schema_violation");
  if (!framed.ok) {
    const scopeError = checkScope(value["scope"]);
    return scopeError !== undefined ? { ok: false, error: scopeError } : framed;
  }
  const envelope = framed.value;
  const reserved = reservedScopeViolation(envelope.scope.app_scope, envelope.scope.conversation_id);
  if (reserved !== undefined) return fail("scope_invalid", reserved, "/scope/conversation_id");
  const spec: EnvelopeTypeTerms = ENVELOPE_TYPE_TERMS[type];

  const { target, scope, sender } = envelope;
  if (target.kind === "runtime" ? target.app_scope !== RUNTIME_SCOPE : target.app_scope === RUNTIME_SCOPE) {
    return fail("scope_mismatch", `a ${target.kind} target cannot have app_scope "${target.app_scope}"`, "/target/app_scope");
  }
  if (target.kind === "app" && target.app_scope !== scope.app_scope) {
    return fail("scope_mismatch", `target app "${target.app_scope}" is outside scope "${scope.app_scope}"`, "/target/app_scope");
  }
  if (target.instance_id !== undefined && scope.instance_id !== undefined && target.instance_id !== scope.instance_id) {
    return fail("scope_mismatch", "target.instance_id differs from scope.instance_id", "/target/instance_id");
  }
  if (!spec.targets.includes(target.kind)) return fail("scope_mismatch", `${type} cannot target the ${target.kind}`, "/target/kind");
  if (!spec.senders.includes(sender.kind)) return fail("sender_not_allowed", `a ${sender.kind} may not send ${type}`, "/sender/kind");
  for (const field of spec.requires) {
    if (envelope.correlation?.[field] === undefined) return fail("correlation_missing", `${type} requires correlation.${field}`, `/correlation/${field}`);
  }
  const payload = checkWith(payloadValidators.get(type)!, envelope.payload, "payload_invalid");
  if (!payload.ok) {
    return fail("payload_invalid", `${type} payload: ${payload.error.message}`, `/payload${payload.error.path ?? ""}`);
  }
  return ok(envelope);
}

/**
 * Decodes envelope text (or UTF-8 bytes): size and depth limits and forbidden keys first
 * (`decodeJson`), then `validateEnvelope`. Never throws.
 */
export function decodeEnvelope(input: string | Uint8Array, options: JsonLimits = {}): DecodeResult<RuntimeEnvelope> {
  const json = decodeJson(input, options);
  if (!json.ok) return json;
  return validateEnvelope(json.value);
}

/** Encodes an envelope for the wire. The inverse of decodeEnvelope for any valid envelope. */
export function encodeEnvelope(envelope: RuntimeEnvelope): string {
  return JSON.stringify(envelope);
}

export type { Result };
