/**
 * App manifest `lineup.app.v1` and the Tool descriptor (spec 7.1, 7.3, 9): the schemas are the
 * source of truth, the TypeScript types are derived from them.
 *
 * Every object is closed. Fields the spec 9 minimal example omits are optional and have defaults
 * that depend only on the descriptor itself (see `tool-defaults.ts` and docs/manifest.md); a
 * validated manifest is returned exactly as written, defaults are applied where it is used.
 *
 * What a schema cannot say — registry membership, uniqueness, references, the validity of
 * embedded JSON Schemas, rules across fields — is checked by `validate.ts`, each with its own
 * error code.
 */
import { Type, type Static } from "@sinclair/typebox";
import { ENVELOPE_TYPE_TERMS, type EnvelopeType } from "../envelope/terms.js";
import { AppScopeSchema, Closed, JsonObjectSchema, StringEnum, schemaId, declared } from "../schema-kit.js";
import { CAPABILITY_NAME_PATTERN, RISK_LEVELS, type CapabilityName } from "./capabilities.js";
import { CapabilityResultSchema } from "./capability-result-schema.js";
import { FEATURE_NAME_PATTERN } from "./features.js";
import { ENTRYPOINT_ID_PATTERN, MANIFEST_LOCALE_PATTERN } from "./terms.js";

export { ENTRYPOINT_ID_PATTERN, MANIFEST_LOCALE_PATTERN };
import { BackendDeclarationSchema, ExecutionDeclarationSchema, MCP_TOOL_NAME_PATTERN, PART_ID_PATTERN, StorageRequestSchema, WorkflowDeclarationSchema } from "./app-code.js";

export const MANIFEST_FORMAT = "lineup.app.v1";

/** Core apps ship with the host and run trusted in process; installed apps come in signed bundles. */
export const MANIFEST_KINDS = ["installed", "core"] as const;
export type ManifestKind = (typeof MANIFEST_KINDS)[number];

// --- Grammars ---

/** Tool methods are dotted lowercase with at least two parts: `board.create`. */
export const TOOL_DESCRIPTOR_METHOD_PATTERN = "^[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)+$";
/** A positive decimal integer without leading zeros: `1`, `12`. */
export const CONTRACT_VERSION_PATTERN = "^[1-9][0-9]*$";
/** App event names, as in `lineup.app.event` payloads: `stroke.added`. */
export const EVENT_NAME_PATTERN = "^[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)*$";
/** A relative POSIX path inside the bundle to an HTML file; no segment may start with a dot. */
export const ENTRYPOINT_PATH_PATTERN = "^(?:[A-Za-z0-9_-][A-Za-z0-9._-]*/)*[A-Za-z0-9_-][A-Za-z0-9._-]*\\.html$";
/** Semantic Versioning 2.0.0 (semver.org), without a leading `v`. */
export const SEMVER_PATTERN =
  "^(?:0|[1-9][0-9]*)\\.(?:0|[1-9][0-9]*)\\.(?:0|[1-9][0-9]*)" +
  "(?:-(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(?:\\.(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*)?" +
  "(?:\\+[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*)?$";

// --- Enumerations (their meaning is documented in docs/manifest.md) ---

/** Spec 7.1: what kind of work a call is, as the agent should expect it. */
export const CALL_MODELS = ["query", "command", "interactive", "operation"] as const;
export type CallModel = (typeof CALL_MODELS)[number];

/** Who decides the call's one terminal result: the app's handler, or a Runtime operation with a deadline. */
export const TOOL_HANDLINGS = ["direct", "operation"] as const;
export type ToolHandling = (typeof TOOL_HANDLINGS)[number];

/** How the call reaches the handler: the sandboxed MiniApp SDK (installed apps) or the in-process App SDK (core apps). */
export const TOOL_DELIVERIES = ["miniapp_sdk", "app_sdk"] as const;
export type ToolDelivery = (typeof TOOL_DELIVERIES)[number];

/** Spec 7.3: what must be true of the app before the call is delivered. */
export const ACTIVATION_REQUIREMENTS = ["app_ready", "foreground_required", "activation_not_required"] as const;
export type ActivationRequirement = (typeof ACTIVATION_REQUIREMENTS)[number];

/** Whether a call may start an instance of the app, and which one serves it. */
export const LAUNCH_POLICIES = ["never", "if_needed", "new_instance"] as const;
export type LaunchPolicy = (typeof LAUNCH_POLICIES)[number];

export const ENTRYPOINT_KINDS = ["primary", "contextual", "settings", "background"] as const;
export type EntrypointKind = (typeof ENTRYPOINT_KINDS)[number];

export const DISPLAY_MODES = ["foreground", "pip", "inline_card"] as const;
export type DisplayMode = (typeof DISPLAY_MODES)[number];

export const SUBSCRIPTION_SCOPES = ["instance", "conversation", "app"] as const;
export type SubscriptionScope = (typeof SUBSCRIPTION_SCOPES)[number];

/** Envelope types an app can receive: those whose registry entry allows an app target. */
export const SUBSCRIBABLE_ENVELOPE_TYPES: readonly EnvelopeType[] = /* @__PURE__ */ declared(() => Object.values(ENVELOPE_TYPE_TERMS)
  .filter((spec) => (spec.targets as readonly string[]).includes("app"))
  .map((spec) => spec.type as EnvelopeType));

// --- Limits ---

export const MAX_TOOL_TIMEOUT_MS = 86_400_000;

// --- Building blocks ---

const CapabilityNameSchema = () => Type.Unsafe<CapabilityName>({ type: "string", minLength: 3, maxLength: 64, pattern: CAPABILITY_NAME_PATTERN });
const FeatureNameSchema = () => Type.String({ minLength: 4, maxLength: 64, pattern: FEATURE_NAME_PATTERN });
const EntrypointIdSchema = () => Type.String({ minLength: 1, maxLength: 64, pattern: ENTRYPOINT_ID_PATTERN });
const Title = () => Type.String({ minLength: 1, maxLength: 120 });
const Description = () => Type.String({ maxLength: 4_000 });

// --- Tool descriptor (spec 7.1) ---

/** The origins an MCP Apps view declares for one CSP directive (`connectDomains`, `resourceDomains`). */
const ViewOrigins = () => Type.Array(Type.String({ minLength: 1, maxLength: 256, pattern: "^[^\\s;,']+$" }), { maxItems: 32, uniqueItems: true });

export const ToolDescriptorSchema = /* @__PURE__ */ declared(() => Closed(
  {
    method: Type.String({ minLength: 3, maxLength: 128, pattern: TOOL_DESCRIPTOR_METHOD_PATTERN }),
    contract_version: Type.String({ minLength: 1, maxLength: 9, pattern: CONTRACT_VERSION_PATTERN }),
    title: Type.Optional(Title()),
    description: Type.Optional(Description()),
    input_schema: JsonObjectSchema({ description: "JSON Schema (draft 2020-12) of the call's arguments; describes an object." }),
    output_schema: JsonObjectSchema({ description: "JSON Schema (draft 2020-12) of the call's one terminal result." }),
    call_model: Type.Optional(StringEnum(CALL_MODELS)),
    handling: Type.Optional(StringEnum(TOOL_HANDLINGS)),
    delivery: Type.Optional(StringEnum(TOOL_DELIVERIES)),
    activation_requirement: Type.Optional(StringEnum(ACTIVATION_REQUIREMENTS)),
    launch_policy: Type.Optional(StringEnum(LAUNCH_POLICIES)),
    entrypoint: Type.Optional(EntrypointIdSchema()),
    requires_foreground: Type.Optional(Type.Boolean()),
    restore_focus: Type.Optional(Type.Boolean()),
    timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TOOL_TIMEOUT_MS })),
    idempotent: Type.Optional(Type.Boolean()),
    risk_level: Type.Optional(StringEnum(RISK_LEVELS)),
    capabilities: Type.Optional(Type.Array(CapabilityNameSchema(), { uniqueItems: true, maxItems: 16 })),
    /** Served by a tool of one of the app's MCP back-ends (`backends[]`), not by a surface: that back-end's `id` and the MCP tool's name. */
    backend: Type.Optional(Closed({ id: Type.String({ minLength: 1, maxLength: 64, pattern: PART_ID_PATTERN }), method: Type.String({ minLength: 1, maxLength: 96, pattern: MCP_TOOL_NAME_PATTERN }) })),
    /**
     * An MCP Apps view (`_meta.ui.resourceUri` of the MCP tool): the `ui://` resource of the same back-end that shows the
     * call. `csp`: the origins the view's resource declares (`_meta.ui.csp`), read when the bundle was made, so the install
     * review lists them; a person's grant covers only origins declared both here and in the live resource.
     */
    view: Type.Optional(
      Closed({
        resource_uri: Type.String({ minLength: 6, maxLength: 512, pattern: "^ui://[^\\s]+$" }),
        csp: Type.Optional(Closed({ connect_domains: Type.Optional(ViewOrigins()), resource_domains: Type.Optional(ViewOrigins()) })),
      }),
    ),
  },
  { $id: schemaId("tool-descriptor.v1"), title: "Tool descriptor v1" },
));
export type ToolDescriptor = Static<typeof ToolDescriptorSchema>;
const ToolDescriptorRef = /* @__PURE__ */ declared(() => Type.Unsafe<ToolDescriptor>(Type.Ref(schemaId("tool-descriptor.v1"))));

// --- Manifest parts ---

export const EntrypointSchema = /* @__PURE__ */ declared(() =>
  Closed({
    id: EntrypointIdSchema(),
    kind: StringEnum(ENTRYPOINT_KINDS),
    default_eligible: Type.Optional(Type.Boolean()),
    display_modes: Type.Optional(Type.Array(StringEnum(DISPLAY_MODES), { uniqueItems: true, maxItems: DISPLAY_MODES.length })),
    path: Type.Optional(Type.String({ minLength: 6, maxLength: 255, pattern: ENTRYPOINT_PATH_PATTERN })),
    title: Type.Optional(Title()),
  }),
);
export type Entrypoint = Static<typeof EntrypointSchema>;

export const AgentSubscriptionSchema = /* @__PURE__ */ declared(() => Closed({
  type: StringEnum(SUBSCRIBABLE_ENVELOPE_TYPES),
  scope: StringEnum(SUBSCRIPTION_SCOPES),
  /** A capability the app declares: messages of this subscription reach it only while the person has granted it that capability. */
  capability: Type.Optional(CapabilityNameSchema()),
}));
export type AgentSubscription = Static<typeof AgentSubscriptionSchema>;

export const CapabilityDeclarationSchema = /* @__PURE__ */ declared(() => Closed({
  name: CapabilityNameSchema(),
  purpose: Type.String({ minLength: 1, maxLength: 500 }),
}));
export type CapabilityDeclaration = Static<typeof CapabilityDeclarationSchema>;

export const EventDeclarationSchema = /* @__PURE__ */ declared(() => Closed({
  name: Type.String({ minLength: 1, maxLength: 96, pattern: EVENT_NAME_PATTERN }),
  description: Type.Optional(Description()),
  data_schema: Type.Optional(JsonObjectSchema({ description: "JSON Schema (draft 2020-12) of the event's data." })),
}));
export type EventDeclaration = Static<typeof EventDeclarationSchema>;

export const RuntimeSdkRequirementSchema = /* @__PURE__ */ declared(() => Closed({
  api_version: Type.String({ minLength: 1, maxLength: 9, pattern: "^[1-9][0-9]*$" }),
  required_features: Type.Array(FeatureNameSchema(), { uniqueItems: true, maxItems: 64 }),
  optional_features: Type.Optional(Type.Array(FeatureNameSchema(), { uniqueItems: true, maxItems: 64 })),
}));
export type RuntimeSdkRequirement = Static<typeof RuntimeSdkRequirementSchema>;

/**
 * The agent tasks an app may start (feature `app.agent-task.v1`, docs/manifest.md): each entry is one thing
 * its UI asks of the agent, with the tools the agent may be given for it (`app_scope` absent: the app's own).
 */
export const AgentTaskEntrySchema = /* @__PURE__ */ declared(() => Closed({
  id: Type.String({ minLength: 1, maxLength: 64, pattern: "^[a-z][a-z0-9_.-]*$" }),
  title: Type.String({ minLength: 1, maxLength: 120 }),
  description: Type.Optional(Description()),
  tools: Type.Optional(
    Type.Array(
      Closed({ app_scope: Type.Optional(AppScopeSchema()), method: Type.String({ minLength: 3, maxLength: 128, pattern: TOOL_DESCRIPTOR_METHOD_PATTERN }) }),
      { maxItems: 64 },
    ),
  ),
}));
export type AgentTaskEntry = Static<typeof AgentTaskEntrySchema>;
export const AgentTasksDeclarationSchema = /* @__PURE__ */ declared(() => Closed({ entries: Type.Array(AgentTaskEntrySchema, { minItems: 1, maxItems: 32 }) }));

// --- The manifest (spec 9) ---


/** The app's name and description in other languages, by language tag; a host shows the one for its UI language. */
export const LocalizedTextsSchema = /* @__PURE__ */ declared(() => Type.Record(
  Type.String({ pattern: MANIFEST_LOCALE_PATTERN }),
  Closed({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 80 })), description: Type.Optional(Type.String({ maxLength: 2_000 })) }, { minProperties: 1 }),
  { maxProperties: 32, additionalProperties: false },
));
export type LocalizedTexts = Static<typeof LocalizedTextsSchema>;

export const AppManifestSchema = /* @__PURE__ */ declared(() => Closed(
  {
    format: Type.Literal(MANIFEST_FORMAT),
    app_scope: AppScopeSchema(),
    version: Type.String({ maxLength: 64, pattern: SEMVER_PATTERN }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 80 })),
    description: Type.Optional(Type.String({ maxLength: 2_000 })),
    localized: Type.Optional(LocalizedTextsSchema),
    runtime_sdk: RuntimeSdkRequirementSchema,
    entrypoints: Type.Array(EntrypointSchema, { minItems: 1, maxItems: 32 }),
    agent_subscriptions: Type.Optional(Type.Array(AgentSubscriptionSchema, { maxItems: 64 })),
    tools: Type.Optional(Type.Array(ToolDescriptorRef, { maxItems: 128 })),
    capabilities: Type.Optional(Type.Array(CapabilityDeclarationSchema, { maxItems: 32 })),
    events: Type.Optional(Type.Array(EventDeclarationSchema, { maxItems: 128 })),
    storage: Type.Optional(StorageRequestSchema),
    agent_tasks: Type.Optional(AgentTasksDeclarationSchema),
    execution: Type.Optional(ExecutionDeclarationSchema),
    backends: Type.Optional(Type.Array(BackendDeclarationSchema, { maxItems: 16 })),
    workflows: Type.Optional(Type.Array(WorkflowDeclarationSchema, { maxItems: 32 })),
  },
  { $id: schemaId("app-manifest.v1"), title: "App manifest lineup.app.v1" },
));
export type AppManifest = Static<typeof AppManifestSchema>;

/** Every schema with an `$id` this module declares, for the validator generator. */
export const MANIFEST_SCHEMAS = [ToolDescriptorSchema, AppManifestSchema, CapabilityResultSchema] as const;
