/**
 * Surface Bridge v1: the wire between the host and one sandboxed app instance (spec 6, 8.2; spec
 * 003 "Host Bridge v1").
 *
 * The host hands the iframe a private `MessagePort` once, at launch, together with a per-instance
 * nonce. Every message on that port is plain, structured-clone-safe JSON in one of three frames:
 *
 * ```json
 * { "bridge": "lineup.surface", "v": 1, "nonce": "<instance nonce>", "kind": "request",  "id": 7, "method": "session_data.get", "params": {} }
 * { "bridge": "lineup.surface", "v": 1, "nonce": "<instance nonce>", "kind": "response", "id": 7, "method": "session_data.get", "result": {…} | "error": {…} }
 * { "bridge": "lineup.surface", "v": 1, "nonce": "<instance nonce>", "kind": "event", "name": "theme.changed", "data": {…} }
 * ```
 *
 * A response echoes its request's `method`, so a receiver can check the result against the
 * catalogue without its pending-request table (which still checks that id and method agree).
 * This file declares the frames and every message body; `catalogue.ts` says which body belongs to
 * which method or event and in which direction it flows.
 */
import { Type, type Static } from "@sinclair/typebox";
import { ERROR_CODES } from "../errors.js";
import { ENVELOPE_TYPE_PATTERN } from "../ids.js";
import type { ArtifactRef } from "../envelope/types.js";
import type { AgentTask, AgentTaskControl, AgentTaskEvent } from "../agent-task.js";
import { CAPABILITY_NAME_PATTERN, type CapabilityResult } from "../manifest/capabilities.js";
import { FEATURE_NAME_PATTERN } from "../manifest/features.js";
import { BACKEND_METHOD_PATTERN, PART_ID_PATTERN, STORAGE_COLLECTION_PATTERN } from "../manifest/app-code.js";
import { CONTRACT_VERSION_PATTERN, DISPLAY_MODES, ENTRYPOINT_ID_PATTERN, EVENT_NAME_PATTERN, SEMVER_PATTERN } from "../manifest/schemas.js";
import { BRIDGE_NAME_PATTERN, BRIDGE_NONCE_PATTERN, BRIDGE_PROTOCOL, BRIDGE_VERSION } from "./wire.js";
import {
  AppScopeSchema,
  Closed,
  ConversationIdSchema,
  InstanceIdSchema,
  JsonObjectSchema,
  JsonValueSchema,
  OpaqueIdSchema,
  OperationIdSchema,
  StringEnum,
  TimestampSchema,
  ToolCallIdSchema,
  schemaId,
  declared,
} from "../schema-kit.js";

export * from "./wire.js";

const Nonce = () => Type.String({ minLength: 16, maxLength: 128, pattern: BRIDGE_NONCE_PATTERN });
const Name = () => Type.String({ minLength: 1, maxLength: 64, pattern: BRIDGE_NAME_PATTERN });
const RequestId = () => Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
const Text = (maxLength: number) => Type.String({ maxLength });
const FrameBase = /* @__PURE__ */ declared(() => ({
  bridge: Type.Literal(BRIDGE_PROTOCOL),
  v: Type.Literal(BRIDGE_VERSION),
  nonce: Nonce(),
}));

/** The error body of a response: a LineUp refusal as data. */
export const BridgeErrorSchema = /* @__PURE__ */ declared(() => Closed({
  code: StringEnum(Object.keys(ERROR_CODES) as [string, ...string[]]),
  message: Text(2_000),
  path: Type.Optional(Text(1_024)),
}));
export type BridgeError = Static<typeof BridgeErrorSchema>;

export const BridgeRequestFrameSchema = /* @__PURE__ */ declared(() =>
  Closed(
    { ...FrameBase, kind: Type.Literal("request"), id: RequestId(), method: Name(), params: JsonValueSchema() },
    { $id: schemaId("surface-bridge.request.v1"), title: "Surface Bridge v1 request frame" },
  ),
);
export const BridgeResponseFrameSchema = /* @__PURE__ */ declared(() =>
  Closed(
    {
      ...FrameBase,
      kind: Type.Literal("response"),
      id: RequestId(),
      method: Name(),
      /** Exactly one of `result` and `error` (checked by the decoder: a schema cannot say it and stay readable). */
      result: Type.Optional(JsonValueSchema()),
      error: Type.Optional(BridgeErrorSchema),
    },
    { $id: schemaId("surface-bridge.response.v1"), title: "Surface Bridge v1 response frame" },
  ),
);
export const BridgeEventFrameSchema = /* @__PURE__ */ declared(() =>
  Closed(
    { ...FrameBase, kind: Type.Literal("event"), name: Name(), data: JsonValueSchema() },
    { $id: schemaId("surface-bridge.event.v1"), title: "Surface Bridge v1 event frame" },
  ),
);

// --- Shared pieces of the catalogue -------------------------------------------------------------

/** Display modes are the manifest's (`foreground`, `pip`, `inline_card`). */
const DisplayMode = () => StringEnum(DISPLAY_MODES);

/** BCP 47 language tag, e.g. `zh-CN`, `en`. */
const Locale = () => Type.String({ minLength: 2, maxLength: 35, pattern: "^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*$" });
/** IANA time zone name, e.g. `Asia/Shanghai`, `UTC`. */
const TimeZone = () => Type.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_+-]+)*$" });
/** Capability and permission names, in the manifest's grammar (`microphone.record`). */
const CapabilityName = () => Type.String({ minLength: 3, maxLength: 64, pattern: CAPABILITY_NAME_PATTERN });

export const BridgeThemeSchema = /* @__PURE__ */ declared(() => Closed({
  mode: StringEnum(["light", "dark", "system"] as const),
  effective_mode: StringEnum(["light", "dark"] as const),
  color_scheme_id: Type.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9._-]+$" }),
  /** Theme tokens as CSS custom properties (`--lineup-color-accent`), values as CSS text. */
  css_variables: Type.Record(Type.String({ pattern: "^--[A-Za-z0-9_-]{1,126}$" }), Text(512), { maxProperties: 512 }),
}));
export type BridgeTheme = Static<typeof BridgeThemeSchema>;

/** Why a capability is unavailable to this entry: refusal codes of the capability gateway. */
export const BRIDGE_CAPABILITY_BLOCKED_REASONS = ["capability_not_declared", "unsupported_on_host", "policy_denied", "permission_denied", "foreground_required"] as const;

export const BridgeCapabilitySummarySchema = /* @__PURE__ */ declared(() => Type.Union([
  Closed({ capability: CapabilityName(), available: Type.Literal(true) }),
  Closed({ capability: CapabilityName(), available: Type.Literal(false), blocked_reason: StringEnum(BRIDGE_CAPABILITY_BLOCKED_REASONS) }),
]));

/** The non-sensitive workspace summary of spec 003: ids and a label, never tokens or paths. */
export const BridgeWorkspaceSummarySchema = /* @__PURE__ */ declared(() => Closed({
  workspace_id: Type.Optional(OpaqueIdSchema()),
  tenant_id: Type.Optional(OpaqueIdSchema()),
  display_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
}));

const SemVer = () => Type.String({ minLength: 5, maxLength: 64, pattern: SEMVER_PATTERN });
const FeatureName = () => Type.String({ minLength: 4, maxLength: 64, pattern: FEATURE_NAME_PATTERN });

/** The first frame: the Host Bridge snapshot (spec 003) joined with the SDK's AppContext (spec 6.1). */
export const BridgeHostSnapshotSchema = /* @__PURE__ */ declared(() => Closed({
  app_scope: AppScopeSchema(),
  app_version: SemVer(),
  instance_id: InstanceIdSchema(),
  entrypoint: Type.String({ minLength: 1, maxLength: 64, pattern: ENTRYPOINT_ID_PATTERN }),
  /** The in-app route the entry opens at, always starting with `/`. */
  route: Type.String({ minLength: 1, maxLength: 2_048, pattern: "^/[^\\s]*$" }),
  /** The origin the host speaks from (`null` for an opaque origin); spec 003's runtime origin. */
  runtime_origin: Type.String({ minLength: 4, maxLength: 256, pattern: "^(?:null|[a-z][a-z0-9+.-]*://[A-Za-z0-9.-]+(?::[0-9]{1,5})?)$" }),
  scope: Closed({
    conversation_id: Type.Optional(ConversationIdSchema()),
    operation_id: Type.Optional(OperationIdSchema()),
    parent_instance_id: Type.Optional(InstanceIdSchema()),
  }),
  theme: BridgeThemeSchema,
  locale: Locale(),
  timezone: TimeZone(),
  workspace: BridgeWorkspaceSummarySchema,
  display_mode: DisplayMode(),
  capabilities: Type.Array(BridgeCapabilitySummarySchema, { maxItems: 128 }),
  granted_permissions: Type.Array(CapabilityName(), { maxItems: 128 }),
  sdk: Closed({ api_version: Type.Literal("1"), features: Type.Array(FeatureName(), { maxItems: 64 }) }),
}));
export type BridgeHostSnapshot = Static<typeof BridgeHostSnapshotSchema>;

// --- Host → app events ---------------------------------------------------------------------------

export const BRIDGE_LIFECYCLE_STATES = ["start", "foreground", "background", "suspend", "restore", "closing"] as const;

/** `closing` carries the time the app has to flush (answer `lifecycle.closing_done`) before it is torn down. */
export const BridgeLifecycleEventSchema = /* @__PURE__ */ declared(() => Type.Union([
  Closed({ state: StringEnum(["start", "foreground", "background", "suspend", "restore"] as const) }),
  Closed({ state: Type.Literal("closing"), flush_deadline_ms: Type.Integer({ minimum: 1, maximum: 60_000 }) }),
]));

export const BridgeThemeChangedEventSchema = /* @__PURE__ */ declared(() => Closed({ theme: BridgeThemeSchema }));
/** What the snapshot's capability summary says now: a remembered decision, the host or policy changed. */
export const BridgeCapabilitiesChangedEventSchema = /* @__PURE__ */ declared(() => Closed({
  capabilities: Type.Array(BridgeCapabilitySummarySchema, { maxItems: 128 }),
  granted_permissions: Type.Array(CapabilityName(), { maxItems: 128 }),
}));
export const BridgeLocaleChangedEventSchema = /* @__PURE__ */ declared(() => Closed({ locale: Locale(), timezone: TimeZone() }));
export const BridgeDisplayModeChangedEventSchema = /* @__PURE__ */ declared(() => Closed({ display_mode: DisplayMode() }));

/** Session data as the SDK sees it (spec 6.3): empty is `{ data: null, revision: 0 }`. */
export const BridgeSessionDataSnapshotSchema = /* @__PURE__ */ declared(() =>
  Closed({
    data: Type.Union([JsonObjectSchema(), Type.Null()]),
    revision: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
  }),
);
export type BridgeSessionDataSnapshot = Static<typeof BridgeSessionDataSnapshotSchema>;

/** A state patch for this instance; it needs an explicit `agent_message.ack` (spec 5.4). */
export const BridgeStatePatchEventSchema = /* @__PURE__ */ declared(() => Closed({
  message_id: OpaqueIdSchema(),
  patch: JsonObjectSchema(),
  base_revision: Type.Optional(Type.Integer({ minimum: 0 })),
}));

/** A projected agent message the app subscribed to: never the raw envelope (spec 5.3, 5.4). */
export const BridgeAgentMessageEventSchema = /* @__PURE__ */ declared(() => Closed({
  message_id: OpaqueIdSchema(),
  type: Type.String({ minLength: 3, maxLength: 96, pattern: ENVELOPE_TYPE_PATTERN }),
  conversation_id: ConversationIdSchema(),
  instance_id: Type.Optional(InstanceIdSchema()),
  sender: Closed({ kind: StringEnum(["agent", "runtime", "user"] as const), id: OpaqueIdSchema() }),
  timestamp: TimestampSchema(),
  payload: JsonValueSchema(),
  /** Display messages are acknowledged on delivery; the rest wait for `agent_message.ack`. */
  requires_ack: Type.Boolean(),
}));

export const BridgeToolCancelledEventSchema = /* @__PURE__ */ declared(() => Closed({ call_id: ToolCallIdSchema(), reason: Type.Optional(Text(2_000)) }));

// --- Host → app request: tool.invoke -------------------------------------------------------------

/** A declared tool method, as the manifest spells it: at least two dotted parts (`board.create`). */
const TOOL_METHOD = "^[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)+$";

export const BridgeToolInvokeParamsSchema = /* @__PURE__ */ declared(() => Closed({
  call_id: ToolCallIdSchema(),
  method: Type.String({ minLength: 3, maxLength: 128, pattern: TOOL_METHOD }),
  contract_version: Type.Optional(Type.String({ minLength: 1, maxLength: 16, pattern: CONTRACT_VERSION_PATTERN })),
  arguments: JsonObjectSchema(),
  /** Milliseconds the app has before the Runtime fails the call with `operation_expired`. */
  deadline_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400_000 })),
}));

/** Codes an app may end a tool call with (spec 7.3). Everything else is the Runtime's to say. */
export const BRIDGE_APP_TOOL_ERROR_CODES = ["invalid_arguments", "cancelled_by_user", "permission_denied", "foreground_required", "operation_expired", "handler_failed"] as const;
const AppToolErrorCode = () => StringEnum(BRIDGE_APP_TOOL_ERROR_CODES);

/**
 * The app's outcome for `tool.invoke`: done now (`completed` / `failed`), or `pending` — the app
 * reports later through `tool.progress` then exactly one `tool.complete` or `tool.fail`.
 */
export const BridgeAppToolOutcomeSchema = /* @__PURE__ */ declared(() => Type.Union([
  Closed({ outcome: Type.Literal("completed"), result: JsonValueSchema() }),
  Closed({ outcome: Type.Literal("failed"), code: AppToolErrorCode(), message: Type.Optional(Text(2_000)) }),
  Closed({ outcome: Type.Literal("pending") }),
]));
export type BridgeAppToolOutcome = Static<typeof BridgeAppToolOutcomeSchema>;

// --- App → host request bodies -------------------------------------------------------------------

/** The body of a message that carries nothing: `{}` and only `{}`. */
export const emptyBridgeBody = () => Closed({});

/** `lifecycle.ready`: an SDK that answers the `surface.ping` heartbeat says so; one built before it sends `{}` and is not pinged. */
export const BridgeLifecycleReadyParamsSchema = /* @__PURE__ */ declared(() => Closed({
  heartbeat: Type.Optional(Type.Literal(true, { description: "The app's SDK answers `surface.ping`; the host pings it only then." })),
}));

export const BridgeSessionDataReplaceParamsSchema = /* @__PURE__ */ declared(() =>
  Closed({
    data: JsonObjectSchema(),
    expected_revision: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
  }),
);
export const BridgeSessionDataReplaceResultSchema = /* @__PURE__ */ declared(() => Closed({ revision: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) }));

export const BridgeAgentMessageSubscribeParamsSchema = /* @__PURE__ */ declared(() => Closed({
  /** Envelope types wanted; absent means every type the manifest subscribes to. */
  types: Type.Optional(Type.Array(Type.String({ minLength: 3, maxLength: 96, pattern: ENVELOPE_TYPE_PATTERN }), { minItems: 1, maxItems: 32 })),
  /** Also deliver messages already waiting in the app's inbox. */
  include_pending: Type.Optional(Type.Boolean()),
}));
export const BridgeAgentMessageAckParamsSchema = /* @__PURE__ */ declared(() => Closed({ message_id: OpaqueIdSchema() }));

/** An inbox cursor, as a page gives it (`next_cursor`, `prev_cursor`). */
const InboxCursor = () => Type.String({ minLength: 1, maxLength: 512 });

/**
 * `agent_message.list` (spec 5.4 `list()`): one page of the messages this instance may see — in its
 * conversation, addressed to it or to no instance — oldest first. `after`, `before` and `latest` are exclusive.
 */
export const BridgeAgentMessageListParamsSchema = /* @__PURE__ */ declared(() => Closed({
  after: Type.Optional(InboxCursor()),
  before: Type.Optional(InboxCursor()),
  latest: Type.Optional(Type.Boolean()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
}));
export const BridgeAgentMessageListResultSchema = /* @__PURE__ */ declared(() => Closed({
  /** Each as `agent.message` carries it (a state patch too, with its type). */
  messages: Type.Array(BridgeAgentMessageEventSchema, { maxItems: 200 }),
  next_cursor: Type.Optional(InboxCursor()),
  prev_cursor: Type.Optional(InboxCursor()),
}));

export const BridgeToolProgressParamsSchema = /* @__PURE__ */ declared(() => Closed({
  call_id: ToolCallIdSchema(),
  progress: Closed({
    stage: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    progress: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    message: Type.Optional(Text(2_000)),
    data: Type.Optional(JsonValueSchema()),
  }),
}));
export const BridgeToolCompleteParamsSchema = /* @__PURE__ */ declared(() => Closed({ call_id: ToolCallIdSchema(), result: JsonValueSchema() }));
export const BridgeToolFailParamsSchema = /* @__PURE__ */ declared(() => Closed({ call_id: ToolCallIdSchema(), code: AppToolErrorCode(), message: Type.Optional(Text(2_000)) }));

export const BridgeCapabilityRequestParamsSchema = /* @__PURE__ */ declared(() => Closed({
  capability: CapabilityName(),
  /** Shown to the user when the Runtime asks for confirmation. */
  purpose: Type.String({ minLength: 1, maxLength: 500 }),
  input: JsonValueSchema(),
}));

/** The capability result of the manifest's registry (schema `capability-result.v1`): `completed` or a controlled refusal. */
export const BridgeCapabilityResultSchema = /* @__PURE__ */ declared(() => Type.Unsafe<CapabilityResult>(Type.Ref(schemaId("capability-result.v1"))));

const ArtifactContent = () =>
  Closed({
    /** `utf8` for text, `base64` for bytes (structured clone could carry bytes, but the bridge stays plain JSON). */
    encoding: StringEnum(["utf8", "base64"] as const),
    data: Type.String(),
  });
const MimeType = () => Type.String({ minLength: 3, maxLength: 127, pattern: "^[a-z0-9!#$&^_.+-]+/[a-z0-9!#$&^_.+-]+$" });
/** The envelope's artifact reference (schema `artifact-ref.v1`). */
const ArtifactRefRef = () => Type.Unsafe<ArtifactRef>(Type.Ref(schemaId("artifact-ref.v1")));

export const BridgeArtifactCreateParamsSchema = /* @__PURE__ */ declared(() => Closed({ name: Type.String({ minLength: 1, maxLength: 255 }), mime_type: MimeType(), content: ArtifactContent() }));
export const BridgeArtifactCreateResultSchema = /* @__PURE__ */ declared(() => Closed({ artifact: ArtifactRefRef() }));
export const BridgeArtifactReadParamsSchema = /* @__PURE__ */ declared(() => Closed({ artifact_id: OpaqueIdSchema(), max_bytes: Type.Optional(Type.Integer({ minimum: 1, maximum: 16 * 1024 * 1024 })) }));
export const BridgeArtifactReadResultSchema = /* @__PURE__ */ declared(() => Closed({ artifact: ArtifactRefRef(), content: ArtifactContent(), truncated: Type.Boolean() }));
/** An artifact without its bytes: what it is, who made it, whether its bytes are on the device. */
export const BridgeArtifactInfoSchema = /* @__PURE__ */ declared(() => Closed({
  artifact: ArtifactRefRef(),
  conversation_id: Type.Optional(ConversationIdSchema()),
  /** An app on the device (`app_scope` names it), the conversation's agent, or another of the user's devices. */
  origin: StringEnum(["app", "agent", "device"] as const),
  app_scope: Type.Optional(AppScopeSchema()),
  created_at: TimestampSchema(),
  on_device: Type.Boolean(),
}));
export const BridgeArtifactGetParamsSchema = /* @__PURE__ */ declared(() => Closed({ artifact_id: OpaqueIdSchema() }));
export const BridgeArtifactListParamsSchema = /* @__PURE__ */ declared(() => Closed({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })) }));
export const BridgeArtifactListResultSchema = /* @__PURE__ */ declared(() => Closed({ artifacts: Type.Array(BridgeArtifactInfoSchema, { maxItems: 1000 }) }));
export const BridgeArtifactSaveParamsSchema = /* @__PURE__ */ declared(() => Closed({ artifact_id: OpaqueIdSchema() }));

export const BridgeEventEmitParamsSchema = /* @__PURE__ */ declared(() => Closed({ name: Type.String({ minLength: 1, maxLength: 96, pattern: EVENT_NAME_PATTERN }), data: JsonValueSchema() }));

export const BridgeAppLaunchParamsSchema = /* @__PURE__ */ declared(() => Closed({
  app_scope: AppScopeSchema(),
  entrypoint: Type.Optional(OpaqueIdSchema()),
  display_mode: Type.Optional(DisplayMode()),
  input: Type.Optional(JsonObjectSchema()),
}));
export const BridgeAppLaunchResultSchema = /* @__PURE__ */ declared(() => Closed({ app_scope: AppScopeSchema(), instance_id: InstanceIdSchema() }));
/** Without `instance_id` the app closes itself. */
export const BridgeAppCloseParamsSchema = /* @__PURE__ */ declared(() => Closed({ instance_id: Type.Optional(InstanceIdSchema()) }));
export const BridgeAppFocusParamsSchema = /* @__PURE__ */ declared(() => Closed({ instance_id: InstanceIdSchema() }));
/** An app a person could open (spec 6.2 `AppSummary`). */
export const BridgeAppSummarySchema = /* @__PURE__ */ declared(() => Closed({
  app_scope: AppScopeSchema(),
  name: Type.String({ minLength: 1, maxLength: 120 }),
  kind: StringEnum(["core", "installed"] as const),
  version: Type.String({ minLength: 1, maxLength: 64 }),
  is_default: Type.Boolean(),
  entrypoints: Type.Array(
    Closed({ id: OpaqueIdSchema(), kind: Type.String({ minLength: 1, maxLength: 32 }), title: Type.Optional(Type.String({ maxLength: 120 })), display_modes: Type.Optional(Type.Array(DisplayMode(), { maxItems: 8 })) }),
    { maxItems: 32 },
  ),
}));
export const BridgeAppListResultSchema = /* @__PURE__ */ declared(() => Closed({ apps: Type.Array(BridgeAppSummarySchema, { maxItems: 512 }) }));
export const BridgeAppOpenDefaultResultSchema = /* @__PURE__ */ declared(() => Closed({ instance_id: InstanceIdSchema() }));

/** Ends this app's Runtime-owned operations in its conversation (the user stopped the timer); each gets its `interrupted` result. */
export const BridgeOperationInterruptParamsSchema = /* @__PURE__ */ declared(() => Closed({ reason: Type.Optional(Text(200)) }));

/**
 * `agent.cancel_turn`'s receipt: the person's Stop, made in the app, is stored and will be sent to the
 * AppServer in order with everything else the device sends (offline too). A second Stop before the first was
 * sent is the same Stop: the same receipt. What the cancel ends follows from the session log.
 */
export const BridgeAgentCancelTurnResultSchema = /* @__PURE__ */ declared(() => Closed({
  receipt_id: OpaqueIdSchema(),
  conversation_id: ConversationIdSchema(),
  accepted_at: TimestampSchema(),
  status: Type.Literal("queued"),
}));
export type BridgeAgentCancelTurnResult = Static<typeof BridgeAgentCancelTurnResultSchema>;

/** `agent.tasks`: the app's tasks, newest first; `agent.task_events`: one task's events after `after`, at most `limit`. */
const AgentTaskSchema = /* @__PURE__ */ declared(() => Type.Unsafe<AgentTask>(Type.Ref(schemaId("agent-task.task"))));
const AgentTaskEventSchema = /* @__PURE__ */ declared(() => Type.Unsafe<AgentTaskEvent>(Type.Ref(schemaId("agent-task.event"))));
const AgentTaskControlSchema = /* @__PURE__ */ declared(() => Type.Unsafe<AgentTaskControl>(Type.Ref(schemaId("agent-task.control"))));
export const BridgeAgentStartTaskParamsSchema = /* @__PURE__ */ declared(() => Closed({ request: Type.Unsafe(Type.Ref(schemaId("agent-task.request"))) }));
export const BridgeAgentTaskResultSchema = /* @__PURE__ */ declared(() => Closed({ task: AgentTaskSchema }));
export const BridgeAgentTasksResultSchema = /* @__PURE__ */ declared(() => Closed({ tasks: Type.Array(AgentTaskSchema, { maxItems: 500 }) }));
export const BridgeAgentTaskEventsParamsSchema = /* @__PURE__ */ declared(() => Closed({ task_id: OpaqueIdSchema(), after: Type.Integer({ minimum: 0 }), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })) }));
export const BridgeAgentTaskEventsResultSchema = /* @__PURE__ */ declared(() => Closed({ task: AgentTaskSchema, events: Type.Array(AgentTaskEventSchema, { maxItems: 500 }) }));
export const BridgeAgentTaskControlParamsSchema = /* @__PURE__ */ declared(() => Closed({ task_id: OpaqueIdSchema(), control: AgentTaskControlSchema }));
/** `agent.task_event`: a new event of one of the app's tasks (after it, the task as it now is). */
export const BridgeAgentTaskEventSchema = /* @__PURE__ */ declared(() => Closed({ event: AgentTaskEventSchema, task: AgentTaskSchema }));

/** `evidence.export`: the evidence pack of one of the app's tasks, or (no `task_id`) of the instance's conversation. */
export const BridgeEvidenceExportParamsSchema = /* @__PURE__ */ declared(() => Closed({ task_id: Type.Optional(OpaqueIdSchema()) }));
export const BridgeEvidenceExportResultSchema = /* @__PURE__ */ declared(() => Closed({
  export_id: OpaqueIdSchema(),
  conversation_id: ConversationIdSchema(),
  /** The last seq of the session the pack covers. */
  through_seq: Type.Integer({ minimum: 0 }),
  /** The pack, stored as an artifact of the conversation. */
  artifact: ArtifactRefRef(),
  /** The pack's `digest` (SHA-256, lowercase hex). */
  pack_digest: Type.String({ minLength: 64, maxLength: 64, pattern: "^[0-9a-f]{64}$" }),
}));
export type BridgeEvidenceExportResult = Static<typeof BridgeEvidenceExportResultSchema>;

/** The height the app's content wants, in CSS pixels (inline cards and picture-in-picture size to it). */
export const BridgeSurfaceResizeParamsSchema = /* @__PURE__ */ declared(() => Closed({ height: Type.Integer({ minimum: 0, maximum: 16_384 }) }));

// --- App storage and back-ends (docs/protocol.md "App storage", "Back-ends") ---

const StorageCollectionNameSchema = () => Type.String({ minLength: 1, maxLength: 64, pattern: STORAGE_COLLECTION_PATTERN });
const StorageKeySchema = () => Type.String({ minLength: 1, maxLength: 256, pattern: "^[\\x20-\\x7E]+$" });

export const BridgeStorageRecordSchema = /* @__PURE__ */ declared(() => Closed({
  collection: StorageCollectionNameSchema(),
  key: StorageKeySchema(),
  value: JsonValueSchema(),
  /** Who wrote it: the app version and bundle digest, and when. */
  provenance: Closed({ app_version: Type.String({ maxLength: 64 }), bundle_digest: Type.String({ maxLength: 128 }), written_at: Type.String({ maxLength: 40 }) }),
}));
export const BridgeStorageUsageSchema = /* @__PURE__ */ declared(() => Closed({
  bytes: Type.Integer({ minimum: 0 }),
  records: Type.Integer({ minimum: 0 }),
  quota_bytes: Type.Integer({ minimum: 0 }),
  schema_version: Type.Integer({ minimum: 1 }),
}));
export const BridgeStorageKeyParamsSchema = /* @__PURE__ */ declared(() => Closed({ collection: StorageCollectionNameSchema(), key: StorageKeySchema() }));
export const BridgeStorageGetResultSchema = /* @__PURE__ */ declared(() => Closed({ record: Type.Union([BridgeStorageRecordSchema, Type.Null()]) }));
export const BridgeStoragePutParamsSchema = /* @__PURE__ */ declared(() => Closed({ collection: StorageCollectionNameSchema(), key: StorageKeySchema(), value: JsonValueSchema() }));
export const BridgeStorageListParamsSchema = /* @__PURE__ */ declared(() => Closed({
  collection: StorageCollectionNameSchema(),
  prefix: Type.Optional(StorageKeySchema()),
  gt: Type.Optional(StorageKeySchema()),
  gte: Type.Optional(StorageKeySchema()),
  lt: Type.Optional(StorageKeySchema()),
  lte: Type.Optional(StorageKeySchema()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  reverse: Type.Optional(Type.Boolean()),
}));
export const BridgeStorageListResultSchema = /* @__PURE__ */ declared(() => Closed({ records: Type.Array(BridgeStorageRecordSchema, { maxItems: 1000 }) }));
export const BridgeStorageBatchParamsSchema = /* @__PURE__ */ declared(() => Closed({
  writes: Type.Array(
    Closed({ op: StringEnum(["put", "delete"] as const), collection: StorageCollectionNameSchema(), key: StorageKeySchema(), value: Type.Optional(JsonValueSchema()) }),
    { minItems: 1, maxItems: 500 },
  ),
}));
export const BridgeBackendCallParamsSchema = /* @__PURE__ */ declared(() => Closed({
  backend: Type.String({ minLength: 1, maxLength: 64, pattern: PART_ID_PATTERN }),
  method: Type.String({ minLength: 1, maxLength: 96, pattern: BACKEND_METHOD_PATTERN }),
  params: Type.Optional(JsonValueSchema()),
}));
export const BridgeBackendCallResultSchema = /* @__PURE__ */ declared(() => Closed({ result: JsonValueSchema() }));

// --- Workflows (docs/protocol.md "Workflows"; feature app.workflow.v1) ---

const WorkflowErrorSchema = () => Closed({ code: Type.String({ minLength: 1, maxLength: 64 }), message: Type.String({ maxLength: 2_000 }), step_id: Type.Optional(Type.String({ maxLength: 64 })) });
const Hash = () => Type.String({ pattern: "^[0-9a-f]{64}$" });
const Time = () => Type.String({ maxLength: 40 });

export const BridgeWorkflowStepRecordSchema = /* @__PURE__ */ declared(() => Closed({
  step_id: Type.String({ minLength: 1, maxLength: 64 }),
  status: StringEnum(["pending", "running", "waiting", "succeeded", "failed", "skipped"] as const),
  attempt: Type.Integer({ minimum: 1 }),
  idempotency_key: Type.String({ minLength: 1, maxLength: 256 }),
  input_hash: Type.Optional(Hash()),
  output_hash: Type.Optional(Hash()),
  output: Type.Optional(JsonValueSchema()),
  started_at: Type.Optional(Time()),
  ended_at: Type.Optional(Time()),
  error: Type.Optional(WorkflowErrorSchema()),
  not_before: Type.Optional(Type.Number()),
}));
export const BridgeWorkflowRunSchema = /* @__PURE__ */ declared(() => Closed(
  {
  run_id: Type.String({ minLength: 1, maxLength: 128 }),
  app_scope: AppScopeSchema(),
  app_version: SemVer(),
  workflow_id: Type.String({ minLength: 1, maxLength: 64 }),
  conversation_id: Type.Optional(ConversationIdSchema()),
  input: JsonValueSchema(),
  status: StringEnum(["running", "waiting_for_user", "completed", "failed", "cancelled"] as const),
  created_at: Time(),
  updated_at: Time(),
  current: Type.Integer({ minimum: 0 }),
  steps: Type.Record(Type.String(), BridgeWorkflowStepRecordSchema),
  output: Type.Optional(JsonValueSchema()),
  error: Type.Optional(WorkflowErrorSchema()),
  trace_count: Type.Integer({ minimum: 0 }),
  },
  { $id: schemaId("workflow-run.v1"), title: "A workflow run" },
));
export const BridgeWorkflowTraceEntrySchema = /* @__PURE__ */ declared(() => Closed(
  {
  index: Type.Integer({ minimum: 1 }),
  run_id: Type.String({ minLength: 1, maxLength: 128 }),
  step_id: Type.Optional(Type.String({ maxLength: 64 })),
  at: Time(),
  kind: StringEnum(["run.started", "step.started", "step.succeeded", "step.failed", "step.retry_scheduled", "step.waiting", "run.completed", "run.failed", "run.cancelled"] as const),
  attempt: Type.Optional(Type.Integer({ minimum: 1 })),
  input_hash: Type.Optional(Hash()),
  output_hash: Type.Optional(Hash()),
  error: Type.Optional(WorkflowErrorSchema()),
  },
  { $id: schemaId("workflow-trace-entry.v1"), title: "One entry of a workflow run's trace" },
));
const WorkflowRunRef = () => Type.Unsafe<Static<typeof BridgeWorkflowRunSchema>>(Type.Ref(schemaId("workflow-run.v1")));
const TraceEntryRef = () => Type.Unsafe<Static<typeof BridgeWorkflowTraceEntrySchema>>(Type.Ref(schemaId("workflow-trace-entry.v1")));
export const BridgeWorkflowStartParamsSchema = /* @__PURE__ */ declared(() => Closed({
  workflow_id: Type.String({ minLength: 1, maxLength: 64, pattern: PART_ID_PATTERN }),
  input: Type.Optional(JsonValueSchema()),
  idempotency_key: Type.Optional(OpaqueIdSchema()),
}));
export const BridgeWorkflowRunResultSchema = /* @__PURE__ */ declared(() => Closed({ run: WorkflowRunRef() }));
export const BridgeWorkflowRunsResultSchema = /* @__PURE__ */ declared(() => Closed({ runs: Type.Array(WorkflowRunRef(), { maxItems: 100 }) }));
export const BridgeWorkflowTraceParamsSchema = /* @__PURE__ */ declared(() => Closed({ run_id: Type.String({ minLength: 1, maxLength: 128 }), after: Type.Integer({ minimum: 0 }), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })) }));
export const BridgeWorkflowTraceResultSchema = /* @__PURE__ */ declared(() => Closed({ run: WorkflowRunRef(), trace: Type.Array(TraceEntryRef(), { maxItems: 500 }) }));
export const BridgeWorkflowControlParamsSchema = /* @__PURE__ */ declared(() => Closed({
  run_id: Type.String({ minLength: 1, maxLength: 128 }),
  control: Type.Union([
    Closed({ op: Type.Literal("cancel"), reason: Type.Optional(Type.String({ maxLength: 500 })) }),
    Closed({ op: Type.Literal("confirm"), step_id: Type.String({ minLength: 1, maxLength: 64 }), confirmed: Type.Boolean() }),
  ]),
}));
export const BridgeWorkflowEvidenceParamsSchema = /* @__PURE__ */ declared(() => Closed({ run_id: Type.String({ minLength: 1, maxLength: 128 }) }));
export const BridgeWorkflowEvidenceResultSchema = /* @__PURE__ */ declared(() => Closed({ artifact: ArtifactRefRef(), pack_digest: Hash(), ended: Type.Boolean() }));
export const BridgeWorkflowChangedEventSchema = /* @__PURE__ */ declared(() => Closed({ run: WorkflowRunRef(), trace: Type.Array(TraceEntryRef(), { maxItems: 64 }) }));
