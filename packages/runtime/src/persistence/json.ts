/** A value that survives `JSON.stringify` → `JSON.parse` unchanged (finite numbers only, no `undefined`). */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

/** A plain JSON object: own enumerable string keys only. */
export interface JsonObject {
  [key: string]: JsonValue;
}
