/**
 * The Runtime's one way to a validator of an app-supplied JSON Schema (tool input and output schemas,
 * storage collections, workflow inputs, event data, back-end methods, task results).
 *
 * The interpreter, RE2 and the meta-schema check are most of a host page's weight after the Runtime
 * itself, and no app schema is read before the Runtime has restored its apps: they are loaded by
 * `import()` (`schema-engine-chunk.ts`). `start()` loads them while the store is read, before any app's
 * schema can reach a check, so a call never waits on the download. A validator asked for before that
 * throws `invalid_state`: a check is never skipped because the engine is not there yet.
 */
import { LineUpError, type createToolSchemaValidator as CreateToolSchemaValidator } from "@lineup/protocol";

let engine: { readonly createToolSchemaValidator: typeof CreateToolSchemaValidator } | undefined;
let loading: Promise<void> | undefined;

/** Loads the schema engine once; later calls share the first load (a failed load is tried again). */
export function loadToolSchemaEngine(): Promise<void> {
  loading ??= import("./schema-engine-chunk.js").then(
    (module) => {
      engine = module;
    },
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** `createToolSchemaValidator` of `@lineup/protocol`, once `loadToolSchemaEngine()` has settled. */
export const createToolSchemaValidator: typeof CreateToolSchemaValidator = (schema, options) => {
  if (engine === undefined) throw new LineUpError("invalid_state", "app schemas are checked once the Runtime's schema engine is loaded (start() loads it)");
  return engine.createToolSchemaValidator(schema, options);
};
