/**
 * The envelope type registry: every `type` a RuntimeEnvelope v1 may carry, who may send it,
 * where it may go, which correlation fields it needs, and the schema of its payload.
 *
 * Three ingress paths stay distinct (spec 5.1): a remote agent's tool call (`agent`), a local UI
 * action (`user` / `app`) and a host lifecycle intent (`host`) each have their own types, and a
 * type refuses senders of the other paths. An unknown type is refused (`envelope_unknown_type`).
 */
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { ERROR_CODES } from "../errors.js";
import {
  AppScopeSchema,
  Closed,
  ConversationIdSchema,
  JsonObjectSchema,
  JsonValueSchema,
  OpaqueIdSchema,
  StringEnum,
  TimestampSchema,
  schemaId,
  declared,
} from "../schema-kit.js";
import { ENVELOPE_TYPE_TERMS, envelopePayloadSchemaId, type EnvelopeType, type EnvelopeTypeTerms } from "./terms.js";

const Text = (maxLength: number) => Type.String({ maxLength });
const Label = () => Type.String({ minLength: 1, maxLength: 200 });
const ErrorCodeSchema = () => StringEnum(Object.keys(ERROR_CODES) as [string, ...string[]]);

export const ArtifactRefSchema = /* @__PURE__ */ declared(() => Closed(
  {
    artifact_id: OpaqueIdSchema(),
    name: Type.String({ minLength: 1, maxLength: 255 }),
    mime_type: Type.String({ minLength: 3, maxLength: 127, pattern: "^[a-z0-9!#$&^_.+-]+/[a-z0-9!#$&^_.+-]+$" }),
    size: Type.Integer({ minimum: 0 }),
    sha256: Type.String({ pattern: "^[0-9a-f]{64}$" }),
  },
  { $id: schemaId("artifact-ref.v1") },
));
export type ArtifactRef = Static<typeof ArtifactRefSchema>;
const ArtifactRefRef = /* @__PURE__ */ declared(() => Type.Unsafe<ArtifactRef>(Type.Ref(schemaId("artifact-ref.v1"))));

const payload = <T extends Parameters<typeof Closed>[0]>(type: string, properties: T) =>
  Closed(properties, { $id: envelopePayloadSchemaId(type), title: `${type} payload` });

export const MessagePayloadSchema = /* @__PURE__ */ declared(() => payload("lineup.message", {
  format: StringEnum(["text", "markdown"] as const),
  text: Text(65_536),
  attachments: Type.Optional(Type.Array(ArtifactRefRef, { maxItems: 32 })),
}));

export const StatusPayloadSchema = /* @__PURE__ */ declared(() => payload("lineup.status", {
  state: StringEnum(["idle", "thinking", "working", "waiting_for_user"] as const),
  label: Type.Optional(Text(200)),
}));

export const TaskProgressPayloadSchema = /* @__PURE__ */ declared(() => payload("lineup.task.progress", {
  task_id: OpaqueIdSchema(),
  title: Type.Optional(Label()),
  state: StringEnum(["running", "completed", "failed", "cancelled"] as const),
  progress: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  detail: Type.Optional(Text(2_000)),
}));

const ChoiceOption = /* @__PURE__ */ declared(() => Closed({
  id: OpaqueIdSchema(),
  label: Label(),
  description: Type.Optional(Text(500)),
}));

/** The standard interaction primitives of spec 8.1: choice, confirm, input. */
export const InteractionRequestPayloadSchema = /* @__PURE__ */ declared(() => payload("lineup.interaction.request", {
  interaction_id: OpaqueIdSchema(),
  kind: StringEnum(["choice", "confirm", "input"] as const),
  prompt: Type.String({ minLength: 1, maxLength: 4_000 }),
  options: Type.Optional(Type.Array(ChoiceOption, { minItems: 1, maxItems: 20 })),
  multiple: Type.Optional(Type.Boolean()),
  confirm_label: Type.Optional(Label()),
  cancel_label: Type.Optional(Label()),
  placeholder: Type.Optional(Text(200)),
  multiline: Type.Optional(Type.Boolean()),
  max_length: Type.Optional(Type.Integer({ minimum: 1, maximum: 65_536 })),
  expires_at: Type.Optional(TimestampSchema()),
}));

export const InteractionResponsePayloadSchema = /* @__PURE__ */ declared(() => payload("lineup.interaction.response", {
  interaction_id: OpaqueIdSchema(),
  outcome: StringEnum(["answered", "cancelled"] as const),
  choice_ids: Type.Optional(Type.Array(OpaqueIdSchema(), { maxItems: 20 })),
  confirmed: Type.Optional(Type.Boolean()),
  text: Type.Optional(Text(65_536)),
}));

export const ToolInvokePayloadSchema = /* @__PURE__ */ declared(() => payload("lineup.tool.invoke", {
  method: Type.String({ minLength: 1, maxLength: 128, pattern: "^[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)*$" }),
  contract_version: Type.Optional(Type.String({ minLength: 1, maxLength: 16, pattern: "^[0-9]+$" })),
  arguments: JsonObjectSchema(),
  timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400_000 })),
}));

export const TOOL_RECEIPT_STATUSES = ["accepted", "starting", "activation_ready", "activation_failed", "activation_cancelled"] as const;
export const ToolReceiptPayloadSchema = /* @__PURE__ */ declared(() => payload("lineup.tool.receipt", {
  status: StringEnum(TOOL_RECEIPT_STATUSES),
  code: Type.Optional(ErrorCodeSchema()),
  message: Type.Optional(Text(2_000)),
  /** On `accepted`: the tool that was called, by the app's own name for it (what a chat card can title the call with). */
  tool: Type.Optional(Closed({ method: Type.String({ minLength: 1, maxLength: 128 }), title: Text(200) })),
}));

export const ToolProgressPayloadSchema = /* @__PURE__ */ declared(() => payload("lineup.tool.progress", {
  stage: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  progress: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  message: Type.Optional(Text(2_000)),
  data: Type.Optional(JsonValueSchema()),
}));

export const ToolResultPayloadSchema = /* @__PURE__ */ declared(() => payload("lineup.tool.result", {
  result: JsonValueSchema(),
}));

export const ToolErrorPayloadSchema = /* @__PURE__ */ declared(() => payload("lineup.tool.error", {
  code: ErrorCodeSchema(),
  message: Text(2_000),
}));

export const ToolCancelPayloadSchema = /* @__PURE__ */ declared(() => payload("lineup.tool.cancel", {
  reason: Type.Optional(Text(2_000)),
}));

export const AppStatePatchPayloadSchema = /* @__PURE__ */ declared(() => payload("lineup.app.state.patch", {
  patch: JsonObjectSchema(),
  base_revision: Type.Optional(Type.Integer({ minimum: 0 })),
}));

export const AppEventPayloadSchema = /* @__PURE__ */ declared(() => payload("lineup.app.event", {
  name: Type.String({ minLength: 1, maxLength: 96, pattern: "^[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)*$" }),
  data: JsonValueSchema(),
}));

/** An app accepted or rejected the structured result of its agent task (docs/protocol.md "In-app agent tasks"); the agent reads it in the log. */
export const TaskDecisionPayloadSchema = /* @__PURE__ */ declared(() => payload("lineup.task.decision", {
  task_id: OpaqueIdSchema(),
  turn_id: OpaqueIdSchema(),
  decision: StringEnum(["accepted", "rejected"] as const),
  reason: Type.Optional(Text(2_000)),
}));

export const ArtifactPayloadSchema = /* @__PURE__ */ declared(() => payload("lineup.artifact", {
  artifact: ArtifactRefRef,
  caption: Type.Optional(Text(2_000)),
}));

export const RuntimeNoticePayloadSchema = /* @__PURE__ */ declared(() => payload("lineup.runtime.notice", {
  level: StringEnum(["info", "warning", "error"] as const),
  message: Text(2_000),
  code: Type.Optional(ErrorCodeSchema()),
}));

export const HostIntentPayloadSchema = /* @__PURE__ */ declared(() => payload("lineup.host.intent", {
  /** `suspend` / `resume`: the device sleeps and wakes; `window_hidden` / `window_shown`: the host's window; `memory_pressure`: the system asks for memory back. */
  intent: StringEnum(["open_app", "open_conversation", "close_app", "suspend", "resume", "window_hidden", "window_shown", "memory_pressure"] as const),
  app_scope: Type.Optional(AppScopeSchema()),
  conversation_id: Type.Optional(ConversationIdSchema()),
  entrypoint: Type.Optional(OpaqueIdSchema()),
}));

export interface EnvelopeTypeSpec extends EnvelopeTypeTerms {
  readonly payload: TSchema;
}

/** The payload schema of each envelope type (its id is `envelopePayloadSchemaId(type)`). */
const ENVELOPE_PAYLOAD_SCHEMA_OF = {
  "lineup.message": MessagePayloadSchema,
  "lineup.status": StatusPayloadSchema,
  "lineup.task.progress": TaskProgressPayloadSchema,
  "lineup.interaction.request": InteractionRequestPayloadSchema,
  "lineup.interaction.response": InteractionResponsePayloadSchema,
  "lineup.tool.invoke": ToolInvokePayloadSchema,
  "lineup.tool.receipt": ToolReceiptPayloadSchema,
  "lineup.tool.progress": ToolProgressPayloadSchema,
  "lineup.tool.result": ToolResultPayloadSchema,
  "lineup.tool.error": ToolErrorPayloadSchema,
  "lineup.tool.cancel": ToolCancelPayloadSchema,
  "lineup.app.state.patch": AppStatePatchPayloadSchema,
  "lineup.app.event": AppEventPayloadSchema,
  "lineup.task.decision": TaskDecisionPayloadSchema,
  "lineup.artifact": ArtifactPayloadSchema,
  "lineup.runtime.notice": RuntimeNoticePayloadSchema,
  "lineup.host.intent": HostIntentPayloadSchema,
} as const satisfies Record<EnvelopeType, TSchema>;

/** Each type's terms with its payload schema: for the generator, the docs and `EnvelopePayload`. */
export const ENVELOPE_TYPES = /* @__PURE__ */ declared(() => withPayloads(ENVELOPE_TYPE_TERMS, ENVELOPE_PAYLOAD_SCHEMA_OF));

function withPayloads<T extends Record<EnvelopeType, EnvelopeTypeTerms>, P extends Record<EnvelopeType, TSchema>>(terms: T, payloads: P): { readonly [K in EnvelopeType]: T[K] & { readonly payload: P[K] } } {
  return Object.fromEntries(Object.entries(terms).map(([type, spec]) => [type, { ...spec, payload: payloads[type as EnvelopeType] }])) as never;
}

/** The payload type of each envelope type. */
export type EnvelopePayload<T extends EnvelopeType> = Static<(typeof ENVELOPE_TYPES)[T]["payload"]>;

/** Every schema this module declares, for the validator generator. */
export const ENVELOPE_PAYLOAD_SCHEMAS: readonly TSchema[] = /* @__PURE__ */ declared(() => [ArtifactRefSchema, ...Object.values(ENVELOPE_TYPES).map((t) => t.payload)]);
