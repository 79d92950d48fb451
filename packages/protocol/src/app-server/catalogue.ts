/**
 * The App Server method catalogue: every method the endpoint answers, who may call it, its params
 * and result schemas, the LineUp error codes it can return, and the notifications.
 *
 * Role policy: a method outside the caller's role is answered exactly like an unknown method
 * (`method_not_found`, -32601), so a peer cannot probe the other face's catalogue; the message
 * names the role so a developer sees why.
 */
import type { Static, TSchema } from "@sinclair/typebox";
import { ERROR_CODES, type ErrorCode } from "../errors.js";
import type { AppServerRole } from "./records.js";
import { SESSION_EVENT_SCHEMAS, SessionEventSchema } from "./events.js";
import { JSONRPC_SCHEMAS } from "./jsonrpc.js";
import * as S from "./schemas.js";
import * as C from "./catalog.js";
import { declared } from "../schema-kit.js";

export interface MethodSpec {
  readonly method: string;
  readonly roles: readonly AppServerRole[];
  /** True for `initialize` only: callable before the handshake, never after it. */
  readonly handshake?: true;
  /** A write: carries `idempotency_key` and is replayed, not re-executed, on a retry. */
  readonly write: boolean;
  readonly params: TSchema;
  readonly result: TSchema;
  /** Codes this method can return besides COMMON_ERRORS. */
  readonly errors: readonly ErrorCode[];
  readonly description: string;
}

/** Codes any method can return: framing, handshake, params, load and server faults. */
export const COMMON_ERRORS: readonly ErrorCode[] = [
  "invalid_request",
  "method_not_found",
  "invalid_params",
  "not_initialized",
  "overloaded",
  "internal_error",
  "store_write_failed",
];

/** Codes every write can return (idempotency). */
const WRITE_ERRORS: readonly ErrorCode[] = ["idempotency_conflict"];
const BOTH: readonly AppServerRole[] = ["device", "agent"];
const DEVICE: readonly AppServerRole[] = ["device"];
const AGENT: readonly AppServerRole[] = ["agent"];
/** What `catalog/publish` refuses a bundle with: the verifier's codes (docs/bundle.md §5), in its order. */
const BUNDLE_ERRORS = /* @__PURE__ */ declared(() => (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => ERROR_CODES[code].area === "bundle"));


export const APP_SERVER_METHODS = {
  initialize: {
    method: "initialize",
    roles: BOTH,
    handshake: true,
    write: false,
    params: S.AppServerInitializeParamsSchema,
    result: S.AppServerInitializeResultSchema,
    errors: ["unauthorized", "already_initialized"],
    description: "Handshake: protocol version, client info and the token that fixes role and identity; returns the limits.",
  },
  "agentSession/start": {
    method: "agentSession/start",
    roles: DEVICE,
    write: true,
    params: S.AgentSessionStartParamsSchema,
    result: S.AgentSessionStartResultSchema,
    errors: [...WRITE_ERRORS, "scope_invalid", "not_found", "forbidden", "invalid_state"],
    description: "Binds a session (a conversation) to the caller's user, an app scope, a workspace and an agent; records session.started.",
  },
  "agentSession/read": {
    method: "agentSession/read",
    roles: BOTH,
    write: false,
    params: S.AgentSessionReadParamsSchema,
    result: S.AgentSessionReadResultSchema,
    errors: ["session_not_found"],
    description: "Reads a visible session with its open turns and pending actions.",
  },
  "agentSession/list": {
    method: "agentSession/list",
    roles: BOTH,
    write: false,
    params: S.AgentSessionListParamsSchema,
    result: S.AgentSessionListResultSchema,
    errors: [],
    description: "Lists visible sessions, newest first, in pages.",
  },
  "agentSession/subscribe": {
    method: "agentSession/subscribe",
    roles: BOTH,
    write: false,
    params: S.AgentSessionSubscribeParamsSchema,
    result: S.AgentSessionSubscribeResultSchema,
    errors: ["session_not_found", "cursor_invalid"],
    description: "Follows the log after a seq: stored events, agentSession/caughtUp at the head, then live events.",
  },
  "agentSession/unsubscribe": {
    method: "agentSession/unsubscribe",
    roles: BOTH,
    write: false,
    params: S.AgentSessionUnsubscribeParamsSchema,
    result: S.AgentSessionUnsubscribeResultSchema,
    errors: [],
    description: "Stops following a session on this connection.",
  },
  "agentSession/events/read": {
    method: "agentSession/events/read",
    roles: BOTH,
    write: false,
    params: S.AgentSessionEventsReadParamsSchema,
    result: S.AgentSessionEventsReadResultSchema,
    errors: ["session_not_found", "cursor_invalid"],
    description: "Reads one page of stored events.",
  },
  "agentSession/turn/start": {
    method: "agentSession/turn/start",
    roles: DEVICE,
    write: true,
    params: S.AgentSessionTurnStartParamsSchema,
    result: S.AgentSessionTurnStartResultSchema,
    errors: [...WRITE_ERRORS, "session_not_found", "not_found", "invalid_state", "manifest_invalid_tool_schema"],
    description: "Starts a turn (enqueue or interrupt); records turn.started (and turn.cancelled for interrupted turns).",
  },
  "agentSession/turn/cancel": {
    method: "agentSession/turn/cancel",
    roles: DEVICE,
    write: true,
    params: S.AgentSessionTurnCancelParamsSchema,
    result: S.AgentSessionTurnCancelResultSchema,
    errors: [...WRITE_ERRORS, "session_not_found", "not_found", "invalid_state"],
    description: "Cancels a queued or running turn; records turn.cancelled (and turn.activated for the next queued turn).",
  },
  "agentSession/turn/update": {
    method: "agentSession/turn/update",
    roles: AGENT,
    write: true,
    params: S.AgentSessionTurnUpdateParamsSchema,
    result: S.AgentSessionTurnUpdateResultSchema,
    errors: [...WRITE_ERRORS, "session_not_found", "not_found", "invalid_state"],
    description: "Reports status, progress or streamed text of the running turn; records turn.updated.",
  },
  "agentSession/turn/complete": {
    method: "agentSession/turn/complete",
    roles: AGENT,
    write: true,
    params: S.AgentSessionTurnCompleteParamsSchema,
    result: S.AgentSessionTurnCompleteResultSchema,
    errors: [...WRITE_ERRORS, "session_not_found", "not_found", "invalid_state"],
    description: "Ends the running turn (completed or failed); records turn.completed / turn.failed (and turn.activated for the next).",
  },
  "agentSession/action/request": {
    method: "agentSession/action/request",
    roles: AGENT,
    write: true,
    params: S.AgentSessionActionRequestParamsSchema,
    result: S.AgentSessionActionRequestResultSchema,
    errors: [...WRITE_ERRORS, "session_not_found", "not_found", "invalid_state", "manifest_invalid_tool_schema"],
    description: "Raises action.required (approval, choice or input) for the user.",
  },
  "agentSession/action/respond": {
    method: "agentSession/action/respond",
    roles: DEVICE,
    write: true,
    params: S.AgentSessionActionRespondParamsSchema,
    result: S.AgentSessionActionRespondResultSchema,
    errors: [...WRITE_ERRORS, "session_not_found", "not_found", "invalid_state"],
    description: "Answers a pending action.required; records action.responded.",
  },
  "agentSession/envelope/send": {
    method: "agentSession/envelope/send",
    roles: BOTH,
    write: true,
    params: S.AgentSessionEnvelopeSendParamsSchema,
    result: S.AgentSessionEnvelopeSendResultSchema,
    errors: [
      ...WRITE_ERRORS,
      "session_not_found",
      "duplicate_message",
      "envelope_unsupported_version",
      "envelope_unknown_type",
      "envelope_schema_violation",
      "scope_missing",
      "scope_invalid",
      "scope_mismatch",
      "sender_not_allowed",
      "correlation_missing",
      "payload_invalid",
    ],
    description: "Appends a RuntimeEnvelope to the session log (records envelope); the device's Runtime decides what a tool call may do.",
  },
  "inventory/publish": {
    method: "inventory/publish",
    roles: DEVICE,
    write: true,
    params: S.AppServerInventoryPublishParamsSchema,
    result: S.AppServerInventoryPublishResultSchema,
    errors: [...WRITE_ERRORS, "session_not_found", "stale_inventory_revision"],
    description: "Publishes a new inventory revision; records inventory.published.",
  },
  "inventory/read": {
    method: "inventory/read",
    roles: BOTH,
    write: false,
    params: S.AppServerInventoryReadParamsSchema,
    result: S.AppServerInventoryReadResultSchema,
    errors: ["session_not_found"],
    description: "Reads the latest inventory of a session (null before the first publication).",
  },
  "capability/list": {
    method: "capability/list",
    roles: BOTH,
    write: false,
    params: S.AppServerCapabilityListParamsSchema,
    result: S.AppServerCapabilityListResultSchema,
    errors: ["session_not_found"],
    description: "The caller's methods, the server's features and, for a session, its current tools.",
  },
  "artifact/put": {
    method: "artifact/put",
    roles: BOTH,
    write: true,
    params: S.AppServerArtifactPutParamsSchema,
    result: S.AppServerArtifactPutResultSchema,
    errors: [...WRITE_ERRORS, "session_not_found", "invalid_state", "forbidden"],
    description: "Uploads an artifact chunk; the completing chunk verifies SHA-256 and records artifact.added.",
  },
  "artifact/read": {
    method: "artifact/read",
    roles: BOTH,
    write: false,
    params: S.AppServerArtifactReadParamsSchema,
    result: S.AppServerArtifactReadResultSchema,
    errors: ["session_not_found", "not_found"],
    description: "Reads a chunk of a complete artifact (offset/length, base64).",
  },
  "evidence/export": {
    method: "evidence/export",
    roles: BOTH,
    write: true,
    params: S.AppServerEvidenceExportParamsSchema,
    result: S.AppServerEvidenceExportResultSchema,
    errors: [...WRITE_ERRORS, "session_not_found", "cursor_invalid", "not_found"],
    description: "Exports events 1…through_seq (or 1…an agent task's last event) and the artifact hashes as a lineup.evidence.v1 pack artifact with package provenance; records evidence.exported.",
  },
  "catalog/publish": {
    method: "catalog/publish",
    roles: DEVICE,
    write: true,
    params: C.CatalogPublishParamsSchema,
    result: C.CatalogPublishResultSchema,
    errors: [...WRITE_ERRORS, "invalid_state", "forbidden", "bundle_downgrade", ...BUNDLE_ERRORS],
    description:
      "Uploads a signed bundle chunk by chunk; the completing chunk verifies its SHA-256 and its signature by the given publisher key, and publishes it as a release: the app scope's first publisher key is the only one that may publish it again, and each version must be newer than the app's latest.",
  },
  "catalog/list": {
    method: "catalog/list",
    roles: DEVICE,
    write: false,
    params: C.CatalogListParamsSchema,
    result: C.CatalogListResultSchema,
    errors: [],
    description: "Lists the releases of the catalog (all, or one app's): by app scope, newest version first.",
  },
  "catalog/read": {
    method: "catalog/read",
    roles: DEVICE,
    write: false,
    params: C.CatalogReadParamsSchema,
    result: C.CatalogReadResultSchema,
    errors: ["not_found"],
    description: "Reads a chunk of a release's bundle (offset/length, base64).",
  },
} as const satisfies Record<string, MethodSpec>;

export type AppServerMethod = keyof typeof APP_SERVER_METHODS;
export type MethodParams<M extends AppServerMethod> = Static<(typeof APP_SERVER_METHODS)[M]["params"]>;
export type MethodResult<M extends AppServerMethod> = Static<(typeof APP_SERVER_METHODS)[M]["result"]>;

export function isAppServerMethod(value: unknown): value is AppServerMethod {
  return typeof value === "string" && Object.prototype.hasOwnProperty.call(APP_SERVER_METHODS, value);
}

/** The methods a role may call after the handshake. */
export function methodsForRole(role: AppServerRole): AppServerMethod[] {
  return (Object.values(APP_SERVER_METHODS) as MethodSpec[])
    .filter((m) => m.handshake !== true && m.roles.includes(role))
    .map((m) => m.method as AppServerMethod);
}

export interface NotificationSpec {
  readonly method: string;
  readonly direction: "client_to_server" | "server_to_client";
  readonly roles: readonly AppServerRole[];
  readonly params: TSchema;
  readonly description: string;
}

export const APP_SERVER_NOTIFICATIONS = {
  initialized: {
    method: "initialized",
    direction: "client_to_server",
    roles: BOTH,
    params: S.AppServerInitializedParamsSchema,
    description: "Sent by the client after it has read the initialize result (the spec's initialize + initialized handshake).",
  },
  "connection/ping": {
    method: "connection/ping",
    direction: "client_to_server",
    roles: BOTH,
    params: S.ConnectionPingParamsSchema,
    description:
      "The heartbeat of a client whose WebSocket cannot send ping frames (a browser): the server answers connection/pong, so the client hears its peer within an interval. Valid before and after the handshake.",
  },
  "connection/pong": {
    method: "connection/pong",
    direction: "server_to_client",
    roles: BOTH,
    params: S.ConnectionPongParamsSchema,
    description: "The answer to connection/ping, sent at once on the same connection.",
  },
  "agentSession/event": {
    method: "agentSession/event",
    direction: "server_to_client",
    roles: BOTH,
    params: SessionEventSchema,
    description: "One event of a subscribed session; for each subscription, seq increases by exactly 1 from after_seq + 1.",
  },
  "agentSession/caughtUp": {
    method: "agentSession/caughtUp",
    direction: "server_to_client",
    roles: BOTH,
    params: S.AgentSessionCaughtUpParamsSchema,
    description: "The seam: every event stored when the subscription began (through head_seq) has been sent; what follows is live.",
  },
  "agentSession/bound": {
    method: "agentSession/bound",
    direction: "server_to_client",
    roles: BOTH,
    params: S.AgentSessionBoundParamsSchema,
    description:
      "A hint, sent after the start committed: a new session was bound to this agent (to every connection of the agent), or started by another device of this user (to the user's other device connections). Not replayed: on (re)connect, agentSession/list is the truth.",
  },
  "agentSession/presence": {
    method: "agentSession/presence",
    direction: "server_to_client",
    roles: ["device"],
    params: S.AgentSessionPresenceParamsSchema,
    description:
      "Whether a subscribed session's bound agent is connected: sent to a device's subscription when it starts, then whenever the agent's first connection opens or its last one closes. Not stored in the log; a device that is not subscribed knows nothing of it.",
  },
  "catalog/released": {
    method: "catalog/released",
    direction: "server_to_client",
    roles: ["device"],
    params: C.CatalogReleasedParamsSchema,
    description:
      "A hint, sent after a catalog/publish committed: the release it published, to every device connection of this server process. Not replayed: catalog/list is the truth. A host may update a dev release of an installed app from it.",
  },
} as const satisfies Record<string, NotificationSpec>;

export type AppServerNotification = keyof typeof APP_SERVER_NOTIFICATIONS;

/**
 * What a client checks of what the server sends it: the JSON-RPC frames, each session event and its
 * data, and the params of the server's notifications (`decodeJsonRpc`, `validateSessionEvent`,
 * `decodeServerNotification`). `npm run gen` puts their validators in their own module, so a
 * client's bundle (the web host) carries none of the params of the requests it only sends.
 */
export const APP_SERVER_CLIENT_SIDE_SCHEMA_IDS: ReadonlySet<string> = /* @__PURE__ */ declared(
  () =>
    new Set([
      ...JSONRPC_SCHEMAS.map((s) => s.$id!),
      ...SESSION_EVENT_SCHEMAS.map((s) => s.$id!),
      ...(Object.values(APP_SERVER_NOTIFICATIONS) as NotificationSpec[]).filter((n) => n.direction === "server_to_client").map((n) => n.params.$id!),
    ]),
);

/** Features announced by capability/list. */
export const SERVER_FEATURES = [
  { name: "sessions", version: "1", description: "agentSession/start, read, list" },
  { name: "log.resume", version: "1", description: "Per-session gapless seq; subscribe after a seq with a caughtUp seam; paged reads" },
  { name: "turns", version: "1", description: "Turns with enqueue/interrupt, agent updates and completion, output_schema" },
  { name: "actions", version: "1", description: "action.required raised by the agent, answered by the device" },
  { name: "envelopes", version: "1", description: "RuntimeEnvelope v1 carried in the session log" },
  { name: "inventory", version: "1", description: "Revisioned tool inventory per session" },
  { name: "artifacts", version: "1", description: "Chunked upload and read, SHA-256 verified" },
  { name: "evidence", version: "1", description: "lineup.evidence.v1 packs with event hash chain" },
  { name: "idempotency", version: "1", description: "idempotency_key on every write; stored outcomes replayed" },
  { name: "sessions.bound", version: "1", description: "agentSession/bound after a new session commits: to the bound agent and the owner's other devices (a hint; the list is the truth)" },
  { name: "program-order", version: "1", description: "Pipelined requests of one connection take effect in the order sent: a later request sees every earlier write" },
  { name: "agent.presence", version: "1", description: "agentSession/presence to a device's subscriptions: whether the session's bound agent is connected, at the start and on each change" },
  { name: "ordered-writes", version: "1", description: "after_key on a write: applied only once the caller's write with that idempotency key has a stored outcome, else refused with predecessor_pending (nothing stored)" },
  { name: "catalog", version: "1", description: "A catalog of signed releases: catalog/publish (signature verified on upload), catalog/list with each app's version history, catalog/read" },
  { name: "evidence.tasks", version: "1", description: "Evidence packs list the package provenance of tasks, tool results and artifacts; evidence/export with task_id scopes a pack to one agent task" },
  { name: "batch-frames", version: "1", description: "receive_batches in initialized: the server's bursts to that connection (answers, events, catch-ups, presence) come as batch frames, in order, within its limits and the server's" },
] as const;
