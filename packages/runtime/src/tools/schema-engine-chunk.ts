/**
 * The interpreter of app-supplied JSON Schemas with its linear-time pattern engine (RE2) and the
 * meta-schema check, imported only by `import()` from `schema-engine.ts`: a bundler puts it in a chunk of
 * its own, which a host page loads while the Runtime starts, not before its first paint.
 */
export { createToolSchemaValidator } from "@lineup/protocol";
