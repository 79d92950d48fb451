/**
 * The rules of `execution`, `storage`, `backends` and `workflows` a schema cannot say (app-code.ts): references
 * between the parts, plane and protocol pairs, the order of migrations, and workflow steps that read only the
 * run's input and earlier steps. Each refusal is `manifest_invalid` (or the more precise code the manifest table
 * gives) with a JSON Pointer. Pure.
 */
import { fail, type ProtocolError } from "../errors.js";
import { escapePointerToken, type JsonValue } from "../json.js";
import { checkJsonSchema } from "./json-schema-check.js";
import { BACKEND_METHOD_PATTERN, ENDPOINT_URL_PATTERN, MCP_BACKEND_PROTOCOLS, type BackendDeclaration, type StorageMigrationStep, type WorkflowDeclaration } from "./app-code.js";
import type { AppManifest } from "./schemas.js";

type Refusal = { ok: false; error: ProtocolError };

const invalid = (path: string, message: string): Refusal => fail("manifest_invalid", message, path);

function schemaProblem(schema: unknown, at: string, requireObjectRoot = false): Refusal | undefined {
  const checked = checkJsonSchema(schema, { requireObjectRoot });
  if (checked.ok) return undefined;
  return fail(checked.error.code, `${at}: ${checked.error.message}`, `${at}${checked.error.path ?? ""}`);
}

function featuresOf(manifest: AppManifest): Set<string> {
  return new Set([...manifest.runtime_sdk.required_features, ...(manifest.runtime_sdk.optional_features ?? [])]);
}

const ENDPOINT_URL = new RegExp(ENDPOINT_URL_PATTERN);
/** A loopback http URL: what a developer's test server is; never a remote host. */
const LOOPBACK_URL = /^http:\/\/(?:127\.0\.0\.1|localhost|\[::1\])(?::[0-9]{1,5})?(?:\/[A-Za-z0-9._~/-]*)?$/;

/** Whether the Runtime may call `url` for a server-assisted app: https anywhere, or plain http on this machine. */
export function isAllowedEndpointUrl(url: string): boolean {
  return ENDPOINT_URL.test(url) || LOOPBACK_URL.test(url);
}

function checkExecution(manifest: AppManifest): Refusal | undefined {
  const execution = manifest.execution;
  const backends = manifest.backends ?? [];
  const mode = execution?.mode ?? "local";
  if (mode !== "server-assisted") {
    if (execution?.endpoints !== undefined) return invalid("/execution/endpoints", `a ${mode} app sends nothing to a server: endpoints need execution.mode server-assisted`);
    if (execution?.data_boundary !== undefined) return invalid("/execution/data_boundary", `a ${mode} app has no data boundary to state: it needs execution.mode server-assisted`);
    const remote = backends.findIndex((b) => b.plane === "cloud-remote");
    if (remote >= 0) return invalid(`/backends/${remote}/plane`, "a cloud-remote back-end needs execution.mode server-assisted");
    return undefined;
  }
  if (execution?.endpoints === undefined) return invalid("/execution", "a server-assisted app names every server it sends data to (execution.endpoints)");
  if (execution.data_boundary === undefined) return invalid("/execution", "a server-assisted app says what data leaves the device (execution.data_boundary)");
  const ids = new Set<string>();
  for (const [i, endpoint] of execution.endpoints.entries()) {
    if (ids.has(endpoint.id)) return invalid(`/execution/endpoints/${i}/id`, `endpoint "${endpoint.id}" is declared twice`);
    ids.add(endpoint.id);
    if (!isAllowedEndpointUrl(endpoint.url)) return invalid(`/execution/endpoints/${i}/url`, `endpoint "${endpoint.id}" must be an https URL without credentials, query or fragment (plain http only on 127.0.0.1)`);
  }
  return undefined;
}

const MIGRATION_FIELDS: Record<StorageMigrationStep["op"], readonly (keyof StorageMigrationStep)[]> = {
  create_collection: [],
  drop_collection: [],
  rename_collection: ["to"],
  set_field: ["field", "value"],
  remove_field: ["field"],
  rename_field: ["field", "to_field"],
};
const OPTIONAL_MIGRATION_FIELDS: readonly (keyof StorageMigrationStep)[] = ["to", "field", "to_field", "value"];

function checkStorage(manifest: AppManifest): Refusal | undefined {
  const storage = manifest.storage;
  if (storage === undefined) return undefined;
  const collections = storage.collections ?? [];
  const declaresStore = collections.length > 0 || storage.migrations !== undefined || storage.schema_version !== undefined || storage.quota_bytes !== undefined;
  if (!declaresStore) return undefined;
  if (collections.length === 0) return invalid("/storage", "app storage needs at least one collection (storage.collections)");
  if (!featuresOf(manifest).has("app.storage.v1")) return invalid("/storage", "app storage needs the feature app.storage.v1 in required_features or optional_features");
  const names = new Set<string>();
  for (const [i, collection] of collections.entries()) {
    if (names.has(collection.name)) return invalid(`/storage/collections/${i}/name`, `collection "${collection.name}" is declared twice`);
    names.add(collection.name);
    if (collection.value_schema !== undefined) {
      const problem = schemaProblem(collection.value_schema, `/storage/collections/${i}/value_schema`);
      if (problem !== undefined) return problem;
    }
  }
  const version = storage.schema_version ?? 1;
  let previous = 1;
  for (const [i, migration] of (storage.migrations ?? []).entries()) {
    const at = `/storage/migrations/${i}`;
    if (migration.to_version <= previous) return invalid(`${at}/to_version`, `migrations go up one version at a time: ${migration.to_version} follows ${previous}`);
    if (migration.to_version !== previous + 1) return invalid(`${at}/to_version`, `migration to version ${migration.to_version} skips version ${previous + 1}`);
    if (migration.to_version > version) return invalid(`${at}/to_version`, `migration to version ${migration.to_version} is past storage.schema_version ${version}`);
    previous = migration.to_version;
    for (const [j, step] of migration.steps.entries()) {
      const needed = MIGRATION_FIELDS[step.op];
      for (const field of OPTIONAL_MIGRATION_FIELDS) {
        const present = step[field] !== undefined;
        if (needed.includes(field) && !present) return invalid(`${at}/steps/${j}`, `${step.op} needs ${field}`);
        if (!needed.includes(field) && present) return invalid(`${at}/steps/${j}/${field}`, `${step.op} takes no ${field}`);
      }
    }
  }
  if ((storage.migrations ?? []).length > 0 && previous !== version) {
    return invalid("/storage/schema_version", `the migrations end at version ${previous}, but storage.schema_version is ${version}`);
  }
  return undefined;
}

const PLANE_PROTOCOLS: Record<BackendDeclaration["plane"], readonly BackendDeclaration["protocol"][]> = {
  "client-local": ["stdio-jsonrpc", "local-http", "wasm", "mcp-stdio"],
  "cloud-remote": ["remote-http", "mcp-http"],
};

function checkBackend(manifest: AppManifest, backend: BackendDeclaration, at: string, declaredCapabilities: ReadonlySet<string>): Refusal | undefined {
  if (!PLANE_PROTOCOLS[backend.plane].includes(backend.protocol)) {
    return invalid(`${at}/protocol`, `a ${backend.plane} back-end speaks ${PLANE_PROTOCOLS[backend.plane].join(" or ")}, not ${backend.protocol}`);
  }
  const remote = backend.plane === "cloud-remote";
  if (!remote && backend.entry === undefined) return invalid(`${at}/entry`, `a ${backend.protocol} back-end names its entry file in the bundle`);
  if (remote && backend.entry !== undefined) return invalid(`${at}/entry`, `a ${backend.protocol} back-end runs on its server: it has no entry file`);
  if (backend.protocol === "wasm" && !backend.entry!.endsWith(".wasm")) return invalid(`${at}/entry`, "a wasm back-end's entry is a .wasm module");
  if (backend.args !== undefined && backend.protocol !== "mcp-stdio") return invalid(`${at}/args`, `a ${backend.protocol} back-end takes no args`);
  if (backend.protocol === "stdio-jsonrpc" || backend.protocol === "local-http" || backend.protocol === "mcp-stdio") {
    if (backend.runtime === undefined) return invalid(`${at}/runtime`, `a ${backend.protocol} back-end names what runs it (runtime: node)`);
    if (!/\.(?:m?js|cjs)$/.test(backend.entry!)) return invalid(`${at}/entry`, "a node back-end's entry is a .js, .mjs or .cjs file");
  } else if (backend.runtime !== undefined) {
    return invalid(`${at}/runtime`, `a ${backend.protocol} back-end takes no runtime`);
  }
  if (remote) {
    if (backend.endpoint === undefined) return invalid(`${at}/endpoint`, `a ${backend.protocol} back-end names one of execution.endpoints`);
    if (!(manifest.execution?.endpoints ?? []).some((e) => e.id === backend.endpoint)) return invalid(`${at}/endpoint`, `endpoint "${backend.endpoint}" is not one of execution.endpoints`);
  } else if (backend.endpoint !== undefined) {
    return invalid(`${at}/endpoint`, `a ${backend.protocol} back-end runs on this device: it has no endpoint`);
  }
  const methods = new Set<string>();
  const mcp = MCP_BACKEND_PROTOCOLS.includes(backend.protocol);
  for (const [i, method] of backend.methods.entries()) {
    if (!mcp && !new RegExp(BACKEND_METHOD_PATTERN).test(method.name)) return invalid(`${at}/methods/${i}/name`, `method "${method.name}" is not dotted lowercase (only an MCP back-end's methods are its server's tool names)`);
    if (methods.has(method.name)) return invalid(`${at}/methods/${i}/name`, `method "${method.name}" is declared twice`);
    methods.add(method.name);
    for (const key of ["params_schema", "result_schema"] as const) {
      if (method[key] === undefined) continue;
      const problem = schemaProblem(method[key], `${at}/methods/${i}/${key}`);
      if (problem !== undefined) return problem;
    }
  }
  for (const [i, name] of (backend.capabilities ?? []).entries()) {
    if (!declaredCapabilities.has(name)) return fail("manifest_unknown_capability", `back-end ${backend.id} uses capability "${name}", which the manifest does not declare`, `${at}/capabilities/${i}`);
  }
  if (backend.storage === true && (manifest.storage?.collections ?? []).length === 0) return invalid(`${at}/storage`, `back-end ${backend.id} uses app storage, which the manifest does not declare`);
  return undefined;
}

function checkBackends(manifest: AppManifest): Refusal | undefined {
  const backends = manifest.backends ?? [];
  if (backends.length === 0) return undefined;
  if (!featuresOf(manifest).has("app.backend.v1")) return invalid("/backends", "back-ends need the feature app.backend.v1 in required_features or optional_features");
  const declaredCapabilities = new Set((manifest.capabilities ?? []).map((c) => c.name));
  const ids = new Set<string>();
  for (const [i, backend] of backends.entries()) {
    if (ids.has(backend.id)) return invalid(`/backends/${i}/id`, `back-end "${backend.id}" is declared twice`);
    ids.add(backend.id);
    const problem = checkBackend(manifest, backend, `/backends/${i}`, declaredCapabilities);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

const FROM_KEY = "$from";

/** Every `$from` pointer a workflow template names, with its place in the template. Bounded by the template's size. */
export function workflowTemplateRefs(template: JsonValue | undefined): { readonly pointer: string; readonly at: string }[] {
  const refs: { pointer: string; at: string }[] = [];
  const walk = (value: JsonValue | undefined, at: string, depth: number): void => {
    if (value === null || typeof value !== "object" || depth > 32) return;
    if (Array.isArray(value)) {
      value.forEach((item, i) => walk(item, `${at}/${i}`, depth + 1));
      return;
    }
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === FROM_KEY) {
      const pointer = value[FROM_KEY];
      refs.push({ pointer: typeof pointer === "string" ? pointer : "", at: `${at}/${FROM_KEY}` });
      return;
    }
    for (const key of keys) walk(value[key], `${at}/${escapePointerToken(key)}`, depth + 1);
  };
  walk(template, "", 0);
  return refs;
}

/** What the first segments of a `$from` pointer say: the run's input, or one step's output. */
function refTarget(pointer: string): { readonly kind: "input" } | { readonly kind: "step"; readonly step_id: string } | undefined {
  if (pointer === "/input" || pointer.startsWith("/input/")) return { kind: "input" };
  const match = /^\/steps\/([^/]+)\/output(?:\/.*)?$/.exec(pointer);
  return match === null ? undefined : { kind: "step", step_id: match[1]! };
}

const STEP_FIELDS: Record<WorkflowDeclaration["steps"][number]["kind"], readonly string[]> = {
  tool: ["tool"],
  "agent.task": ["entry"],
  "storage.get": ["collection"],
  "storage.put": ["collection"],
  "storage.delete": ["collection"],
  "storage.list": ["collection"],
  "artifact.create": [],
  "evidence.record": [],
  "backend.call": ["backend", "method"],
  confirm: [],
};
const KIND_FIELDS = ["tool", "entry", "collection", "backend", "method", "output_schema"] as const;

function checkWorkflow(manifest: AppManifest, workflow: WorkflowDeclaration, at: string): Refusal | undefined {
  if (workflow.input_schema !== undefined) {
    const problem = schemaProblem(workflow.input_schema, `${at}/input_schema`, true);
    if (problem !== undefined) return problem;
  }
  const collections = new Set((manifest.storage?.collections ?? []).map((c) => c.name));
  const entries = new Set((manifest.agent_tasks?.entries ?? []).map((e) => e.id));
  const ownTools = new Set((manifest.tools ?? []).map((t) => t.method));
  const seen = new Map<string, number>();
  for (const [i, step] of workflow.steps.entries()) {
    const stepAt = `${at}/steps/${i}`;
    if (seen.has(step.id)) return invalid(`${stepAt}/id`, `step "${step.id}" is declared twice in workflow ${workflow.id}`);
    seen.set(step.id, i);
    const needed = STEP_FIELDS[step.kind];
    for (const field of KIND_FIELDS) {
      const present = step[field] !== undefined;
      if (needed.includes(field) && !present) return invalid(stepAt, `a ${step.kind} step needs ${field}`);
      const allowed = needed.includes(field) || (field === "output_schema" && step.kind === "agent.task");
      if (!allowed && present) return invalid(`${stepAt}/${field}`, `a ${step.kind} step takes no ${field}`);
    }
    switch (step.kind) {
      case "tool":
        if ((step.tool!.app_scope === undefined || step.tool!.app_scope === manifest.app_scope) && !ownTools.has(step.tool!.method)) {
          return invalid(`${stepAt}/tool/method`, `the app declares no tool ${step.tool!.method}`);
        }
        break;
      case "agent.task":
        if (!entries.has(step.entry!)) return invalid(`${stepAt}/entry`, `"${step.entry}" is not one of agent_tasks.entries`);
        if (step.output_schema !== undefined) {
          const problem = schemaProblem(step.output_schema, `${stepAt}/output_schema`);
          if (problem !== undefined) return problem;
        }
        break;
      case "storage.get":
      case "storage.put":
      case "storage.delete":
      case "storage.list":
        if (!collections.has(step.collection!)) return invalid(`${stepAt}/collection`, `"${step.collection}" is not one of storage.collections`);
        break;
      case "backend.call": {
        const backend = (manifest.backends ?? []).find((b) => b.id === step.backend);
        if (backend === undefined) return invalid(`${stepAt}/backend`, `"${step.backend}" is not one of backends`);
        if (!backend.methods.some((m) => m.name === step.method)) return invalid(`${stepAt}/method`, `back-end ${backend.id} declares no method ${step.method}`);
        break;
      }
      default:
        break;
    }
    const problem = checkRefs(step.input, `${stepAt}/input`, seen, i);
    if (problem !== undefined) return problem;
    const onError = step.on_error;
    if (typeof onError === "object") {
      const target = workflow.steps.findIndex((s) => s.id === onError.goto);
      if (target <= i) return invalid(`${stepAt}/on_error/goto`, target < 0 ? `no step "${onError.goto}" in workflow ${workflow.id}` : "on_error goes forward only: to a later step");
    }
  }
  return checkRefs(workflow.output, `${at}/output`, seen, workflow.steps.length);
}

/** Each `$from` of a template reads the run's input or a step before `index`. */
function checkRefs(template: JsonValue | undefined, at: string, steps: ReadonlyMap<string, number>, index: number): Refusal | undefined {
  for (const ref of workflowTemplateRefs(template)) {
    const target = refTarget(ref.pointer);
    if (target === undefined) return invalid(`${at}${ref.at}`, `"${ref.pointer}" names neither /input nor /steps/<id>/output`);
    if (target.kind === "step") {
      const position = steps.get(target.step_id);
      if (position === undefined || position >= index) return invalid(`${at}${ref.at}`, `"${ref.pointer}" reads step "${target.step_id}", which does not run before this one`);
    }
  }
  return undefined;
}

function checkWorkflows(manifest: AppManifest): Refusal | undefined {
  const workflows = manifest.workflows ?? [];
  if (workflows.length === 0) return undefined;
  if (!featuresOf(manifest).has("app.workflow.v1")) return invalid("/workflows", "workflows need the feature app.workflow.v1 in required_features or optional_features");
  const ids = new Set<string>();
  for (const [i, workflow] of workflows.entries()) {
    if (ids.has(workflow.id)) return invalid(`/workflows/${i}/id`, `workflow "${workflow.id}" is declared twice`);
    ids.add(workflow.id);
    const problem = checkWorkflow(manifest, workflow, `/workflows/${i}`);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** The rules of everything an app runs besides its pages, in a fixed order (docs/manifest.md §11). */
export function checkAppCode(manifest: AppManifest): Refusal | undefined {
  return checkExecution(manifest) ?? checkStorage(manifest) ?? checkBackends(manifest) ?? checkWorkflows(manifest);
}
