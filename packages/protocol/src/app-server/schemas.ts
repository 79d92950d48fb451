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
} from "./records.js";
import { Base64, params, result } from "./method-schema.js";
import type { SessionEvent } from "./events.js";


const SessionRef = () => RecordRef<Session>("app-server.session");
const TurnRef = () => RecordRef<Turn>("app-server.turn");
const ActionRef = () => RecordRef<Action>("app-server.action");
const EventRef = () => RecordRef<SessionEvent>("app-server.event");
const Name = (maxLength: number) => Type.String({ minLength: 1, maxLength });

// --- initialize ---------------------------------------------------------------------------

export const AppServerInitializeParamsSchema = /* @__PURE__ */ params(
  "initialize",
  {
    protocol_version: /* @__PURE__ */ Type.Literal(APP_SERVER_PROTOCOL_VERSION),
    /** The spec's `clientInfo`: the host declares its name explicitly. */
    client_info: /* @__PURE__ */ Closed({ name: /* @__PURE__ */ Name(128), version: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Name(64)) }),
    /** A device or agent token. Absent or unknown → `unauthorized`. */
    token: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.String({ minLength: 1, maxLength: 512 })),
  },
  "Opens the connection: names the protocol version and presents the token that fixes the role.",
);
const PolicyNames = /* @__PURE__ */ Type.Array(/* @__PURE__ */ Name(64), { maxItems: 256 });

/**
 * A tenant's settings for its users' devices: the apps they may run (`app_allowlist`; absent: any app) and policy
 * defaults the Runtime adds to its own app and capability policy.
 */
export const TenantSettingsSchema = /* @__PURE__ */ Closed(
  {
    tenant_id: /* @__PURE__ */ OpaqueIdSchema(),
    app_allowlist: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Array(/* @__PURE__ */ Name(64), { maxItems: 256 })),
    policy: /* @__PURE__ */ Closed({
      /** An app declaring one of these cannot be installed or updated. */
      blocked_capabilities: /* @__PURE__ */ Type.Optional(PolicyNames),
      /** An app in one of these execution modes cannot be installed or updated. */
      blocked_execution_modes: /* @__PURE__ */ Type.Optional(PolicyNames),
      /** Refused to every app. */
      denied_capabilities: /* @__PURE__ */ Type.Optional(PolicyNames),
      /** The person is asked before each use. */
      require_confirmation: /* @__PURE__ */ Type.Optional(PolicyNames),
    }),
  },
  { $id: /* @__PURE__ */ schemaId("app-server.tenant"), title: "Tenant settings" },
);
export type TenantSettings = Static<typeof TenantSettingsSchema>;

export const AppServerInitializeResultSchema = /* @__PURE__ */ result("initialize", {
  protocol_version: /* @__PURE__ */ Type.Literal(APP_SERVER_PROTOCOL_VERSION),
  server_info: /* @__PURE__ */ Closed({ name: /* @__PURE__ */ Name(128), version: /* @__PURE__ */ Name(64) }),
  role: /* @__PURE__ */ StringEnum(APP_SERVER_ROLES),
  identity: /* @__PURE__ */ Closed({
    user_id: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ OpaqueIdSchema()),
    device_id: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ OpaqueIdSchema()),
    agent_id: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ OpaqueIdSchema()),
  }),
  limits: /* @__PURE__ */ RecordRef<ServerLimits>("app-server.limits"),
  server_time: /* @__PURE__ */ TimestampSchema(),
  /** The names of the server's features (capability/list describes them); absent from a server that announces none here. */
  features: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Array(/* @__PURE__ */ Name(64), { maxItems: 64 })),
  /** A device's: the tenant its user belongs to, whose settings the Runtime applies; absent when the user has none. */
  tenant: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ RecordRef<TenantSettings>("app-server.tenant")),
});

/** Notification client → server after the `initialize` result. */
export const AppServerInitializedParamsSchema = /* @__PURE__ */ Closed({}, { $id: /* @__PURE__ */ schemaId("app-server.initialized.params"), title: "initialized params" });

/** Notification client → server: the heartbeat of a client that cannot send WebSocket pings (a browser). */
export const ConnectionPingParamsSchema = /* @__PURE__ */ Closed({}, { $id: /* @__PURE__ */ schemaId("app-server.connection.ping.params"), title: "connection/ping params" });

/** Notification server → client: the answer to `connection/ping`. */
export const ConnectionPongParamsSchema = /* @__PURE__ */ Closed({}, { $id: /* @__PURE__ */ schemaId("app-server.connection.pong.params"), title: "connection/pong params" });

// --- sessions -----------------------------------------------------------------------------

export const AgentSessionStartParamsSchema = /* @__PURE__ */ params(
  "agentSession/start",
  {
    idempotency_key: /* @__PURE__ */ IdempotencyKeySchema(),
    after_key: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ AfterKeySchema()),
    /** Client-chosen id (it is the conversation_id); absent → the server assigns one. An existing id of the caller resumes it. */
    session_id: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ SessionIdSchema()),
    app_scope: /* @__PURE__ */ AppScopeStringSchema(),
    workspace_id: /* @__PURE__ */ OpaqueIdSchema(),
    agent_id: /* @__PURE__ */ OpaqueIdSchema(),
    title: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.String({ maxLength: 200 })),
    business_object_ref: /* @__PURE__ */ Type.Optional(BusinessObjectRefSchema),
  },
  "Creates (or resumes) a session: a conversation bound to the caller's user, an app scope, a workspace and one agent.",
);
export const AgentSessionStartResultSchema = /* @__PURE__ */ result("agentSession/start", {
  session: /* @__PURE__ */ SessionRef(),
  /** False when an existing session of the caller was resumed. */
  created: /* @__PURE__ */ Type.Boolean(),
});

export const AgentSessionReadParamsSchema = /* @__PURE__ */ params(
  "agentSession/read",
  {
    session_id: /* @__PURE__ */ SessionIdSchema(),
    /** When given, the session must belong to this workspace (else `session_not_found`). */
    workspace_id: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ OpaqueIdSchema()),
  },
  "Reads a session's state for recovery: the session, its open turns and pending actions.",
);
export const AgentSessionReadResultSchema = /* @__PURE__ */ result("agentSession/read", {
  session: /* @__PURE__ */ SessionRef(),
  /** Turns not yet terminal (running first, then queued in order). */
  open_turns: /* @__PURE__ */ Type.Array(/* @__PURE__ */ TurnRef()),
  pending_actions: /* @__PURE__ */ Type.Array(/* @__PURE__ */ ActionRef()),
});

export const AgentSessionListParamsSchema = /* @__PURE__ */ params(
  "agentSession/list",
  {
    limit: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Integer({ minimum: 1, maximum: 200 })),
    /** `next_cursor` of the previous page. */
    cursor: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.String({ minLength: 1, maxLength: 256 })),
    app_scope: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ AppScopeStringSchema()),
    workspace_id: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ OpaqueIdSchema()),
  },
  "Lists the sessions visible to the caller (device: its user's; agent: those bound to it), newest first.",
);
export const AgentSessionListResultSchema = /* @__PURE__ */ result("agentSession/list", {
  sessions: /* @__PURE__ */ Type.Array(/* @__PURE__ */ SessionRef()),
  next_cursor: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.String({ minLength: 1, maxLength: 256 })),
});

// --- the log: subscribe and read ------------------------------------------------------------

export const AgentSessionSubscribeParamsSchema = /* @__PURE__ */ params(
  "agentSession/subscribe",
  {
    session_id: /* @__PURE__ */ SessionIdSchema(),
    /** The last seq the client holds (0 = none). Greater than the head → `cursor_invalid`. */
    after_seq: /* @__PURE__ */ CursorSchema(),
  },
  "Follows a session's log: every event after after_seq, stored then live, each once and in order, as agentSession/event notifications.",
);
export const AgentSessionSubscribeResultSchema = /* @__PURE__ */ result("agentSession/subscribe", {
  session_id: /* @__PURE__ */ SessionIdSchema(),
  after_seq: /* @__PURE__ */ CursorSchema(),
  /** The head when the subscription was registered; `agentSession/caughtUp` with this seq marks the seam. */
  head_seq: /* @__PURE__ */ CursorSchema(),
});

export const AgentSessionUnsubscribeParamsSchema = /* @__PURE__ */ params("agentSession/unsubscribe", { session_id: /* @__PURE__ */ SessionIdSchema() }, "Stops following a session on this connection.");
export const AgentSessionUnsubscribeResultSchema = /* @__PURE__ */ result("agentSession/unsubscribe", {
  session_id: /* @__PURE__ */ SessionIdSchema(),
  was_subscribed: /* @__PURE__ */ Type.Boolean(),
});

export const AgentSessionEventsReadParamsSchema = /* @__PURE__ */ params(
  "agentSession/events/read",
  {
    session_id: /* @__PURE__ */ SessionIdSchema(),
    after_seq: /* @__PURE__ */ CursorSchema(),
    /** Default and maximum: `limits.max_page_events`. */
    limit: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Integer({ minimum: 1, maximum: 10_000 })),
  },
  "Reads one page of stored events after after_seq, in seq order.",
);
export const AgentSessionEventsReadResultSchema = /* @__PURE__ */ result("agentSession/events/read", {
  session_id: /* @__PURE__ */ SessionIdSchema(),
  events: /* @__PURE__ */ Type.Array(/* @__PURE__ */ EventRef()),
  head_seq: /* @__PURE__ */ CursorSchema(),
  /** True when events after the last one returned exist (read again after its seq). */
  has_more: /* @__PURE__ */ Type.Boolean(),
});

// --- turns ------------------------------------------------------------------------------------

export const AgentSessionTurnStartParamsSchema = /* @__PURE__ */ params(
  "agentSession/turn/start",
  {
    session_id: /* @__PURE__ */ SessionIdSchema(),
    idempotency_key: /* @__PURE__ */ IdempotencyKeySchema(),
    after_key: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ AfterKeySchema()),
    /** Client-chosen turn id; absent → the server assigns one. */
    turn_id: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ OpaqueIdSchema()),
    input: /* @__PURE__ */ RecordRef<TurnInput>("app-server.turn-input"),
    /** JSON Schema (draft 2020-12) the agent's `output` must match. */
    output_schema: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ JsonObjectSchema()),
    capability_id: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ OpaqueIdSchema()),
    /** `enqueue` (default): run after the open turns. `interrupt`: cancel the open turns, run this now. */
    queue: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ StringEnum(TURN_QUEUE_POLICIES)),
    /** Host options for the agent, passed through; `lineup_task`, when present, must be `agent-task.turn-options` (an app's agent task). */
    options: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ TurnOptionsSchema()),
  },
  "Starts a turn: input for the agent, with an optional expected output schema and a queue policy.",
);
export const AgentSessionTurnStartResultSchema = /* @__PURE__ */ result("agentSession/turn/start", { turn: /* @__PURE__ */ TurnRef(), seq: /* @__PURE__ */ SeqSchema() });

export const AgentSessionTurnCancelParamsSchema = /* @__PURE__ */ params(
  "agentSession/turn/cancel",
  {
    session_id: /* @__PURE__ */ SessionIdSchema(),
    turn_id: /* @__PURE__ */ OpaqueIdSchema(),
    idempotency_key: /* @__PURE__ */ IdempotencyKeySchema(),
    after_key: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ AfterKeySchema()),
    reason: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.String({ maxLength: 2_000 })),
  },
  "Cancels a queued or running turn. A terminal turn → invalid_state.",
);
export const AgentSessionTurnCancelResultSchema = /* @__PURE__ */ result("agentSession/turn/cancel", { turn: /* @__PURE__ */ TurnRef(), seq: /* @__PURE__ */ SeqSchema() });

export const AgentSessionTurnUpdateParamsSchema = /* @__PURE__ */ params(
  "agentSession/turn/update",
  {
    session_id: /* @__PURE__ */ SessionIdSchema(),
    turn_id: /* @__PURE__ */ OpaqueIdSchema(),
    idempotency_key: /* @__PURE__ */ IdempotencyKeySchema(),
    after_key: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ AfterKeySchema()),
    status: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ StringEnum(AGENT_STATUSES)),
    label: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.String({ maxLength: 200 })),
    text_delta: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.String({ maxLength: 65_536 })),
    progress: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Number({ minimum: 0, maximum: 1 })),
    data: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ JsonValueSchema()),
  },
  "The agent reports status, progress or streamed text of the running turn (at least one of them).",
);
export const AgentSessionTurnUpdateResultSchema = /* @__PURE__ */ result("agentSession/turn/update", { turn_id: /* @__PURE__ */ OpaqueIdSchema(), seq: /* @__PURE__ */ SeqSchema() });

export const TURN_OUTCOMES = ["completed", "failed"] as const;
export const AgentSessionTurnCompleteParamsSchema = /* @__PURE__ */ params(
  "agentSession/turn/complete",
  {
    session_id: /* @__PURE__ */ SessionIdSchema(),
    turn_id: /* @__PURE__ */ OpaqueIdSchema(),
    idempotency_key: /* @__PURE__ */ IdempotencyKeySchema(),
    after_key: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ AfterKeySchema()),
    outcome: /* @__PURE__ */ StringEnum(TURN_OUTCOMES),
    /** For `completed`: must match the turn's output_schema when it has one. */
    output: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ JsonValueSchema()),
    text: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.String({ maxLength: 65_536 })),
    /** Required for `failed`, forbidden for `completed`. */
    error: /* @__PURE__ */ Type.Optional(ErrorInfoSchema),
  },
  "The agent ends the running turn: completed with its output, or failed with an error.",
);
export const AgentSessionTurnCompleteResultSchema = /* @__PURE__ */ result("agentSession/turn/complete", { turn: /* @__PURE__ */ TurnRef(), seq: /* @__PURE__ */ SeqSchema() });

// --- actions ----------------------------------------------------------------------------------

export const AgentSessionActionRequestParamsSchema = /* @__PURE__ */ params(
  "agentSession/action/request",
  {
    session_id: /* @__PURE__ */ SessionIdSchema(),
    idempotency_key: /* @__PURE__ */ IdempotencyKeySchema(),
    after_key: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ AfterKeySchema()),
    action_id: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ OpaqueIdSchema()),
    /** The open turn this action blocks, if any. */
    turn_id: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ OpaqueIdSchema()),
    kind: /* @__PURE__ */ StringEnum(ACTION_KINDS),
    prompt: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 4_000 }),
    detail: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.String({ maxLength: 65_536 })),
    /** Required for `choice`, forbidden otherwise. */
    options: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Array(ActionOptionSchema, { minItems: 1, maxItems: 20 })),
    multiple: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Boolean()),
    /** For `input`: JSON Schema of the expected `response.data`. */
    input_schema: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ JsonObjectSchema()),
    expires_at: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ TimestampSchema()),
  },
  "The agent raises action.required: an approval, a choice or a request for input.",
);
export const AgentSessionActionRequestResultSchema = /* @__PURE__ */ result("agentSession/action/request", { action: /* @__PURE__ */ ActionRef(), seq: /* @__PURE__ */ SeqSchema() });

export const AgentSessionActionRespondParamsSchema = /* @__PURE__ */ params(
  "agentSession/action/respond",
  {
    session_id: /* @__PURE__ */ SessionIdSchema(),
    action_id: /* @__PURE__ */ OpaqueIdSchema(),
    idempotency_key: /* @__PURE__ */ IdempotencyKeySchema(),
    after_key: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ AfterKeySchema()),
    response: /* @__PURE__ */ RecordRef<ActionResponse>("app-server.action-response"),
  },
  "The device answers a pending action.required.",
);
export const AgentSessionActionRespondResultSchema = /* @__PURE__ */ result("agentSession/action/respond", { action: /* @__PURE__ */ ActionRef(), seq: /* @__PURE__ */ SeqSchema() });

// --- envelopes ----------------------------------------------------------------------------

export const AgentSessionEnvelopeSendParamsSchema = /* @__PURE__ */ params(
  "agentSession/envelope/send",
  {
    session_id: /* @__PURE__ */ SessionIdSchema(),
    idempotency_key: /* @__PURE__ */ IdempotencyKeySchema(),
    after_key: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ AfterKeySchema()),
    /** A RuntimeEnvelope v1; checked with validateEnvelope, its scope.conversation_id must be session_id. */
    envelope: /* @__PURE__ */ JsonObjectSchema(),
  },
  "Appends a RuntimeEnvelope to the session log: tool invocations (agent → device), receipts, progress, results (device → agent), messages.",
);
export const AgentSessionEnvelopeSendResultSchema = /* @__PURE__ */ result("agentSession/envelope/send", { envelope_id: /* @__PURE__ */ OpaqueIdSchema(), seq: /* @__PURE__ */ SeqSchema() });

// --- inventory ----------------------------------------------------------------------------

export const AppServerInventoryPublishParamsSchema = /* @__PURE__ */ declared(() =>
  /* @__PURE__ */ params(
    "inventory/publish",
    {
      session_id: /* @__PURE__ */ SessionIdSchema(),
      idempotency_key: /* @__PURE__ */ IdempotencyKeySchema(),
      after_key: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ AfterKeySchema()),
      /** Must be greater than the session's current revision. */
      revision: /* @__PURE__ */ SeqSchema(),
      tools: /* @__PURE__ */ Type.Array(/* @__PURE__ */ RecordRef<InventoryTool>("app-server.inventory-tool"), { maxItems: MAX_INVENTORY_TOOLS }),
      ...InventoryContentsProperties,
    },
    "The device publishes a new revision of the session's inventory (spec 7.2): its tools, and the enabled apps with their entrypoints, the standard components, surface display modes and capabilities of its host.",
  ),
);
export const AppServerInventoryPublishResultSchema = /* @__PURE__ */ result("inventory/publish", { session_id: /* @__PURE__ */ SessionIdSchema(), revision: /* @__PURE__ */ SeqSchema(), seq: /* @__PURE__ */ SeqSchema() });

export const AppServerInventoryReadParamsSchema = /* @__PURE__ */ params("inventory/read", { session_id: /* @__PURE__ */ SessionIdSchema() }, "Reads the latest published inventory of a session.");
export const AppServerInventoryReadResultSchema = /* @__PURE__ */ result("inventory/read", {
  session_id: /* @__PURE__ */ SessionIdSchema(),
  /** Null before the first publication. */
  inventory: /* @__PURE__ */ Type.Union([/* @__PURE__ */ RecordRef<Inventory>("app-server.inventory"), /* @__PURE__ */ Type.Null()]),
});

// --- capabilities -------------------------------------------------------------------------

export const AppServerCapabilityListParamsSchema = /* @__PURE__ */ params(
  "capability/list",
  { session_id: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ SessionIdSchema()) },
  "Lists what the caller can use: its methods, the server's features and, for a session, the tools of its current inventory.",
);
export const AppServerCapabilityListResultSchema = /* @__PURE__ */ result("capability/list", {
  role: /* @__PURE__ */ StringEnum(APP_SERVER_ROLES),
  /** Methods this role may call. */
  methods: /* @__PURE__ */ Type.Array(/* @__PURE__ */ Name(64)),
  features: /* @__PURE__ */ Type.Array(/* @__PURE__ */ Closed({ name: /* @__PURE__ */ Name(64), version: /* @__PURE__ */ Name(16), description: /* @__PURE__ */ Type.String({ maxLength: 500 }) })),
  session: /* @__PURE__ */ Type.Optional(
    /* @__PURE__ */ Closed({
      session_id: /* @__PURE__ */ SessionIdSchema(),
      inventory_revision: /* @__PURE__ */ Type.Integer({ minimum: 0 }),
      tools: /* @__PURE__ */ Type.Array(/* @__PURE__ */ Closed({ app_scope: /* @__PURE__ */ AppScopeStringSchema(), method: /* @__PURE__ */ Name(128), contract_version: /* @__PURE__ */ Name(16), title: /* @__PURE__ */ Name(200) })),
    }),
  ),
});

// --- artifacts ----------------------------------------------------------------------------

export const AppServerArtifactPutParamsSchema = /* @__PURE__ */ params(
  "artifact/put",
  {
    session_id: /* @__PURE__ */ SessionIdSchema(),
    idempotency_key: /* @__PURE__ */ IdempotencyKeySchema(),
    after_key: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ AfterKeySchema()),
    artifact_id: /* @__PURE__ */ OpaqueIdSchema(),
    name: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 255 }),
    mime_type: /* @__PURE__ */ Type.String({ minLength: 3, maxLength: 127, pattern: "^[a-z0-9!#$&^_.+-]+/[a-z0-9!#$&^_.+-]+$" }),
    /** Total size in bytes. */
    size: /* @__PURE__ */ Type.Integer({ minimum: 0 }),
    /** SHA-256 of the whole content, lowercase hex; checked when the last byte arrives. */
    sha256: /* @__PURE__ */ Sha256HexSchema(),
    /** Must equal the bytes received so far. */
    offset: /* @__PURE__ */ Type.Integer({ minimum: 0 }),
    /** This chunk, base64; at most `limits.max_chunk_bytes` decoded. */
    data: /* @__PURE__ */ Base64(),
    /**
     * Device only: the app that produced the artifact (its version and bundle digest). Given with the
     * first chunk, repeated on every chunk; recorded in `artifact.added`.
     */
    provenance: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ ProvenanceRef()),
  },
  "Uploads one chunk of an artifact; the chunk that completes it verifies the SHA-256 and records artifact.added.",
);
export const AppServerArtifactPutResultSchema = /* @__PURE__ */ result("artifact/put", {
  artifact_id: /* @__PURE__ */ OpaqueIdSchema(),
  received: /* @__PURE__ */ Type.Integer({ minimum: 0 }),
  complete: /* @__PURE__ */ Type.Boolean(),
  /** Present when complete. */
  artifact: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ ArtifactRefRef()),
  /** The seq of artifact.added, when complete. */
  seq: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ SeqSchema()),
});

export const AppServerArtifactReadParamsSchema = /* @__PURE__ */ params(
  "artifact/read",
  {
    session_id: /* @__PURE__ */ SessionIdSchema(),
    artifact_id: /* @__PURE__ */ OpaqueIdSchema(),
    offset: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Integer({ minimum: 0 })),
    /** Default and maximum: `limits.max_chunk_bytes`. */
    length: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Integer({ minimum: 1 })),
  },
  "Reads a chunk of a complete artifact, base64.",
);
export const AppServerArtifactReadResultSchema = /* @__PURE__ */ result("artifact/read", {
  artifact: /* @__PURE__ */ ArtifactRefRef(),
  offset: /* @__PURE__ */ Type.Integer({ minimum: 0 }),
  data: /* @__PURE__ */ Base64(),
  /** True when this chunk reaches the end. */
  eof: /* @__PURE__ */ Type.Boolean(),
});

// --- evidence -------------------------------------------------------------------------------

export const AppServerEvidenceExportParamsSchema = /* @__PURE__ */ params(
  "evidence/export",
  {
    session_id: /* @__PURE__ */ SessionIdSchema(),
    idempotency_key: /* @__PURE__ */ IdempotencyKeySchema(),
    after_key: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ AfterKeySchema()),
    /** Last event to include; default: the head. Beyond the head → `cursor_invalid`. Not with `task_id`. */
    through_seq: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ SeqSchema()),
    /**
     * Export one agent task: events 1…the task's last event, the pack's `scope` naming the task and its turns
     * (every turn whose `options.lineup_task.task_id` is this). No such turn in the session → `not_found`.
     */
    task_id: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ OpaqueIdSchema()),
    /** Embed every artifact's content (base64) in the pack (default true). A pack larger than `limits.max_artifact_bytes` is refused: export without data. */
    include_artifact_data: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Boolean()),
  },
  "Exports the session's events and artifact hashes as one verifiable pack (lineup.evidence.v1), stored as an artifact.",
);
export const AppServerEvidenceExportResultSchema = /* @__PURE__ */ result("evidence/export", {
  export_id: /* @__PURE__ */ OpaqueIdSchema(),
  session_id: /* @__PURE__ */ SessionIdSchema(),
  through_seq: /* @__PURE__ */ SeqSchema(),
  /** The pack; read it with artifact/read. */
  artifact: /* @__PURE__ */ ArtifactRefRef(),
  /** The pack's `digest`. */
  pack_digest: /* @__PURE__ */ Sha256HexSchema(),
  /** The seq of evidence.exported. */
  seq: /* @__PURE__ */ SeqSchema(),
});

// --- server → client notifications ------------------------------------------------------------

export const AgentSessionCaughtUpParamsSchema = /* @__PURE__ */ Closed(
  {
    session_id: /* @__PURE__ */ SessionIdSchema(),
    /** Equals the subscribe result's head_seq: every event up to it has been sent. */
    seq: /* @__PURE__ */ CursorSchema(),
  },
  { $id: /* @__PURE__ */ schemaId("app-server.agentSession.caughtUp.params"), title: "agentSession/caughtUp params" },
);

export const AgentSessionBoundParamsSchema = /* @__PURE__ */ Closed(
  {
    /** The session as committed by agentSession/start (last_seq 1, `session.started`). */
    session: /* @__PURE__ */ SessionRef(),
  },
  { $id: /* @__PURE__ */ schemaId("app-server.agentSession.bound.params"), title: "agentSession/bound params" },
);

export const AgentSessionPresenceParamsSchema = /* @__PURE__ */ Closed(
  {
    session_id: /* @__PURE__ */ SessionIdSchema(),
    /** The session's bound agent. */
    agent_id: /* @__PURE__ */ OpaqueIdSchema(),
    /** True while the agent has at least one open, initialized connection to this server. */
    connected: /* @__PURE__ */ Type.Boolean(),
  },
  { $id: /* @__PURE__ */ schemaId("app-server.agentSession.presence.params"), title: "agentSession/presence params" },
);

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
export type AgentSessionCaughtUpParams = Static<typeof AgentSessionCaughtUpParamsSchema>;
export type AgentSessionBoundParams = Static<typeof AgentSessionBoundParamsSchema>;
export type AgentSessionPresenceParams = Static<typeof AgentSessionPresenceParamsSchema>;
