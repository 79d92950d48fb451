/**
 * Small helpers for declaring wire schemas with TypeBox: the JSON Schema object is the source of
 * truth, the TypeScript type is derived from it with `Static`, and the build generates a
 * standalone validator from it (see scripts/generate.ts), so no schema is ever compiled with
 * `eval` at run time.
 *
 * Schemas are for the generator and for types: run-time code reads schema ids and terms as plain values (the
 * `terms.ts` modules), and each schema declared at module load is built in one `declared(() => …)` call marked
 * `@__PURE__`, so Vite and esbuild drop the declarations and TypeBox from what a page, an app or the Runtime loads
 * (protocol's run-time-bundle test, host-web's build-and-serve test).
 */
import { Type, type TSchema, type TUnsafe, type SchemaOptions } from "@sinclair/typebox";
import {
  APP_SCOPE_MAX_LENGTH,
  APP_SCOPE_MIN_LENGTH,
  APP_SCOPE_PATTERN,
  OPAQUE_ID_MAX_LENGTH,
  OPAQUE_ID_PATTERN,
  TIMESTAMP_PATTERN,
  type AppScope,
  type AppInstanceID,
  type ConversationID,
  type OperationID,
  type ToolCallID,
} from "./ids.js";
import type { JsonObject, JsonValue } from "./json.js";
import { SCHEMA_ID_PREFIX, schemaId } from "./schema-id.js";

export { SCHEMA_ID_PREFIX, schemaId };

/** A string enum as `{ "type": "string", "enum": [...] }` (TypeBox's unions of literals read worse on the wire). */
export function StringEnum<const T extends readonly string[]>(values: T, options: SchemaOptions = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, type: "string", enum: [...values] });
}

/** Any JSON value. */
export const JsonValueSchema = (options: SchemaOptions = {}): TUnsafe<JsonValue> => Type.Unsafe<JsonValue>({ ...options });
/** Any JSON object. */
export const JsonObjectSchema = (options: SchemaOptions = {}): TUnsafe<JsonObject> => Type.Unsafe<JsonObject>({ ...options, type: "object" });

export const AppScopeSchema = (options: SchemaOptions = {}): TUnsafe<AppScope> =>
  Type.Unsafe<AppScope>({ ...options, type: "string", minLength: APP_SCOPE_MIN_LENGTH, maxLength: APP_SCOPE_MAX_LENGTH, pattern: APP_SCOPE_PATTERN });

const opaque = <T>(options: SchemaOptions): TUnsafe<T> =>
  Type.Unsafe<T>({ ...options, type: "string", minLength: 1, maxLength: OPAQUE_ID_MAX_LENGTH, pattern: OPAQUE_ID_PATTERN });

export const OpaqueIdSchema = (options: SchemaOptions = {}): TUnsafe<string> => opaque<string>(options);
export const ConversationIdSchema = (options: SchemaOptions = {}): TUnsafe<ConversationID> => opaque<ConversationID>(options);
export const InstanceIdSchema = (options: SchemaOptions = {}): TUnsafe<AppInstanceID> => opaque<AppInstanceID>(options);
export const OperationIdSchema = (options: SchemaOptions = {}): TUnsafe<OperationID> => opaque<OperationID>(options);
export const ToolCallIdSchema = (options: SchemaOptions = {}): TUnsafe<ToolCallID> => opaque<ToolCallID>(options);
export const TimestampSchema = (options: SchemaOptions = {}): TUnsafe<string> =>
  Type.Unsafe<string>({ ...options, type: "string", maxLength: 40, pattern: TIMESTAMP_PATTERN });

/** A closed object: unknown keys are refused. */
export const Closed = <T extends Parameters<typeof Type.Object>[0]>(properties: T, options: SchemaOptions = {}) =>
  Type.Object(properties, { ...options, additionalProperties: false });

/**
 * A schema, or a value computed from schemas (a registry, a list of ids), declared at module load: written
 * `export const X = declared(() => …)` with a `@__PURE__` mark before `declared`, one mark per declaration, so a
 * bundle that reads nothing of it drops the whole thunk (the calls inside it never run) and, when no declaration is
 * read, TypeBox with it.
 * esbuild honours a mark only at the call site, not on an imported function, hence the mark at each declaration.
 */
export const declared = <T>(build: () => T): T => build();

export type { TSchema };
