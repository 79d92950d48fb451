/**
 * Turns a generated standalone validator (Ajv, compiled at build time) into LineUp's result shape.
 */
import { fail, ok, type ErrorCode, type Result } from "./errors.js";

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
    path = `${path}/${error.params["additionalProperty"].replace(/~/g, "~0").replace(/\//g, "~1")}`;
    return { path, message: `${path} is not allowed here` };
  }
  if (error.keyword === "required" && typeof error.params["missingProperty"] === "string") {
    path = `${path}/${error.params["missingProperty"]}`;
    return { path, message: `${path} is required` };
  }
  return { path, message: `${path === "" ? "value" : path} ${error.message ?? schemaErrorSentence(error)}` };
}

const LIMIT_NOUNS: Readonly<Record<string, string>> = {
  minLength: "characters",
  maxLength: "characters",
  minItems: "items",
  maxItems: "items",
  minProperties: "properties",
  maxProperties: "properties",
};

/**
 * The sentence Ajv would have written for an error: the generated validators leave messages out (see
 * scripts/generate-lib.ts), since the keyword and its params say everything.
 */
function schemaErrorSentence(error: SchemaErrorObject): string {
  const params = error.params;
  switch (error.keyword) {
    case "type":
      return `must be ${String(params["type"])}`;
    case "const":
      return "must be equal to constant";
    case "enum":
      return "must be equal to one of the allowed values";
    case "pattern":
      return `must match pattern "${String(params["pattern"])}"`;
    case "format":
      return `must match format "${String(params["format"])}"`;
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return `must be ${String(params["comparison"])} ${String(params["limit"])}`;
    case "multipleOf":
      return `must be multiple of ${String(params["multipleOf"])}`;
    case "minLength":
    case "minItems":
    case "minProperties":
      return `must NOT have fewer than ${String(params["limit"])} ${LIMIT_NOUNS[error.keyword]}`;
    case "maxLength":
    case "maxItems":
    case "maxProperties":
      return `must NOT have more than ${String(params["limit"])} ${LIMIT_NOUNS[error.keyword]}`;
    case "uniqueItems":
      return `must NOT have duplicate items (items ## ${String(params["j"])} and ${String(params["i"])} are identical)`;
    case "anyOf":
      return "must match a schema in anyOf";
    case "oneOf":
      return "must match exactly one schema in oneOf";
    case "not":
      return "must NOT be valid";
    case "propertyNames":
      return "property name must be valid";
    case "unevaluatedProperties":
      return "must NOT have unevaluated properties";
    case "false schema":
      return "boolean schema is false";
    default:
      return "does not match the schema";
  }
}

/** Runs a validator and maps failure to `code` with the first error's path. */
export function checkWith<T>(validator: CompiledValidator, value: unknown, code: ErrorCode): Result<T> {
  if (validator(value)) return ok(value as T);
  const { path, message } = describeSchemaError(validator.errors?.[0]);
  return fail(code, message, path);
}
