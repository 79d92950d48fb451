/**
 * Safe JSON ingress: the one parser behind every JSON entry point in LineUp.
 *
 * `decodeJson` never throws and never builds a polluted object. It refuses, with a typed error:
 * input over the size limit (UTF-8 bytes), nesting deeper than the depth limit, any object key
 * that decodes to `__proto__`, `constructor` or `prototype` (however it is spelled with escapes),
 * and malformed JSON or UTF-8.
 *
 * How it stays fast: the size is checked first from the string length; the native `JSON.parse`
 * builds the value; one walk, bounded by the depth limit, checks nesting and keys. Measured on a
 * 1 KB envelope, the walk costs about a tenth of the parse, where a character scan of the raw text
 * cost a third (see bench/suites/protocol.ts).
 */
import { fail, ok, type Result } from "./errors.js";

export type JsonPrimitive = null | boolean | number | string;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export interface JsonLimits {
  /** Largest accepted input in UTF-8 bytes. Default 256 KiB. */
  readonly maxBytes?: number;
  /** Deepest accepted nesting of arrays and objects (a scalar is depth 0, `[]` is 1). Default 64. */
  readonly maxDepth?: number;
}

/**
 * True for an object that is neither null nor an array — the shape test before reading the fields of parsed
 * or received JSON. It does not check the members: `checkJsonValue` does, within limits.
 */
export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

export const DEFAULT_MAX_BYTES = 256 * 1024;
export const DEFAULT_MAX_DEPTH = 64;

const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

const utf8Decoder = new TextDecoder("utf-8", { fatal: true });

/** UTF-8 length of a string, computed without allocating. Lone surrogates count as 3 bytes, as TextEncoder writes them. */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** Whether `text` is at most `maxBytes` of UTF-8; counts the bytes only when its length cannot tell. */
export function sizeWithinLimit(text: string, maxBytes: number): boolean {
  // Every UTF-16 unit is at least one UTF-8 byte and at most three.
  if (text.length > maxBytes) return false;
  if (text.length * 3 <= maxBytes) return true;
  return utf8ByteLength(text) <= maxBytes;
}

export function escapePointerToken(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

type WalkFailure = { readonly code: "json_too_deep" | "json_forbidden_key"; readonly segments: string[] };

/**
 * Walks a parsed value to `maxDepth` (recursion is bounded by the limit, not by the input) and
 * returns the first forbidden key or the first node nested too deep. Path segments are collected
 * only while unwinding a failure, so the common case allocates nothing.
 */
function walk(node: unknown, depth: number, maxDepth: number): WalkFailure | undefined {
  if (typeof node !== "object" || node === null) return undefined;
  if (depth >= maxDepth) return { code: "json_too_deep", segments: [] };
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const failure = walk(node[i], depth + 1, maxDepth);
      if (failure !== undefined) {
        failure.segments.push(String(i));
        return failure;
      }
    }
    return undefined;
  }
  for (const key in node) {
    if (!Object.prototype.hasOwnProperty.call(node, key)) continue;
    if (FORBIDDEN_KEYS.has(key)) return { code: "json_forbidden_key", segments: [key] };
    const failure = walk((node as Record<string, unknown>)[key], depth + 1, maxDepth);
    if (failure !== undefined) {
      failure.segments.push(key);
      return failure;
    }
  }
  return undefined;
}

function pointer(segments: readonly string[]): string {
  let path = "";
  for (let i = segments.length - 1; i >= 0; i--) path += `/${escapePointerToken(segments[i]!)}`;
  return path;
}

/** The JSON Pointer of the first forbidden key in a value, if any (no depth limit). */
export function findForbiddenKey(value: unknown): string | undefined {
  const stack: Array<{ node: unknown; path: string }> = [{ node: value, path: "" }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    if (node === null || typeof node !== "object") continue;
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push({ node: node[i], path: `${path}/${i}` });
      continue;
    }
    for (const key of Object.keys(node)) {
      const childPath = `${path}/${escapePointerToken(key)}`;
      if (FORBIDDEN_KEYS.has(key)) return childPath;
      stack.push({ node: (node as Record<string, unknown>)[key], path: childPath });
    }
  }
  return undefined;
}

/** Depth limits above this are clamped: the walk recurses once per level. */
export const MAX_SUPPORTED_DEPTH = 1_000;

/**
 * Parses JSON text (or UTF-8 bytes) within limits. Never throws.
 */
export function decodeJson(input: string | Uint8Array, limits: JsonLimits = {}): Result<JsonValue> {
  const maxBytes = limits.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxDepth = limits.maxDepth ?? DEFAULT_MAX_DEPTH;
  let text: string;
  if (typeof input === "string") {
    if (!sizeWithinLimit(input, maxBytes)) return fail("json_too_large", `message exceeds ${maxBytes} bytes`);
    text = input;
  } else {
    if (input.byteLength > maxBytes) return fail("json_too_large", `message exceeds ${maxBytes} bytes`);
    try {
      text = utf8Decoder.decode(input);
    } catch {
      return fail("json_malformed", "message is not valid UTF-8");
    }
  }
  let value: JsonValue;
  try {
    // V8's JSON.parse is iterative: a nesting bomb within the size limit cannot overflow the stack,
    // and it defines `__proto__` as an own data property instead of setting a prototype.
    value = JSON.parse(text) as JsonValue;
  } catch (error) {
    return fail("json_malformed", error instanceof SyntaxError ? `malformed JSON: ${error.message}` : "malformed JSON");
  }
  const failure = walk(value, 0, Math.min(maxDepth, MAX_SUPPORTED_DEPTH));
  if (failure !== undefined) {
    const path = pointer(failure.segments);
    return failure.code === "json_too_deep"
      ? fail("json_too_deep", `nesting exceeds depth ${maxDepth}`, path)
      : fail("json_forbidden_key", "object key is forbidden (__proto__, constructor or prototype)", path);
  }
  return ok(value);
}

/** Upper bounds on the UTF-8 bytes `JSON.stringify` writes, used to skip serializing values far under the limit. */
const BOUND_NUMBER = 32; // the longest finite number JSON.stringify writes is 24 characters
const BOUND_PER_UNIT = 6; // each UTF-16 unit of a string becomes at most 6 bytes (`\u001f`, a lone surrogate)

/** The JSON Pointer of a failure: `segment` under the container entered as `parent` (-1: the root itself). */
function trailPointer(parents: readonly number[], segments: ReadonlyArray<string | number>, parent: number, segment: string | number): string {
  if (parent < 0) return "";
  const reversed: Array<string | number> = [segment];
  for (let at = parent; at > 0; at = parents[at]!) reversed.push(segments[at]!);
  let path = "";
  for (let i = reversed.length - 1; i >= 0; i--) {
    const s = reversed[i]!;
    path += `/${typeof s === "number" ? String(s) : escapePointerToken(s)}`;
  }
  return path;
}

/**
 * Checks a value that did not come from text (a structured-clone message, an object built in
 * process) against the same limits: depth, forbidden keys, JSON-only types, and size of its
 * serialization. Returns the value unchanged when it passes.
 *
 * The walk keeps no path strings: each container it enters is recorded as (parent, segment) in two
 * flat arrays, and a pointer is rendered from them only for a failure. It also sums an upper bound
 * of the serialized size; only a value whose bound exceeds the limit is serialized to measure it.
 */
export function checkJsonValue(value: unknown, limits: JsonLimits = {}): Result<JsonValue> {
  const maxDepth = limits.maxDepth ?? DEFAULT_MAX_DEPTH;
  const maxBytes = limits.maxBytes ?? DEFAULT_MAX_BYTES;
  // Nodes still to visit, as parallel stacks: the node, its depth, the container it sits in (an
  // index into the trail) and its key or index there. The root has no container (-1).
  const nodes: unknown[] = [value];
  const depths: number[] = [0];
  const parentOf: number[] = [-1];
  const segmentOf: Array<string | number> = [""];
  // Containers entered so far: their own container and segment. Entry 0 is the root's.
  const trailParents: number[] = [];
  const trailSegments: Array<string | number> = [];
  let bound = 0;
  while (nodes.length > 0) {
    const node = nodes.pop();
    const depth = depths.pop()!;
    const parent = parentOf.pop()!;
    const segment = segmentOf.pop()!;
    if (typeof node === "string") {
      bound += node.length * BOUND_PER_UNIT + 2;
      continue;
    }
    if (node === null || typeof node === "boolean") {
      bound += 5;
      continue;
    }
    if (typeof node === "number") {
      if (!Number.isFinite(node)) return fail("json_malformed", "numbers must be finite", trailPointer(trailParents, trailSegments, parent, segment));
      bound += BOUND_NUMBER;
      continue;
    }
    if (typeof node !== "object") return fail("json_malformed", `a ${typeof node} is not JSON`, trailPointer(trailParents, trailSegments, parent, segment));
    if (depth + 1 > maxDepth) return fail("json_too_deep", `nesting exceeds depth ${maxDepth}`, trailPointer(trailParents, trailSegments, parent, segment));
    const entered = trailParents.length;
    if (Array.isArray(node)) {
      trailParents.push(parent);
      trailSegments.push(segment);
      bound += node.length + 2;
      for (let i = node.length - 1; i >= 0; i--) {
        nodes.push(node[i]);
        depths.push(depth + 1);
        parentOf.push(entered);
        segmentOf.push(i);
      }
      continue;
    }
    const proto: unknown = Object.getPrototypeOf(node);
    if (proto !== Object.prototype && proto !== null) return fail("json_malformed", "only plain objects are JSON", trailPointer(trailParents, trailSegments, parent, segment));
    trailParents.push(parent);
    trailSegments.push(segment);
    const keys = Object.keys(node);
    bound += keys.length + 2;
    for (const key of keys) {
      if (FORBIDDEN_KEYS.has(key)) {
        return fail("json_forbidden_key", "object key is forbidden (__proto__, constructor or prototype)", trailPointer(trailParents, trailSegments, entered, key));
      }
      bound += key.length * BOUND_PER_UNIT + 3;
      nodes.push((node as Record<string, unknown>)[key]);
      depths.push(depth + 1);
      parentOf.push(entered);
      segmentOf.push(key);
    }
  }
  if (bound > maxBytes && !sizeWithinLimit(JSON.stringify(value), maxBytes)) return fail("json_too_large", `value exceeds ${maxBytes} bytes`);
  return ok(value as JsonValue);
}
