/**
 * Is this value a JSON Schema the Runtime can safely use for an app's tool or event data?
 *
 * Apps ship JSON Schemas inside their manifests, and the Runtime later interprets them against
 * agent arguments and app results (`tool-schema.ts`). A schema is accepted only when:
 *
 * 1. it is valid against the draft 2020-12 meta-schema — checked by a validator generated at
 *    build time (`validate_json_schema_2020_12`), so nothing is compiled at run time;
 * 2. every `$ref` is a fragment (`#`, `#/json/pointer`, `#anchor`) that resolves to a subschema
 *    or `$anchor` inside the same schema: no remote or relative references, nothing fetched;
 * 3. subschemas nest at most `MAX_SCHEMA_DEPTH` levels (the root is level 1);
 * 4. every `pattern` and `patternProperties` key compiles as a Unicode regular expression and
 *    cannot backtrack catastrophically: the interpreter runs it as a backtracking `RegExp` on
 *    agent-supplied text, so a quantifier nested in a quantified group (`(a+)+`, star height
 *    above 1, checked by `safe-regex2`) is refused, as is syntax that check cannot read (lookbehind),
 *    and so is a repeated alternation whose alternatives may begin alike (`(a|ab)*`, `regex-ambiguity.ts`)
 *    (an app's page runs its own schemas with its `RegExp`); and it must be one RE2 runs (no lookaround,
 *    no back-reference), since the Runtime runs agent input through RE2 in linear time (`linear-pattern.ts`);
 * 5. it uses no keyword the interpreter would silently skip (`$dynamicRef`, `$dynamicAnchor`,
 *    `$recursiveRef`, `$recursiveAnchor`), declares `$id` only at the root, and `$schema`, if
 *    present, only at the root and only as draft 2020-12.
 */
import { fail, ok, type Result } from "../errors.js";
import { escapePointerToken, type JsonObject } from "../json.js";
import { validators } from "../generated/json-schema.js";
import { describeSchemaError } from "../validation.js";
import safeRegex from "safe-regex2";
import { linearPatternProblem } from "./linear-pattern.js";
import { hasAmbiguousRepetition } from "./regex-ambiguity.js";

export const JSON_SCHEMA_DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";
export const MAX_SCHEMA_DEPTH = 32;

/** Keywords whose value is one subschema. */
const SUBSCHEMA_KEYWORDS = [
  "additionalProperties",
  "propertyNames",
  "items",
  "contains",
  "not",
  "if",
  "then",
  "else",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contentSchema",
] as const;
/** Keywords whose value is an array of subschemas. */
const SUBSCHEMA_ARRAY_KEYWORDS = ["allOf", "anyOf", "oneOf", "prefixItems"] as const;
/** Keywords whose value maps names to subschemas (`dependencies` maps to a schema or a string array). */
const SUBSCHEMA_MAP_KEYWORDS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"] as const;
/** 2020-12 keywords the run-time interpreter (@cfworker/json-schema) does not implement, or implements for another draft. */
const UNSUPPORTED_KEYWORDS = ["$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor"] as const;

export interface JsonSchemaCheckOptions {
  /** Require the root to declare `"type": "object"` (tool arguments are always an object). */
  readonly requireObjectRoot?: boolean;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Quantifiers a pattern may hold in all; star height is the check that matters, this only bounds the walk. */
const MAX_PATTERN_QUANTIFIERS = 100;

/** Why a pattern is refused, or undefined when it compiles and cannot backtrack catastrophically. */
function patternProblem(pattern: string): string | undefined {
  if (!compiles(pattern)) return "is not a valid regular expression";
  if (!safeRegex(pattern, { limit: MAX_PATTERN_QUANTIFIERS })) {
    return "can backtrack catastrophically (a quantifier nested in a quantified group, lookbehind, or over 100 quantifiers)";
  }
  if (hasAmbiguousRepetition(pattern)) {
    return "can backtrack catastrophically (a repeated alternation whose alternatives may begin with the same character; factor the common start out)";
  }
  return linearPatternProblem(pattern);
}

const quoted = (pattern: string): string => JSON.stringify(pattern.length > 120 ? `${pattern.slice(0, 120)}…` : pattern);

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}

/** The JSON Pointer a fragment `$ref` names, or undefined when the fragment is not a pointer. */
function refPointer(ref: string): string | undefined {
  if (ref === "#") return "";
  if (!ref.startsWith("#/")) return undefined;
  try {
    return decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
}

/**
 * Checks a JSON Schema an app supplied. `path` in a refusal is a JSON Pointer into the schema.
 * Refusals carry `manifest_invalid_tool_schema`. Never throws; assumes a JSON value (see
 * `checkJsonValue`).
 */
export function checkJsonSchema(schema: unknown, options: JsonSchemaCheckOptions = {}): Result<JsonObject> {
  const meta = validators[JSON_SCHEMA_DRAFT_2020_12];
  if (meta === undefined) return fail("internal_error", "no generated meta-schema validator: run npm run gen");
  if (!isObject(schema)) return fail("manifest_invalid_tool_schema", "a schema here is a JSON object", "");
  if (!meta(schema)) {
    const { path, message } = describeSchemaError(meta.errors?.[0]);
    return fail("manifest_invalid_tool_schema", `not a draft 2020-12 JSON Schema: ${message}`, path);
  }
  if (options.requireObjectRoot === true && schema["type"] !== "object") {
    return fail("manifest_invalid_tool_schema", 'the schema of tool arguments must declare "type": "object"', "/type");
  }

  const schemaPointers = new Set<string>();
  const anchors = new Set<string>();
  const refs: Array<{ ref: string; at: string }> = [];
  const stack: Array<{ node: unknown; path: string; depth: number }> = [{ node: schema, path: "", depth: 1 }];

  while (stack.length > 0) {
    const { node, path, depth } = stack.pop()!;
    if (depth > MAX_SCHEMA_DEPTH) return fail("manifest_invalid_tool_schema", `subschemas nest deeper than ${MAX_SCHEMA_DEPTH} levels`, path);
    schemaPointers.add(path);
    if (!isObject(node)) continue; // a boolean schema
    for (const keyword of UNSUPPORTED_KEYWORDS) {
      if (keyword in node) return fail("manifest_invalid_tool_schema", `${keyword} is not supported in app schemas`, `${path}/${escapePointerToken(keyword)}`);
    }
    if (path !== "" && "$id" in node) return fail("manifest_invalid_tool_schema", "$id is allowed only at the root of an app schema", `${path}/$id`);
    const dialect = node["$schema"];
    if (dialect !== undefined) {
      if (path !== "") return fail("manifest_invalid_tool_schema", "$schema is allowed only at the root", `${path}/$schema`);
      if (dialect !== JSON_SCHEMA_DRAFT_2020_12 && dialect !== `${JSON_SCHEMA_DRAFT_2020_12}#`) {
        return fail("manifest_invalid_tool_schema", `only draft 2020-12 schemas are supported, not ${String(dialect)}`, "/$schema");
      }
    }
    const ref = node["$ref"];
    if (typeof ref === "string") {
      if (!ref.startsWith("#")) return fail("manifest_invalid_tool_schema", `$ref "${ref.slice(0, 200)}" points outside the schema; only "#…" references are allowed`, `${path}/$ref`);
      refs.push({ ref, at: `${path}/$ref` });
    }
    const anchor = node["$anchor"];
    if (typeof anchor === "string") anchors.add(anchor);
    const pattern = node["pattern"];
    const problem = typeof pattern === "string" ? patternProblem(pattern) : undefined;
    if (problem !== undefined) return fail("manifest_invalid_tool_schema", `pattern ${quoted(pattern as string)} ${problem}`, `${path}/pattern`);
    const patternProperties = node["patternProperties"];
    if (isObject(patternProperties)) {
      for (const key of Object.keys(patternProperties)) {
        const keyProblem = patternProblem(key);
        if (keyProblem !== undefined) return fail("manifest_invalid_tool_schema", `patternProperties key ${quoted(key)} ${keyProblem}`, `${path}/patternProperties/${escapePointerToken(key)}`);
      }
    }

    for (const keyword of SUBSCHEMA_KEYWORDS) {
      if (keyword in node) stack.push({ node: node[keyword], path: `${path}/${keyword}`, depth: depth + 1 });
    }
    for (const keyword of SUBSCHEMA_ARRAY_KEYWORDS) {
      const list = node[keyword];
      if (Array.isArray(list)) list.forEach((child, i) => stack.push({ node: child, path: `${path}/${keyword}/${i}`, depth: depth + 1 }));
    }
    for (const keyword of SUBSCHEMA_MAP_KEYWORDS) {
      const map = node[keyword];
      if (!isObject(map)) continue;
      for (const [key, child] of Object.entries(map)) {
        if (typeof child === "boolean" || isObject(child)) stack.push({ node: child, path: `${path}/${escapePointerToken(keyword)}/${escapePointerToken(key)}`, depth: depth + 1 });
      }
    }
  }

  for (const { ref, at } of refs) {
    const pointer = refPointer(ref);
    const resolves = pointer !== undefined ? schemaPointers.has(pointer) : anchors.has(ref.slice(1));
    if (!resolves) return fail("manifest_invalid_tool_schema", `$ref "${ref.slice(0, 200)}" does not resolve to a subschema of this schema`, at);
  }
  return ok(schema as JsonObject);
}
