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
export const SUBSCRIBABLE_ENVELOPE_TYPES: readonly EnvelopeType[] = /* @__PURE__ */ Object.values(ENVELOPE_TYPE_TERMS)
  .filter((spec) => (spec.targets as readonly string[]).includes("app"))
  .map((spec) => spec.type as EnvelopeType);

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

export const ToolDescriptorSchema = /* @__PURE__ */ Closed(
  {
    method: /* @__PURE__ */ Type.String({ minLength: 3, maxLength: 128, pattern: TOOL_DESCRIPTOR_METHOD_PATTERN }),
    contract_version: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 9, pattern: CONTRACT_VERSION_PATTERN }),
    title: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Title()),
    description: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Description()),
    input_schema: /* @__PURE__ */ JsonObjectSchema({ description: "JSON Schema (draft 2020-12) of the call's arguments; describes an object." }),
    output_schema: /* @__PURE__ */ JsonObjectSchema({ description: "JSON Schema (draft 2020-12) of the call's one terminal result." }),
    call_model: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ StringEnum(CALL_MODELS)),
    handling: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ StringEnum(TOOL_HANDLINGS)),
    delivery: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ StringEnum(TOOL_DELIVERIES)),
    activation_requirement: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ StringEnum(ACTIVATION_REQUIREMENTS)),
    launch_policy: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ StringEnum(LAUNCH_POLICIES)),
    entrypoint: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ EntrypointIdSchema()),
    requires_foreground: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Boolean()),
    restore_focus: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Boolean()),
    timeout_ms: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Integer({ minimum: 1, maximum: MAX_TOOL_TIMEOUT_MS })),
    idempotent: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Boolean()),
    risk_level: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ StringEnum(RISK_LEVELS)),
    capabilities: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Array(/* @__PURE__ */ CapabilityNameSchema(), { uniqueItems: true, maxItems: 16 })),
    /** Served by a tool of one of the app's MCP back-ends (`backends[]`), not by a surface: that back-end's `id` and the MCP tool's name. */
    backend: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Closed({ id: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 64, pattern: PART_ID_PATTERN }), method: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 96, pattern: MCP_TOOL_NAME_PATTERN }) })),
    /**
     * An MCP Apps view (`_meta.ui.resourceUri` of the MCP tool): the `ui://` resource of the same back-end that shows the
     * call. `csp`: the origins the view's resource declares (`_meta.ui.csp`), read when the bundle was made, so the install
     * review lists them; a person's grant covers only origins declared both here and in the live resource.
     */
    view: /* @__PURE__ */ Type.Optional(
      /* @__PURE__ */ Closed({
        resource_uri: /* @__PURE__ */ Type.String({ minLength: 6, maxLength: 512, pattern: "^ui://[^\\s]+$" }),
        csp: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Closed({ connect_domains: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ ViewOrigins()), resource_domains: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ ViewOrigins()) })),
      }),
    ),
  },
  { $id: /* @__PURE__ */ schemaId("tool-descriptor.v1"), title: "Tool descriptor v1" },
);
export type ToolDescriptor = Static<typeof ToolDescriptorSchema>;
const ToolDescriptorRef = /* @__PURE__ */ Type.Unsafe<ToolDescriptor>(/* @__PURE__ */ Type.Ref(/* @__PURE__ */ schemaId("tool-descriptor.v1")));

// --- Manifest parts ---

export const EntrypointSchema = /* @__PURE__ */ declared(() =>
  /* @__PURE__ */ Closed({
    id: /* @__PURE__ */ EntrypointIdSchema(),
    kind: /* @__PURE__ */ StringEnum(ENTRYPOINT_KINDS),
    default_eligible: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Boolean()),
    display_modes: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Array(/* @__PURE__ */ StringEnum(DISPLAY_MODES), { uniqueItems: true, maxItems: DISPLAY_MODES.length })),
    path: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.String({ minLength: 6, maxLength: 255, pattern: ENTRYPOINT_PATH_PATTERN })),
    title: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Title()),
  }),
);
export type Entrypoint = Static<typeof EntrypointSchema>;

export const AgentSubscriptionSchema = /* @__PURE__ */ Closed({
  type: /* @__PURE__ */ StringEnum(SUBSCRIBABLE_ENVELOPE_TYPES),
  scope: /* @__PURE__ */ StringEnum(SUBSCRIPTION_SCOPES),
  /** A capability the app declares: messages of this subscription reach it only while the person has granted it that capability. */
  capability: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ CapabilityNameSchema()),
});
export type AgentSubscription = Static<typeof AgentSubscriptionSchema>;

export const CapabilityDeclarationSchema = /* @__PURE__ */ Closed({
  name: /* @__PURE__ */ CapabilityNameSchema(),
  purpose: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 500 }),
});
export type CapabilityDeclaration = Static<typeof CapabilityDeclarationSchema>;

export const EventDeclarationSchema = /* @__PURE__ */ Closed({
  name: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 96, pattern: EVENT_NAME_PATTERN }),
  description: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Description()),
  data_schema: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ JsonObjectSchema({ description: "JSON Schema (draft 2020-12) of the event's data." })),
});
export type EventDeclaration = Static<typeof EventDeclarationSchema>;

export const RuntimeSdkRequirementSchema = /* @__PURE__ */ Closed({
  api_version: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 9, pattern: "^[1-9][0-9]*$" }),
  required_features: /* @__PURE__ */ Type.Array(/* @__PURE__ */ FeatureNameSchema(), { uniqueItems: true, maxItems: 64 }),
  optional_features: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Array(/* @__PURE__ */ FeatureNameSchema(), { uniqueItems: true, maxItems: 64 })),
});
export type RuntimeSdkRequirement = Static<typeof RuntimeSdkRequirementSchema>;

/**
 * The agent tasks an app may start (feature `app.agent-task.v1`, docs/manifest.md): each entry is one thing
 * its UI asks of the agent, with the tools the agent may be given for it (`app_scope` absent: the app's own).
 */
export const AgentTaskEntrySchema = /* @__PURE__ */ Closed({
  id: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 64, pattern: "^[a-z][a-z0-9_.-]*$" }),
  title: /* @__PURE__ */ Type.String({ minLength: 1, maxLength: 120 }),
  description: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Description()),
  tools: /* @__PURE__ */ Type.Optional(
    /* @__PURE__ */ Type.Array(
      /* @__PURE__ */ Closed({ app_scope: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ AppScopeSchema()), method: /* @__PURE__ */ Type.String({ minLength: 3, maxLength: 128, pattern: TOOL_DESCRIPTOR_METHOD_PATTERN }) }),
      { maxItems: 64 },
    ),
  ),
});
export type AgentTaskEntry = Static<typeof AgentTaskEntrySchema>;
export const AgentTasksDeclarationSchema = /* @__PURE__ */ Closed({ entries: /* @__PURE__ */ Type.Array(AgentTaskEntrySchema, { minItems: 1, maxItems: 32 }) });

// --- The manifest (spec 9) ---


/** The app's name and description in other languages, by language tag; a host shows the one for its UI language. */
export const LocalizedTextsSchema = /* @__PURE__ */ Type.Record(
  /* @__PURE__ */ Type.String({ pattern: MANIFEST_LOCALE_PATTERN }),
  /* @__PURE__ */ Closed({ name: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.String({ minLength: 1, maxLength: 80 })), description: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.String({ maxLength: 2_000 })) }, { minProperties: 1 }),
  { maxProperties: 32, additionalProperties: false },
);
export type LocalizedTexts = Static<typeof LocalizedTextsSchema>;

export const AppManifestSchema = /* @__PURE__ */ Closed(
  {
    format: /* @__PURE__ */ Type.Literal(MANIFEST_FORMAT),
    app_scope: /* @__PURE__ */ AppScopeSchema(),
    version: /* @__PURE__ */ Type.String({ maxLength: 64, pattern: SEMVER_PATTERN }),
    name: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.String({ minLength: 1, maxLength: 80 })),
    description: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.String({ maxLength: 2_000 })),
    localized: /* @__PURE__ */ Type.Optional(LocalizedTextsSchema),
    runtime_sdk: RuntimeSdkRequirementSchema,
    entrypoints: /* @__PURE__ */ Type.Array(EntrypointSchema, { minItems: 1, maxItems: 32 }),
    agent_subscriptions: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Array(AgentSubscriptionSchema, { maxItems: 64 })),
    tools: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Array(ToolDescriptorRef, { maxItems: 128 })),
    capabilities: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Array(CapabilityDeclarationSchema, { maxItems: 32 })),
    events: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Array(EventDeclarationSchema, { maxItems: 128 })),
    storage: /* @__PURE__ */ Type.Optional(StorageRequestSchema),
    agent_tasks: /* @__PURE__ */ Type.Optional(AgentTasksDeclarationSchema),
    execution: /* @__PURE__ */ Type.Optional(ExecutionDeclarationSchema),
    backends: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Array(BackendDeclarationSchema, { maxItems: 16 })),
    workflows: /* @__PURE__ */ Type.Optional(/* @__PURE__ */ Type.Array(WorkflowDeclarationSchema, { maxItems: 32 })),
  },
  { $id: /* @__PURE__ */ schemaId("app-manifest.v1"), title: "App manifest lineup.app.v1" },
);
export type AppManifest = Static<typeof AppManifestSchema>;

/** Every schema with an `$id` this module declares, for the validator generator. */
export const MANIFEST_SCHEMAS = [ToolDescriptorSchema, AppManifestSchema, CapabilityResultSchema] as const;
