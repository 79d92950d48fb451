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

/** The first error for `data`, its `instancePath` relative to `data` (a parent prefixes its own on the way out). */
type Check = (data: unknown) => SchemaErrorObject | undefined;

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

const error = (keyword: string, params: Record<string, unknown>): SchemaErrorObject => ({ instancePath: "", keyword, params });

// Everything a check reads is looked up once, here, and a path is built only for an error: a value that
// passes costs no allocation.
function compile(s: SubsetSchema): Check {
  const { maximum, minimum, maxLength, minLength, required = [], enum: allowed, const: constant } = s;
  const type = s.type === undefined ? undefined : TYPES[s.type];
  const hasConst = "const" in s;
  const pattern = s.pattern === undefined ? undefined : new RegExp(s.pattern);
  const properties = Object.entries(s.properties ?? {}).map(([key, child]) => [key, `/${escapePointerToken(key)}`, compile(child)] as const);
  const known = s.additionalProperties === false ? new Set(Object.keys(s.properties ?? {})) : undefined;
  return (d) => {
    if (type !== undefined && !type(d)) return error("type", { type: s.type });
    if (hasConst && d !== constant) return error("const", { allowedValue: constant });
    if (allowed !== undefined && !allowed.includes(d as never)) return error("enum", { allowedValues: allowed });
    if (isNumber(d)) {
      if (maximum !== undefined && d > maximum) return error("maximum", { comparison: "<=", limit: maximum });
      if (minimum !== undefined && d < minimum) return error("minimum", { comparison: ">=", limit: minimum });
    } else if (typeof d === "string") {
      // The UTF-16 length bounds the count from above and half of it from below: most strings are settled
      // without counting (counting builds an array of the string's characters).
      if (maxLength !== undefined && d.length > maxLength && codePoints(d) > maxLength) return error("maxLength", { limit: maxLength });
      if (minLength !== undefined && d.length < 2 * minLength && (d.length < minLength || codePoints(d) < minLength)) return error("minLength", { limit: minLength });
      if (pattern !== undefined && !pattern.test(d)) return error("pattern", { pattern: s.pattern });
    } else if (isRecord(d)) {
      for (const key of required) if (d[key] === undefined) return error("required", { missingProperty: key });
      if (known !== undefined) for (const key in d) if (!known.has(key)) return error("additionalProperties", { additionalProperty: key });
      for (const [key, pointer, check] of properties) {
        const found = d[key] === undefined ? undefined : check(d[key]);
        if (found !== undefined) return { ...found, instancePath: pointer + found.instancePath };
      }
    }
    return undefined;
  };
}

/** A `CompiledValidator` over `schema`: true, or false with the first error in `.errors`. */
export function subsetValidator(schema: SubsetSchema): CompiledValidator {
  const check = compile(schema);
  const validate: CompiledValidator = (data) => {
    const found = check(data);
    validate.errors = found === undefined ? null : [found];
    return found === undefined;
  };
  return validate;
}
