/**
 * Turns a generated standalone validator (Ajv, compiled at build time) into LineUp's result shape.
 */
import { fail, ok, type ErrorCode, type Result } from "./errors.js";
import { escapePointerToken } from "./json.js";

/** The shape of an Ajv error object, as much of it as we read. */
export interface SchemaErrorObject {
  readonly instancePath: string;
  readonly keyword: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly message?: string;
}

/** A generated validator: a predicate that leaves its first error in `.errors`. */
export type CompiledValidator = ((data: unknown) => boolean) & { errors?: readonly SchemaErrorObject[] | null };

/** JSON Pointer and a readable sentence for the first schema error. */
export function describeSchemaError(error: SchemaErrorObject | undefined): { path: string; message: string } {
  if (error === undefined) return { path: "", message: "does not match the schema" };
  let path = error.instancePath;
  if (error.keyword === "additionalProperties" && typeof error.params["additionalProperty"] === "string") {
    path = `${path}/${escapePointerToken(error.params["additionalProperty"])}`;
    return { path, message: `${path} is not allowed here` };
  }
  if (error.keyword === "required" && typeof error.params["missingProperty"] === "string") {
    path = `${path}/${error.params["missingProperty"]}`;
    return { path, message: `${path} is required` };
  }
  return { path, message: `${path === "" ? "value" : path} ${error.message ?? schemaErrorSentence(error)}` };
}

const FEWER = "must NOT have fewer than {limit}";
const MORE = "must NOT have more than {limit}";
const BOUND = "must be {comparison} {limit}";

/**
 * The sentence Ajv would have written for each keyword (the generated validators leave messages out,
 * see scripts/generate-lib.ts, since the keyword and its params say everything); `{name}` is the
 * error's param of that name. A table, not code per keyword: every app's page carries it.
 */
const SENTENCES: Readonly<Record<string, string>> = {
  type: "must be {type}",
  const: "must be equal to constant",
  enum: "must be equal to one of the allowed values",
  pattern: 'must match pattern "{pattern}"',
  format: 'must match format "{format}"',
  minimum: BOUND,
  maximum: BOUND,
  exclusiveMinimum: BOUND,
  exclusiveMaximum: BOUND,
  multipleOf: "must be multiple of {multipleOf}",
  minLength: `${FEWER} characters`,
  minItems: `${FEWER} items`,
  minProperties: `${FEWER} properties`,
  maxLength: `${MORE} characters`,
  maxItems: `${MORE} items`,
  maxProperties: `${MORE} properties`,
  uniqueItems: "must NOT have duplicate items (items ## {j} and {i} are identical)",
  anyOf: "must match a schema in anyOf",
  oneOf: "must match exactly one schema in oneOf",
  not: "must NOT be valid",
  propertyNames: "property name must be valid",
  unevaluatedProperties: "must NOT have unevaluated properties",
  "false schema": "boolean schema is false",
};

function schemaErrorSentence(error: SchemaErrorObject): string {
  const sentence = Object.prototype.hasOwnProperty.call(SENTENCES, error.keyword) ? SENTENCES[error.keyword]! : "does not match the schema";
  return sentence.replace(/\{(\w+)\}/g, (_m, name: string) => String(error.params[name]));
}

/** Runs a validator and maps failure to `code` with the first error's path. */
export function checkWith<T>(validator: CompiledValidator, value: unknown, code: ErrorCode): Result<T> {
  if (validator(value)) return ok(value as T);
  const { path, message } = describeSchemaError(validator.errors?.[0]);
  return fail(code, message, path);
}
