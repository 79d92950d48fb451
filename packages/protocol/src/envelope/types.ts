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
} from "../schema-kit.js";
import type { SenderKind, TargetKind } from "./schemas.js";

const Text = (maxLength: number) => Type.String({ maxLength });
const Label = () => Type.String({ minLength: 1, maxLength: 200 });
const ErrorCodeSchema = () => StringEnum(Object.keys(ERROR_CODES) as [string, ...string[]]);

export const ArtifactRefSchema = Closed(
  {
    artifact_id: OpaqueIdSchema(),
    name: Type.String({ minLength: 1, maxLength: 255 }),
    mime_type: Type.String({ minLength: 3, maxLength: 127, pattern: "^[a-z0-9!#$&^_.+-]+/[a-z0-9!#$&^_.+-]+$" }),
    size: Type.Integer({ minimum: 0 }),
    sha256: Type.String({ pattern: "^[0-9a-f]{64}$" }),
  },
  { $id: schemaId("artifact-ref.v1") },
);
export type ArtifactRef = Static<typeof ArtifactRefSchema>;
const ArtifactRefRef = Type.Unsafe<ArtifactRef>(Type.Ref(schemaId("artifact-ref.v1")));

const payload = <T extends Parameters<typeof Closed>[0]>(type: string, properties: T) =>
  Closed(properties, { $id: schemaId(`payload.${type}`), title: `${type} payload` });

export const MessagePayloadSchema = payload("lineup.message", {
  format: StringEnum(["text", "markdown"] as const),
  text: Text(65_536),
  attachments: Type.Optional(Type.Array(ArtifactRefRef, { maxItems: 32 })),
});

export const StatusPayloadSchema = payload("lineup.status", {
  state: StringEnum(["idle", "thinking", "working", "waiting_for_user"] as const),
  label: Type.Optional(Text(200)),
});

export const TaskProgressPayloadSchema = payload("lineup.task.progress", {
  task_id: OpaqueIdSchema(),
  title: Type.Optional(Label()),
  state: StringEnum(["running", "completed", "failed", "cancelled"] as const),
  progress: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  detail: Type.Optional(Text(2_000)),
});

const ChoiceOption = Closed({
  id: OpaqueIdSchema(),
  label: Label(),
  description: Type.Optional(Text(500)),
});

/** The standard interaction primitives of spec 8.1: choice, confirm, input. */
export const InteractionRequestPayloadSchema = payload("lineup.interaction.request", {
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
});

export const InteractionResponsePayloadSchema = payload("lineup.interaction.response", {
  interaction_id: OpaqueIdSchema(),
  outcome: StringEnum(["answered", "cancelled"] as const),
  choice_ids: Type.Optional(Type.Array(OpaqueIdSchema(), { maxItems: 20 })),
  confirmed: Type.Optional(Type.Boolean()),
  text: Type.Optional(Text(65_536)),
});

export const ToolInvokePayloadSchema = payload("lineup.tool.invoke", {
  method: Type.String({ minLength: 1, maxLength: 128, pattern: "^[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)*$" }),
  contract_version: Type.Optional(Type.String({ minLength: 1, maxLength: 16, pattern: "^[0-9]+$" })),
  arguments: JsonObjectSchema(),
  timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400_000 })),
});

export const TOOL_RECEIPT_STATUSES = ["accepted", "starting", "activation_ready", "activation_failed", "activation_cancelled"] as const;
export const ToolReceiptPayloadSchema = payload("lineup.tool.receipt", {
  status: StringEnum(TOOL_RECEIPT_STATUSES),
  code: Type.Optional(ErrorCodeSchema()),
  message: Type.Optional(Text(2_000)),
  /** On `accepted`: the tool that was called, by the app's own name for it (what a chat card can title the call with). */
  tool: Type.Optional(Closed({ method: Type.String({ minLength: 1, maxLength: 128 }), title: Text(200) })),
});

export const ToolProgressPayloadSchema = payload("lineup.tool.progress", {
  stage: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  progress: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  message: Type.Optional(Text(2_000)),
  data: Type.Optional(JsonValueSchema()),
});

export const ToolResultPayloadSchema = payload("lineup.tool.result", {
  result: JsonValueSchema(),
});

export const ToolErrorPayloadSchema = payload("lineup.tool.error", {
  code: ErrorCodeSchema(),
  message: Text(2_000),
});

export const ToolCancelPayloadSchema = payload("lineup.tool.cancel", {
  reason: Type.Optional(Text(2_000)),
});

export const AppStatePatchPayloadSchema = payload("lineup.app.state.patch", {
  patch: JsonObjectSchema(),
  base_revision: Type.Optional(Type.Integer({ minimum: 0 })),
});

export const AppEventPayloadSchema = payload("lineup.app.event", {
  name: Type.String({ minLength: 1, maxLength: 96, pattern: "^[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)*$" }),
  data: JsonValueSchema(),
});

/** An app accepted or rejected the structured result of its agent task (docs/protocol.md "In-app agent tasks"); the agent reads it in the log. */
export const TaskDecisionPayloadSchema = payload("lineup.task.decision", {
  task_id: OpaqueIdSchema(),
  turn_id: OpaqueIdSchema(),
  decision: StringEnum(["accepted", "rejected"] as const),
  reason: Type.Optional(Text(2_000)),
});

export const ArtifactPayloadSchema = payload("lineup.artifact", {
  artifact: ArtifactRefRef,
  caption: Type.Optional(Text(2_000)),
});

export const RuntimeNoticePayloadSchema = payload("lineup.runtime.notice", {
  level: StringEnum(["info", "warning", "error"] as const),
  message: Text(2_000),
  code: Type.Optional(ErrorCodeSchema()),
});

export const HostIntentPayloadSchema = payload("lineup.host.intent", {
  /** `suspend` / `resume`: the device sleeps and wakes; `window_hidden` / `window_shown`: the host's window; `memory_pressure`: the system asks for memory back. */
  intent: StringEnum(["open_app", "open_conversation", "close_app", "suspend", "resume", "window_hidden", "window_shown", "memory_pressure"] as const),
  app_scope: Type.Optional(AppScopeSchema()),
  conversation_id: Type.Optional(ConversationIdSchema()),
  entrypoint: Type.Optional(OpaqueIdSchema()),
});

export interface EnvelopeTypeSpec {
  readonly type: string;
  readonly description: string;
  readonly senders: readonly SenderKind[];
  readonly targets: readonly TargetKind[];
  /** Correlation fields the type cannot do without. */
  readonly requires: readonly ("call_id" | "inventory_revision" | "reply_to")[];
  /** Display messages are acknowledged automatically on delivery; the rest need an explicit ACK (spec 5.4). */
  readonly delivery: "display" | "explicit_ack";
  readonly payload: TSchema;
}

const spec = (s: EnvelopeTypeSpec): EnvelopeTypeSpec => s;

export const ENVELOPE_TYPES = {
  "lineup.message": spec({ type: "lineup.message", description: "A text or Markdown message in a conversation.", senders: ["agent", "user", "runtime"], targets: ["app"], requires: [], delivery: "display", payload: MessagePayloadSchema }),
  "lineup.status": spec({ type: "lineup.status", description: "The agent's activity state.", senders: ["agent"], targets: ["app"], requires: [], delivery: "display", payload: StatusPayloadSchema }),
  "lineup.task.progress": spec({ type: "lineup.task.progress", description: "Progress of an agent task shown in the conversation.", senders: ["agent"], targets: ["app"], requires: [], delivery: "display", payload: TaskProgressPayloadSchema }),
  "lineup.interaction.request": spec({ type: "lineup.interaction.request", description: "A choice, confirm or input card for the user.", senders: ["agent"], targets: ["app"], requires: [], delivery: "explicit_ack", payload: InteractionRequestPayloadSchema }),
  "lineup.interaction.response": spec({ type: "lineup.interaction.response", description: "The user's answer to an interaction card.", senders: ["user"], targets: ["runtime"], requires: [], delivery: "explicit_ack", payload: InteractionResponsePayloadSchema }),
  "lineup.tool.invoke": spec({ type: "lineup.tool.invoke", description: "A remote agent calls a tool from the current inventory.", senders: ["agent"], targets: ["runtime", "app"], requires: ["call_id", "inventory_revision"], delivery: "explicit_ack", payload: ToolInvokePayloadSchema }),
  "lineup.tool.receipt": spec({ type: "lineup.tool.receipt", description: "Protocol receipt for a call: accepted, starting, activation ready/failed/cancelled.", senders: ["runtime"], targets: ["runtime", "app"], requires: ["call_id"], delivery: "display", payload: ToolReceiptPayloadSchema }),
  "lineup.tool.progress": spec({ type: "lineup.tool.progress", description: "Progress of a call, persisted and replayable; not checked against the output schema.", senders: ["runtime"], targets: ["runtime", "app"], requires: ["call_id"], delivery: "display", payload: ToolProgressPayloadSchema }),
  "lineup.tool.result": spec({ type: "lineup.tool.result", description: "The one terminal result of a call, valid against the tool's output schema.", senders: ["runtime"], targets: ["runtime", "app"], requires: ["call_id"], delivery: "display", payload: ToolResultPayloadSchema }),
  "lineup.tool.error": spec({ type: "lineup.tool.error", description: "The one terminal error of a call.", senders: ["runtime"], targets: ["runtime", "app"], requires: ["call_id"], delivery: "display", payload: ToolErrorPayloadSchema }),
  "lineup.tool.cancel": spec({ type: "lineup.tool.cancel", description: "The agent cancels a call it made.", senders: ["agent"], targets: ["runtime", "app"], requires: ["call_id"], delivery: "explicit_ack", payload: ToolCancelPayloadSchema }),
  "lineup.app.state.patch": spec({ type: "lineup.app.state.patch", description: "An agent's state patch for an app instance.", senders: ["agent"], targets: ["app"], requires: [], delivery: "explicit_ack", payload: AppStatePatchPayloadSchema }),
  "lineup.app.event": spec({ type: "lineup.app.event", description: "An event an app declared, on its way to the agent.", senders: ["app"], targets: ["runtime"], requires: [], delivery: "explicit_ack", payload: AppEventPayloadSchema }),
  "lineup.task.decision": spec({ type: "lineup.task.decision", description: "An app accepted or rejected its agent task's result; for the agent.", senders: ["app"], targets: ["runtime"], requires: [], delivery: "display", payload: TaskDecisionPayloadSchema }),
  "lineup.artifact": spec({ type: "lineup.artifact", description: "An artifact shared in a conversation.", senders: ["agent", "runtime", "user"], targets: ["app"], requires: [], delivery: "display", payload: ArtifactPayloadSchema }),
  "lineup.runtime.notice": spec({ type: "lineup.runtime.notice", description: "A Runtime-wide notice (global scope) or one for a conversation.", senders: ["runtime"], targets: ["runtime", "app"], requires: [], delivery: "display", payload: RuntimeNoticePayloadSchema }),
  "lineup.host.intent": spec({ type: "lineup.host.intent", description: "A host lifecycle intent: a deep link, a notification click, sleep and wake, the window hidden or shown, memory pressure.", senders: ["host"], targets: ["runtime"], requires: [], delivery: "explicit_ack", payload: HostIntentPayloadSchema }),
} as const satisfies Record<string, EnvelopeTypeSpec>;

export type EnvelopeType = keyof typeof ENVELOPE_TYPES;

export function isEnvelopeType(value: unknown): value is EnvelopeType {
  return typeof value === "string" && Object.prototype.hasOwnProperty.call(ENVELOPE_TYPES, value);
}

/** The payload type of each envelope type. */
export type EnvelopePayload<T extends EnvelopeType> = Static<(typeof ENVELOPE_TYPES)[T]["payload"]>;

/** Every schema this module declares, for the validator generator. */
export const ENVELOPE_PAYLOAD_SCHEMAS: readonly TSchema[] = [ArtifactRefSchema, ...Object.values(ENVELOPE_TYPES).map((t) => t.payload)];
