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

export const EnvelopeSenderSchema = /* @__PURE__ */ Closed({
  kind: /* @__PURE__ */ StringEnum(SENDER_KINDS),
  id: /* @__PURE__ */ OpaqueIdSchema(),
});

export const EnvelopeTargetSchema = /* @__PURE__ */ Closed({
  kind: /* @__PURE__ */ StringEnum(TARGET_KINDS),
  app_scope: /* @__PURE__ */ AppScopeSchema(),
  instance_id: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ InstanceIdSchema()),
});

export const EnvelopeScopeSchema = /* @__PURE__ */ Closed({
  app_scope: /* @__PURE__ */ AppScopeSchema(),
  conversation_id: /* @__PURE__ */ ConversationIdSchema(),
  instance_id: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ InstanceIdSchema()),
  operation_id: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ OperationIdSchema()),
});

export const EnvelopeCorrelationSchema = /* @__PURE__ */ declared(() =>
  /* @__PURE__ */ Closed({
    reply_to: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ OpaqueIdSchema()),
    call_id: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ ToolCallIdSchema()),
    inventory_revision: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9._:-]+$" })),
    sequence: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  }),
);

export const RuntimeEnvelopeSchema = /* @__PURE__ */ Closed(
  {
    v: /* @__PURE__ */ Type.Literal(1),
    id: /* @__PURE__ */ OpaqueIdSchema(),
    type: /* @__PURE__ */ Type.String({ minLength: 3, maxLength: 96, pattern: ENVELOPE_TYPE_PATTERN }),
    timestamp: /* @__PURE__ */ TimestampSchema(),
    sender: EnvelopeSenderSchema,
    target: EnvelopeTargetSchema,
    scope: EnvelopeScopeSchema,
    correlation: /* @__PURE__ */ Type.Optional(EnvelopeCorrelationSchema),
    payload: /* @__PURE__ */ JsonValueSchema(),
  },
  { $id: RUNTIME_ENVELOPE_SCHEMA_ID, title: "RuntimeEnvelope v1" },
);

type EnvelopeFrame = Static<typeof RuntimeEnvelopeSchema>;
export type EnvelopeSender = Static<typeof EnvelopeSenderSchema>;
export type EnvelopeTarget = Static<typeof EnvelopeTargetSchema>;
export type EnvelopeScope = Static<typeof EnvelopeScopeSchema>;
export type EnvelopeCorrelation = Static<typeof EnvelopeCorrelationSchema>;

/** A decoded, validated envelope. `P` narrows the payload once the type is known. */
export type RuntimeEnvelope<P = JsonValue> = Omit<EnvelopeFrame, "payload"> & { payload: P };
