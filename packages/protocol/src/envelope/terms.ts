/**
 * The envelope type registry as plain values: every `type` a RuntimeEnvelope v1 may carry, who may send it, where it
 * may go, which correlation fields it needs and how it is delivered. Run-time checks read these; the payload schemas
 * live in types.ts (`ENVELOPE_TYPES`), for the generator and for types, and are checked by id.
 */
import { schemaId } from "../schema-id.js";
import type { SenderKind, TargetKind } from "./schemas.js";

/** The id of the RuntimeEnvelope v1 frame schema. */
export const RUNTIME_ENVELOPE_SCHEMA_ID = /* @__PURE__ */ schemaId("runtime-envelope.v1");

export interface EnvelopeTypeTerms {
  readonly type: string;
  readonly description: string;
  readonly senders: readonly SenderKind[];
  readonly targets: readonly TargetKind[];
  /** Correlation fields the type cannot do without. */
  readonly requires: readonly ("call_id" | "inventory_revision" | "reply_to")[];
  /** Display messages are acknowledged automatically on delivery; the rest need an explicit ACK (spec 5.4). */
  readonly delivery: "display" | "explicit_ack";
}

export const ENVELOPE_TYPE_TERMS = {
  "lineup.message": { type: "lineup.message", description: "A text or Markdown message in a conversation.", senders: ["agent", "user", "runtime"], targets: ["app"], requires: [], delivery: "display" },
  "lineup.status": { type: "lineup.status", description: "The agent's activity state.", senders: ["agent"], targets: ["app"], requires: [], delivery: "display" },
  "lineup.task.progress": { type: "lineup.task.progress", description: "Progress of an agent task shown in the conversation.", senders: ["agent"], targets: ["app"], requires: [], delivery: "display" },
  "lineup.interaction.request": { type: "lineup.interaction.request", description: "A choice, confirm or input card for the user.", senders: ["agent"], targets: ["app"], requires: [], delivery: "explicit_ack" },
  "lineup.interaction.response": { type: "lineup.interaction.response", description: "The user's answer to an interaction card.", senders: ["user"], targets: ["runtime"], requires: [], delivery: "explicit_ack" },
  "lineup.tool.invoke": { type: "lineup.tool.invoke", description: "A remote agent calls a tool from the current inventory.", senders: ["agent"], targets: ["runtime", "app"], requires: ["call_id", "inventory_revision"], delivery: "explicit_ack" },
  "lineup.tool.receipt": { type: "lineup.tool.receipt", description: "Protocol receipt for a call: accepted, starting, activation ready/failed/cancelled.", senders: ["runtime"], targets: ["runtime", "app"], requires: ["call_id"], delivery: "display" },
  "lineup.tool.progress": { type: "lineup.tool.progress", description: "Progress of a call, persisted and replayable; not checked against the output schema.", senders: ["runtime"], targets: ["runtime", "app"], requires: ["call_id"], delivery: "display" },
  "lineup.tool.result": { type: "lineup.tool.result", description: "The one terminal result of a call, valid against the tool's output schema.", senders: ["runtime"], targets: ["runtime", "app"], requires: ["call_id"], delivery: "display" },
  "lineup.tool.error": { type: "lineup.tool.error", description: "The one terminal error of a call.", senders: ["runtime"], targets: ["runtime", "app"], requires: ["call_id"], delivery: "display" },
  "lineup.tool.cancel": { type: "lineup.tool.cancel", description: "The agent cancels a call it made.", senders: ["agent"], targets: ["runtime", "app"], requires: ["call_id"], delivery: "explicit_ack" },
  "lineup.app.state.patch": { type: "lineup.app.state.patch", description: "An agent's state patch for an app instance.", senders: ["agent"], targets: ["app"], requires: [], delivery: "explicit_ack" },
  "lineup.app.event": { type: "lineup.app.event", description: "An event an app declared, on its way to the agent.", senders: ["app"], targets: ["runtime"], requires: [], delivery: "explicit_ack" },
  "lineup.task.decision": { type: "lineup.task.decision", description: "An app accepted or rejected its agent task's result; for the agent.", senders: ["app"], targets: ["runtime"], requires: [], delivery: "display" },
  "lineup.artifact": { type: "lineup.artifact", description: "An artifact shared in a conversation.", senders: ["agent", "runtime", "user"], targets: ["app"], requires: [], delivery: "display" },
  "lineup.runtime.notice": { type: "lineup.runtime.notice", description: "A Runtime-wide notice (global scope) or one for a conversation.", senders: ["runtime"], targets: ["runtime", "app"], requires: [], delivery: "display" },
  "lineup.host.intent": { type: "lineup.host.intent", description: "A host lifecycle intent: a deep link, a notification click, sleep and wake, the window hidden or shown, memory pressure.", senders: ["host"], targets: ["runtime"], requires: [], delivery: "explicit_ack" },
} as const satisfies Record<string, EnvelopeTypeTerms>;

export type EnvelopeType = keyof typeof ENVELOPE_TYPE_TERMS;

export function isEnvelopeType(value: unknown): value is EnvelopeType {
  return typeof value === "string" && Object.prototype.hasOwnProperty.call(ENVELOPE_TYPE_TERMS, value);
}

/** The id of `type`'s payload schema, under which the generated validator is found. */
export const envelopePayloadSchemaId = (type: string): string => schemaId(`payload.${type}`);
