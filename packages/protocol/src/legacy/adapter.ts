/**
 * The Runtime Compatibility Adapter (spec 5.2): legacy `lineup.v1.*` in, a valid RuntimeEnvelope
 * v1 out, or a typed refusal. Only Runtime ingress calls it; apps never see a legacy message.
 *
 * It follows the table in `mapping.ts`. Checks run in a fixed order so each problem gets its most
 * precise code: the type (`legacy_unsupported_type`), an explicit scope or conversation that
 * breaks its grammar (`scope_invalid`), the frame (`envelope_schema_violation`), the payload
 * (`payload_invalid`), the sender role (`sender_not_allowed`), the conversation and the app
 * (`legacy_unmappable`, `scope_mismatch`), and finally the mapped envelope through
 * `validateEnvelope`, so the output is always an envelope the rest of the Runtime accepts.
 */
import { validateEnvelope } from "../envelope/decode.js";
import type { EnvelopeCorrelation, EnvelopeTarget, RuntimeEnvelope } from "../envelope/schemas.js";
import { fail, ok, type Result } from "../errors.js";
import { isAppScope, isConversationId, RUNTIME_SCOPE } from "../ids.js";
import { decodeJson, type JsonLimits, type JsonObject, type JsonValue, isRecord } from "../json.js";
import { checkWith } from "../validation.js";
import {
  LEGACY_DEFAULT_APP_SCOPE,
  LEGACY_MAPPINGS,
  LEGACY_REFUSED_TYPES,
  LEGACY_ROLE_TO_SENDER,
  type LegacyMapping,
} from "./mapping.js";
import type { LegacyInstant, LegacyMessage, LegacyPayload } from "./schemas.js";
import { LEGACY_TYPE_PREFIX, isLegacyType, type LegacyType } from "./terms.js";
import { legacyPayloadValidators, validateLegacyFrame } from "./validators.js";

/** What the Runtime knows when it adapts a legacy message. Everything is optional; what is missing is never guessed. */
export interface LegacyContext {
  /** The conversation a legacy message without `conversation_id` belongs to (spec 11, MVP-R1). */
  readonly currentConversationId?: string;
  /** Local app scopes of this Runtime; a legacy `app.id` that equals one of them maps to it. */
  readonly knownAppScopes?: ReadonlySet<string>;
  /** Explicit legacy `app.id` → local `app_scope` aliases, e.g. `com.lineup.whiteboard` → `whiteboard`. */
  readonly appIdAliases?: Readonly<Record<string, string>>;
  /** The injected clock, RFC 3339; used only when a legacy message has no `ts`. */
  readonly now?: () => string;
}

/** True when `value` claims to be a legacy message (its `type` starts with `lineup.v1.`), so ingress can pick the adapter. */
export function isLegacyMessage(value: unknown): value is Record<string, unknown> & { type: `lineup.v1.${string}` } {
  return isRecord(value) && typeof value["type"] === "string" && value["type"].startsWith(LEGACY_TYPE_PREFIX);
}

/** Drops keys whose value is undefined, so optional legacy fields never become `undefined` on the wire. */
function compact(fields: Record<string, JsonValue | undefined>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out;
}

/** A legacy instant as RFC 3339: milliseconds become UTC with milliseconds; a string is kept as sent. */
export function legacyInstantToTimestamp(instant: LegacyInstant): string {
  return typeof instant === "number" ? new Date(instant).toISOString() : instant;
}

const instant = (value: LegacyInstant | undefined): string | undefined => (value === undefined ? undefined : legacyInstantToTimestamp(value));

/** What a row's payload converter contributes beyond the common frame rules. */
interface MappedPayload {
  readonly payload: JsonValue;
  readonly instance_id?: string;
  readonly correlation?: EnvelopeCorrelation;
}

type Converter<T extends LegacyType> = (payload: LegacyPayload<T>) => Result<MappedPayload>;

const STATUS_STATES = { idle: "idle", thinking: "thinking", working: "working", waiting: "waiting_for_user" } as const;
const TASK_STATES = { running: "running", done: "completed", failed: "failed", cancelled: "cancelled" } as const;

const CONVERTERS: { readonly [T in LegacyType]: Converter<T> } = {
  "lineup.v1.message": (p) => ok({ payload: { format: p.format ?? "text", text: p.text } }),
  "lineup.v1.status": (p) => ok({ payload: compact({ state: STATUS_STATES[p.state], label: p.text }) }),
  "lineup.v1.task.progress": (p) =>
    ok({
      payload: compact({
        task_id: p.task_id,
        title: p.title,
        state: TASK_STATES[p.status],
        progress: p.percent === undefined ? undefined : p.percent / 100,
        detail: p.detail,
      }),
    }),
  "lineup.v1.choice": (p) =>
    ok({
      payload: compact({
        interaction_id: p.interaction_id,
        kind: "choice",
        prompt: p.prompt,
        options: p.options.map((o) => compact({ id: o.id, label: o.label, description: o.description })),
        multiple: p.multiple,
        expires_at: instant(p.expires_at),
      }),
    }),
  "lineup.v1.confirm": (p) =>
    ok({
      payload: compact({
        interaction_id: p.interaction_id,
        kind: "confirm",
        prompt: p.prompt,
        confirm_label: p.confirm_label,
        cancel_label: p.cancel_label,
        expires_at: instant(p.expires_at),
      }),
    }),
  "lineup.v1.input": (p) =>
    ok({
      payload: compact({
        interaction_id: p.interaction_id,
        kind: "input",
        prompt: p.prompt,
        placeholder: p.placeholder,
        multiline: p.multiline,
        max_length: p.max_length,
        expires_at: instant(p.expires_at),
      }),
    }),
  "lineup.v1.interaction.response": (p) => {
    if (p.cancelled === true) {
      if (p.value !== undefined) return fail("legacy_unmappable", "a cancelled interaction response cannot carry a value", "/payload/value");
      return ok({ payload: { interaction_id: p.interaction_id, outcome: "cancelled" } });
    }
    const { value } = p;
    if (value === undefined) return fail("legacy_unmappable", "an interaction response needs a value unless it is cancelled", "/payload/value");
    const answer = Array.isArray(value) ? { choice_ids: value } : typeof value === "boolean" ? { confirmed: value } : { text: value };
    return ok({ payload: { interaction_id: p.interaction_id, outcome: "answered", ...answer } });
  },
  "lineup.v1.tool.call": (p) => {
    // Spec 7.2: a call must name the inventory it was chosen from; say so at the legacy field.
    if (p.inventory_revision === undefined) return fail("correlation_missing", "a legacy tool call without inventory_revision cannot be checked against the inventory", "/payload/inventory_revision");
    return ok({
      payload: compact({ method: p.name, arguments: p.arguments, timeout_ms: p.timeout_ms }),
      ...(p.instance_id === undefined ? {} : { instance_id: p.instance_id }),
      correlation: { call_id: p.call_id, inventory_revision: p.inventory_revision },
    });
  },
  "lineup.v1.tool.result": (p) => ok({ payload: { result: p.result }, correlation: { call_id: p.call_id } }),
  "lineup.v1.tool.error": (p) => ok({ payload: { code: p.code, message: p.message }, correlation: { call_id: p.call_id } }),
  "lineup.v1.surface.state": (p) =>
    ok({ payload: compact({ patch: p.patch, base_revision: p.revision }), ...(p.instance_id === undefined ? {} : { instance_id: p.instance_id }) }),
  "lineup.v1.surface.event": (p) =>
    ok({ payload: { name: p.name, data: p.data ?? null }, ...(p.instance_id === undefined ? {} : { instance_id: p.instance_id }) }),
  "lineup.v1.artifact": (p) =>
    ok({
      payload: compact({
        artifact: { artifact_id: p.artifact.id, name: p.artifact.name, mime_type: p.artifact.mime, size: p.artifact.size, sha256: p.artifact.sha256 },
        caption: p.caption,
      }),
    }),
};

function convert<T extends LegacyType>(type: T, payload: LegacyPayload<T>): Result<MappedPayload> {
  return (CONVERTERS[type] as Converter<T>)(payload);
}

/**
 * The app scope of a legacy message, by the table's rule: the legacy `app.id` through the alias
 * table or as a known local scope, checked against an explicit `app_scope`; `chat` when neither
 * names an app. Never guesses from the shape of a vendor-ish id.
 */
function resolveAppScope(message: LegacyMessage, mapping: LegacyMapping, context: LegacyContext): Result<string> {
  const app = message.payload["app"];
  const legacyAppId = isRecord(app) && typeof app["id"] === "string" ? app["id"] : undefined;
  const explicit = message.app_scope;
  if (legacyAppId === undefined) {
    if (mapping.app_id === "required") return fail("legacy_unmappable", `${mapping.legacy_type} needs payload.app.id`, "/payload/app/id");
    return ok(explicit ?? LEGACY_DEFAULT_APP_SCOPE);
  }
  let resolved: string | undefined;
  const aliases = context.appIdAliases;
  if (aliases !== undefined && Object.prototype.hasOwnProperty.call(aliases, legacyAppId)) {
    const alias = aliases[legacyAppId];
    if (!isAppScope(alias)) return fail("legacy_unmappable", `the alias of app.id "${legacyAppId}" is not a valid app scope`, "/payload/app/id");
    if (context.knownAppScopes !== undefined && !context.knownAppScopes.has(alias)) {
      return fail("legacy_unmappable", `app.id "${legacyAppId}" is aliased to "${alias}", which is not a local app scope`, "/payload/app/id");
    }
    resolved = alias;
  } else if (isAppScope(legacyAppId) && context.knownAppScopes?.has(legacyAppId) === true) {
    resolved = legacyAppId;
  }
  if (resolved === undefined) return fail("legacy_unmappable", `app.id "${legacyAppId.slice(0, 200)}" names no local app scope and has no alias`, "/payload/app/id");
  if (explicit !== undefined && explicit !== resolved) {
    return fail("scope_mismatch", `app_scope "${explicit}" disagrees with app.id "${legacyAppId}" (→ "${resolved}")`, "/app_scope");
  }
  return ok(resolved);
}

function resolveTimestamp(message: LegacyMessage, context: LegacyContext): Result<string> {
  if (message.ts !== undefined) return ok(legacyInstantToTimestamp(message.ts));
  if (context.now === undefined) return fail("legacy_unmappable", "the message has no ts and the adapter has no clock", "/ts");
  try {
    return ok(context.now());
  } catch {
    return fail("legacy_unmappable", "the message has no ts and the clock failed", "/ts");
  }
}

/**
 * Maps one parsed legacy message to a validated RuntimeEnvelope v1. Never throws.
 */
export function adaptLegacy(value: unknown, context: LegacyContext = {}): Result<RuntimeEnvelope> {
  if (!isRecord(value)) return fail("envelope_schema_violation", "a legacy message is a JSON object", "");
  const type = value["type"];
  if (typeof type !== "string") return fail("envelope_schema_violation", "type is required", "/type");
  const shownType = type.slice(0, 96);
  if (!type.startsWith(LEGACY_TYPE_PREFIX)) return fail("legacy_unsupported_type", `"${shownType}" is not a lineup.v1 type`, "/type");
  const refused = Object.prototype.hasOwnProperty.call(LEGACY_REFUSED_TYPES, type) ? LEGACY_REFUSED_TYPES[type] : undefined;
  if (refused !== undefined) return fail(refused.code, `${type} is not mapped: ${refused.reason}`, "/type");
  if (!isLegacyType(type)) return fail("legacy_unsupported_type", `no mapping for legacy type "${shownType}"`, "/type");
  const mapping: LegacyMapping = LEGACY_MAPPINGS[type];

  // An explicit scope that is malformed is refused as a scope, not as a shape problem (spec 11).
  if (value["conversation_id"] !== undefined && !isConversationId(value["conversation_id"])) {
    return fail("scope_invalid", "conversation_id is not a valid id", "/conversation_id");
  }
  if (value["app_scope"] !== undefined && !isAppScope(value["app_scope"])) {
    return fail("scope_invalid", "app_scope is not a valid app scope", "/app_scope");
  }
  const framed = checkWith<LegacyMessage>(validateLegacyFrame, value, "envelope_schema_violation");
  if (!framed.ok) return framed;
  const message = framed.value;
  const payloadChecked = checkWith<LegacyPayload<typeof type>>(legacyPayloadValidators[type], message.payload, "payload_invalid");
  if (!payloadChecked.ok) {
    return fail("payload_invalid", `${type} payload: ${payloadChecked.error.message}`, `/payload${payloadChecked.error.path ?? ""}`);
  }
  if (!mapping.roles.includes(message.from.role)) {
    return fail("sender_not_allowed", `a legacy ${message.from.role} may not send ${type}`, "/from/role");
  }

  const conversationId = message.conversation_id ?? context.currentConversationId;
  if (conversationId === undefined) {
    return fail("legacy_unmappable", "the message has no conversation_id and there is no current conversation", "/conversation_id");
  }
  const appScope = resolveAppScope(message, mapping, context);
  if (!appScope.ok) return appScope;
  const timestamp = resolveTimestamp(message, context);
  if (!timestamp.ok) return timestamp;
  const mapped = convert(type, payloadChecked.value);
  if (!mapped.ok) return mapped;

  const { instance_id: instanceId } = mapped.value;
  const target: EnvelopeTarget =
    mapping.target === "runtime"
      ? { kind: "runtime", app_scope: RUNTIME_SCOPE }
      : instanceId === undefined
        ? { kind: "app", app_scope: appScope.value as EnvelopeTarget["app_scope"] }
        : { kind: "app", app_scope: appScope.value as EnvelopeTarget["app_scope"], instance_id: instanceId as NonNullable<EnvelopeTarget["instance_id"]> };
  const correlation = compact({
    reply_to: message.reply_to,
    sequence: message.seq,
    call_id: mapped.value.correlation?.call_id,
    inventory_revision: mapped.value.correlation?.inventory_revision,
  });
  const envelope = {
    v: 1,
    id: message.id,
    type: mapping.envelope_type,
    timestamp: timestamp.value,
    sender: mapping.sender === "app" ? { kind: "app", id: appScope.value } : { kind: LEGACY_ROLE_TO_SENDER[message.from.role], id: message.from.id },
    target,
    scope: compact({ app_scope: appScope.value, conversation_id: conversationId, instance_id: instanceId }),
    ...(Object.keys(correlation).length === 0 ? {} : { correlation }),
    payload: mapped.value.payload,
  };
  const validated = validateEnvelope(envelope);
  if (!validated.ok) return fail(validated.error.code, `mapped envelope: ${validated.error.message}`, validated.error.path);
  return validated;
}

/**
 * Decodes legacy text (or UTF-8 bytes) with the safe JSON parser, then `adaptLegacy`. Never throws.
 */
export function decodeLegacy(input: string | Uint8Array, context: LegacyContext = {}, limits: JsonLimits = {}): Result<RuntimeEnvelope> {
  const json = decodeJson(input, limits);
  if (!json.ok) return json;
  return adaptLegacy(json.value, context);
}
