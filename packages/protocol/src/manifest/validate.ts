/**
 * Manifest and Tool descriptor validation: the schema first, then every rule a schema cannot
 * express (registries, uniqueness, references, embedded JSON Schemas, rules across fields), each
 * refused with its own code and a JSON Pointer, so a developer and the install UI can say exactly
 * what is wrong. Checks run in a fixed order and the first failure is returned; the order and the
 * code of each check are tabled in docs/manifest.md §11.
 *
 * A manifest that passes is returned as written (same object, no defaults filled in).
 */
import { MCP_BACKEND_PROTOCOLS } from "./app-code.js";
import { fail, ok, type Result } from "../errors.js";
import { CORE_APP_SCOPES, RESERVED_APP_SCOPES, RUNTIME_SCOPE } from "../ids.js";
import { checkJsonValue, decodeJson, type JsonLimits, isRecord } from "../json.js";
import type { ManifestValidationOptions } from "./validate-tool.js";
import { validators } from "../generated/manifest.js";
import { checkWith } from "../validation.js";
import { isCapabilityName } from "./capabilities.js";
import { isRuntimeSdkFeature, isSupportedApiVersion, RUNTIME_SDK_API_VERSIONS } from "./features.js";
import { checkAppCode } from "./app-code-rules.js";
import { schemaId } from "../schema-id.js";
import {
  MANIFEST_FORMAT,
  type AppManifest,
  type Entrypoint,
  type ManifestKind,
} from "./schemas.js";
import { checkEmbeddedSchema, checkToolRules, notGenerated, under, type Refusal } from "./validate-tool.js";

/** The id of the manifest's schema (`AppManifestSchema`), under which its generated validator is found. */
export const APP_MANIFEST_SCHEMA_ID = schemaId("app-manifest.v1");
const validateManifestShape = validators[APP_MANIFEST_SCHEMA_ID];

function checkScope(manifest: AppManifest, kind: ManifestKind): Refusal | undefined {
  const scope = manifest.app_scope;
  if (kind === "installed" && RESERVED_APP_SCOPES.has(scope)) {
    return fail("manifest_reserved_scope", `app scope "${scope}" is reserved for the Runtime and core apps`, "/app_scope");
  }
  if (kind === "core") {
    if (scope === RUNTIME_SCOPE) return fail("manifest_reserved_scope", `app scope "${scope}" belongs to the Runtime itself`, "/app_scope");
    if (!(CORE_APP_SCOPES as readonly string[]).includes(scope)) return fail("manifest_invalid", `"${scope}" is not a core app scope (${CORE_APP_SCOPES.join(", ")})`, "/app_scope");
  }
  return undefined;
}

function checkRuntimeSdk(manifest: AppManifest): Refusal | undefined {
  const sdk = manifest.runtime_sdk;
  if (!isSupportedApiVersion(sdk.api_version)) {
    return fail("manifest_unsupported_api_version", `runtime_sdk.api_version "${sdk.api_version}" is not supported (supported: ${RUNTIME_SDK_API_VERSIONS.join(", ")})`, "/runtime_sdk/api_version");
  }
  for (const [i, feature] of sdk.required_features.entries()) {
    if (!isRuntimeSdkFeature(feature)) return fail("manifest_unknown_feature", `required feature "${feature}" is not offered by this Runtime`, `/runtime_sdk/required_features/${i}`);
  }
  const required = new Set(sdk.required_features);
  for (const [i, feature] of (sdk.optional_features ?? []).entries()) {
    if (required.has(feature)) return fail("manifest_invalid", `feature "${feature}" is both required and optional`, `/runtime_sdk/optional_features/${i}`);
  }
  const offered = new Set([...required, ...(sdk.optional_features ?? [])]);
  if ((manifest.tools ?? []).length > 0 && !required.has("app.tools.v1")) {
    return fail("manifest_invalid", "an app that declares tools must require the app.tools.v1 feature", "/runtime_sdk/required_features");
  }
  if ((manifest.capabilities ?? []).length > 0 && !offered.has("capability.request.v1")) {
    return fail("manifest_invalid", "an app that declares capabilities must list the capability.request.v1 feature", "/runtime_sdk/required_features");
  }
  return undefined;
}

function checkEntrypoint(entrypoint: Entrypoint, at: string): Refusal | undefined {
  const modes = entrypoint.display_modes;
  if (entrypoint.kind === "background") {
    if (modes !== undefined && modes.length > 0) return fail("manifest_invalid", "a background entrypoint has no display modes", `${at}/display_modes`);
    if (entrypoint.default_eligible === true) return fail("manifest_invalid", "a background entrypoint cannot be the default app", `${at}/default_eligible`);
  } else if (modes !== undefined && modes.length === 0) {
    return fail("manifest_invalid", `a ${entrypoint.kind} entrypoint needs at least one display mode`, `${at}/display_modes`);
  }
  if (entrypoint.default_eligible === true && entrypoint.kind !== "primary") {
    return fail("manifest_invalid", "only a primary entrypoint can be eligible as the default app", `${at}/default_eligible`);
  }
  return undefined;
}

/** First index at which `key` repeats an earlier item's key. */
function firstDuplicate<T>(items: readonly T[], key: (item: T) => string): number {
  const seen = new Set<string>();
  for (const [i, item] of items.entries()) {
    const k = key(item);
    if (seen.has(k)) return i;
    seen.add(k);
  }
  return -1;
}

function checkStructure(manifest: AppManifest, kind: ManifestKind): Refusal | undefined {
  const entrypointIds = new Set<string>();
  for (const [i, entrypoint] of manifest.entrypoints.entries()) {
    if (entrypointIds.has(entrypoint.id)) return fail("manifest_unknown_entrypoint", `entrypoint id "${entrypoint.id}" is defined twice`, `/entrypoints/${i}/id`);
    entrypointIds.add(entrypoint.id);
    const problem = checkEntrypoint(entrypoint, `/entrypoints/${i}`);
    if (problem !== undefined) return problem;
  }

  const declared = new Set<string>();
  for (const [i, capability] of (manifest.capabilities ?? []).entries()) {
    if (!isCapabilityName(capability.name)) return fail("manifest_unknown_capability", `capability "${capability.name}" is not in the capability registry`, `/capabilities/${i}/name`);
    if (declared.has(capability.name)) return fail("manifest_invalid", `capability "${capability.name}" is declared twice`, `/capabilities/${i}/name`);
    declared.add(capability.name);
  }

  const methods = new Set<string>();
  for (const [i, tool] of (manifest.tools ?? []).entries()) {
    const at = `/tools/${i}`;
    if (methods.has(tool.method)) return fail("manifest_duplicate_tool", `tool method "${tool.method}" is declared twice`, `${at}/method`);
    methods.add(tool.method);
    const problem = checkToolRules(tool, kind);
    if (problem !== undefined) return under(at, problem);
    for (const [j, name] of (tool.capabilities ?? []).entries()) {
      if (!declared.has(name)) return fail("manifest_unknown_capability", `tool ${tool.method} uses capability "${name}", which the manifest does not declare`, `${at}/capabilities/${j}`);
    }
    if (tool.entrypoint !== undefined && !entrypointIds.has(tool.entrypoint)) {
      return fail("manifest_unknown_entrypoint", `tool ${tool.method} names entrypoint "${tool.entrypoint}", which the manifest does not define`, `${at}/entrypoint`);
    }
    if (tool.backend !== undefined) {
      const backend = (manifest.backends ?? []).find((b) => b.id === tool.backend!.id);
      if (backend === undefined || !MCP_BACKEND_PROTOCOLS.includes(backend.protocol)) {
        return fail("manifest_invalid", `tool ${tool.method} names back-end "${tool.backend.id}", which is not one of the manifest's MCP back-ends`, `${at}/backend/id`);
      }
      if (!backend.methods.some((m) => m.name === tool.backend!.method)) {
        return fail("manifest_invalid", `tool ${tool.method} names method "${tool.backend.method}", which back-end ${backend.id} does not declare`, `${at}/backend/method`);
      }
    }
  }

  const subscriptions = manifest.agent_subscriptions ?? [];
  const repeatedSubscription = firstDuplicate(subscriptions, (s) => `${s.type} ${s.scope}`);
  if (repeatedSubscription >= 0) return fail("manifest_invalid", "the same subscription is listed twice", `/agent_subscriptions/${repeatedSubscription}`);
  for (const [i, subscription] of subscriptions.entries()) {
    if (subscription.capability !== undefined && !(manifest.capabilities ?? []).some((c) => c.name === subscription.capability)) {
      return fail("manifest_invalid", `the subscription to ${subscription.type} needs ${subscription.capability}, which the manifest's capabilities do not declare`, `/agent_subscriptions/${i}/capability`);
    }
  }

  const events = manifest.events ?? [];
  const repeatedEvent = firstDuplicate(events, (e) => e.name);
  if (repeatedEvent >= 0) return fail("manifest_invalid", `event "${events[repeatedEvent]!.name}" is declared twice`, `/events/${repeatedEvent}/name`);
  for (const [i, event] of events.entries()) {
    if (event.data_schema === undefined) continue;
    const problem = checkEmbeddedSchema(event.data_schema, `/events/${i}/data_schema`, false);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/**
 * Validates a parsed manifest `lineup.app.v1`. Never throws; returns the same object on success.
 * `options.kind` selects the installed-app rules (default) or the core-app rules.
 */
export function validateManifest(json: unknown, options: ManifestValidationOptions = {}): Result<AppManifest> {
  const kind = options.kind ?? "installed";
  const plain = checkJsonValue(json, options);
  if (!plain.ok) return plain;
  const value = plain.value;
  if (!isRecord(value)) return fail("manifest_invalid", "a manifest is a JSON object", "");
  if (value["format"] !== MANIFEST_FORMAT) {
    return fail("manifest_invalid", `format must be "${MANIFEST_FORMAT}", not ${JSON.stringify(value["format"] ?? null).slice(0, 80)}`, "/format");
  }
  if (validateManifestShape === undefined) return notGenerated("app-manifest.v1");
  const shaped = checkWith<AppManifest>(validateManifestShape, value, "manifest_invalid");
  if (!shaped.ok) {
    if (shaped.error.path === "/version") return fail("manifest_invalid", "version must be a semantic version (semver.org), such as 1.0.0 or 2.1.0-beta.1", "/version");
    return shaped;
  }
  const manifest = shaped.value;
  return checkScope(manifest, kind) ?? checkRuntimeSdk(manifest) ?? checkStructure(manifest, kind) ?? checkAgentTasks(manifest) ?? checkAppCode(manifest) ?? ok(manifest);
}

/** `agent_tasks`: each entry once, each tool once in it; declaring entries means naming the feature that lets the app start them. */
function checkAgentTasks(manifest: AppManifest): Result<AppManifest> | undefined {
  const entries = manifest.agent_tasks?.entries;
  if (entries === undefined) return undefined;
  const features = [...manifest.runtime_sdk.required_features, ...(manifest.runtime_sdk.optional_features ?? [])];
  if (!features.includes("app.agent-task.v1")) return fail("manifest_invalid", "agent_tasks needs the feature app.agent-task.v1 in required_features or optional_features", "/agent_tasks");
  const ids = new Set<string>();
  for (const [i, entry] of entries.entries()) {
    if (ids.has(entry.id)) return fail("manifest_invalid", `agent task entry "${entry.id}" is declared twice`, `/agent_tasks/entries/${i}/id`);
    ids.add(entry.id);
    const tools = new Set<string>();
    for (const [j, tool] of (entry.tools ?? []).entries()) {
      const key = `${tool.app_scope ?? manifest.app_scope}/${tool.method}`;
      if (tools.has(key)) return fail("manifest_invalid", `agent task entry "${entry.id}" names the tool ${key} twice`, `/agent_tasks/entries/${i}/tools/${j}`);
      tools.add(key);
    }
  }
  return undefined;
}

/** `validateManifest` with the core-app rules: a core scope, tools delivered in process. */
export function validateCoreManifest(json: unknown, options: JsonLimits = {}): Result<AppManifest> {
  return validateManifest(json, { ...options, kind: "core" });
}

/** Manifest text (or UTF-8 bytes) → safe JSON (`decodeJson`) → `validateManifest`. Never throws. */
export function decodeManifest(input: string | Uint8Array, options: ManifestValidationOptions = {}): Result<AppManifest> {
  const json = decodeJson(input, options);
  if (!json.ok) return json;
  return validateManifest(json.value, options);
}
