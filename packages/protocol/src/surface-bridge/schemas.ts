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
const FrameBase = {
  bridge: /* @__PURE__ */ Type.Literal(BRIDGE_PROTOCOL),
  v: /* @__PURE__ */ Type.Literal(BRIDGE_VERSION),
  nonce: /* @__PURE__ */ Nonce(),
};

/** The error body of a response: a LineUp refusal as data. */
export const BridgeErrorSchema = /* @__PURE__ */ Closed({
  code: /* @__PURE__ */ StringEnum(/* @__PURE__ */ Object.keys(ERROR_CODES) as [string, ...string[]]),
  message: /* @__PURE__ */ Text(2_000),
  path: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Text(1_024)),
});
export type BridgeError = Static<typeof BridgeErrorSchema>;

export const BridgeRequestFrameSchema = /* @__PURE__ */ declared(() =>
  /* @__PURE__ */ Closed(
    { ...FrameBase, kind: /* @__PURE__ */ Type.Literal("request"), id: /* @__PURE__ */ RequestId(), method: /* @__PURE__ */ Name(), params: /* @__PURE__ */ JsonValueSchema() },
    { $id: /* @__PURE__ */ schemaId("surface-bridge.request.v1"), title: "Surface Bridge v1 request frame" },
  ),
);
export const BridgeResponseFrameSchema = /* @__PURE__ */ declared(() =>
  /* @__PURE__ */ Closed(
    {
      ...FrameBase,
      kind: /* @__PURE__ */ Type.Literal("response"),
      id: /* @__PURE__ */ RequestId(),
      method: /* @__PURE__ */ Name(),
      /** Exactly one of `result` and `error` (checked by the decoder: a schema cannot say it and stay readable). */
      result: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ JsonValueSchema()),
      error: /* @__PURE__ */ Type.Optional(BridgeErrorSchema),
    },
    { $id: /* @__PURE__ */ schemaId("surface-bridge.response.v1"), title: "Surface Bridge v1 response frame" },
  ),
);
export const BridgeEventFrameSchema = /* @__PURE__ */ declared(() =>
  /* @__PURE__ */ Closed(
    { ...FrameBase, kind: /* @__PURE__ */ Type.Literal("event"), name: /* @__PURE__ */ Name(), data: /* @__PURE__ */ JsonValueSchema() },
    { $id: /* @__PURE__ */ schemaId("surface-bridge.event.v1"), title: "Surface Bridge v1 event frame" },
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

export const BridgeThemeSchema = /* @__PURE__ */ Closed({
  mode: /* @__PURE__ */ StringEnum(["light", "dark", "system"] as const),
  effective_mode: /* @__PURE__ */ StringEnum(["light", "dark"] as const),
  color_scheme_id: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9._-]+$" }),
  /** Theme tokens as CSS custom properties (`--lineup-color-accent`), values as CSS text. */
  css_variables: /* @__PURE__ */ Type.Record(/* @__PURE__ */ Type.String({ pattern: "^--[A-Za-z0-9_-]{1,126}$" }), /* @__PURE__ */ Text(512), { maxProperties: 512 }),
});
export type BridgeTheme = Static<typeof BridgeThemeSchema>;

/** Why a capability is unavailable to this entry: refusal codes of the capability gateway. */
export const BRIDGE_CAPABILITY_BLOCKED_REASONS = ["capability_not_declared", "unsupported_on_host", "policy_denied", "permission_denied", "foreground_required"] as const;

export const BridgeCapabilitySummarySchema = /* @__PURE__ */ Type.Union([
  /* @__PURE__ */ Closed({ capability: /* @__PURE__ */ CapabilityName(), available: /* @__PURE__ */ Type.Literal(true) }),
  /* @__PURE__ */ Closed({ capability: /* @__PURE__ */ CapabilityName(), available: /* @__PURE__ */ Type.Literal(false), blocked_reason: /* @__PURE__ */ StringEnum(BRIDGE_CAPABILITY_BLOCKED_REASONS) }),
]);

/** The non-sensitive workspace summary of spec 003: ids and a label, never tokens or paths. */
export const BridgeWorkspaceSummarySchema = /* @__PURE__ */ Closed({
  workspace_id: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ OpaqueIdSchema()),
  tenant_id: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ OpaqueIdSchema()),
  display_name: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.String({ minLength: 1, maxLength: 200 })),
});

const SemVer = () => Type.String({ minLength: 5, maxLength: 64, pattern: SEMVER_PATTERN });
const FeatureName = () => Type.String({ minLength: 4, maxLength: 64, pattern: FEATURE_NAME_PATTERN });

/** The first frame: the Host Bridge snapshot (spec 003) joined with the SDK's AppContext (spec 6.1). */
export const BridgeHostSnapshotSchema = /* @__PURE__ */ Closed({
  app_scope: /* @__PURE__ */ AppScopeSchema(),
  app_version: /* @__PURE__ */ SemVer(),
  instance_id: /* @__PURE__ */ InstanceIdSchema(),
  entrypoint: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 64, pattern: ENTRYPOINT_ID_PATTERN }),
  /** The in-app route the entry opens at, always starting with `/`. */
  route: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 2_048, pattern: "^/[^\\s]*$" }),
  /** The origin the host speaks from (`null` for an opaque origin); spec 003's runtime origin. */
  runtime_origin: /* @__PURE__ */ Type.String({ minLength: 4, maxLength: 256, pattern: "^(?:null|[a-z][a-z0-9+.-]*://[A-Za-z0-9.-]+(?::[0-9]{1,5})?)$" }),
  scope: /* @__PURE__ */ Closed({
    conversation_id: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ ConversationIdSchema()),
    operation_id: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ OperationIdSchema()),
    parent_instance_id: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ InstanceIdSchema()),
  }),
  theme: BridgeThemeSchema,
  locale: /* @__PURE__ */ Locale(),
  timezone: /* @__PURE__ */ TimeZone(),
  workspace: BridgeWorkspaceSummarySchema,
  display_mode: /* @__PURE__ */ DisplayMode(),
  capabilities: /* @__PURE__ */ Type.Array(BridgeCapabilitySummarySchema, { maxItems: 128 }),
  granted_permissions: /* @__PURE__ */ Type.Array(/* @__PURE__ */ CapabilityName(), { maxItems: 128 }),
  sdk: /* @__PURE__ */ Closed({ api_version: /* @__PURE__ */ Type.Literal("1"), features: /* @__PURE__ */ Type.Array(/* @__PURE__ */ FeatureName(), { maxItems: 64 }) }),
});
export type BridgeHostSnapshot = Static<typeof BridgeHostSnapshotSchema>;

// --- Host → app events ---------------------------------------------------------------------------

export const BRIDGE_LIFECYCLE_STATES = ["start", "foreground", "background", "suspend", "restore", "closing"] as const;

/** `closing` carries the time the app has to flush (answer `lifecycle.closing_done`) before it is torn down. */
export const BridgeLifecycleEventSchema = /* @__PURE__ */ Type.Union([
  /* @__PURE__ */ Closed({ state: /* @__PURE__ */ StringEnum(["start", "foreground", "background", "suspend", "restore"] as const) }),
  /* @__PURE__ */ Closed({ state: /* @__PURE__ */ Type.Literal("closing"), flush_deadline_ms: /* @__PURE__ */ Type.Integer({ minimum: 1, maximum: 60_000 }) }),
]);

export const BridgeThemeChangedEventSchema = /* @__PURE__ */ Closed({ theme: BridgeThemeSchema });
/** What the snapshot's capability summary says now: a remembered decision, the host or policy changed. */
export const BridgeCapabilitiesChangedEventSchema = /* @__PURE__ */ Closed({
  capabilities: /* @__PURE__ */ Type.Array(BridgeCapabilitySummarySchema, { maxItems: 128 }),
  granted_permissions: /* @__PURE__ */ Type.Array(/* @__PURE__ */ CapabilityName(), { maxItems: 128 }),
});
export const BridgeLocaleChangedEventSchema = /* @__PURE__ */ Closed({ locale: /* @__PURE__ */ Locale(), timezone: /* @__PURE__ */ TimeZone() });
export const BridgeDisplayModeChangedEventSchema = /* @__PURE__ */ Closed({ display_mode: /* @__PURE__ */ DisplayMode() });

/** Session data as the SDK sees it (spec 6.3): empty is `{ data: null, revision: 0 }`. */
export const BridgeSessionDataSnapshotSchema = /* @__PURE__ */ declared(() =>
  /* @__PURE__ */ Closed({
    data: /* @__PURE__ */ Type.Union([/* @__PURE__ */ JsonObjectSchema(), /* @__PURE__ */ Type.Null()]),
    revision: /* @__PURE__ */ Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
  }),
);
export type BridgeSessionDataSnapshot = Static<typeof BridgeSessionDataSnapshotSchema>;

/** A state patch for this instance; it needs an explicit `agent_message.ack` (spec 5.4). */
export const BridgeStatePatchEventSchema = /* @__PURE__ */ Closed({
  message_id: /* @__PURE__ */ OpaqueIdSchema(),
  patch: /* @__PURE__ */ JsonObjectSchema(),
  base_revision: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Integer({ minimum: 0 })),
});

/** A projected agent message the app subscribed to: never the raw envelope (spec 5.3, 5.4). */
export const BridgeAgentMessageEventSchema = /* @__PURE__ */ Closed({
  message_id: /* @__PURE__ */ OpaqueIdSchema(),
  type: /* @__PURE__ */ Type.String({ minLength: 3, maxLength: 96, pattern: ENVELOPE_TYPE_PATTERN }),
  conversation_id: /* @__PURE__ */ ConversationIdSchema(),
  instance_id: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ InstanceIdSchema()),
  sender: /* @__PURE__ */ Closed({ kind: /* @__PURE__ */ StringEnum(["agent", "runtime", "user"] as const), id: /* @__PURE__ */ OpaqueIdSchema() }),
  timestamp: /* @__PURE__ */ TimestampSchema(),
  payload: /* @__PURE__ */ JsonValueSchema(),
  /** Display messages are acknowledged on delivery; the rest wait for `agent_message.ack`. */
  requires_ack: /* @__PURE__ */ Type.Boolean(),
});

export const BridgeToolCancelledEventSchema = /* @__PURE__ */ Closed({ call_id: /* @__PURE__ */ ToolCallIdSchema(), reason: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Text(2_000)) });

// --- Host → app request: tool.invoke -------------------------------------------------------------

/** A declared tool method, as the manifest spells it: at least two dotted parts (`board.create`). */
const TOOL_METHOD = "^[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)+$";

export const BridgeToolInvokeParamsSchema = /* @__PURE__ */ Closed({
  call_id: /* @__PURE__ */ ToolCallIdSchema(),
  method: /* @__PURE__ */ Type.String({ minLength: 3, maxLength: 128, pattern: TOOL_METHOD }),
  contract_version: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.String({ minLength: 1, maxLength: 16, pattern: CONTRACT_VERSION_PATTERN })),
  arguments: /* @__PURE__ */ JsonObjectSchema(),
  /** Milliseconds the app has before the Runtime fails the call with `operation_expired`. */
  deadline_ms: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Integer({ minimum: 1, maximum: 86_400_000 })),
});

/** Codes an app may end a tool call with (spec 7.3). Everything else is the Runtime's to say. */
export const BRIDGE_APP_TOOL_ERROR_CODES = ["invalid_arguments", "cancelled_by_user", "permission_denied", "foreground_required", "operation_expired", "handler_failed"] as const;
const AppToolErrorCode = () => StringEnum(BRIDGE_APP_TOOL_ERROR_CODES);

/**
 * The app's outcome for `tool.invoke`: done now (`completed` / `failed`), or `pending` — the app
 * reports later through `tool.progress` then exactly one `tool.complete` or `tool.fail`.
 */
export const BridgeAppToolOutcomeSchema = /* @__PURE__ */ Type.Union([
  /* @__PURE__ */ Closed({ outcome: /* @__PURE__ */ Type.Literal("completed"), result: /* @__PURE__ */ JsonValueSchema() }),
  /* @__PURE__ */ Closed({ outcome: /* @__PURE__ */ Type.Literal("failed"), code: /* @__PURE__ */ AppToolErrorCode(), message: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Text(2_000)) }),
  /* @__PURE__ */ Closed({ outcome: /* @__PURE__ */ Type.Literal("pending") }),
]);
export type BridgeAppToolOutcome = Static<typeof BridgeAppToolOutcomeSchema>;

// --- App → host request bodies -------------------------------------------------------------------

/** The body of a message that carries nothing: `{}` and only `{}`. */
export const emptyBridgeBody = () => Closed({});

/** `lifecycle.ready`: an SDK that answers the `surface.ping` heartbeat says so; one built before it sends `{}` and is not pinged. */
export const BridgeLifecycleReadyParamsSchema = /* @__PURE__ */ Closed({
  heartbeat: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Literal(true, { description: "The app's SDK answers `surface.ping`; the host pings it only then." })),
});

export const BridgeSessionDataReplaceParamsSchema = /* @__PURE__ */ declared(() =>
  /* @__PURE__ */ Closed({
    data: /* @__PURE__ */ JsonObjectSchema(),
    expected_revision: /* @__PURE__ */ Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
  }),
);
export const BridgeSessionDataReplaceResultSchema = /* @__PURE__ */ declared(() => /* @__PURE__ */ Closed({ revision: /* @__PURE__ */ Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) }));

export const BridgeAgentMessageSubscribeParamsSchema = /* @__PURE__ */ Closed({
  /** Envelope types wanted; absent means every type the manifest subscribes to. */
  types: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Array(/* @__PURE__ */ Type.String({ minLength: 3, maxLength: 96, pattern: ENVELOPE_TYPE_PATTERN }), { minItems: 1, maxItems: 32 })),
  /** Also deliver messages already waiting in the app's inbox. */
  include_pending: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Boolean()),
});
export const BridgeAgentMessageAckParamsSchema = /* @__PURE__ */ Closed({ message_id: /* @__PURE__ */ OpaqueIdSchema() });

/** An inbox cursor, as a page gives it (`next_cursor`, `prev_cursor`). */
const InboxCursor = () => Type.String({ minLength: 1, maxLength: 512 });

/**
 * `agent_message.list` (spec 5.4 `list()`): one page of the messages this instance may see — in its
 * conversation, addressed to it or to no instance — oldest first. `after`, `before` and `latest` are exclusive.
 */
export const BridgeAgentMessageListParamsSchema = /* @__PURE__ */ Closed({
  after: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ InboxCursor()),
  before: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ InboxCursor()),
  latest: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Boolean()),
  limit: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Integer({ minimum: 1, maximum: 200 })),
});
export const BridgeAgentMessageListResultSchema = /* @__PURE__ */ Closed({
  /** Each as `agent.message` carries it (a state patch too, with its type). */
  messages: /* @__PURE__ */ Type.Array(BridgeAgentMessageEventSchema, { maxItems: 200 }),
  next_cursor: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ InboxCursor()),
  prev_cursor: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ InboxCursor()),
});

export const BridgeToolProgressParamsSchema = /* @__PURE__ */ Closed({
  call_id: /* @__PURE__ */ ToolCallIdSchema(),
  progress: /* @__PURE__ */ Closed({
    stage: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.String({ minLength: 1, maxLength: 64 })),
    progress: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Number({ minimum: 0, maximum: 1 })),
    message: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Text(2_000)),
    data: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ JsonValueSchema()),
  }),
});
export const BridgeToolCompleteParamsSchema = /* @__PURE__ */ Closed({ call_id: /* @__PURE__ */ ToolCallIdSchema(), result: /* @__PURE__ */ JsonValueSchema() });
export const BridgeToolFailParamsSchema = /* @__PURE__ */ Closed({ call_id: /* @__PURE__ */ ToolCallIdSchema(), code: /* @__PURE__ */ AppToolErrorCode(), message: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Text(2_000)) });

export const BridgeCapabilityRequestParamsSchema = /* @__PURE__ */ Closed({
  capability: /* @__PURE__ */ CapabilityName(),
  /** Shown to the user when the Runtime asks for confirmation. */
  purpose: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 500 }),
  input: /* @__PURE__ */ JsonValueSchema(),
});

/** The capability result of the manifest's registry (schema `capability-result.v1`): `completed` or a controlled refusal. */
export const BridgeCapabilityResultSchema = /* @__PURE__ */ Type.Unsafe<CapabilityResult>(/* @__PURE__ */ Type.Ref(/* @__PURE__ */ schemaId("capability-result.v1")));

const ArtifactContent = () =>
  Closed({
    /** `utf8` for text, `base64` for bytes (structured clone could carry bytes, but the bridge stays plain JSON). */
    encoding: StringEnum(["utf8", "base64"] as const),
    data: Type.String(),
  });
const MimeType = () => Type.String({ minLength: 3, maxLength: 127, pattern: "^[a-z0-9!#$&^_.+-]+/[a-z0-9!#$&^_.+-]+$" });
/** The envelope's artifact reference (schema `artifact-ref.v1`). */
const ArtifactRefRef = () => Type.Unsafe<ArtifactRef>(Type.Ref(schemaId("artifact-ref.v1")));

export const BridgeArtifactCreateParamsSchema = /* @__PURE__ */ Closed({ name: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 255 }), mime_type: /* @__PURE__ */ MimeType(), content: /* @__PURE__ */ ArtifactContent() });
export const BridgeArtifactCreateResultSchema = /* @__PURE__ */ Closed({ artifact: /* @__PURE__ */ ArtifactRefRef() });
export const BridgeArtifactReadParamsSchema = /* @__PURE__ */ declared(() => /* @__PURE__ */ Closed({ artifact_id: /* @__PURE__ */ OpaqueIdSchema(), max_bytes: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Integer({ minimum: 1, maximum: 16 * 1024 * 1024 })) }));
export const BridgeArtifactReadResultSchema = /* @__PURE__ */ Closed({ artifact: /* @__PURE__ */ ArtifactRefRef(), content: /* @__PURE__ */ ArtifactContent(), truncated: /* @__PURE__ */ Type.Boolean() });
/** An artifact without its bytes: what it is, who made it, whether its bytes are on the device. */
export const BridgeArtifactInfoSchema = /* @__PURE__ */ Closed({
  artifact: /* @__PURE__ */ ArtifactRefRef(),
  conversation_id: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ ConversationIdSchema()),
  /** An app on the device (`app_scope` names it), the conversation's agent, or another of the user's devices. */
  origin: /* @__PURE__ */ StringEnum(["app", "agent", "device"] as const),
  app_scope: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ AppScopeSchema()),
  created_at: /* @__PURE__ */ TimestampSchema(),
  on_device: /* @__PURE__ */ Type.Boolean(),
});
export const BridgeArtifactGetParamsSchema = /* @__PURE__ */ Closed({ artifact_id: /* @__PURE__ */ OpaqueIdSchema() });
export const BridgeArtifactListParamsSchema = /* @__PURE__ */ Closed({ limit: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Integer({ minimum: 1, maximum: 1000 })) });
export const BridgeArtifactListResultSchema = /* @__PURE__ */ Closed({ artifacts: /* @__PURE__ */ Type.Array(BridgeArtifactInfoSchema, { maxItems: 1000 }) });
export const BridgeArtifactSaveParamsSchema = /* @__PURE__ */ Closed({ artifact_id: /* @__PURE__ */ OpaqueIdSchema() });

export const BridgeEventEmitParamsSchema = /* @__PURE__ */ Closed({ name: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 96, pattern: EVENT_NAME_PATTERN }), data: /* @__PURE__ */ JsonValueSchema() });

export const BridgeAppLaunchParamsSchema = /* @__PURE__ */ Closed({
  app_scope: /* @__PURE__ */ AppScopeSchema(),
  entrypoint: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ OpaqueIdSchema()),
  display_mode: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ DisplayMode()),
  input: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ JsonObjectSchema()),
});
export const BridgeAppLaunchResultSchema = /* @__PURE__ */ Closed({ app_scope: /* @__PURE__ */ AppScopeSchema(), instance_id: /* @__PURE__ */ InstanceIdSchema() });
/** Without `instance_id` the app closes itself. */
export const BridgeAppCloseParamsSchema = /* @__PURE__ */ Closed({ instance_id: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ InstanceIdSchema()) });
export const BridgeAppFocusParamsSchema = /* @__PURE__ */ Closed({ instance_id: /* @__PURE__ */ InstanceIdSchema() });
/** An app a person could open (spec 6.2 `AppSummary`). */
export const BridgeAppSummarySchema = /* @__PURE__ */ Closed({
  app_scope: /* @__PURE__ */ AppScopeSchema(),
  name: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 120 }),
  kind: /* @__PURE__ */ StringEnum(["core", "installed"] as const),
  version: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 64 }),
  is_default: /* @__PURE__ */ Type.Boolean(),
  entrypoints: /* @__PURE__ */ Type.Array(
    /* @__PURE__ */ Closed({ id: /* @__PURE__ */ OpaqueIdSchema(), kind: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 32 }), title: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.String({ maxLength: 120 })), display_modes: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Array(/* @__PURE__ */ DisplayMode(), { maxItems: 8 })) }),
    { maxItems: 32 },
  ),
});
export const BridgeAppListResultSchema = /* @__PURE__ */ Closed({ apps: /* @__PURE__ */ Type.Array(BridgeAppSummarySchema, { maxItems: 512 }) });
export const BridgeAppOpenDefaultResultSchema = /* @__PURE__ */ Closed({ instance_id: /* @__PURE__ */ InstanceIdSchema() });

/** Ends this app's Runtime-owned operations in its conversation (the user stopped the timer); each gets its `interrupted` result. */
export const BridgeOperationInterruptParamsSchema = /* @__PURE__ */ Closed({ reason: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Text(200)) });

/**
 * `agent.cancel_turn`'s receipt: the person's Stop, made in the app, is stored and will be sent to the
 * AppServer in order with everything else the device sends (offline too). A second Stop before the first was
 * sent is the same Stop: the same receipt. What the cancel ends follows from the session log.
 */
export const BridgeAgentCancelTurnResultSchema = /* @__PURE__ */ Closed({
  receipt_id: /* @__PURE__ */ OpaqueIdSchema(),
  conversation_id: /* @__PURE__ */ ConversationIdSchema(),
  accepted_at: /* @__PURE__ */ TimestampSchema(),
  status: /* @__PURE__ */ Type.Literal("queued"),
});
export type BridgeAgentCancelTurnResult = Static<typeof BridgeAgentCancelTurnResultSchema>;

/** `agent.tasks`: the app's tasks, newest first; `agent.task_events`: one task's events after `after`, at most `limit`. */
const AgentTaskSchema = /* @__PURE__ */ Type.Unsafe<AgentTask>(/* @__PURE__ */ Type.Ref(/* @__PURE__ */ schemaId("agent-task.task")));
const AgentTaskEventSchema = /* @__PURE__ */ Type.Unsafe<AgentTaskEvent>(/* @__PURE__ */ Type.Ref(/* @__PURE__ */ schemaId("agent-task.event")));
const AgentTaskControlSchema = /* @__PURE__ */ Type.Unsafe<AgentTaskControl>(/* @__PURE__ */ Type.Ref(/* @__PURE__ */ schemaId("agent-task.control")));
export const BridgeAgentStartTaskParamsSchema = /* @__PURE__ */ Closed({ request: /* @__PURE__ */ Type.Unsafe(/* @__PURE__ */ Type.Ref(/* @__PURE__ */ schemaId("agent-task.request"))) });
export const BridgeAgentTaskResultSchema = /* @__PURE__ */ Closed({ task: AgentTaskSchema });
export const BridgeAgentTasksResultSchema = /* @__PURE__ */ Closed({ tasks: /* @__PURE__ */ Type.Array(AgentTaskSchema, { maxItems: 500 }) });
export const BridgeAgentTaskEventsParamsSchema = /* @__PURE__ */ Closed({ task_id: /* @__PURE__ */ OpaqueIdSchema(), after: /* @__PURE__ */ Type.Integer({ minimum: 0 }), limit: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Integer({ minimum: 1, maximum: 500 })) });
export const BridgeAgentTaskEventsResultSchema = /* @__PURE__ */ Closed({ task: AgentTaskSchema, events: /* @__PURE__ */ Type.Array(AgentTaskEventSchema, { maxItems: 500 }) });
export const BridgeAgentTaskControlParamsSchema = /* @__PURE__ */ Closed({ task_id: /* @__PURE__ */ OpaqueIdSchema(), control: AgentTaskControlSchema });
/** `agent.task_event`: a new event of one of the app's tasks (after it, the task as it now is). */
export const BridgeAgentTaskEventSchema = /* @__PURE__ */ Closed({ event: AgentTaskEventSchema, task: AgentTaskSchema });

/** `evidence.export`: the evidence pack of one of the app's tasks, or (no `task_id`) of the instance's conversation. */
export const BridgeEvidenceExportParamsSchema = /* @__PURE__ */ Closed({ task_id: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ OpaqueIdSchema()) });
export const BridgeEvidenceExportResultSchema = /* @__PURE__ */ Closed({
  export_id: /* @__PURE__ */ OpaqueIdSchema(),
  conversation_id: /* @__PURE__ */ ConversationIdSchema(),
  /** The last seq of the session the pack covers. */
  through_seq: /* @__PURE__ */ Type.Integer({ minimum: 0 }),
  /** The pack, stored as an artifact of the conversation. */
  artifact: /* @__PURE__ */ ArtifactRefRef(),
  /** The pack's `digest` (SHA-256, lowercase hex). */
  pack_digest: /* @__PURE__ */ Type.String({ minLength: 64, maxLength: 64, pattern: "^[0-9a-f]{64}$" }),
});
export type BridgeEvidenceExportResult = Static<typeof BridgeEvidenceExportResultSchema>;

/** The height the app's content wants, in CSS pixels (inline cards and picture-in-picture size to it). */
export const BridgeSurfaceResizeParamsSchema = /* @__PURE__ */ Closed({ height: /* @__PURE__ */ Type.Integer({ minimum: 0, maximum: 16_384 }) });

// --- App storage and back-ends (docs/protocol.md "App storage", "Back-ends") ---

const StorageCollectionNameSchema = () => Type.String({ minLength: 1, maxLength: 64, pattern: STORAGE_COLLECTION_PATTERN });
const StorageKeySchema = () => Type.String({ minLength: 1, maxLength: 256, pattern: "^[\\x20-\\x7E]+$" });

export const BridgeStorageRecordSchema = /* @__PURE__ */ Closed({
  collection: /* @__PURE__ */ StorageCollectionNameSchema(),
  key: /* @__PURE__ */ StorageKeySchema(),
  value: /* @__PURE__ */ JsonValueSchema(),
  /** Who wrote it: the app version and bundle digest, and when. */
  provenance: /* @__PURE__ */ Closed({ app_version: /* @__PURE__ */ Type.String({ maxLength: 64 }), bundle_digest: /* @__PURE__ */ Type.String({ maxLength: 128 }), written_at: /* @__PURE__ */ Type.String({ maxLength: 40 }) }),
});
export const BridgeStorageUsageSchema = /* @__PURE__ */ Closed({
  bytes: /* @__PURE__ */ Type.Integer({ minimum: 0 }),
  records: /* @__PURE__ */ Type.Integer({ minimum: 0 }),
  quota_bytes: /* @__PURE__ */ Type.Integer({ minimum: 0 }),
  schema_version: /* @__PURE__ */ Type.Integer({ minimum: 1 }),
});
export const BridgeStorageKeyParamsSchema = /* @__PURE__ */ Closed({ collection: /* @__PURE__ */ StorageCollectionNameSchema(), key: /* @__PURE__ */ StorageKeySchema() });
export const BridgeStorageGetResultSchema = /* @__PURE__ */ Closed({ record: /* @__PURE__ */ Type.Union([BridgeStorageRecordSchema, /* @__PURE__ */ Type.Null()]) });
export const BridgeStoragePutParamsSchema = /* @__PURE__ */ Closed({ collection: /* @__PURE__ */ StorageCollectionNameSchema(), key: /* @__PURE__ */ StorageKeySchema(), value: /* @__PURE__ */ JsonValueSchema() });
export const BridgeStorageListParamsSchema = /* @__PURE__ */ Closed({
  collection: /* @__PURE__ */ StorageCollectionNameSchema(),
  prefix: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ StorageKeySchema()),
  gt: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ StorageKeySchema()),
  gte: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ StorageKeySchema()),
  lt: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ StorageKeySchema()),
  lte: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ StorageKeySchema()),
  limit: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Integer({ minimum: 1, maximum: 1000 })),
  reverse: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Boolean()),
});
export const BridgeStorageListResultSchema = /* @__PURE__ */ Closed({ records: /* @__PURE__ */ Type.Array(BridgeStorageRecordSchema, { maxItems: 1000 }) });
export const BridgeStorageBatchParamsSchema = /* @__PURE__ */ Closed({
  writes: /* @__PURE__ */ Type.Array(
    /* @__PURE__ */ Closed({ op: /* @__PURE__ */ StringEnum(["put", "delete"] as const), collection: /* @__PURE__ */ StorageCollectionNameSchema(), key: /* @__PURE__ */ StorageKeySchema(), value: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ JsonValueSchema()) }),
    { minItems: 1, maxItems: 500 },
  ),
});
export const BridgeBackendCallParamsSchema = /* @__PURE__ */ Closed({
  backend: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 64, pattern: PART_ID_PATTERN }),
  method: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 96, pattern: BACKEND_METHOD_PATTERN }),
  params: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ JsonValueSchema()),
});
export const BridgeBackendCallResultSchema = /* @__PURE__ */ Closed({ result: /* @__PURE__ */ JsonValueSchema() });

// --- Workflows (docs/protocol.md "Workflows"; feature app.workflow.v1) ---

const WorkflowErrorSchema = () => Closed({ code: Type.String({ minLength: 1, maxLength: 64 }), message: Type.String({ maxLength: 2_000 }), step_id: Type.Optional(Type.String({ maxLength: 64 })) });
const Hash = () => Type.String({ pattern: "^[0-9a-f]{64}$" });
const Time = () => Type.String({ maxLength: 40 });

export const BridgeWorkflowStepRecordSchema = /* @__PURE__ */ Closed({
  step_id: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 64 }),
  status: /* @__PURE__ */ StringEnum(["pending", "running", "waiting", "succeeded", "failed", "skipped"] as const),
  attempt: /* @__PURE__ */ Type.Integer({ minimum: 1 }),
  idempotency_key: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 256 }),
  input_hash: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Hash()),
  output_hash: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Hash()),
  output: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ JsonValueSchema()),
  started_at: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Time()),
  ended_at: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Time()),
  error: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ WorkflowErrorSchema()),
  not_before: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Number()),
});
export const BridgeWorkflowRunSchema = /* @__PURE__ */ Closed(
  {
  run_id: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 128 }),
  app_scope: /* @__PURE__ */ AppScopeSchema(),
  app_version: /* @__PURE__ */ SemVer(),
  workflow_id: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 64 }),
  conversation_id: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ ConversationIdSchema()),
  input: /* @__PURE__ */ JsonValueSchema(),
  status: /* @__PURE__ */ StringEnum(["running", "waiting_for_user", "completed", "failed", "cancelled"] as const),
  created_at: /* @__PURE__ */ Time(),
  updated_at: /* @__PURE__ */ Time(),
  current: /* @__PURE__ */ Type.Integer({ minimum: 0 }),
  steps: /* @__PURE__ */ Type.Record(/* @__PURE__ */ Type.String(), BridgeWorkflowStepRecordSchema),
  output: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ JsonValueSchema()),
  error: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ WorkflowErrorSchema()),
  trace_count: /* @__PURE__ */ Type.Integer({ minimum: 0 }),
  },
  { $id: /* @__PURE__ */ schemaId("workflow-run.v1"), title: "A workflow run" },
);
export const BridgeWorkflowTraceEntrySchema = /* @__PURE__ */ Closed(
  {
  index: /* @__PURE__ */ Type.Integer({ minimum: 1 }),
  run_id: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 128 }),
  step_id: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.String({ maxLength: 64 })),
  at: /* @__PURE__ */ Time(),
  kind: /* @__PURE__ */ StringEnum(["run.started", "step.started", "step.succeeded", "step.failed", "step.retry_scheduled", "step.waiting", "run.completed", "run.failed", "run.cancelled"] as const),
  attempt: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Integer({ minimum: 1 })),
  input_hash: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Hash()),
  output_hash: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Hash()),
  error: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ WorkflowErrorSchema()),
  },
  { $id: /* @__PURE__ */ schemaId("workflow-trace-entry.v1"), title: "One entry of a workflow run's trace" },
);
const WorkflowRunRef = () => Type.Unsafe<Static<typeof BridgeWorkflowRunSchema>>(Type.Ref(schemaId("workflow-run.v1")));
const TraceEntryRef = () => Type.Unsafe<Static<typeof BridgeWorkflowTraceEntrySchema>>(Type.Ref(schemaId("workflow-trace-entry.v1")));
export const BridgeWorkflowStartParamsSchema = /* @__PURE__ */ Closed({
  workflow_id: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 64, pattern: PART_ID_PATTERN }),
  input: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ JsonValueSchema()),
  idempotency_key: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ OpaqueIdSchema()),
});
export const BridgeWorkflowRunResultSchema = /* @__PURE__ */ Closed({ run: /* @__PURE__ */ WorkflowRunRef() });
export const BridgeWorkflowRunsResultSchema = /* @__PURE__ */ Closed({ runs: /* @__PURE__ */ Type.Array(/* @__PURE__ */ WorkflowRunRef(), { maxItems: 100 }) });
export const BridgeWorkflowTraceParamsSchema = /* @__PURE__ */ Closed({ run_id: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 128 }), after: /* @__PURE__ */ Type.Integer({ minimum: 0 }), limit: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Integer({ minimum: 1, maximum: 500 })) });
export const BridgeWorkflowTraceResultSchema = /* @__PURE__ */ Closed({ run: /* @__PURE__ */ WorkflowRunRef(), trace: /* @__PURE__ */ Type.Array(/* @__PURE__ */ TraceEntryRef(), { maxItems: 500 }) });
export const BridgeWorkflowControlParamsSchema = /* @__PURE__ */ Closed({
  run_id: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 128 }),
  control: /* @__PURE__ */ Type.Union([
    /* @__PURE__ */ Closed({ op: /* @__PURE__ */ Type.Literal("cancel"), reason: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.String({ maxLength: 500 })) }),
    /* @__PURE__ */ Closed({ op: /* @__PURE__ */ Type.Literal("confirm"), step_id: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 64 }), confirmed: /* @__PURE__ */ Type.Boolean() }),
  ]),
});
export const BridgeWorkflowEvidenceParamsSchema = /* @__PURE__ */ Closed({ run_id: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 128 }) });
export const BridgeWorkflowEvidenceResultSchema = /* @__PURE__ */ Closed({ artifact: /* @__PURE__ */ ArtifactRefRef(), pack_digest: /* @__PURE__ */ Hash(), ended: /* @__PURE__ */ Type.Boolean() });
export const BridgeWorkflowChangedEventSchema = /* @__PURE__ */ Closed({ run: /* @__PURE__ */ WorkflowRunRef(), trace: /* @__PURE__ */ Type.Array(/* @__PURE__ */ TraceEntryRef(), { maxItems: 64 }) });
