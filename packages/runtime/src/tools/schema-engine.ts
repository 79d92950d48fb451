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
import { LineUpError, lazyImport, type createToolSchemaValidator as CreateToolSchemaValidator } from "@lineup/protocol";

const engine = lazyImport(() => import("./schema-engine-chunk.js"));

/** Loads the schema engine once; later calls share the first load (a failed load is tried again). */
export async function loadToolSchemaEngine(): Promise<void> {
  await engine.load();
}

/** `createToolSchemaValidator` of `@lineup/protocol`, once `loadToolSchemaEngine()` has settled. */
export const createToolSchemaValidator: typeof CreateToolSchemaValidator = (schema, options) => {
  const loaded = engine.current();
  if (loaded === undefined) throw new LineUpError("invalid_state", "app schemas are checked once the Runtime's schema engine is loaded (start() loads it)");
  return loaded.createToolSchemaValidator(schema, options);
};
