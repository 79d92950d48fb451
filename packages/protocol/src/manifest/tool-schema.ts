/**
 * Validators for the JSON Schemas apps supply: a tool's `input_schema` (checked against an agent's
 * arguments) and `output_schema` (checked against the app's one terminal result), and an event's
 * `data_schema`.
 *
 * Why these schemas are interpreted rather than compiled: the protocol's own schemas are known at
 * build time, so they become generated standalone code; app schemas arrive at run time, inside a
 * manifest installed on the user's device. Compiling them (Ajv) would need `eval`/`new Function`,
 * which the browser host's strict CSP forbids and which would turn app-supplied text into code.
 * `@cfworker/json-schema` walks the schema as data instead (draft 2020-12, no code generation).
 * Each schema first passes `checkJsonSchema`, so only what that interpreter understands — local
 * references, bounded depth, valid patterns — ever reaches it. Where the value is an agent's or
 * another party's (`createToolSchemaValidator`), its patterns run in linear time (`linear-pattern.ts`).
 */
import { Validator, type Schema } from "@cfworker/json-schema";
import { fail, ok, type ErrorCode, type Result } from "../errors.js";
import { checkJsonValue, escapePointerToken, type JsonLimits, type JsonValue } from "../json.js";
import { checkJsonSchema, type JsonSchemaCheckOptions } from "./json-schema-check.js";
import { withLinearPatterns, type LinearPatternCache } from "./linear-pattern.js";

/** Checks one value; refuses with the code chosen at creation and a JSON Pointer to the first problem. Never throws. */
export type ToolValueValidator = (value: unknown) => Result<JsonValue>;

export interface ToolSchemaValidatorOptions extends JsonSchemaCheckOptions {
  /** The refusal code: `invalid_arguments` for a tool's input, `invalid_result` for its output. */
  readonly code: ErrorCode;
  /** Limits for the checked values (size and depth). Defaults as in `checkJsonValue`. */
  readonly limits?: JsonLimits;
}

interface OutputUnit {
  readonly instanceLocation: string;
  readonly keyword: string;
  readonly error: string;
}

/** cfworker locations are `#` + a percent-encoded JSON Pointer. */
function pointerOf(location: string): string {
  const encoded = location.startsWith("#") ? location.slice(1) : location;
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/** Keywords that only report that a subschema failed; the subschema's own error says more. */
const APPLICATOR_KEYWORDS: ReadonlySet<string> = new Set([
  "$ref", "$recursiveRef", "properties", "patternProperties", "additionalProperties", "unevaluatedProperties", "propertyNames",
  "dependentSchemas", "dependencies", "items", "prefixItems", "additionalItems", "unevaluatedItems", "contains",
  "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
]);

/**
 * The interpreter reports enclosing failures ("property a does not match") beside the one that
 * caused them. The most useful is the deepest in the value, and there the first that is not
 * merely an enclosing report.
 */
function mostPrecise(errors: readonly OutputUnit[]): OutputUnit | undefined {
  let best: OutputUnit | undefined;
  let bestDepth = -1;
  for (const unit of errors) {
    const depth = unit.instanceLocation.split("/").length;
    const better = depth > bestDepth || (depth === bestDepth && best !== undefined && APPLICATOR_KEYWORDS.has(best.keyword) && !APPLICATOR_KEYWORDS.has(unit.keyword));
    if (better) {
      best = unit;
      bestDepth = depth;
    }
  }
  return best;
}

function describe(unit: OutputUnit | undefined): { path: string; message: string } {
  if (unit === undefined) return { path: "", message: "does not match the schema" };
  const path = pointerOf(unit.instanceLocation);
  const where = path === "" ? "value" : path;
  if (unit.keyword === "false") return { path, message: `${where} is not allowed here` };
  if (unit.keyword === "required") {
    const missing = /required property "(.*)"\./.exec(unit.error)?.[1];
    if (missing !== undefined) {
      const missingPath = `${path}/${escapePointerToken(missing)}`;
      return { path: missingPath, message: `${missingPath} is required` };
    }
  }
  return { path, message: `${where}: ${unit.error}` };
}

/**
 * Builds a validator for an app-supplied schema. Refuses the schema itself with
 * `manifest_invalid_tool_schema` (see `checkJsonSchema`). The schema is copied, so later changes
 * to the caller's object do not change the validator.
 */
export function createToolSchemaValidator(schema: unknown, options: ToolSchemaValidatorOptions): Result<ToolValueValidator> {
  const json = checkJsonValue(schema);
  if (!json.ok) return fail("manifest_invalid_tool_schema", `the schema is not plain JSON: ${json.error.message}`, json.error.path);
  const checked = checkJsonSchema(json.value, options);
  if (!checked.ok) return checked;
  const patterns: LinearPatternCache = new Map();
  return interpret(checked.value, options, (check) => withLinearPatterns(patterns, check));
}

/**
 * The validator of a schema that has already passed `checkJsonSchema` where it was accepted: an
 * app's page interprets its own tools' input schemas, which its build and the Runtime's install
 * checked (and the Runtime checks every call's arguments with them before the page sees it), so
 * the page does not carry the schema check. A schema that did not pass it belongs in
 * `createToolSchemaValidator`. Patterns run as the page's own `RegExp`s: the arguments already passed the
 * Runtime's linear-time check, and the page does not carry the linear engine.
 */
export function interpretCheckedToolSchema(schema: JsonValue, options: Pick<ToolSchemaValidatorOptions, "code" | "limits">): Result<ToolValueValidator> {
  return interpret(schema, options, (check) => check());
}

/** `run` runs each check of the interpreter (the Runtime's: with linear-time patterns). */
function interpret(schema: JsonValue, options: Pick<ToolSchemaValidatorOptions, "code" | "limits">, run: <T>(check: () => T) => T): Result<ToolValueValidator> {
  let validator: Validator;
  try {
    // The interpreter annotates the schema objects it is given, so it gets its own copy (plain JSON: the round trip is exact).
    validator = new Validator(JSON.parse(JSON.stringify(schema)) as Schema, "2020-12", true);
  } catch (error) {
    return fail("manifest_invalid_tool_schema", `the schema cannot be interpreted: ${error instanceof Error ? error.message.split("\n")[0] : "unknown error"}`, "");
  }
  const { code, limits } = options;
  return ok((value: unknown): Result<JsonValue> => {
    const plain = checkJsonValue(value, limits);
    if (!plain.ok) return fail(code, `not a JSON value: ${plain.error.message}`, plain.error.path);
    let errors: readonly OutputUnit[];
    try {
      const result = run(() => validator.validate(plain.value));
      if (result.valid) return ok(plain.value);
      errors = result.errors;
    } catch {
      return fail(code, "the value could not be checked against the schema", "");
    }
    const { path, message } = describe(mostPrecise(errors));
    return fail(code, message, path);
  });
}
