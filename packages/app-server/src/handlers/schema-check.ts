/** JSON Schemas supplied at run time (turn output_schema, action input_schema), interpreted — never compiled with eval. */
import { createToolSchemaValidator, type JsonValue } from "@lineup/protocol";
import { refuse } from "./context.js";

/** Refuses a schema that is not a usable draft 2020-12 schema, pointing under `at`. */
export function checkSchema(schema: unknown, at: string): void {
  const built = createToolSchemaValidator(schema, { code: "invalid_params" });
  if (!built.ok) throw refuse(built.error.code, `${at.slice(1)}: ${built.error.message}`, `${at}${built.error.path ?? ""}`);
}

/** Refuses `value` with `invalid_params` under `at` when it does not match `schema`. */
export function checkAgainst(schema: unknown, value: JsonValue, at: string): void {
  const built = createToolSchemaValidator(schema, { code: "invalid_params" });
  if (!built.ok) throw refuse("invalid_state", `the stored schema is unusable: ${built.error.message}`);
  const checked = built.value(value);
  if (!checked.ok) throw refuse("invalid_params", `${at.slice(1)} does not match its schema: ${checked.error.message}`, `${at}${checked.error.path ?? ""}`);
}
