/**
 * One Tool descriptor on its own (as `defineAgentTools` emits it, in an app's page as well as in the
 * Runtime): its schema, embedded JSON Schemas, known capabilities and the rules across its fields.
 * Apart from validate.ts so that a bundle checking descriptors carries only the descriptor's
 * generated validator, not the whole manifest's.
 */
import { fail, ok, type ProtocolError, type Result } from "../errors.js";
import { checkJsonValue, type JsonLimits } from "../json.js";
import { validate_tool_descriptor_v1 as validateToolShape } from "../generated/tool-descriptor.js";
import { checkWith } from "../validation.js";
import { isCapabilityName, riskRank } from "./capabilities.js";
import { checkJsonSchema } from "./json-schema-check.js";
import type { ManifestKind, ToolDescriptor } from "./schemas.js";
import { capabilitiesRisk } from "./tool-defaults.js";

export interface ManifestValidationOptions extends JsonLimits {
  /** `installed` (default) for bundles; `core` for the trusted apps that ship with the host. */
  readonly kind?: ManifestKind;
}

export type Refusal = { ok: false; error: ProtocolError };

export const notGenerated = (what: string): Refusal => fail("internal_error", `no generated validator for ${what}: run npm run gen`);

/** Prefixes a refusal's path (a tool's own path inside the manifest). */
export function under(prefix: string, refusal: Refusal): Refusal {
  return fail(refusal.error.code, refusal.error.message, `${prefix}${refusal.error.path ?? ""}`);
}

/** Checks an embedded JSON Schema and reports the path inside the manifest. */
export function checkEmbeddedSchema(schema: unknown, at: string, requireObjectRoot: boolean): Refusal | undefined {
  const checked = checkJsonSchema(schema, { requireObjectRoot });
  if (checked.ok) return undefined;
  return fail(checked.error.code, `${at}: ${checked.error.message}`, `${at}${checked.error.path ?? ""}`);
}

/**
 * Everything about one tool that does not depend on the rest of the manifest. Paths are relative
 * to the tool. Assumes a schema-valid descriptor.
 */
export function checkToolRules(tool: ToolDescriptor, kind: ManifestKind): Refusal | undefined {
  const input = checkEmbeddedSchema(tool.input_schema, "/input_schema", true);
  if (input !== undefined) return input;
  const output = checkEmbeddedSchema(tool.output_schema, "/output_schema", false);
  if (output !== undefined) return output;
  const capabilities = tool.capabilities ?? [];
  for (const [i, name] of capabilities.entries()) {
    if (!isCapabilityName(name)) return fail("manifest_unknown_capability", `capability "${name}" is not in the capability registry`, `/capabilities/${i}`);
  }

  const callModel = tool.call_model ?? "command";
  const invalid = (path: string, message: string): Refusal => fail("manifest_invalid", `${tool.method}: ${message}`, path);
  if (tool.requires_foreground === true && tool.activation_requirement !== undefined && tool.activation_requirement !== "foreground_required") {
    return invalid("/activation_requirement", "a tool that requires the foreground must have activation_requirement foreground_required");
  }
  if (callModel === "interactive" && tool.activation_requirement !== undefined && tool.activation_requirement !== "foreground_required") {
    return invalid("/activation_requirement", "an interactive tool waits for the user, so its app must be in the foreground (foreground_required)");
  }
  if (tool.activation_requirement === "activation_not_required" && tool.launch_policy !== undefined && tool.launch_policy !== "never") {
    return invalid("/launch_policy", "a call that does not wait for activation cannot start the app (launch_policy must be never)");
  }
  if (callModel === "operation" && tool.handling === "direct") {
    return invalid("/handling", "an operation's deadline and progress are owned by the Runtime (handling must be operation)");
  }
  if (callModel === "query" && tool.idempotent === false) {
    return invalid("/idempotent", "a query is read-only and therefore idempotent");
  }
  if (tool.backend !== undefined) {
    if (kind === "core") return invalid("/backend", "a core app's tools are served by the app itself");
    if (tool.activation_requirement !== undefined && tool.activation_requirement !== "activation_not_required") {
      return invalid("/activation_requirement", "a tool its back-end serves needs no running app (activation_not_required)");
    }
    if (callModel === "interactive" || callModel === "operation" || tool.requires_foreground === true) {
      return invalid("/call_model", "a tool its back-end serves is a query or a command: its server answers the call itself");
    }
  } else if (tool.view !== undefined) {
    return invalid("/view", "only a tool an MCP back-end serves shows an MCP Apps view");
  }
  const floor = capabilitiesRisk(capabilities);
  if (tool.risk_level !== undefined && riskRank(tool.risk_level) < riskRank(floor)) {
    return invalid("/risk_level", `risk_level ${tool.risk_level} is below the ${floor} risk of the capabilities it uses`);
  }
  const delivery = kind === "core" ? "app_sdk" : "miniapp_sdk";
  if (tool.delivery !== undefined && tool.delivery !== delivery) {
    return invalid("/delivery", `tools of ${kind} apps are delivered through ${delivery}`);
  }
  return undefined;
}

/**
 * Validates one Tool descriptor on its own (as `defineAgentTools` emits it): schema, embedded
 * JSON Schemas, known capabilities and the rules across its fields. Manifest-level references
 * (declared capabilities, entrypoints, unique methods) are checked by `validateManifest`.
 * Never throws.
 */
export function validateToolDescriptor(json: unknown, options: ManifestValidationOptions = {}): Result<ToolDescriptor> {
  const plain = checkJsonValue(json, options);
  if (!plain.ok) return plain;
  const shaped = checkWith<ToolDescriptor>(validateToolShape, plain.value, "manifest_invalid");
  if (!shaped.ok) return shaped;
  return checkToolRules(shaped.value, options.kind ?? "installed") ?? ok(shaped.value);
}

