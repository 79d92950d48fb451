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
  return { path, message: `${path === "" ? "value" : path} ${error.message ?? "does not match the schema"}` };
}

/** Runs a validator and maps failure to `code` with the first error's path. */
export function checkWith<T>(validator: CompiledValidator, value: unknown, code: ErrorCode): Result<T> {
  if (validator(value)) return ok(value as T);
  const { path, message } = describeSchemaError(validator.errors?.[0]);
  return fail(code, message, path);
}
