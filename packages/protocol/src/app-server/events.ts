/**
 * Session events: the durable, ordered log of a session.
 *
 * Every write the server accepts for a session becomes one or more events, each with a
 * per-session `seq` (1, 2, 3, … without gaps) assigned in the same transaction that stores it.
 * Clients read the log with `agentSession/events/read` and follow it with
 * `agentSession/subscribe`; the `agentSession/event` notification carries one event.
 *
 * The `kind` names the fact; `data` is checked against the kind's schema.
 */
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { fail, ok, type Result } from "../errors.js";
import { validators } from "../generated/app-server-client.js";
import { Closed, JsonObjectSchema, JsonValueSchema, OpaqueIdSchema, StringEnum, TimestampSchema, declared } from "../schema-kit.js";
import { SESSION_EVENT_SCHEMA_ID, sessionEventDataSchemaId } from "./terms.js";
import { checkWith, type CompiledValidator } from "../validation.js";
import type { RuntimeEnvelope } from "../envelope/schemas.js";
import {
  ActorSchema,
  AGENT_STATUSES,
  ArtifactRefRef,
  ErrorInfoSchema,
  ProvenanceRef,
  RecordRef,
  SeqSchema,
  Sha256HexSchema,
  SessionIdSchema,
  TURN_CANCEL_REASONS,
  type Action,
  type ActionResponse,
  type InventoryTool,
  type Session,
  type Turn,
  InventoryContentsProperties,
  MAX_INVENTORY_TOOLS,
} from "./records.js";

const eventData = <T extends Parameters<typeof Closed>[0]>(kind: string, properties: T) =>
  Closed(properties, { $id: sessionEventDataSchemaId(kind), title: `${kind} event data` });

export const SessionStartedDataSchema = /* @__PURE__ */ declared(() => eventData("session.started", {
  session: RecordRef<Session>("app-server.session"),
}));

export const TurnStartedDataSchema = /* @__PURE__ */ declared(() => eventData("turn.started", {
  /** The turn as created: `queued` behind an open turn, or `running`. */
  turn: RecordRef<Turn>("app-server.turn"),
}));

export const TurnActivatedDataSchema = /* @__PURE__ */ declared(() => eventData("turn.activated", {
  /** A queued turn became the running turn (the one before it ended). */
  turn_id: OpaqueIdSchema(),
}));

export const TurnUpdatedDataSchema = /* @__PURE__ */ declared(() => eventData("turn.updated", {
  turn_id: OpaqueIdSchema(),
  status: Type.Optional(StringEnum(AGENT_STATUSES)),
  label: Type.Optional(Type.String({ maxLength: 200 })),
  /** Streamed text to append to the turn's answer. */
  text_delta: Type.Optional(Type.String({ maxLength: 65_536 })),
  progress: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  data: Type.Optional(JsonValueSchema()),
}));

export const TurnCompletedDataSchema = /* @__PURE__ */ declared(() => eventData("turn.completed", {
  turn_id: OpaqueIdSchema(),
  output: Type.Optional(JsonValueSchema()),
  text: Type.Optional(Type.String({ maxLength: 65_536 })),
}));

export const TurnFailedDataSchema = /* @__PURE__ */ declared(() => eventData("turn.failed", {
  turn_id: OpaqueIdSchema(),
  error: ErrorInfoSchema,
}));

export const TurnCancelledDataSchema = /* @__PURE__ */ declared(() => eventData("turn.cancelled", {
  turn_id: OpaqueIdSchema(),
  reason: StringEnum(TURN_CANCEL_REASONS),
  /** For `interrupted`: the turn that replaced it. */
  by_turn_id: Type.Optional(OpaqueIdSchema()),
  note: Type.Optional(Type.String({ maxLength: 2_000 })),
}));

export const ActionRequiredDataSchema = /* @__PURE__ */ declared(() => eventData("action.required", {
  action: RecordRef<Action>("app-server.action"),
}));

export const ActionRespondedDataSchema = /* @__PURE__ */ declared(() => eventData("action.responded", {
  action_id: OpaqueIdSchema(),
  response: RecordRef<ActionResponse>("app-server.action-response"),
}));

export const EnvelopeDataSchema = /* @__PURE__ */ declared(() => eventData("envelope", {
  /** A RuntimeEnvelope v1 that passed `validateEnvelope`, with `scope.conversation_id` = the session. */
  envelope: RecordRef<RuntimeEnvelope>("runtime-envelope.v1"),
}));

export const InventoryPublishedDataSchema = /* @__PURE__ */ declared(() =>
  eventData("inventory.published", {
    revision: SeqSchema(),
    tools: Type.Array(RecordRef<InventoryTool>("app-server.inventory-tool"), { maxItems: MAX_INVENTORY_TOOLS }),
    ...InventoryContentsProperties,
  }),
);

export const ArtifactAddedDataSchema = /* @__PURE__ */ declared(() => eventData("artifact.added", {
  artifact: ArtifactRefRef(),
  /** The app that produced it, when the device uploaded it with provenance. */
  provenance: Type.Optional(ProvenanceRef()),
}));

export const EvidenceExportedDataSchema = /* @__PURE__ */ declared(() => eventData("evidence.exported", {
  export_id: OpaqueIdSchema(),
  /** The pack covers events 1 … through_seq; this event itself is not in it. */
  through_seq: SeqSchema(),
  /** For a task-scoped export: the task. */
  task_id: Type.Optional(OpaqueIdSchema()),
  artifact: ArtifactRefRef(),
  pack_digest: Sha256HexSchema(),
}));

export interface SessionEventKindSpec {
  readonly kind: string;
  readonly description: string;
  /** Who writes it: the role whose request causes it, or the server. */
  readonly written_by: readonly ("device" | "agent" | "server")[];
  readonly data: TSchema;
}

const kind = (s: SessionEventKindSpec): SessionEventKindSpec => s;

export const SESSION_EVENT_KINDS = /* @__PURE__ */ declared(() => ({
  "session.started": kind({ kind: "session.started", description: "The session was bound (always seq 1).", written_by: ["device"], data: SessionStartedDataSchema }),
  "turn.started": kind({ kind: "turn.started", description: "A turn was started, running or queued behind the open turn.", written_by: ["device"], data: TurnStartedDataSchema }),
  "turn.activated": kind({ kind: "turn.activated", description: "A queued turn became the running turn after the one before it ended.", written_by: ["server"], data: TurnActivatedDataSchema }),
  "turn.updated": kind({ kind: "turn.updated", description: "The agent reported status, progress or streamed text of the running turn.", written_by: ["agent"], data: TurnUpdatedDataSchema }),
  "turn.completed": kind({ kind: "turn.completed", description: "The agent completed the turn with its output.", written_by: ["agent"], data: TurnCompletedDataSchema }),
  "turn.failed": kind({ kind: "turn.failed", description: "The agent ended the turn with an error.", written_by: ["agent"], data: TurnFailedDataSchema }),
  "turn.cancelled": kind({ kind: "turn.cancelled", description: "The device cancelled the turn, or an interrupting turn replaced it.", written_by: ["device"], data: TurnCancelledDataSchema }),
  "action.required": kind({ kind: "action.required", description: "The agent asks the user for an approval, a choice or input.", written_by: ["agent"], data: ActionRequiredDataSchema }),
  "action.responded": kind({ kind: "action.responded", description: "The device answered an action.required.", written_by: ["device"], data: ActionRespondedDataSchema }),
  envelope: kind({ kind: "envelope", description: "A RuntimeEnvelope (tool invocation, receipt, progress, result, message, …) carried in the session log.", written_by: ["device", "agent"], data: EnvelopeDataSchema }),
  "inventory.published": kind({ kind: "inventory.published", description: "The device published a new revision of the session's tool inventory.", written_by: ["device"], data: InventoryPublishedDataSchema }),
  "artifact.added": kind({ kind: "artifact.added", description: "An artifact upload completed and its SHA-256 was verified.", written_by: ["device", "agent"], data: ArtifactAddedDataSchema }),
  "evidence.exported": kind({ kind: "evidence.exported", description: "An evidence pack of the session was exported as an artifact.", written_by: ["device", "agent"], data: EvidenceExportedDataSchema }),
} as const satisfies Record<string, SessionEventKindSpec>));

export type SessionEventKind = keyof typeof SESSION_EVENT_KINDS;
export const SESSION_EVENT_KIND_NAMES = /* @__PURE__ */ declared(() => Object.keys(SESSION_EVENT_KINDS) as [SessionEventKind, ...SessionEventKind[]]);

export function isSessionEventKind(value: unknown): value is SessionEventKind {
  return typeof value === "string" && Object.prototype.hasOwnProperty.call(SESSION_EVENT_KINDS, value);
}

/** The data type of each event kind. */
export type SessionEventData<K extends SessionEventKind> = Static<(typeof SESSION_EVENT_KINDS)[K]["data"]>;

export const SessionEventSchema = /* @__PURE__ */ declared(() => Closed(
  {
    session_id: SessionIdSchema(),
    seq: SeqSchema(),
    kind: StringEnum(SESSION_EVENT_KIND_NAMES),
    created_at: TimestampSchema(),
    actor: ActorSchema,
    data: JsonObjectSchema(),
  },
  { $id: SESSION_EVENT_SCHEMA_ID, title: "A session event (the params of the agentSession/event notification)" },
));

/** A session event; `K` narrows `data` once the kind is known. */
export type SessionEvent<K extends SessionEventKind = SessionEventKind> = K extends SessionEventKind
  ? Omit<Static<typeof SessionEventSchema>, "kind" | "data"> & { kind: K; data: SessionEventData<K> }
  : never;

export const SESSION_EVENT_SCHEMAS: readonly TSchema[] = /* @__PURE__ */ declared(() => [SessionEventSchema, ...Object.values(SESSION_EVENT_KINDS).map((k) => k.data)]);

function validatorFor(id: string | undefined): CompiledValidator | undefined {
  return id === undefined ? undefined : validators[id];
}

/**
 * Checks an event's frame (session, seq, kind, time, actor; `data` an object) but not its data against the
 * kind's schema: for a reader that checks the data itself, as the Runtime's filter chain checks an
 * envelope (validateEnvelope, refused with its own code).
 */
export function validateSessionEventFrame(value: unknown): Result<SessionEvent> {
  const frame = validatorFor(SESSION_EVENT_SCHEMA_ID);
  if (frame === undefined) return fail("internal_error", "no generated validator for app-server.event: run npm run gen");
  return checkWith<SessionEvent>(frame, value, "invalid_params");
}

/**
 * Checks a session event (as a client receives it) against the frame and its kind's data schema.
 * Refuses with `invalid_params` and a JSON Pointer. Never throws.
 */
export function validateSessionEvent(value: unknown): Result<SessionEvent> {
  const framed = validateSessionEventFrame(value);
  if (!framed.ok) return framed;
  const dataValidator = validatorFor(sessionEventDataSchemaId(framed.value.kind));
  if (dataValidator === undefined) return fail("internal_error", `no generated validator for ${framed.value.kind}: run npm run gen`);
  const data = checkWith(dataValidator, framed.value.data, "invalid_params");
  if (!data.ok) return fail("invalid_params", `${framed.value.kind} data: ${data.error.message}`, `/data${data.error.path ?? ""}`);
  return ok(value as SessionEvent);
}
