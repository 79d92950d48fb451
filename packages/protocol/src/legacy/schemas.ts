/**
 * The legacy `lineup.v1.*` wire shape (spec 5.2), as the Runtime's compatibility adapter accepts it.
 *
 * This is what the Tauri M0–M4 implementation and its AppServer/agents speak, and what their
 * conversation stores hold. It is frozen: only the adapter reads it, apps never see it, and new
 * features are never added to it. The frame:
 *
 * ```json
 * { "type": "lineup.v1.<kind>", "id": "<id>", "ts": 1786000000000 | "2026-08-06T00:00:00Z",
 *   "conversation_id": "<id>"?, "app_scope": "<scope>"?, "reply_to": "<id>"?, "seq": 7?,
 *   "from": { "role": "agent" | "user" | "system", "id": "<id>" },
 *   "payload": { …, "app": { "id": "<legacy app id>" }? } }
 * ```
 *
 * `app_scope` is the explicit scope an MVP-R1 sender may add; M0–M4 peers only know the old
 * `payload.app.id`, a vendor-ish name (`com.lineup.whiteboard`) that is not an app scope.
 * Frame and payloads are closed: an unknown key is refused rather than silently dropped.
 */
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { ERROR_CODES } from "../errors.js";
import { TIMESTAMP_PATTERN } from "../ids.js";
import {
  AppScopeSchema,
  Closed,
  ConversationIdSchema,
  InstanceIdSchema,
  JsonObjectSchema,
  JsonValueSchema,
  OpaqueIdSchema,
  StringEnum,
  ToolCallIdSchema,
  declared,
} from "../schema-kit.js";
import { LEGACY_FRAME_SCHEMA_ID, LEGACY_TYPE_PREFIX, isLegacyType, legacyPayloadSchemaId, type LegacyType } from "./terms.js";

export { LEGACY_TYPE_PREFIX };

export const LEGACY_ROLES = ["agent", "user", "system"] as const;
export type LegacyRole = (typeof LEGACY_ROLES)[number];

/** Largest legacy millisecond timestamp: 9999-12-31T23:59:59.999Z, so it always prints as RFC 3339. */
export const LEGACY_MAX_TS_MS = 253_402_300_799_999;

/** A legacy instant: milliseconds since the Unix epoch, or an RFC 3339 string with an offset. */
const LegacyInstant = () =>
  Type.Union([
    Type.Integer({ minimum: 0, maximum: LEGACY_MAX_TS_MS }),
    Type.String({ maxLength: 40, pattern: TIMESTAMP_PATTERN }),
  ]);
export type LegacyInstant = number | string;

/** The old vendor-ish app identity carried inside surface payloads. Not an app scope. */
export const LegacyAppRefSchema = /* @__PURE__ */ declared(() => Closed({ id: Type.String({ minLength: 1, maxLength: 200 }) }));

export const LegacyFrameSchema = /* @__PURE__ */ declared(() =>
  Closed(
    {
      type: Type.String({ minLength: LEGACY_TYPE_PREFIX.length + 1, maxLength: 96, pattern: "^lineup\\.v1\\.[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)*$" }),
      id: OpaqueIdSchema(),
      ts: Type.Optional(LegacyInstant()),
      conversation_id: Type.Optional(ConversationIdSchema()),
      app_scope: Type.Optional(AppScopeSchema()),
      reply_to: Type.Optional(OpaqueIdSchema()),
      seq: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
      from: Closed({ role: StringEnum(LEGACY_ROLES), id: OpaqueIdSchema() }),
      payload: JsonObjectSchema(),
    },
    { $id: LEGACY_FRAME_SCHEMA_ID, title: "Legacy lineup.v1 message frame" },
  ),
);

/** A legacy message with a valid frame; its payload is checked per type. */
export type LegacyMessage = Static<typeof LegacyFrameSchema>;

const Text = (maxLength: number) => Type.String({ maxLength });
const Label = () => Type.String({ minLength: 1, maxLength: 200 });
const App = () => Type.Optional(LegacyAppRefSchema);

const legacyPayload = <T extends Parameters<typeof Closed>[0]>(type: string, properties: T) =>
  Closed(properties, { $id: legacyPayloadSchemaId(type), title: `legacy ${type} payload` });

export const LegacyMessagePayloadSchema = /* @__PURE__ */ declared(() => legacyPayload("lineup.v1.message", {
  /** M0 messages were plain text and carried no format. */
  format: Type.Optional(StringEnum(["text", "markdown"] as const)),
  text: Text(65_536),
  app: App(),
}));

export const LegacyStatusPayloadSchema = /* @__PURE__ */ declared(() => legacyPayload("lineup.v1.status", {
  state: StringEnum(["idle", "thinking", "working", "waiting"] as const),
  text: Type.Optional(Text(200)),
  app: App(),
}));

export const LegacyTaskProgressPayloadSchema = /* @__PURE__ */ declared(() => legacyPayload("lineup.v1.task.progress", {
  task_id: OpaqueIdSchema(),
  title: Type.Optional(Label()),
  status: StringEnum(["running", "done", "failed", "cancelled"] as const),
  /** Percent, 0–100 (the envelope uses a 0–1 fraction). */
  percent: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
  detail: Type.Optional(Text(2_000)),
  app: App(),
}));

const LegacyChoiceOption = /* @__PURE__ */ declared(() => Closed({ id: OpaqueIdSchema(), label: Label(), description: Type.Optional(Text(500)) }));

export const LegacyChoicePayloadSchema = /* @__PURE__ */ declared(() => legacyPayload("lineup.v1.choice", {
  interaction_id: OpaqueIdSchema(),
  prompt: Type.String({ minLength: 1, maxLength: 4_000 }),
  options: Type.Array(LegacyChoiceOption, { minItems: 1, maxItems: 20 }),
  multiple: Type.Optional(Type.Boolean()),
  expires_at: Type.Optional(LegacyInstant()),
  app: App(),
}));

export const LegacyConfirmPayloadSchema = /* @__PURE__ */ declared(() => legacyPayload("lineup.v1.confirm", {
  interaction_id: OpaqueIdSchema(),
  prompt: Type.String({ minLength: 1, maxLength: 4_000 }),
  confirm_label: Type.Optional(Label()),
  cancel_label: Type.Optional(Label()),
  expires_at: Type.Optional(LegacyInstant()),
  app: App(),
}));

export const LegacyInputPayloadSchema = /* @__PURE__ */ declared(() => legacyPayload("lineup.v1.input", {
  interaction_id: OpaqueIdSchema(),
  prompt: Type.String({ minLength: 1, maxLength: 4_000 }),
  placeholder: Type.Optional(Text(200)),
  multiline: Type.Optional(Type.Boolean()),
  max_length: Type.Optional(Type.Integer({ minimum: 1, maximum: 65_536 })),
  expires_at: Type.Optional(LegacyInstant()),
  app: App(),
}));

export const LegacyInteractionResponsePayloadSchema = /* @__PURE__ */ declared(() => legacyPayload("lineup.v1.interaction.response", {
  interaction_id: OpaqueIdSchema(),
  /** Choice ids for a choice, a boolean for a confirm, the text for an input. Absent when cancelled. */
  value: Type.Optional(Type.Union([Type.Array(OpaqueIdSchema(), { maxItems: 20 }), Type.Boolean(), Text(65_536)])),
  cancelled: Type.Optional(Type.Boolean()),
  app: App(),
}));

export const LegacyToolCallPayloadSchema = /* @__PURE__ */ declared(() => legacyPayload("lineup.v1.tool.call", {
  call_id: ToolCallIdSchema(),
  name: Type.String({ minLength: 1, maxLength: 128 }),
  arguments: JsonObjectSchema(),
  /** Only M3+ peers send it; a call without it is refused (spec 7.2: calls must carry the revision). */
  inventory_revision: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400_000 })),
  instance_id: Type.Optional(InstanceIdSchema()),
  app: App(),
}));

export const LegacyToolResultPayloadSchema = /* @__PURE__ */ declared(() => legacyPayload("lineup.v1.tool.result", {
  call_id: ToolCallIdSchema(),
  result: JsonValueSchema(),
  app: App(),
}));

export const LegacyToolErrorPayloadSchema = /* @__PURE__ */ declared(() => legacyPayload("lineup.v1.tool.error", {
  call_id: ToolCallIdSchema(),
  code: StringEnum(Object.keys(ERROR_CODES) as [string, ...string[]]),
  message: Text(2_000),
  app: App(),
}));

export const LegacySurfaceStatePayloadSchema = /* @__PURE__ */ declared(() => legacyPayload("lineup.v1.surface.state", {
  app: LegacyAppRefSchema,
  instance_id: Type.Optional(InstanceIdSchema()),
  patch: JsonObjectSchema(),
  revision: Type.Optional(Type.Integer({ minimum: 0 })),
}));

export const LegacySurfaceEventPayloadSchema = /* @__PURE__ */ declared(() => legacyPayload("lineup.v1.surface.event", {
  app: LegacyAppRefSchema,
  instance_id: Type.Optional(InstanceIdSchema()),
  name: Type.String({ minLength: 1, maxLength: 96 }),
  data: Type.Optional(JsonValueSchema()),
}));

export const LegacyArtifactPayloadSchema = /* @__PURE__ */ declared(() => legacyPayload("lineup.v1.artifact", {
  artifact: Closed({
    id: OpaqueIdSchema(),
    name: Type.String({ minLength: 1, maxLength: 255 }),
    mime: Type.String({ minLength: 3, maxLength: 127 }),
    size: Type.Integer({ minimum: 0 }),
    sha256: Type.String({ pattern: "^[0-9a-f]{64}$" }),
  }),
  caption: Type.Optional(Text(2_000)),
  app: App(),
}));

/** Legacy type → its payload schema. The mapping table (`mapping.ts`) has one row per key. */
export const LEGACY_PAYLOAD_SCHEMAS = {
  "lineup.v1.message": LegacyMessagePayloadSchema,
  "lineup.v1.status": LegacyStatusPayloadSchema,
  "lineup.v1.task.progress": LegacyTaskProgressPayloadSchema,
  "lineup.v1.choice": LegacyChoicePayloadSchema,
  "lineup.v1.confirm": LegacyConfirmPayloadSchema,
  "lineup.v1.input": LegacyInputPayloadSchema,
  "lineup.v1.interaction.response": LegacyInteractionResponsePayloadSchema,
  "lineup.v1.tool.call": LegacyToolCallPayloadSchema,
  "lineup.v1.tool.result": LegacyToolResultPayloadSchema,
  "lineup.v1.tool.error": LegacyToolErrorPayloadSchema,
  "lineup.v1.surface.state": LegacySurfaceStatePayloadSchema,
  "lineup.v1.surface.event": LegacySurfaceEventPayloadSchema,
  "lineup.v1.artifact": LegacyArtifactPayloadSchema,
} as const satisfies Record<LegacyType, TSchema>;

export type LegacyPayload<T extends LegacyType> = Static<(typeof LEGACY_PAYLOAD_SCHEMAS)[T]>;
export { isLegacyType, type LegacyType };

/** Every schema this module declares, for the validator generator. */
export const LEGACY_SCHEMAS: readonly TSchema[] = /* @__PURE__ */ declared(() => [LegacyFrameSchema, ...Object.values(LEGACY_PAYLOAD_SCHEMAS)]);
