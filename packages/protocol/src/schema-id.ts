/**
 * Schema ids, as plain values: run-time code finds a generated validator by its schema's id without loading the
 * schema or TypeBox (schema-kit.ts declares schemas; the `terms.ts` modules name the ids run-time code reads).
 */

/** Every schema id lives under this URN prefix: `urn:lineup:<name>`. */
export const SCHEMA_ID_PREFIX = "urn:lineup:";
export const schemaId = (name: string): string => `${SCHEMA_ID_PREFIX}${name}`;
