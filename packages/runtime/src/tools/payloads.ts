/**
 * The payload types of the `lineup.tool.*` envelopes, derived from the protocol's schemas (the
 * source of truth). Type-only: nothing here runs.
 */
import type { Static } from "@sinclair/typebox";
import type {
  ToolErrorPayloadSchema,
  ToolInvokePayloadSchema,
  ToolProgressPayloadSchema,
  ToolReceiptPayloadSchema,
  ToolResultPayloadSchema,
} from "@lineup/protocol";

export type ToolInvokePayload = Static<typeof ToolInvokePayloadSchema>;
export type ToolReceiptPayload = Static<typeof ToolReceiptPayloadSchema>;
export type ToolProgressPayload = Static<typeof ToolProgressPayloadSchema>;
export type ToolResultPayload = Static<typeof ToolResultPayloadSchema>;
export type ToolErrorPayload = Static<typeof ToolErrorPayloadSchema>;
