/**
 * RuntimeEnvelope v1 (spec 5.1): the routed message every boundary of LineUp carries.
 *
 * The envelope schema fixes the frame; each `type` then has its own payload schema, sender kinds
 * and correlation needs in the type registry (`types.ts`).
 */
import { Type, type Static } from "@sinclair/typebox";
import { ENVELOPE_TYPE_PATTERN } from "../ids.js";
import { RUNTIME_ENVELOPE_SCHEMA_ID } from "./terms.js";
import type { JsonValue } from "../json.js";
import {
  AppScopeSchema,
  Closed,
  ConversationIdSchema,
  InstanceIdSchema,
  JsonValueSchema,
  OpaqueIdSchema,
  OperationIdSchema,
  StringEnum,
  TimestampSchema,
  ToolCallIdSchema,
  declared,
} from "../schema-kit.js";

export const SENDER_KINDS = ["agent", "runtime", "app", "user", "host"] as const;
export type SenderKind = (typeof SENDER_KINDS)[number];
export const TARGET_KINDS = ["runtime", "app"] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

export const EnvelopeSenderSchema = /* @__PURE__ */ declared(() => Closed({
  kind: StringEnum(SENDER_KINDS),
  id: OpaqueIdSchema(),
}));

export const EnvelopeTargetSchema = /* @__PURE__ */ declared(() => Closed({
  kind: StringEnum(TARGET_KINDS),
  app_scope: AppScopeSchema(),
  instance_id: Type.Optional(InstanceIdSchema()),
}));

export const EnvelopeScopeSchema = /* @__PURE__ */ declared(() => Closed({
  app_scope: AppScopeSchema(),
  conversation_id: ConversationIdSchema(),
  instance_id: Type.Optional(InstanceIdSchema()),
  operation_id: Type.Optional(OperationIdSchema()),
}));

export const EnvelopeCorrelationSchema = /* @__PURE__ */ declared(() =>
  Closed({
    reply_to: Type.Optional(OpaqueIdSchema()),
    call_id: Type.Optional(ToolCallIdSchema()),
    inventory_revision: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9._:-]+$" })),
    sequence: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  }),
);

export const RuntimeEnvelopeSchema = /* @__PURE__ */ declared(() => Closed(
  {
    v: Type.Literal(1),
    id: OpaqueIdSchema(),
    type: Type.String({ minLength: 3, maxLength: 96, pattern: ENVELOPE_TYPE_PATTERN }),
    timestamp: TimestampSchema(),
    sender: EnvelopeSenderSchema,
    target: EnvelopeTargetSchema,
    scope: EnvelopeScopeSchema,
    correlation: Type.Optional(EnvelopeCorrelationSchema),
    payload: JsonValueSchema(),
  },
  { $id: RUNTIME_ENVELOPE_SCHEMA_ID, title: "RuntimeEnvelope v1" },
));

type EnvelopeFrame = Static<typeof RuntimeEnvelopeSchema>;
export type EnvelopeSender = Static<typeof EnvelopeSenderSchema>;
export type EnvelopeTarget = Static<typeof EnvelopeTargetSchema>;
export type EnvelopeScope = Static<typeof EnvelopeScopeSchema>;
export type EnvelopeCorrelation = Static<typeof EnvelopeCorrelationSchema>;

/** A decoded, validated envelope. `P` narrows the payload once the type is known. */
export type RuntimeEnvelope<P = JsonValue> = Omit<EnvelopeFrame, "payload"> & { payload: P };
