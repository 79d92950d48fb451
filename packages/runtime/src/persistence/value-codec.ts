import type { JsonValue } from "./json.js";
import { StoreError } from "./store-error.js";
import type { StoreValue } from "./store.js";

/**
 * A value as every engine stores it. JSON travels as text so that all adapters give back exactly what
 * `JSON.parse` gives (IndexedDB's structured clone alone would keep `-0`, SQLite and memory would not),
 * and so that no caller-owned object is ever shared with the store.
 */
export type EncodedValue =
  | { readonly kind: "json"; readonly text: string }
  | { readonly kind: "bytes"; readonly bytes: Uint8Array };

/** Deeper values are refused rather than risking a stack overflow in an engine or in `JSON.parse`. */
export const MAX_VALUE_DEPTH = 256;

/**
 * Validates and copies `value`. Throws `store_invalid_value` for anything that would not round-trip:
 * functions, `undefined`, symbols, bigints, non-finite numbers, sparse arrays, cycles, and objects that
 * are not plain (`Date`, `Map`, class instances, typed arrays nested inside JSON).
 */
export function encodeValue(value: unknown): EncodedValue {
  if (value instanceof Uint8Array) {
    // A fresh, exactly-sized copy: a subarray view must not drag its whole buffer along, and a Buffer
    // comes back as a plain Uint8Array.
    return { kind: "bytes", bytes: new Uint8Array(value) };
  }
  // The common case, a valid value, is checked without building paths; only a refusal walks again to name one.
  if (!isPlainJson(value, 0)) assertJsonValue(value, "value", 0, new Set());
  return { kind: "json", text: JSON.stringify(value) };
}

/** A fresh copy each call, so a reader mutating the result cannot change the store or other readers. */
export function decodeValue(encoded: EncodedValue): StoreValue {
  return encoded.kind === "bytes" ? new Uint8Array(encoded.bytes) : (JSON.parse(encoded.text) as JsonValue);
}

/**
 * True when `value` is plain JSON within the depth limit. A cycle is deeper than any limit, so it ends
 * here as `false` too, and the naming walk below reports it.
 */
function isPlainJson(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object": {
      if (value === null) return true;
      if (depth >= MAX_VALUE_DEPTH) return false;
      if (Array.isArray(value)) {
        if (Object.getPrototypeOf(value) !== Array.prototype) return false;
        for (let index = 0; index < value.length; index++) {
          if (!Object.hasOwn(value, index) || !isPlainJson(value[index], depth + 1)) return false;
        }
        return true;
      }
      const prototype: unknown = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null) return false;
      if (Object.getOwnPropertySymbols(value).length > 0) return false;
      // for…in walks the own enumerable keys Object.keys would list (then inherited ones, skipped) without building an array.
      for (const key in value) {
        if (Object.hasOwn(value, key) && !isPlainJson((value as Record<string, unknown>)[key], depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

function assertJsonValue(value: unknown, path: string, depth: number, ancestors: Set<object>): asserts value is JsonValue {
  switch (typeof value) {
    case "string":
    case "boolean":
      return;
    case "number":
      if (!Number.isFinite(value)) refuse(path, `is ${String(value)}, not a finite number`);
      return;
    case "object":
      if (value === null) return;
      if (depth >= MAX_VALUE_DEPTH) refuse(path, `is nested deeper than ${MAX_VALUE_DEPTH} levels`);
      if (ancestors.has(value)) refuse(path, "is a cycle");
      ancestors.add(value);
      if (Array.isArray(value)) assertJsonArray(value, path, depth, ancestors);
      else assertJsonObject(value, path, depth, ancestors);
      ancestors.delete(value);
      return;
    default:
      refuse(path, `is ${typeof value === "undefined" ? "undefined" : `a ${typeof value}`}`);
  }
}

function assertJsonArray(array: unknown[], path: string, depth: number, ancestors: Set<object>): void {
  if (Object.getPrototypeOf(array) !== Array.prototype) refuse(path, "is not a plain array");
  for (let index = 0; index < array.length; index++) {
    if (!Object.hasOwn(array, index)) refuse(`${path}[${index}]`, "is a hole in a sparse array");
    assertJsonValue(array[index], `${path}[${index}]`, depth + 1, ancestors);
  }
}

function assertJsonObject(object: object, path: string, depth: number, ancestors: Set<object>): void {
  const prototype: unknown = Object.getPrototypeOf(object);
  if (prototype !== Object.prototype && prototype !== null) {
    const name = (object.constructor as { name?: unknown } | undefined)?.name;
    refuse(path, `is not a plain object (${typeof name === "string" ? name : "unknown prototype"})`);
  }
  if (Object.getOwnPropertySymbols(object).length > 0) refuse(path, "has symbol keys");
  for (const [key, entry] of Object.entries(object)) {
    assertJsonValue(entry, `${path}.${key}`, depth + 1, ancestors);
  }
}

function refuse(path: string, problem: string): never {
  throw new StoreError("store_invalid_value", `${path} ${problem}: store values are JSON or a Uint8Array`);
}
