/**
 * A validator for a small, closed subset of JSON Schema, read from the schema as data: for a
 * contract whose schemas are few and flat (the Surface Bridge's app side), a few hundred bytes of
 * this and the schemas beat kilobytes of compiled code in every page that carries them.
 *
 * It gives the generated (Ajv) validator's verdict and first error — keyword, params, instance path —
 * on every value, checking keywords in Ajv's order: `type`, `const`, `enum`, `maximum`, `minimum`,
 * `maxLength`, `minLength` (in code points), `pattern`, `required`, `additionalProperties: false`,
 * then `properties` in their declared order. The generator (scripts/generate-subset.ts) refuses any
 * other keyword, so no constraint is ever skipped; test/subset-validator.test.ts compares the two.
 * No `eval`, nothing compiled at run time but the patterns.
 */
import { escapePointerToken, isRecord } from "./json.js";
import type { CompiledValidator, SchemaErrorObject } from "./validation.js";

/** The keywords `subsetValidator` reads. A `const` or an `enum` value is a string, number, boolean or null. */
export interface SubsetSchema {
  readonly type?: "object" | "array" | "string" | "number" | "integer" | "boolean" | "null";
  readonly const?: string | number | boolean | null;
  readonly enum?: readonly (string | number | boolean | null)[];
  readonly maximum?: number;
  readonly minimum?: number;
  readonly maxLength?: number;
  readonly minLength?: number;
  readonly pattern?: string;
  readonly required?: readonly string[];
  readonly additionalProperties?: false;
  readonly properties?: Readonly<Record<string, SubsetSchema>>;
}

type Check = (data: unknown, path: string) => SchemaErrorObject | undefined;

const isNumber = (d: unknown): d is number => typeof d === "number" && isFinite(d);

const TYPES: Readonly<Record<string, (d: unknown) => boolean>> = {
  object: isRecord,
  array: Array.isArray,
  string: (d) => typeof d === "string",
  number: isNumber,
  integer: Number.isInteger,
  boolean: (d) => typeof d === "boolean",
  null: (d) => d === null,
};

/** Code points, as JSON Schema counts a string's length (a surrogate pair is one). */
const codePoints = (s: string): number => [...s].length;

const error = (instancePath: string, keyword: string, params: Record<string, unknown>): SchemaErrorObject => ({ instancePath, keyword, params });

function compile(s: SubsetSchema): Check {
  const pattern = s.pattern === undefined ? undefined : new RegExp(s.pattern);
  const properties = Object.entries(s.properties ?? {}).map(([key, child]) => [key, `/${escapePointerToken(key)}`, compile(child)] as const);
  const known = new Set(Object.keys(s.properties ?? {}));
  return (d, path) => {
    if (s.type !== undefined && !TYPES[s.type]!(d)) return error(path, "type", { type: s.type });
    if ("const" in s && d !== s.const) return error(path, "const", { allowedValue: s.const });
    if (s.enum !== undefined && !s.enum.includes(d as never)) return error(path, "enum", { allowedValues: s.enum });
    if (isNumber(d)) {
      if (s.maximum !== undefined && d > s.maximum) return error(path, "maximum", { comparison: "<=", limit: s.maximum });
      if (s.minimum !== undefined && d < s.minimum) return error(path, "minimum", { comparison: ">=", limit: s.minimum });
    }
    if (typeof d === "string") {
      // The UTF-16 length bounds the count from above: most strings are settled without counting.
      if (s.maxLength !== undefined && d.length > s.maxLength && codePoints(d) > s.maxLength) return error(path, "maxLength", { limit: s.maxLength });
      if (s.minLength !== undefined && (d.length < s.minLength || codePoints(d) < s.minLength)) return error(path, "minLength", { limit: s.minLength });
      if (pattern !== undefined && !pattern.test(d)) return error(path, "pattern", { pattern: s.pattern });
    }
    if (isRecord(d)) {
      for (const key of s.required ?? []) if (d[key] === undefined) return error(path, "required", { missingProperty: key });
      if (s.additionalProperties === false) for (const key in d) if (!known.has(key)) return error(path, "additionalProperties", { additionalProperty: key });
      for (const [key, pointer, check] of properties) {
        const found = d[key] === undefined ? undefined : check(d[key], path + pointer);
        if (found !== undefined) return found;
      }
    }
    return undefined;
  };
}

/** A `CompiledValidator` over `schema`: true, or false with the first error in `.errors`. */
export function subsetValidator(schema: SubsetSchema): CompiledValidator {
  const check = compile(schema);
  const validate: CompiledValidator = (data) => {
    const found = check(data, "");
    validate.errors = found === undefined ? null : [found];
    return found === undefined;
  };
  return validate;
}
