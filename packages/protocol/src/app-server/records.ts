/**
 * The records of the App Server protocol: what a session, a turn, an action, an inventory and the
 * server's limits look like on the wire. Method params and results (`schemas.ts`) and session
 * events (`events.ts`) are built from these.
 *
 * Each record has its own `$id` and is referenced (`$ref`) by the schemas that contain it, so the
 * generated JSON Schema files describe each record once.
 */
import { Type, type Static } from "@sinclair/typebox";
import { ERROR_CODES, type ErrorCode } from "../errors.js";
import type { JsonObject, JsonValue } from "../json.js";
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
import type { ArtifactRef } from "../envelope/types.js";
import type { Provenance, TaskTurnOptions } from "../agent-task.js";
import { CAPABILITY_NAME_PATTERN, RISK_LEVELS } from "../manifest/capabilities.js";
import { ACTIVATION_REQUIREMENTS, CALL_MODELS, DISPLAY_MODES, ENTRYPOINT_ID_PATTERN, ENTRYPOINT_KINDS, LocalizedTextsSchema, SEMVER_PATTERN } from "../manifest/schemas.js";

/** The one protocol version this catalogue describes; `initialize` must name it. */
export const APP_SERVER_PROTOCOL_VERSION = "lineup.app-server.v1";

/** The two faces of the endpoint. The role comes from the token presented at `initialize`. */
export const APP_SERVER_ROLES = ["device", "agent"] as const;
export type AppServerRole = (typeof APP_SERVER_ROLES)[number];

/** Who wrote an event: a device, an agent, or the server itself (e.g. a turn it activated). */
export const ACTOR_ROLES = ["device", "agent", "server"] as const;
export type ActorRole = (typeof ACTOR_ROLES)[number];

const MAX_SEQ = Number.MAX_SAFE_INTEGER;

/** A per-session event sequence number: 1, 2, 3, … with no gap. */
export const SeqSchema = (options: Parameters<typeof Type.Integer>[0] = {}) => Type.Integer({ ...options, minimum: 1, maximum: MAX_SEQ });
/** A resume cursor: the last seq the client holds; 0 means "from the start". */
export const CursorSchema = (options: Parameters<typeof Type.Integer>[0] = {}) => Type.Integer({ ...options, minimum: 0, maximum: MAX_SEQ });
/** Idempotency keys follow the opaque id grammar (a UUID fits). */
export const IdempotencyKeySchema = () => OpaqueIdSchema({ description: "Same key + same body replays the first outcome; same key + other body is refused." });
/** The idempotency key of an earlier write of the same caller that this write must follow (ordered writes). */
export const AfterKeySchema = () =>
  OpaqueIdSchema({ description: "Applied only once the caller's write with this idempotency key has a stored outcome; until then refused with predecessor_pending and nothing stored. Not part of the body." });
/** A session id IS the conversation id of every envelope in the session (same grammar; a plain string in these records). */
export const SessionIdSchema = () => Type.Unsafe<string>(ConversationIdSchema());
/** An app scope (grammar of ids.ts), as a plain string in these records. */
export const AppScopeStringSchema = () => Type.Unsafe<string>(AppScopeSchema());
/** Standard base64 (RFC 4648 §4) with padding. */
export const BASE64_PATTERN = "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$";
export const Sha256HexSchema = () => Type.String({ minLength: 64, maxLength: 64, pattern: "^[0-9a-f]{64}$" });
const ErrorCodeSchema = () => StringEnum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]);
const Text = (maxLength: number) => Type.String({ maxLength });
const Label = () => Type.String({ minLength: 1, maxLength: 200 });

/** A reference to a `$id`-ed record, typed as the record. */
export const RecordRef = <T>(name: string) => Type.Unsafe<T>(Type.Ref(schemaId(name)));
export const ArtifactRefRef = () => RecordRef<ArtifactRef>("artifact-ref.v1");
/** Package provenance (`agent-task.provenance`): the app, its version and its bundle digest. */
export const ProvenanceRef = () => RecordRef<Provenance>("agent-task.provenance");

/**
 * A turn's host options: any JSON object, passed through to the agent. Its `lineup_task` member, when
 * present, marks the turn as an app's agent task and must be `agent-task.turn-options`.
 */
export const TurnOptionsSchema = () =>
  Type.Unsafe<JsonObject & { lineup_task?: TaskTurnOptions }>({ type: "object", properties: { lineup_task: Type.Ref(schemaId("agent-task.turn-options")) } });

export const ActorSchema = /* @__PURE__ */ declared(() => Closed({ role: StringEnum(ACTOR_ROLES), id: OpaqueIdSchema() }));
export type Actor = Static<typeof ActorSchema>;

/** A LineUp error as data inside a record (a failed turn). */
export const ErrorInfoSchema = /* @__PURE__ */ declared(() => Closed({ code: ErrorCodeSchema(), message: Text(2_000) }));
export type ErrorInfo = Static<typeof ErrorInfoSchema>;

export const BusinessObjectRefSchema = /* @__PURE__ */ declared(() => Closed({
  type: Type.String({ minLength: 1, maxLength: 64 }),
  id: Type.String({ minLength: 1, maxLength: 256 }),
}));

export const SESSION_STATES = ["active", "closed"] as const;

export const SessionSchema = /* @__PURE__ */ declared(() => Closed(
  {
    session_id: SessionIdSchema(),
    app_scope: AppScopeStringSchema(),
    workspace_id: OpaqueIdSchema(),
    owner_user_id: OpaqueIdSchema(),
    agent_id: OpaqueIdSchema(),
    title: Type.Optional(Text(200)),
    business_object_ref: Type.Optional(BusinessObjectRefSchema),
    state: StringEnum(SESSION_STATES),
    created_at: TimestampSchema(),
    /** The seq of the newest event; the session's head. */
    last_seq: CursorSchema(),
    /** The latest published inventory revision; 0 before the first publication. */
    inventory_revision: Type.Integer({ minimum: 0, maximum: MAX_SEQ }),
    /**
     * The `created_at` of the newest event in which the person or the agent said something (`isActivityEvent`);
     * absent before any. In the session list, so that a device orders the conversations before it has read their logs.
     */
    active_at: Type.Optional(TimestampSchema()),
  },
  { $id: schemaId("app-server.session"), title: "App Server session (a conversation)" },
));
export type Session = Static<typeof SessionSchema>;

export const TurnInputSchema = /* @__PURE__ */ declared(() => Closed(
  {
    text: Type.Optional(Text(65_536)),
    /** Structured input (business context) for the agent. */
    content: Type.Optional(JsonValueSchema()),
    attachments: Type.Optional(Type.Array(ArtifactRefRef(), { maxItems: 32 })),
  },
  { $id: schemaId("app-server.turn-input"), title: "Turn input: text and/or structured content, attachments as artifact refs", minProperties: 1 },
));
export type TurnInput = { text?: string; content?: JsonValue; attachments?: ArtifactRef[] };

export const TURN_STATES = ["queued", "running", "completed", "failed", "cancelled"] as const;
export type TurnState = (typeof TURN_STATES)[number];
export const TERMINAL_TURN_STATES: ReadonlySet<TurnState> = /* @__PURE__ */ declared(() => new Set(["completed", "failed", "cancelled"]));
export const TURN_QUEUE_POLICIES = ["enqueue", "interrupt"] as const;
export type TurnQueuePolicy = (typeof TURN_QUEUE_POLICIES)[number];
/** Why a turn was cancelled: the device asked, or a later turn with `queue: "interrupt"` replaced it. */
export const TURN_CANCEL_REASONS = ["cancelled", "interrupted"] as const;
export const AGENT_STATUSES = ["thinking", "working", "waiting_for_user"] as const;

export const TurnSchema = /* @__PURE__ */ declared(() => Closed(
  {
    turn_id: OpaqueIdSchema(),
    session_id: SessionIdSchema(),
    state: StringEnum(TURN_STATES),
    queue: StringEnum(TURN_QUEUE_POLICIES),
    input: RecordRef<TurnInput>("app-server.turn-input"),
    output_schema: Type.Optional(JsonObjectSchema()),
    capability_id: Type.Optional(OpaqueIdSchema()),
    options: Type.Optional(TurnOptionsSchema()),
    created_at: TimestampSchema(),
    updated_at: TimestampSchema(),
    /** The seq of the `turn.started` event. */
    started_seq: SeqSchema(),
    output: Type.Optional(JsonValueSchema()),
    text: Type.Optional(Text(65_536)),
    error: Type.Optional(ErrorInfoSchema),
    cancel_reason: Type.Optional(StringEnum(TURN_CANCEL_REASONS)),
  },
  { $id: schemaId("app-server.turn"), title: "A turn of an agent session" },
));
export type Turn = Static<typeof TurnSchema>;

export const ACTION_KINDS = ["approval", "choice", "input"] as const;
export const ACTION_STATES = ["pending", "responded"] as const;
export const ACTION_OUTCOMES = ["approved", "rejected", "answered", "cancelled"] as const;

export const ActionOptionSchema = /* @__PURE__ */ declared(() => Closed({ id: OpaqueIdSchema(), label: Label(), description: Type.Optional(Text(500)) }));

export const ActionResponseSchema = /* @__PURE__ */ declared(() => Closed(
  {
    outcome: StringEnum(ACTION_OUTCOMES),
    choice_ids: Type.Optional(Type.Array(OpaqueIdSchema(), { maxItems: 20 })),
    text: Type.Optional(Text(65_536)),
    data: Type.Optional(JsonValueSchema()),
  },
  { $id: schemaId("app-server.action-response"), title: "The device's answer to action.required" },
));
export type ActionResponse = Static<typeof ActionResponseSchema>;

export const ActionSchema = /* @__PURE__ */ declared(() => Closed(
  {
    action_id: OpaqueIdSchema(),
    session_id: SessionIdSchema(),
    turn_id: Type.Optional(OpaqueIdSchema()),
    kind: StringEnum(ACTION_KINDS),
    prompt: Type.String({ minLength: 1, maxLength: 4_000 }),
    detail: Type.Optional(Text(65_536)),
    options: Type.Optional(Type.Array(ActionOptionSchema, { minItems: 1, maxItems: 20 })),
    multiple: Type.Optional(Type.Boolean()),
    input_schema: Type.Optional(JsonObjectSchema()),
    expires_at: Type.Optional(TimestampSchema()),
    state: StringEnum(ACTION_STATES),
    requested_at: TimestampSchema(),
    response: Type.Optional(RecordRef<ActionResponse>("app-server.action-response")),
    responded_at: Type.Optional(TimestampSchema()),
  },
  { $id: schemaId("app-server.action"), title: "An action.required raised by the agent (approval or human input)" },
));
export type Action = Static<typeof ActionSchema>;

/** Call models, risk levels and activation requirements as the manifest's tool descriptor spells them (spec 7.1, 7.3). */
export const INVENTORY_TOOL_METHOD_PATTERN = "^[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)*$";

/** One tool of a published inventory: the public, non-executable summary of a manifest tool descriptor. */
export const InventoryToolSchema = /* @__PURE__ */ declared(() => Closed(
  {
    app_scope: AppScopeStringSchema(),
    method: Type.String({ minLength: 1, maxLength: 128, pattern: INVENTORY_TOOL_METHOD_PATTERN }),
    contract_version: Type.String({ minLength: 1, maxLength: 16, pattern: "^[0-9]+$" }),
    title: Label(),
    description: Text(4_000),
    input_schema: JsonObjectSchema(),
    output_schema: Type.Optional(JsonObjectSchema()),
    call_model: StringEnum(CALL_MODELS),
    timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400_000 })),
    requires_foreground: Type.Optional(Type.Boolean()),
    risk_level: Type.Optional(StringEnum(RISK_LEVELS)),
    activation_requirement: Type.Optional(StringEnum(ACTIVATION_REQUIREMENTS)),
    /** The app that provides the tool, as installed: its version and bundle digest; `app_scope` must be the tool's. */
    provenance: Type.Optional(ProvenanceRef()),
  },
  { $id: schemaId("app-server.inventory-tool"), title: "A tool summary in a published inventory" },
));
export type InventoryTool = Static<typeof InventoryToolSchema>;
export const MAX_INVENTORY_TOOLS = 512;

/**
 * The standard components (spec 8.1) a host renders itself, trusted and without an app: what an agent can
 * show a person with the conversation's own envelopes (`lineup.message` text and Markdown, `lineup.status`,
 * `lineup.task.progress`, `lineup.interaction.request` choice, confirm and input, `lineup.artifact`).
 */
export const STANDARD_COMPONENTS = ["text", "markdown", "status", "task_progress", "choice", "confirm", "input", "artifact"] as const;
export type StandardComponent = (typeof STANDARD_COMPONENTS)[number];

/** One entrypoint of an inventory app: what a person or the agent can open, and how its surface may be shown. */
export const InventoryEntrypointSchema = /* @__PURE__ */ declared(() =>
  Closed({
    id: Type.String({ minLength: 1, maxLength: 64, pattern: ENTRYPOINT_ID_PATTERN }),
    kind: StringEnum(ENTRYPOINT_KINDS),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    /** The surface's display modes this host can show it in (the manifest's, narrowed to the inventory's `surfaces`). */
    display_modes: Type.Array(StringEnum(DISPLAY_MODES), { uniqueItems: true, maxItems: DISPLAY_MODES.length }),
  }));
  export type InventoryEntrypoint = Static<typeof InventoryEntrypointSchema>;

  /** One enabled app of a published inventory: its names as the manifest gives them and its entrypoints; never its bundle or files. */
  export const InventoryAppSchema = /* @__PURE__ */ declared(() => Closed(
    {
      app_scope: AppScopeStringSchema(),
      version: Type.String({ maxLength: 64, pattern: SEMVER_PATTERN }),
      kind: StringEnum(["core", "installed"] as const),
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 80 })),
      description: Type.Optional(Text(2_000)),
      localized: Type.Optional(LocalizedTextsSchema),
      entrypoints: Type.Array(InventoryEntrypointSchema, { maxItems: 32 }),
    },
    { $id: schemaId("app-server.inventory-app"), title: "An enabled app in a published inventory" },
  ));
  export type InventoryApp = Static<typeof InventoryAppSchema>;
  export const MAX_INVENTORY_APPS = 256;

  /**
   * What a published inventory carries besides its tools (spec 7.2). Each is optional on the wire so that an
   * inventory published before they existed still decodes: absent means "not said", not "none".
   */
  export const InventoryContentsProperties = /* @__PURE__ */ declared(() => ({
    /** The standard components the host renders (`STANDARD_COMPONENTS`). */
    components: Type.Optional(Type.Array(StringEnum(STANDARD_COMPONENTS), { uniqueItems: true, maxItems: STANDARD_COMPONENTS.length })),
    /** The enabled apps the agent may use in this session, sorted by app_scope. */
    apps: Type.Optional(Type.Array(RecordRef<InventoryApp>("app-server.inventory-app"), { maxItems: MAX_INVENTORY_APPS })),
    /** The display modes in which this host shows an app's surface. */
    surfaces: Type.Optional(Type.Array(StringEnum(DISPLAY_MODES), { uniqueItems: true, maxItems: DISPLAY_MODES.length })),
    /** The capabilities the host can carry out now and policy allows, sorted. */
    capabilities: Type.Optional(Type.Array(Type.String({ minLength: 3, maxLength: 64, pattern: CAPABILITY_NAME_PATTERN }), { uniqueItems: true, maxItems: 128 })),
  }));
  export const InventorySchema = /* @__PURE__ */ declared(() =>
    Closed(
    {
      session_id: SessionIdSchema(),
      /** Strictly increasing per session; envelopes carry it as `correlation.inventory_revision` (its decimal string). */
      revision: SeqSchema(),
      tools: Type.Array(RecordRef<InventoryTool>("app-server.inventory-tool"), { maxItems: MAX_INVENTORY_TOOLS }),
      ...InventoryContentsProperties,
      published_at: TimestampSchema(),
      /** The seq of the `inventory.published` event. */
      seq: SeqSchema(),
    },
    { $id: schemaId("app-server.inventory"), title: "The latest inventory of a session: tools, apps, standard components, surfaces, capabilities" },
  ),
);
export type Inventory = Static<typeof InventorySchema>;

export const ServerLimitsSchema = /* @__PURE__ */ declared(() => Closed(
  {
    /** Largest accepted frame, UTF-8 bytes. Larger frames get `message_too_large`; frames over twice this close the socket (1009). */
    max_message_bytes: Type.Integer({ minimum: 1024 }),
    /** Deepest accepted JSON nesting of a frame. */
    max_json_depth: Type.Integer({ minimum: 8 }),
    /** Most messages in one batch. */
    max_batch: Type.Integer({ minimum: 1 }),
    /** Frames the server holds for a connection (queued + in the socket buffer) before it refuses requests with -32001. */
    send_queue_limit_frames: Type.Integer({ minimum: 1 }),
    /** Bytes the server holds for a connection before it refuses requests with -32001. */
    send_queue_limit_bytes: Type.Integer({ minimum: 1024 }),
    /** A connection that stays saturated this long is closed (4008); it resumes by seq. */
    slow_consumer_timeout_ms: Type.Integer({ minimum: 1 }),
    /** Most events in one `agentSession/events/read` page and in one catch-up read. */
    max_page_events: Type.Integer({ minimum: 1 }),
    /** Largest decoded chunk in `artifact/put` and `artifact/read`. */
    max_chunk_bytes: Type.Integer({ minimum: 1 }),
    /** Largest artifact. */
    max_artifact_bytes: Type.Integer({ minimum: 0 }),
  },
  { $id: schemaId("app-server.limits"), title: "Limits the server announces in the initialize result" },
));
export type ServerLimits = Static<typeof ServerLimitsSchema>;

/** The most messages a client may ask for in one batch frame (`initialized`'s `receive_batches.max_batch`). */
export const MAX_RECEIVE_BATCH = 1024;

/** The defaults of the reference server. */
export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  max_message_bytes: 1_048_576,
  max_json_depth: 64,
  max_batch: 64,
  send_queue_limit_frames: 1_024,
  send_queue_limit_bytes: 8 * 1_048_576,
  slow_consumer_timeout_ms: 10_000,
  max_page_events: 256,
  max_chunk_bytes: 196_608,
  max_artifact_bytes: 64 * 1_048_576,
};

/** WebSocket close codes the server uses. */
export const CLOSE_CODES = {
  /** Normal shutdown (server stopping, or the client closed). */
  normal: 1000,
  /** Server going away (process shutdown). */
  going_away: 1001,
  /** A frame larger than the hard payload limit (twice `max_message_bytes`). */
  message_too_big: 1009,
  /** The connection stayed saturated longer than `slow_consumer_timeout_ms`: resume by seq on a new connection. */
  slow_consumer: 4008,
  /** The server could not read the log for a subscription (its store failed): resume by seq on a new connection. */
  internal_error: 1011,
  /** The connection's credential was revoked (its device or agent revoked, its agent's token rotated, its user disabled): do not reconnect with it. */
  revoked: 4003,
} as const;

export const RECORD_SCHEMAS = [
  SessionSchema,
  TurnInputSchema,
  TurnSchema,
  ActionResponseSchema,
  ActionSchema,
  InventoryToolSchema,
  InventoryAppSchema,
  InventorySchema,
  ServerLimitsSchema,
] as const;

export type { JsonObject, ArtifactRef };
