/**
 * The Runtime's one way to a validator of an app-supplied JSON Schema (tool input and output schemas,
 * storage collections, workflow inputs, event data, back-end methods, task results).
 *
 * The interpreter, RE2 and the meta-schema check are most of a host page's weight after the Runtime
 * itself, and no app schema is read before the Runtime has restored its apps: they are loaded by
 * `import()` (`schema-engine-chunk.ts`) before the first app that can declare a schema is in the state.
 * `start()` loads them while the store is read unless the store is new and the core apps declare no schema
 * (`declaresNoAppSchema`); an install or an update with a bundle loads them while the bundle is verified,
 * before its manifest reaches the loop. So a call never waits on the download, and a validator asked for
 * before the load throws `invalid_state`: a check is never skipped because the engine is not there yet.
 */
import { LineUpError, lazyImport, type AppManifest, type createToolSchemaValidator as CreateToolSchemaValidator } from "@lineup/protocol";

const engine = lazyImport(() => import("./schema-engine-chunk.js"));

/**
 * Loads the schema engine once; later calls share the first load. A failed load (its chunk could not be fetched)
 * is `internal_error`, and the next call tries again.
 */
export async function loadToolSchemaEngine(): Promise<void> {
  try {
    await engine.load();
  } catch (error) {
    throw new LineUpError("internal_error", "the Runtime's app-schema engine could not be loaded", { cause: error });
  }
}

/**
 * The manifest's members that carry no app schema and name nothing that does. A manifest with any other member
 * (tools, storage, events, workflows, back-ends, agent tasks, or one added later) may be checked with the engine.
 */
const SCHEMA_FREE_MEMBERS: ReadonlySet<string> = new Set(["format", "app_scope", "version", "name", "description", "localized", "runtime_sdk", "entrypoints"]);

/** True when nothing of the manifest can reach a schema check (the core apps as shipped): an app like it needs no engine. */
export function declaresNoAppSchema(manifest: AppManifest): boolean {
  return Object.keys(manifest).every((member) => SCHEMA_FREE_MEMBERS.has(member));
}

/** `createToolSchemaValidator` of `@lineup/protocol`, once `loadToolSchemaEngine()` has settled. */
export const createToolSchemaValidator: typeof CreateToolSchemaValidator = (schema, options) => {
  const loaded = engine.current();
  if (loaded === undefined) throw new LineUpError("invalid_state", "app schemas are checked once the Runtime's schema engine is loaded (start() loads it)");
  return loaded.createToolSchemaValidator(schema, options);
};
