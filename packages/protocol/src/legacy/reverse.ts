/**
 * Reverse mapping: the RuntimeEnvelopes the Runtime must still answer a legacy `lineup.v1` peer
 * with (`LEGACY_REVERSE` in mapping.ts) become legacy messages; every other type is refused with
 * `legacy_unsupported_type`, a value the legacy shape cannot carry with `legacy_unmappable`.
 *
 * Round trip: for a reversible legacy message m, `toLegacy(adaptLegacy(m))` means the same as m.
 * It is not byte-identical only where the table normalizes: `ts` comes back as RFC 3339, an absent
 * `format` as `"text"`, an absent surface event `data` as `null`, `app` is omitted for the `chat`
 * scope (which is what an absent `app` means), and a surface event's `from` comes back as the app
 * itself (`system`, id = app scope), because in the envelope the app is the sender.
 */
import type { RuntimeEnvelope } from "../envelope/schemas.js";
import type { ArtifactRef } from "../envelope/types.js";
import type { EnvelopeType } from "../envelope/terms.js";
import { fail, ok, type Result } from "../errors.js";
import type { JsonObject, JsonValue } from "../json.js";
import { checkWith } from "../validation.js";
import { LEGACY_DEFAULT_APP_SCOPE, LEGACY_MAPPINGS, LEGACY_REVERSE, LEGACY_SENDER_TO_ROLE } from "./mapping.js";
import type { LegacyMessage, LegacyType } from "./schemas.js";
import { legacyPayloadValidators, validateLegacyFrame } from "./validators.js";
import { isRecord } from "../json.js";

export interface LegacyReverseContext {
  /** `app_scope` → the legacy `app.id` the peer knows (e.g. `whiteboard` → `com.lineup.whiteboard`); default: the scope itself. */
  readonly legacyAppIds?: Readonly<Record<string, string>>;
}

function compact(fields: Record<string, JsonValue | undefined>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out;
}

type PayloadBuilder = (envelope: RuntimeEnvelope, payload: Record<string, unknown>) => Result<JsonObject>;

const REVERSE_BUILDERS: Readonly<Record<string, PayloadBuilder>> = {
  "lineup.message": (_e, p) => {
    if (Array.isArray(p["attachments"]) && p["attachments"].length > 0) {
      return fail("legacy_unmappable", "a legacy lineup.v1.message cannot carry attachments; send each as lineup.artifact", "/payload/attachments");
    }
    return ok({ format: p["format"] as string, text: p["text"] as string });
  },
  "lineup.interaction.response": (_e, p) => {
    const interactionId = p["interaction_id"] as string;
    if (p["outcome"] === "cancelled") return ok({ interaction_id: interactionId, cancelled: true });
    const answers = (["choice_ids", "confirmed", "text"] as const).filter((k) => p[k] !== undefined);
    const only = answers[0];
    if (answers.length !== 1 || only === undefined) {
      return fail("legacy_unmappable", "a legacy interaction response carries exactly one of choice_ids, confirmed or text", "/payload");
    }
    return ok({ interaction_id: interactionId, value: p[only] as JsonValue });
  },
  "lineup.tool.result": (e, p) => ok({ call_id: e.correlation?.call_id ?? "", result: p["result"] as JsonValue }),
  "lineup.tool.error": (e, p) => ok({ call_id: e.correlation?.call_id ?? "", code: p["code"] as string, message: p["message"] as string }),
  "lineup.app.event": (e, p) => ok(compact({ instance_id: e.scope.instance_id, name: p["name"] as string, data: p["data"] as JsonValue })),
  "lineup.artifact": (_e, p) => {
    const a = p["artifact"] as ArtifactRef;
    return ok(
      compact({
        artifact: { id: a.artifact_id, name: a.name, mime: a.mime_type, size: a.size, sha256: a.sha256 },
        caption: p["caption"] as JsonValue | undefined,
      }),
    );
  },
} satisfies Partial<Record<EnvelopeType, PayloadBuilder>>;

/**
 * Maps a validated RuntimeEnvelope to the legacy message a `lineup.v1` peer understands. Never throws.
 */
export function toLegacy(envelope: RuntimeEnvelope, context: LegacyReverseContext = {}): Result<LegacyMessage> {
  const legacyType: LegacyType | undefined = Object.prototype.hasOwnProperty.call(LEGACY_REVERSE, envelope.type)
    ? LEGACY_REVERSE[envelope.type as EnvelopeType]
    : undefined;
  const build = REVERSE_BUILDERS[envelope.type];
  if (legacyType === undefined || build === undefined) {
    return fail("legacy_unsupported_type", `${String(envelope.type).slice(0, 96)} has no legacy lineup.v1 form`, "/type");
  }
  const mapping = LEGACY_MAPPINGS[legacyType];
  const role = LEGACY_SENDER_TO_ROLE[envelope.sender.kind];
  if (role === undefined || !mapping.roles.includes(role)) {
    return fail("sender_not_allowed", `a legacy ${legacyType} cannot come from a ${envelope.sender.kind}`, "/sender/kind");
  }
  if (!isRecord(envelope.payload)) return fail("payload_invalid", `${envelope.type} payload is not an object`, "/payload");
  const built = build(envelope, envelope.payload);
  if (!built.ok) return built;

  const appScope = envelope.scope.app_scope;
  const payload: JsonObject = { ...built.value };
  if (mapping.app_id === "required" || appScope !== LEGACY_DEFAULT_APP_SCOPE) {
    const legacyIds = context.legacyAppIds;
    const id = legacyIds !== undefined && Object.prototype.hasOwnProperty.call(legacyIds, appScope) ? legacyIds[appScope] : undefined;
    payload["app"] = { id: id ?? appScope };
  }
  const corr = envelope.correlation;
  const message = {
    type: legacyType,
    id: envelope.id,
    ts: envelope.timestamp,
    conversation_id: envelope.scope.conversation_id,
    ...(corr?.reply_to === undefined ? {} : { reply_to: corr.reply_to }),
    ...(corr?.sequence === undefined ? {} : { seq: corr.sequence }),
    from: { role, id: envelope.sender.id },
    payload,
  };
  // The output is checked like input: a legacy peer never receives a shape the adapter would refuse.
  const framed = checkWith<LegacyMessage>(validateLegacyFrame, message, "legacy_unmappable");
  if (!framed.ok) return framed;
  const payloadChecked = checkWith(legacyPayloadValidators[legacyType], payload, "legacy_unmappable");
  if (!payloadChecked.ok) return fail("legacy_unmappable", `legacy ${legacyType} payload: ${payloadChecked.error.message}`, `/payload${payloadChecked.error.path ?? ""}`);
  return framed;
}
