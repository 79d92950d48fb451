/**
 * What an app runs besides its pages (spec 003 "Workflow / Worker / App Backend Runtime", "数据生命周期",
 * "执行模式"): where it executes (`execution`), its own storage namespace (`storage` collections and
 * migrations), the back-ends the host starts and supervises for it (`backends`), and the workflows the
 * Runtime runs for it (`workflows`). Every part is declared here, validated at install (`app-code-rules.ts`)
 * and shown in the install review before any of it runs.
 *
 * Objects are closed; what a schema cannot say (references between parts, plane and protocol pairs, the
 * order of migrations, step inputs that name earlier steps) is checked by `app-code-rules.ts`.
 */
import { Type, type Static } from "@sinclair/typebox";
import { AppScopeSchema, Closed, JsonObjectSchema, JsonValueSchema, StringEnum, declared } from "../schema-kit.js";
import { CAPABILITY_NAME_PATTERN, type CapabilityName } from "./capabilities.js";
import type { AppManifest } from "./schemas.js";
import { DEFAULT_APP_STORAGE_QUOTA_BYTES } from "./terms.js";

// --- Execution mode ---

/** `local`: everything on the device; `hybrid`: a local Runtime using remote services; `server-assisted`: part of the work happens on a server the manifest names. */
export const EXECUTION_MODES = ["local", "hybrid", "server-assisted"] as const;
export type ExecutionMode = (typeof EXECUTION_MODES)[number];

/** A lowercase id: `search`, `import-files`. */
export const PART_ID_PATTERN = "^[a-z][a-z0-9_-]*$";
/** A relative POSIX path inside the bundle; no segment starts with a dot. */
export const BUNDLE_FILE_PATTERN = "^(?:[A-Za-z0-9_-][A-Za-z0-9._-]*/)*[A-Za-z0-9_-][A-Za-z0-9._-]*$";
/** An https origin and path (no credentials, no fragment): where a server-assisted app's data goes. */
export const ENDPOINT_URL_PATTERN = "^https://[a-z0-9.-]+(?::[0-9]{1,5})?(?:/[A-Za-z0-9._~/-]*)?$";

const PartId = () => Type.String({ minLength: 1, maxLength: 64, pattern: PART_ID_PATTERN });
const Words = (maxLength: number) => Type.String({ minLength: 1, maxLength });

export const ExecutionEndpointSchema = /* @__PURE__ */ declared(() => Closed({
  id: PartId(),
  /** An https URL (a test host may allow `http://127.0.0.1`); the Runtime calls it, never the app. */
  url: Type.String({ minLength: 9, maxLength: 512 }),
  /** Why the app sends data there, in the author's words, shown in the install review. */
  purpose: Words(300),
}));
export type ExecutionEndpoint = Static<typeof ExecutionEndpointSchema>;

export const ExecutionDeclarationSchema = /* @__PURE__ */ declared(() => Closed({
  mode: StringEnum(EXECUTION_MODES),
  /** `server-assisted` only: every server the Runtime may call for the app. */
  endpoints: Type.Optional(Type.Array(ExecutionEndpointSchema, { minItems: 1, maxItems: 8 })),
  /** `server-assisted` only: what data leaves the device and what stays, in the author's words. */
  data_boundary: Type.Optional(Words(1_000)),
}));
export type ExecutionDeclaration = Static<typeof ExecutionDeclarationSchema>;

// --- App storage ---

export const MAX_APP_STORAGE_QUOTA_BYTES = 1024 * 1024 * 1024;
export { DEFAULT_APP_STORAGE_QUOTA_BYTES };
/** Collections an app names: lowercase, so the Runtime's own (`lineup.*`) never collide. */
export const STORAGE_COLLECTION_PATTERN = "^[a-z][a-z0-9_-]*$";
export const MAX_STORAGE_SCHEMA_VERSION = 10_000;

const CollectionName = () => Type.String({ minLength: 1, maxLength: 64, pattern: STORAGE_COLLECTION_PATTERN });
/** A JSON Pointer into a record's value (RFC 6901), not the whole value: `/title`, `/tags/0`. */
const FieldPointer = () => Type.String({ minLength: 2, maxLength: 256, pattern: "^(?:/(?:[^~/]|~[01])*)+$" });

export const StorageCollectionSchema = /* @__PURE__ */ declared(() => Closed({
  name: CollectionName(),
  description: Type.Optional(Words(500)),
  /** JSON Schema (draft 2020-12) every value written to the collection must pass. */
  value_schema: Type.Optional(JsonObjectSchema()),
}));
export type StorageCollection = Static<typeof StorageCollectionSchema>;

/** What a migration step does to the stored records; each migration runs in one transaction. */
export const STORAGE_MIGRATION_OPS = ["create_collection", "drop_collection", "rename_collection", "set_field", "remove_field", "rename_field"] as const;
export type StorageMigrationOp = (typeof STORAGE_MIGRATION_OPS)[number];

export const StorageMigrationStepSchema = /* @__PURE__ */ declared(() => Closed({
  op: StringEnum(STORAGE_MIGRATION_OPS),
  collection: CollectionName(),
  /** `rename_collection`: the new name. */
  to: Type.Optional(CollectionName()),
  /** `set_field`, `remove_field`: the field; `rename_field`: its old place. */
  field: Type.Optional(FieldPointer()),
  /** `rename_field`: the new place. */
  to_field: Type.Optional(FieldPointer()),
  /** `set_field`: the value given to records that lack the field. */
  value: Type.Optional(JsonValueSchema()),
}));
export type StorageMigrationStep = Static<typeof StorageMigrationStepSchema>;

export const StorageMigrationSchema = /* @__PURE__ */ declared(() => Closed({
  /** The schema version this migration brings the data to (from the one before). */
  to_version: Type.Integer({ minimum: 2, maximum: MAX_STORAGE_SCHEMA_VERSION }),
  steps: Type.Array(StorageMigrationStepSchema, { minItems: 1, maxItems: 64 }),
}));
export type StorageMigration = Static<typeof StorageMigrationSchema>;

export const MAX_SESSION_DATA_QUOTA_BYTES = 64 * 1024 * 1024;

export const StorageRequestSchema = /* @__PURE__ */ declared(() => Closed({
  session_data_quota_bytes: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_SESSION_DATA_QUOTA_BYTES })),
  /** Bytes the app's own storage may hold (keys and values); default 10 MiB. */
  quota_bytes: Type.Optional(Type.Integer({ minimum: 1_024, maximum: MAX_APP_STORAGE_QUOTA_BYTES })),
  /** The version of the collections below; migrations bring older data up to it. */
  schema_version: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_STORAGE_SCHEMA_VERSION })),
  collections: Type.Optional(Type.Array(StorageCollectionSchema, { minItems: 1, maxItems: 64 })),
  migrations: Type.Optional(Type.Array(StorageMigrationSchema, { maxItems: 256 })),
}));
export type StorageRequest = Static<typeof StorageRequestSchema>;

// --- Back-ends ---

export const BACKEND_PLANES = ["client-local", "cloud-remote"] as const;
export type BackendPlane = (typeof BACKEND_PLANES)[number];
export const BACKEND_PROTOCOLS = ["stdio-jsonrpc", "local-http", "wasm", "remote-http", "mcp-stdio", "mcp-http"] as const;
export type BackendProtocol = (typeof BACKEND_PROTOCOLS)[number];
/** The program a `stdio-jsonrpc` back-end runs on. */
export const BACKEND_RUNTIMES = ["node"] as const;
export const RESTART_POLICIES = ["never", "on-failure", "always"] as const;
/** A back-end method: `search`, `index.add`. */
export const BACKEND_METHOD_PATTERN = "^[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)*$";
/** An MCP back-end's method is the name of one of its server's tools (MCP's own rule for tool names). */
export const MCP_TOOL_NAME_PATTERN = "^[A-Za-z0-9_][A-Za-z0-9_.-]*$";
/** The MCP back-end protocols: `mcp-stdio` (a program on this device), `mcp-http` (Streamable HTTP, a remote endpoint). */
export const MCP_BACKEND_PROTOCOLS: readonly BackendProtocol[] = ["mcp-stdio", "mcp-http"];

export const BackendLimitsSchema = /* @__PURE__ */ declared(() => Closed({
  /** Memory the back-end may hold (a wasm module's linear memory; a process's resident memory). Default 64. */
  memory_mb: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_048 })),
  /** Wall time one call may take before it is killed and answered `operation_expired`. Default 10,000. */
  call_timeout_ms: Type.Optional(Type.Integer({ minimum: 10, maximum: 600_000 })),
  /** Calls in flight at once; more are refused `overloaded`. Default 4. */
  max_concurrent_calls: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
}));
export type BackendLimits = Static<typeof BackendLimitsSchema>;

export const BackendRestartSchema = /* @__PURE__ */ declared(() => Closed({
  policy: StringEnum(RESTART_POLICIES),
  /** Restarts within one run of the Runtime before the back-end is left stopped. Default 5. */
  max_restarts: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
  /** The first wait before a restart; it doubles each time, up to a minute. Default 500. */
  backoff_ms: Type.Optional(Type.Integer({ minimum: 10, maximum: 60_000 })),
}));

export const BackendMethodSchema = /* @__PURE__ */ declared(() => Closed({
  /** `^[a-z][a-z0-9_]*(\.…)*$`; an MCP back-end's may be any MCP tool name (the rules check which applies). */
  name: Type.String({ minLength: 1, maxLength: 96, pattern: MCP_TOOL_NAME_PATTERN }),
  description: Type.Optional(Words(500)),
  params_schema: Type.Optional(JsonObjectSchema()),
  result_schema: Type.Optional(JsonObjectSchema()),
}));
export type BackendMethod = Static<typeof BackendMethodSchema>;

const CapabilityNameSchema = () => Type.Unsafe<CapabilityName>({ type: "string", minLength: 3, maxLength: 64, pattern: CAPABILITY_NAME_PATTERN });

export const BackendDeclarationSchema = /* @__PURE__ */ declared(() => Closed({
  id: PartId(),
  title: Type.Optional(Words(120)),
  plane: StringEnum(BACKEND_PLANES),
  protocol: StringEnum(BACKEND_PROTOCOLS),
  /** `wasm`: the module (`.wasm`); `stdio-jsonrpc`: the program (`.js`/`.mjs` for `node`). A file of the bundle. */
  entry: Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: BUNDLE_FILE_PATTERN })),
  /** `stdio-jsonrpc`: what runs `entry`. */
  runtime: Type.Optional(StringEnum(BACKEND_RUNTIMES)),
  /** `mcp-stdio`: the arguments its program gets after `entry` (`--stdio`). */
  args: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 32 })),
  /** `remote-http`: the id of one of `execution.endpoints`. */
  endpoint: Type.Optional(PartId()),
  /** The methods a surface or a workflow may call; any other is `method_not_found`. */
  methods: Type.Array(BackendMethodSchema, { minItems: 1, maxItems: 64 }),
  limits: Type.Optional(BackendLimitsSchema),
  restart: Type.Optional(BackendRestartSchema),
  /** Device capabilities it may request (declared in `capabilities`), through the same gateway as a surface. */
  capabilities: Type.Optional(Type.Array(CapabilityNameSchema(), { uniqueItems: true, maxItems: 16 })),
  /** Whether it may read and write the app's storage. */
  storage: Type.Optional(Type.Boolean()),
  /** A host without its protocol still installs the app; calls to it are `unsupported_on_host`. */
  optional: Type.Optional(Type.Boolean()),
}));
export type BackendDeclaration = Static<typeof BackendDeclarationSchema>;

// --- Workflows ---

/** The allowlisted step kinds of the workflow DSL. */
export const WORKFLOW_STEP_KINDS = [
  "tool",
  "agent.task",
  "storage.get",
  "storage.put",
  "storage.delete",
  "storage.list",
  "artifact.create",
  "evidence.record",
  "backend.call",
  "confirm",
] as const;
export type WorkflowStepKind = (typeof WORKFLOW_STEP_KINDS)[number];

/**
 * A step's input: any JSON, where an object `{ "$from": "<pointer>" }` is replaced by the value at that JSON
 * Pointer of the run: `/input/...` (the run's input) or `/steps/<id>/output/...` (an earlier step's output).
 */
export const WorkflowTemplateSchema = () => JsonValueSchema();

export const WorkflowStepSchema = /* @__PURE__ */ declared(() => Closed({
  id: PartId(),
  kind: StringEnum(WORKFLOW_STEP_KINDS),
  title: Type.Optional(Words(120)),
  /** `tool`: the tool (`app_scope` absent: the app's own). */
  tool: Type.Optional(Closed({ app_scope: Type.Optional(AppScopeSchema()), method: Type.String({ minLength: 3, maxLength: 128 }) })),
  /** `agent.task`: the `agent_tasks` entry. */
  entry: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  /** `storage.*`: the collection. */
  collection: Type.Optional(CollectionName()),
  /** `backend.call`: the back-end and its method. */
  backend: Type.Optional(PartId()),
  method: Type.Optional(Type.String({ minLength: 1, maxLength: 96, pattern: BACKEND_METHOD_PATTERN })),
  /** `agent.task`: the result's JSON Schema. */
  output_schema: Type.Optional(JsonObjectSchema()),
  /** The step's input (see the template rule above); what each kind reads from it is in docs/manifest.md. */
  input: Type.Optional(WorkflowTemplateSchema()),
  retry: Type.Optional(Closed({ max_attempts: Type.Integer({ minimum: 1, maximum: 10 }), backoff_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 600_000 })) })),
  timeout_ms: Type.Optional(Type.Integer({ minimum: 10, maximum: 86_400_000 })),
  /** What a failure after the last attempt does: end the run (`fail`, default), go on with a null output (`continue`), or go to a later step. */
  on_error: Type.Optional(Type.Union([StringEnum(["fail", "continue"] as const), Closed({ goto: PartId() })])),
}));
export type WorkflowStep = Static<typeof WorkflowStepSchema>;

export const WorkflowDeclarationSchema = /* @__PURE__ */ declared(() => Closed({
  id: PartId(),
  title: Words(120),
  description: Type.Optional(Words(1_000)),
  input_schema: Type.Optional(JsonObjectSchema()),
  steps: Type.Array(WorkflowStepSchema, { minItems: 1, maxItems: 64 }),
  /** The run's output, a template over the run like a step's input. Default: the last step's output. */
  output: Type.Optional(WorkflowTemplateSchema()),
}));
export type WorkflowDeclaration = Static<typeof WorkflowDeclarationSchema>;

/** Every collection a storage declaration names, now or in a migration: what the app's store may hold. */
export function storageCollectionsOf(manifest: Pick<AppManifest, "storage">): string[] {
  const names = new Set<string>((manifest.storage?.collections ?? []).map((c) => c.name));
  for (const migration of manifest.storage?.migrations ?? []) {
    for (const step of migration.steps) {
      names.add(step.collection);
      if (step.to !== undefined) names.add(step.to);
    }
  }
  return [...names].sort();
}
