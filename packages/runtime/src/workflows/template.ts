/**
 * Workflow templates (packages/protocol/src/manifest/app-code.ts, "the template rule"): a step's input and a
 * workflow's output are JSON in which an object with exactly one key, `{ "$from": "<pointer>" }`, stands for
 * the value at that JSON Pointer (RFC 6901) of the run: `/input/...` (the run's input) or
 * `/steps/<id>/output/...` (an earlier step's output).
 *
 * Pure and bounded: a template nests at most MAX_TEMPLATE_DEPTH deep and has at most MAX_TEMPLATE_NODES
 * values; past either it is refused, so a hostile manifest cannot make the loop walk without end. A value a
 * pointer brings in is taken as it is (never read as a template again): a step's output that happens to hold
 * `{ "$from": ... }` is data.
 */
import { fail, ok, type JsonValue, type ProtocolError, type Result } from "@lineup/protocol";

/** The key that makes an object a reference. */
export const FROM_KEY = "$from";
/** How deep a template may nest (its root is depth 0). */
export const MAX_TEMPLATE_DEPTH = 32;
/** How many values (objects, arrays, primitives) a template may hold. */
export const MAX_TEMPLATE_NODES = 10_000;

/** What a template reads: the run's input and each step's output (only the steps it may read). */
export interface TemplateDocument {
  readonly input: JsonValue;
  readonly steps: Readonly<Record<string, { readonly output: JsonValue }>>;
}

type Refusal = { ok: false; error: ProtocolError };

const escapeSegment = (key: string): string => key.replace(/~/g, "~0").replace(/\//g, "~1");

/** The segments of a JSON Pointer (`""` is the whole document: no segments), or undefined when it is not one. */
export function parsePointer(pointer: string): string[] | undefined {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) return undefined;
  const segments = pointer.slice(1).split("/");
  for (let i = 0; i < segments.length; i++) {
    const raw = segments[i]!;
    if (/~(?![01])/.test(raw)) return undefined;
    segments[i] = raw.replace(/~1/g, "/").replace(/~0/g, "~");
  }
  return segments;
}

const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

/** The value at `pointer` in `doc` (own properties only; `-` and out-of-range indexes are nothing), or undefined. */
export function valueAt(doc: JsonValue, pointer: string): JsonValue | undefined {
  const segments = parsePointer(pointer);
  if (segments === undefined) return undefined;
  let value: JsonValue | undefined = doc;
  for (const segment of segments) {
    if (value === null || typeof value !== "object") return undefined;
    if (Array.isArray(value)) {
      if (!ARRAY_INDEX.test(segment)) return undefined;
      const index = Number(segment);
      value = index < value.length ? (value[index] as JsonValue) : undefined;
    } else {
      value = Object.prototype.hasOwnProperty.call(value, segment) ? value[segment] : undefined;
    }
    if (value === undefined) return undefined;
  }
  return value;
}

/** What the first segments of a `$from` pointer name: the run's input, or one step's output; undefined for anything else. */
export function pointerTarget(pointer: string): { readonly kind: "input" } | { readonly kind: "step"; readonly step_id: string } | undefined {
  const segments = parsePointer(pointer);
  if (segments === undefined || segments.length === 0) return undefined;
  if (segments[0] === "input") return { kind: "input" };
  if (segments[0] === "steps" && segments.length >= 3 && segments[2] === "output") return { kind: "step", step_id: segments[1]! };
  return undefined;
}

/** Whether `value` is a reference: an object whose only key is `$from`. */
function isRef(value: { readonly [key: string]: JsonValue }): boolean {
  let count = 0;
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    count += 1;
    if (count > 1 || key !== FROM_KEY) return false;
  }
  return count === 1;
}

/**
 * Walks a template within the bounds, replacing each reference by what `onRef` gives for it (called with its
 * pointer and its place in the template); containers are copied only where something in them changed.
 */
class Walker {
  private nodes = 0;
  constructor(private readonly onRef: (pointer: string, at: string) => Result<JsonValue>) {}

  walk(value: JsonValue, at: string, depth: number): Result<JsonValue> {
    this.nodes += 1;
    if (this.nodes > MAX_TEMPLATE_NODES) return fail("invalid_params", `a workflow template holds more than ${MAX_TEMPLATE_NODES} values`, at);
    if (value === null || typeof value !== "object") return ok(value);
    if (depth >= MAX_TEMPLATE_DEPTH) return fail("invalid_params", `a workflow template nests deeper than ${MAX_TEMPLATE_DEPTH}`, at);
    if (Array.isArray(value)) {
      let copy: JsonValue[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const item = value[i] as JsonValue;
        const done = this.walk(item, `${at}/${i}`, depth + 1);
        if (!done.ok) return done;
        if (done.value !== item) copy ??= value.slice(0, i) as JsonValue[];
        copy?.push(done.value);
      }
      return ok(copy ?? value);
    }
    if (isRef(value)) {
      const pointer = value[FROM_KEY];
      const place = `${at}/${escapeSegment(FROM_KEY)}`;
      if (typeof pointer !== "string") return fail("invalid_params", `${place}: "$from" takes a JSON Pointer (a string)`, place);
      if (parsePointer(pointer) === undefined) return fail("invalid_params", `${place}: "${pointer}" is not a JSON Pointer`, pointer);
      return this.onRef(pointer, place);
    }
    let copy: { [key: string]: JsonValue } | undefined;
    const keys = Object.keys(value);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const item = value[key] as JsonValue;
      const done = this.walk(item, `${at}/${escapeSegment(key)}`, depth + 1);
      if (!done.ok) return done;
      if (copy === undefined && done.value !== item) {
        copy = {};
        for (let j = 0; j < i; j++) defineValue(copy, keys[j]!, value[keys[j]!] as JsonValue);
      }
      if (copy !== undefined) defineValue(copy, key, done.value);
    }
    return ok(copy ?? value);
  }
}

/** Sets an own data property (a `__proto__` key stays a key, as JSON.parse makes it). */
function defineValue(target: { [key: string]: JsonValue }, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * `template` with every `{ "$from": pointer }` replaced by the value at the pointer in `doc`, deep. A pointer
 * to nothing (a missing key, a step `doc` does not hold) is refused `invalid_params` with the pointer as
 * `path`; so are a `$from` that is not a pointer and a template past the bounds (then `path` is the place in
 * the template). Unchanged parts of the template are returned as they are, not copied.
 */
export function resolveTemplate(template: JsonValue, doc: TemplateDocument): Result<JsonValue> {
  const root: JsonValue = { input: doc.input, steps: doc.steps as unknown as JsonValue };
  return new Walker((pointer, at) => {
    const value = valueAt(root, pointer);
    if (value === undefined) return fail("invalid_params", `template ${at}: "${pointer}" points at nothing in the run`, pointer);
    return ok(value);
  }).walk(template, "", 0);
}

/**
 * Every pointer `template` names, in order and once each: what the install-time check reads to verify that a
 * step reads only the run's input and earlier steps (with `pointerTarget`). Refused as `resolveTemplate`
 * refuses a template: a `$from` that is not a pointer, or a template past the bounds.
 */
export function templateRefs(template: JsonValue | undefined): Result<string[]> {
  if (template === undefined) return ok([]);
  const refs = new Set<string>();
  const walked = new Walker((pointer) => {
    refs.add(pointer);
    return ok(null);
  }).walk(template, "", 0);
  return walked.ok ? ok([...refs]) : (walked as Refusal);
}
