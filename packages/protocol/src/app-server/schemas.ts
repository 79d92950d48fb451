/**
 * Params and results of every App Server method, and the params of its notifications.
 *
 * Naming: `app-server.<method with "/" as ".">.params` / `.result`. Params objects are closed
 * (unknown members are refused with `invalid_params`), results are closed too so a client can
 * check what it receives. Every write carries `idempotency_key`.
 */
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { Closed, JsonObjectSchema, JsonValueSchema, OpaqueIdSchema, StringEnum, TimestampSchema, schemaId, declared } from "../schema-kit.js";
import {
  APP_SERVER_PROTOCOL_VERSION,
  AppScopeStringSchema,
  APP_SERVER_ROLES,
  ACTION_KINDS,
  ActionOptionSchema,
  AGENT_STATUSES,
  ArtifactRefRef,
  BusinessObjectRefSchema,
  CursorSchema,
  ErrorInfoSchema,
  IdempotencyKeySchema,
  AfterKeySchema,
  InventoryContentsProperties,
  MAX_INVENTORY_TOOLS,
  ProvenanceRef,
  RecordRef,
  SeqSchema,
  SessionIdSchema,
  Sha256HexSchema,
  TURN_QUEUE_POLICIES,
  TurnOptionsSchema,
  type Action,
  type ActionResponse,
  type Inventory,
  type InventoryTool,
  type ServerLimits,
  type Session,
  type Turn,
  type TurnInput,
  MAX_RECEIVE_BATCH,
} from "./records.js";
import { Base64, params, result } from "./method-schema.js";
import type { SessionEvent } from "./events.js";


const SessionRef = () => RecordRef<Session>("app-server.session");
const TurnRef = () => RecordRef<Turn>("app-server.turn");
const ActionRef = () => RecordRef<Action>("app-server.action");
const EventRef = () => RecordRef<SessionEvent>("app-server.event");
const Name = (maxLength: number) => Type.String({ minLength: 1, maxLength });

// --- initialize ---------------------------------------------------------------------------

export const AppServerInitializeParamsSchema = /* @__PURE__ */ declared(() => params(
  "initialize",
  {
    protocol_version: Type.Literal(APP_SERVER_PROTOCOL_VERSION),
    /** The spec's `clientInfo`: the host declares its name explicitly. */
    client_info: Closed({ name: Name(128), version: Type.Optional(Name(64)) }),
    /** A device or agent token. Absent or unknown → `unauthorized`. */
    token: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
  },
  "Opens the connection: names the protocol version and presents the token that fixes the role.",
));
const PolicyNames = /* @__PURE__ */ declared(() => Type.Array(Name(64), { maxItems: 256 }));

/**
 * A tenant's settings for its users' devices: the apps they may run (`app_allowlist`; absent: any app) and policy
 * defaults the Runtime adds to its own app and capability policy.
 */
export const TenantSettingsSchema = /* @__PURE__ */ declared(() => Closed(
  {
    tenant_id: OpaqueIdSchema(),
    app_allowlist: Type.Optional(Type.Array(Name(64), { maxItems: 256 })),
    policy: Closed({
      /** An app declaring one of these cannot be installed or updated. */
      blocked_capabilities: Type.Optional(PolicyNames),
      /** An app in one of these execution modes cannot be installed or updated. */
      blocked_execution_modes: Type.Optional(PolicyNames),
      /** Refused to every app. */
      denied_capabilities: Type.Optional(PolicyNames),
      /** The person is asked before each use. */
      require_confirmation: Type.Optional(PolicyNames),
    }),
  },
  { $id: schemaId("app-server.tenant"), title: "Tenant settings" },
));
export type TenantSettings = Static<typeof TenantSettingsSchema>;

export const AppServerInitializeResultSchema = /* @__PURE__ */ declared(() => result("initialize", {
  protocol_version: Type.Literal(APP_SERVER_PROTOCOL_VERSION),
  server_info: Closed({ name: Name(128), version: Name(64) }),
  role: StringEnum(APP_SERVER_ROLES),
  identity: Closed({
    user_id: Type.Optional(OpaqueIdSchema()),
    device_id: Type.Optional(OpaqueIdSchema()),
    agent_id: Type.Optional(OpaqueIdSchema()),
  }),
  limits: RecordRef<ServerLimits>("app-server.limits"),
  server_time: TimestampSchema(),
  /** The names of the server's features (capability/list describes them); absent from a server that announces none here. */
  features: Type.Optional(Type.Array(Name(64), { maxItems: 64 })),
  /** A device's: the tenant its user belongs to, whose settings the Runtime applies; absent when the user has none. */
  tenant: Type.Optional(RecordRef<TenantSettings>("app-server.tenant")),
}));

/** Notification client → server after the `initialize` result. */
export const AppServerInitializedParamsSchema = /* @__PURE__ */ declared(() =>
  Closed(
    {
      /**
       * To a server that announces the `batch-frames` feature: the client takes batch frames. What the server sends
       * it in one burst (a commit's answers and events, a page of a catch-up with its caught-up notice, presence) may
       * then come as one JSON array, the messages in the order they were sent, within these limits and the server's
       * own `max_batch` and `max_message_bytes`. Absent: one message (or the answer to a batch) per frame.
       */
      receive_batches: Type.Optional(Closed({ max_batch: Type.Integer({ minimum: 2, maximum: MAX_RECEIVE_BATCH }), max_message_bytes: Type.Integer({ minimum: 1024 }) })),
    },
    { $id: schemaId("app-server.initialized.params"), title: "initialized params" },
  ),
);

/** Notification client → server: the heartbeat of a client that cannot send WebSocket pings (a browser). */
export const ConnectionPingParamsSchema = /* @__PURE__ */ declared(() => Closed({}, { $id: schemaId("app-server.connection.ping.params"), title: "connection/ping params" }));

/** Notification server → client: the answer to `connection/ping`. */
export const ConnectionPongParamsSchema = /* @__PURE__ */ declared(() => Closed({}, { $id: schemaId("app-server.connection.pong.params"), title: "connection/pong params" }));

// --- sessions -----------------------------------------------------------------------------

export const AgentSessionStartParamsSchema = /* @__PURE__ */ declared(() => params(
  "agentSession/start",
  {
    idempotency_key: IdempotencyKeySchema(),
    after_key: Type.Optional(AfterKeySchema()),
    /** Client-chosen id (it is the conversation_id); absent → the server assigns one. An existing id of the caller resumes it. */
    session_id: Type.Optional(SessionIdSchema()),
    app_scope: AppScopeStringSchema(),
    workspace_id: OpaqueIdSchema(),
    agent_id: OpaqueIdSchema(),
    title: Type.Optional(Type.String({ maxLength: 200 })),
    business_object_ref: Type.Optional(BusinessObjectRefSchema),
  },
  "Creates (or resumes) a session: a conversation bound to the caller's user, an app scope, a workspace and one agent.",
));
export const AgentSessionStartResultSchema = /* @__PURE__ */ declared(() => result("agentSession/start", {
  session: SessionRef(),
  /** False when an existing session of the caller was resumed. */
  created: Type.Boolean(),
}));

export const AgentSessionReadParamsSchema = /* @__PURE__ */ declared(() => params(
  "agentSession/read",
  {
    session_id: SessionIdSchema(),
    /** When given, the session must belong to this workspace (else `session_not_found`). */
    workspace_id: Type.Optional(OpaqueIdSchema()),
  },
  "Reads a session's state for recovery: the session, its open turns and pending actions.",
));
export const AgentSessionReadResultSchema = /* @__PURE__ */ declared(() => result("agentSession/read", {
  session: SessionRef(),
  /** Turns not yet terminal (running first, then queued in order). */
  open_turns: Type.Array(TurnRef()),
  pending_actions: Type.Array(ActionRef()),
}));

export const AgentSessionListParamsSchema = /* @__PURE__ */ declared(() => params(
  "agentSession/list",
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
    /** `next_cursor` of the previous page. */
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    app_scope: Type.Optional(AppScopeStringSchema()),
    workspace_id: Type.Optional(OpaqueIdSchema()),
  },
  "Lists the sessions visible to the caller (device: its user's; agent: those bound to it), newest first.",
));
export const AgentSessionListResultSchema = /* @__PURE__ */ declared(() => result("agentSession/list", {
  sessions: Type.Array(SessionRef()),
  next_cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
}));

// --- the log: subscribe and read ------------------------------------------------------------

export const AgentSessionSubscribeParamsSchema = /* @__PURE__ */ declared(() => params(
  "agentSession/subscribe",
  {
    session_id: SessionIdSchema(),
    /** The last seq the client holds (0 = none). Greater than the head → `cursor_invalid`. */
    after_seq: CursorSchema(),
  },
  "Follows a session's log: every event after after_seq, stored then live, each once and in order, as agentSession/event notifications.",
));
export const AgentSessionSubscribeResultSchema = /* @__PURE__ */ declared(() => result("agentSession/subscribe", {
  session_id: SessionIdSchema(),
  after_seq: CursorSchema(),
  /** The head when the subscription was registered; `agentSession/caughtUp` with this seq marks the seam. */
  head_seq: CursorSchema(),
}));

export const AgentSessionUnsubscribeParamsSchema = /* @__PURE__ */ declared(() => params("agentSession/unsubscribe", { session_id: SessionIdSchema() }, "Stops following a session on this connection."));
export const AgentSessionUnsubscribeResultSchema = /* @__PURE__ */ declared(() => result("agentSession/unsubscribe", {
  session_id: SessionIdSchema(),
  was_subscribed: Type.Boolean(),
}));

export const AgentSessionEventsReadParamsSchema = /* @__PURE__ */ declared(() => params(
  "agentSession/events/read",
  {
    session_id: SessionIdSchema(),
    after_seq: CursorSchema(),
    /** Default and maximum: `limits.max_page_events`. */
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
  },
  "Reads one page of stored events after after_seq, in seq order.",
));
export const AgentSessionEventsReadResultSchema = /* @__PURE__ */ declared(() => result("agentSession/events/read", {
  session_id: SessionIdSchema(),
  events: Type.Array(EventRef()),
  head_seq: CursorSchema(),
  /** True when events after the last one returned exist (read again after its seq). */
  has_more: Type.Boolean(),
}));

// --- turns ------------------------------------------------------------------------------------

export const AgentSessionTurnStartParamsSchema = /* @__PURE__ */ declared(() => params(
  "agentSession/turn/start",
  {
    session_id: SessionIdSchema(),
    idempotency_key: IdempotencyKeySchema(),
    after_key: Type.Optional(AfterKeySchema()),
    /** Client-chosen turn id; absent → the server assigns one. */
    turn_id: Type.Optional(OpaqueIdSchema()),
    input: RecordRef<TurnInput>("app-server.turn-input"),
    /** JSON Schema (draft 2020-12) the agent's `output` must match. */
    output_schema: Type.Optional(JsonObjectSchema()),
    capability_id: Type.Optional(OpaqueIdSchema()),
    /** `enqueue` (default): run after the open turns. `interrupt`: cancel the open turns, run this now. */
    queue: Type.Optional(StringEnum(TURN_QUEUE_POLICIES)),
    /** Host options for the agent, passed through; `lineup_task`, when present, must be `agent-task.turn-options` (an app's agent task). */
    options: Type.Optional(TurnOptionsSchema()),
  },
  "Starts a turn: input for the agent, with an optional expected output schema and a queue policy.",
));
export const AgentSessionTurnStartResultSchema = /* @__PURE__ */ declared(() => result("agentSession/turn/start", { turn: TurnRef(), seq: SeqSchema() }));

export const AgentSessionTurnCancelParamsSchema = /* @__PURE__ */ declared(() => params(
  "agentSession/turn/cancel",
  {
    session_id: SessionIdSchema(),
    turn_id: OpaqueIdSchema(),
    idempotency_key: IdempotencyKeySchema(),
    after_key: Type.Optional(AfterKeySchema()),
    reason: Type.Optional(Type.String({ maxLength: 2_000 })),
  },
  "Cancels a queued or running turn. A terminal turn → invalid_state.",
));
export const AgentSessionTurnCancelResultSchema = /* @__PURE__ */ declared(() => result("agentSession/turn/cancel", { turn: TurnRef(), seq: SeqSchema() }));

export const AgentSessionTurnUpdateParamsSchema = /* @__PURE__ */ declared(() => params(
  "agentSession/turn/update",
  {
    session_id: SessionIdSchema(),
    turn_id: OpaqueIdSchema(),
    idempotency_key: IdempotencyKeySchema(),
    after_key: Type.Optional(AfterKeySchema()),
    status: Type.Optional(StringEnum(AGENT_STATUSES)),
    label: Type.Optional(Type.String({ maxLength: 200 })),
    text_delta: Type.Optional(Type.String({ maxLength: 65_536 })),
    progress: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    data: Type.Optional(JsonValueSchema()),
  },
  "The agent reports status, progress or streamed text of the running turn (at least one of them).",
));
export const AgentSessionTurnUpdateResultSchema = /* @__PURE__ */ declared(() => result("agentSession/turn/update", { turn_id: OpaqueIdSchema(), seq: SeqSchema() }));

export const TURN_OUTCOMES = ["completed", "failed"] as const;
export const AgentSessionTurnCompleteParamsSchema = /* @__PURE__ */ declared(() => params(
  "agentSession/turn/complete",
  {
    session_id: SessionIdSchema(),
    turn_id: OpaqueIdSchema(),
    idempotency_key: IdempotencyKeySchema(),
    after_key: Type.Optional(AfterKeySchema()),
    outcome: StringEnum(TURN_OUTCOMES),
    /** For `completed`: must match the turn's output_schema when it has one. */
    output: Type.Optional(JsonValueSchema()),
    text: Type.Optional(Type.String({ maxLength: 65_536 })),
    /** Required for `failed`, forbidden for `completed`. */
    error: Type.Optional(ErrorInfoSchema),
  },
  "The agent ends the running turn: completed with its output, or failed with an error.",
));
export const AgentSessionTurnCompleteResultSchema = /* @__PURE__ */ declared(() => result("agentSession/turn/complete", { turn: TurnRef(), seq: SeqSchema() }));

// --- actions ----------------------------------------------------------------------------------

export const AgentSessionActionRequestParamsSchema = /* @__PURE__ */ declared(() => params(
  "agentSession/action/request",
  {
    session_id: SessionIdSchema(),
    idempotency_key: IdempotencyKeySchema(),
    after_key: Type.Optional(AfterKeySchema()),
    action_id: Type.Optional(OpaqueIdSchema()),
    /** The open turn this action blocks, if any. */
    turn_id: Type.Optional(OpaqueIdSchema()),
    kind: StringEnum(ACTION_KINDS),
    prompt: Type.String({ minLength: 1, maxLength: 4_000 }),
    detail: Type.Optional(Type.String({ maxLength: 65_536 })),
    /** Required for `choice`, forbidden otherwise. */
    options: Type.Optional(Type.Array(ActionOptionSchema, { minItems: 1, maxItems: 20 })),
    multiple: Type.Optional(Type.Boolean()),
    /** For `input`: JSON Schema of the expected `response.data`. */
    input_schema: Type.Optional(JsonObjectSchema()),
    expires_at: Type.Optional(TimestampSchema()),
  },
  "The agent raises action.required: an approval, a choice or a request for input.",
));
export const AgentSessionActionRequestResultSchema = /* @__PURE__ */ declared(() => result("agentSession/action/request", { action: ActionRef(), seq: SeqSchema() }));

export const AgentSessionActionRespondParamsSchema = /* @__PURE__ */ declared(() => params(
  "agentSession/action/respond",
  {
    session_id: SessionIdSchema(),
    action_id: OpaqueIdSchema(),
    idempotency_key: IdempotencyKeySchema(),
    after_key: Type.Optional(AfterKeySchema()),
    response: RecordRef<ActionResponse>("app-server.action-response"),
  },
  "The device answers a pending action.required.",
));
export const AgentSessionActionRespondResultSchema = /* @__PURE__ */ declared(() => result("agentSession/action/respond", { action: ActionRef(), seq: SeqSchema() }));

// --- envelopes ----------------------------------------------------------------------------

export const AgentSessionEnvelopeSendParamsSchema = /* @__PURE__ */ declared(() => params(
  "agentSession/envelope/send",
  {
    session_id: SessionIdSchema(),
    idempotency_key: IdempotencyKeySchema(),
    after_key: Type.Optional(AfterKeySchema()),
    /** A RuntimeEnvelope v1; checked with validateEnvelope, its scope.conversation_id must be session_id. */
    envelope: JsonObjectSchema(),
  },
  "Appends a RuntimeEnvelope to the session log: tool invocations (agent → device), receipts, progress, results (device → agent), messages.",
));
export const AgentSessionEnvelopeSendResultSchema = /* @__PURE__ */ declared(() => result("agentSession/envelope/send", { envelope_id: OpaqueIdSchema(), seq: SeqSchema() }));

// --- inventory ----------------------------------------------------------------------------

export const AppServerInventoryPublishParamsSchema = /* @__PURE__ */ declared(() =>
  params(
    "inventory/publish",
    {
      session_id: SessionIdSchema(),
      idempotency_key: IdempotencyKeySchema(),
      after_key: Type.Optional(AfterKeySchema()),
      /** Must be greater than the session's current revision. */
      revision: SeqSchema(),
      tools: Type.Array(RecordRef<InventoryTool>("app-server.inventory-tool"), { maxItems: MAX_INVENTORY_TOOLS }),
      ...InventoryContentsProperties,
    },
    "The device publishes a new revision of the session's inventory (spec 7.2): its tools, and the enabled apps with their entrypoints, the standard components, surface display modes and capabilities of its host.",
  ),
);
export const AppServerInventoryPublishResultSchema = /* @__PURE__ */ declared(() => result("inventory/publish", { session_id: SessionIdSchema(), revision: SeqSchema(), seq: SeqSchema() }));

export const AppServerInventoryReadParamsSchema = /* @__PURE__ */ declared(() => params("inventory/read", { session_id: SessionIdSchema() }, "Reads the latest published inventory of a session."));
export const AppServerInventoryReadResultSchema = /* @__PURE__ */ declared(() => result("inventory/read", {
  session_id: SessionIdSchema(),
  /** Null before the first publication. */
  inventory: Type.Union([RecordRef<Inventory>("app-server.inventory"), Type.Null()]),
}));

// --- capabilities -------------------------------------------------------------------------

export const AppServerCapabilityListParamsSchema = /* @__PURE__ */ declared(() => params(
  "capability/list",
  { session_id: Type.Optional(SessionIdSchema()) },
  "Lists what the caller can use: its methods, the server's features and, for a session, the tools of its current inventory.",
));
export const AppServerCapabilityListResultSchema = /* @__PURE__ */ declared(() => result("capability/list", {
  role: StringEnum(APP_SERVER_ROLES),
  /** Methods this role may call. */
  methods: Type.Array(Name(64)),
  features: Type.Array(Closed({ name: Name(64), version: Name(16), description: Type.String({ maxLength: 500 }) })),
  session: Type.Optional(
    Closed({
      session_id: SessionIdSchema(),
      inventory_revision: Type.Integer({ minimum: 0 }),
      tools: Type.Array(Closed({ app_scope: AppScopeStringSchema(), method: Name(128), contract_version: Name(16), title: Name(200) })),
    }),
  ),
}));

// --- artifacts ----------------------------------------------------------------------------

export const AppServerArtifactPutParamsSchema = /* @__PURE__ */ declared(() => params(
  "artifact/put",
  {
    session_id: SessionIdSchema(),
    idempotency_key: IdempotencyKeySchema(),
    after_key: Type.Optional(AfterKeySchema()),
    artifact_id: OpaqueIdSchema(),
    name: Type.String({ minLength: 1, maxLength: 255 }),
    mime_type: Type.String({ minLength: 3, maxLength: 127, pattern: "^[a-z0-9!#$&^_.+-]+/[a-z0-9!#$&^_.+-]+$" }),
    /** Total size in bytes. */
    size: Type.Integer({ minimum: 0 }),
    /** SHA-256 of the whole content, lowercase hex; checked when the last byte arrives. */
    sha256: Sha256HexSchema(),
    /** Must equal the bytes received so far. */
    offset: Type.Integer({ minimum: 0 }),
    /** This chunk, base64; at most `limits.max_chunk_bytes` decoded. */
    data: Base64(),
    /**
     * Device only: the app that produced the artifact (its version and bundle digest). Given with the
     * first chunk, repeated on every chunk; recorded in `artifact.added`.
     */
    provenance: Type.Optional(ProvenanceRef()),
  },
  "Uploads one chunk of an artifact; the chunk that completes it verifies the SHA-256 and records artifact.added.",
));
export const AppServerArtifactPutResultSchema = /* @__PURE__ */ declared(() => result("artifact/put", {
  artifact_id: OpaqueIdSchema(),
  received: Type.Integer({ minimum: 0 }),
  complete: Type.Boolean(),
  /** Present when complete. */
  artifact: Type.Optional(ArtifactRefRef()),
  /** The seq of artifact.added, when complete. */
  seq: Type.Optional(SeqSchema()),
}));

export const AppServerArtifactReadParamsSchema = /* @__PURE__ */ declared(() => params(
  "artifact/read",
  {
    session_id: SessionIdSchema(),
    artifact_id: OpaqueIdSchema(),
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Default and maximum: `limits.max_chunk_bytes`. */
    length: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  "Reads a chunk of a complete artifact, base64.",
));
export const AppServerArtifactReadResultSchema = /* @__PURE__ */ declared(() => result("artifact/read", {
  artifact: ArtifactRefRef(),
  offset: Type.Integer({ minimum: 0 }),
  data: Base64(),
  /** True when this chunk reaches the end. */
  eof: Type.Boolean(),
}));

// --- evidence -------------------------------------------------------------------------------

export const AppServerEvidenceExportParamsSchema = /* @__PURE__ */ declared(() => params(
  "evidence/export",
  {
    session_id: SessionIdSchema(),
    idempotency_key: IdempotencyKeySchema(),
    after_key: Type.Optional(AfterKeySchema()),
    /** Last event to include; default: the head. Beyond the head → `cursor_invalid`. Not with `task_id`. */
    through_seq: Type.Optional(SeqSchema()),
    /**
     * Export one agent task: events 1…the task's last event, the pack's `scope` naming the task and its turns
     * (every turn whose `options.lineup_task.task_id` is this). No such turn in the session → `not_found`.
     */
    task_id: Type.Optional(OpaqueIdSchema()),
    /** Embed every artifact's content (base64) in the pack (default true). A pack larger than `limits.max_artifact_bytes` is refused: export without data. */
    include_artifact_data: Type.Optional(Type.Boolean()),
  },
  "Exports the session's events and artifact hashes as one verifiable pack (lineup.evidence.v1), stored as an artifact.",
));
export const AppServerEvidenceExportResultSchema = /* @__PURE__ */ declared(() => result("evidence/export", {
  export_id: OpaqueIdSchema(),
  session_id: SessionIdSchema(),
  through_seq: SeqSchema(),
  /** The pack; read it with artifact/read. */
  artifact: ArtifactRefRef(),
  /** The pack's `digest`. */
  pack_digest: Sha256HexSchema(),
  /** The seq of evidence.exported. */
  seq: SeqSchema(),
}));

// --- server → client notifications ------------------------------------------------------------

export const AgentSessionCaughtUpParamsSchema = /* @__PURE__ */ declared(() => Closed(
  {
    session_id: SessionIdSchema(),
    /** Equals the subscribe result's head_seq: every event up to it has been sent. */
    seq: CursorSchema(),
  },
  { $id: schemaId("app-server.agentSession.caughtUp.params"), title: "agentSession/caughtUp params" },
));

export const AgentSessionBoundParamsSchema = /* @__PURE__ */ declared(() => Closed(
  {
    /** The session as committed by agentSession/start (last_seq 1, `session.started`). */
    session: SessionRef(),
  },
  { $id: schemaId("app-server.agentSession.bound.params"), title: "agentSession/bound params" },
));

export const AgentSessionPresenceParamsSchema = /* @__PURE__ */ declared(() => Closed(
  {
    session_id: SessionIdSchema(),
    /** The session's bound agent. */
    agent_id: OpaqueIdSchema(),
    /** True while the agent has at least one open, initialized connection to this server. */
    connected: Type.Boolean(),
  },
  { $id: schemaId("app-server.agentSession.presence.params"), title: "agentSession/presence params" },
));

export const METHOD_SCHEMAS: readonly TSchema[] = [
  AppServerInitializeParamsSchema,
  AppServerInitializeResultSchema,
  TenantSettingsSchema,
  AppServerInitializedParamsSchema,
  ConnectionPingParamsSchema,
  ConnectionPongParamsSchema,
  AgentSessionStartParamsSchema,
  AgentSessionStartResultSchema,
  AgentSessionReadParamsSchema,
  AgentSessionReadResultSchema,
  AgentSessionListParamsSchema,
  AgentSessionListResultSchema,
  AgentSessionSubscribeParamsSchema,
  AgentSessionSubscribeResultSchema,
  AgentSessionUnsubscribeParamsSchema,
  AgentSessionUnsubscribeResultSchema,
  AgentSessionEventsReadParamsSchema,
  AgentSessionEventsReadResultSchema,
  AgentSessionTurnStartParamsSchema,
  AgentSessionTurnStartResultSchema,
  AgentSessionTurnCancelParamsSchema,
  AgentSessionTurnCancelResultSchema,
  AgentSessionTurnUpdateParamsSchema,
  AgentSessionTurnUpdateResultSchema,
  AgentSessionTurnCompleteParamsSchema,
  AgentSessionTurnCompleteResultSchema,
  AgentSessionActionRequestParamsSchema,
  AgentSessionActionRequestResultSchema,
  AgentSessionActionRespondParamsSchema,
  AgentSessionActionRespondResultSchema,
  AgentSessionEnvelopeSendParamsSchema,
  AgentSessionEnvelopeSendResultSchema,
  AppServerInventoryPublishParamsSchema,
  AppServerInventoryPublishResultSchema,
  AppServerInventoryReadParamsSchema,
  AppServerInventoryReadResultSchema,
  AppServerCapabilityListParamsSchema,
  AppServerCapabilityListResultSchema,
  AppServerArtifactPutParamsSchema,
  AppServerArtifactPutResultSchema,
  AppServerArtifactReadParamsSchema,
  AppServerArtifactReadResultSchema,
  AppServerEvidenceExportParamsSchema,
  AppServerEvidenceExportResultSchema,
  AgentSessionCaughtUpParamsSchema,
  AgentSessionBoundParamsSchema,
  AgentSessionPresenceParamsSchema,
];

export type AppServerInitializeParams = Static<typeof AppServerInitializeParamsSchema>;
export type AppServerInitializeResult = Static<typeof AppServerInitializeResultSchema>;
export type AppServerInitializedParams = Static<typeof AppServerInitializedParamsSchema>;
export type AgentSessionCaughtUpParams = Static<typeof AgentSessionCaughtUpParamsSchema>;
export type AgentSessionBoundParams = Static<typeof AgentSessionBoundParamsSchema>;
export type AgentSessionPresenceParams = Static<typeof AgentSessionPresenceParamsSchema>;
