/**
 * The app side's bridge validators are schema data read by `subsetValidator` (src/subset-validator.ts),
 * not Ajv code. They must give Ajv's verdict and first error (keyword, params, instance path) on
 * every value: for each app-side schema, thousands of values built from the schema itself — valid,
 * one step off (each limit ± 1, surrogate pairs at the length bounds, wrong types, missing and
 * extra keys) and arbitrary JSON — go through both. The generator refuses what the subset cannot check.
 */
import fc from "fast-check";
import Ajv2020Module from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { ALL_SCHEMAS, BRIDGE_APP_SIDE_SCHEMA_IDS, validators, type SchemaErrorObject } from "@lineup/protocol";
import { subsetValidator } from "../src/subset-validator.js";
import { toJsonSchema } from "../scripts/generate-lib.js";
import { subsetSchema } from "../scripts/generate-subset.js";

const Ajv2020 = Ajv2020Module.default;
const ajv = new Ajv2020({ strict: true, allErrors: false, unicodeRegExp: false, messages: false });
const jsonSchemas = new Map(ALL_SCHEMAS.map((s) => [s.$id!, toJsonSchema(s)]));
for (const schema of jsonSchemas.values()) ajv.addSchema(schema);

type Schema = Record<string, unknown>;

/** A string of `n` code points, some of them surrogate pairs (two UTF-16 units, one code point). */
const codePointsString = (n: number): fc.Arbitrary<string> => fc.array(fc.constantFrom("a", "Z", "_", "😀", "é"), { minLength: n, maxLength: n }).map((cs) => cs.join(""));

const codePointLength = (s: string): number => [...s].length;

/** Values that pass `schema`. */
function valid(schema: Schema): fc.Arbitrary<unknown> {
  if ("const" in schema) return fc.constant(schema["const"]);
  if (Array.isArray(schema["enum"])) return fc.constantFrom(...(schema["enum"] as unknown[]));
  const type = schema["type"];
  if (type === "string") {
    const min = (schema["minLength"] as number | undefined) ?? 0;
    const max = (schema["maxLength"] as number | undefined) ?? Infinity;
    const text = typeof schema["pattern"] === "string" ? fc.stringMatching(new RegExp(schema["pattern"])) : fc.string();
    return text.filter((s) => codePointLength(s) >= min && codePointLength(s) <= max);
  }
  if (type === "integer") return fc.integer({ min: (schema["minimum"] as number | undefined) ?? -1e6, max: Math.min((schema["maximum"] as number | undefined) ?? 1e6, 2 ** 31 - 1) });
  if (type === "object") {
    const properties = (schema["properties"] as Record<string, Schema> | undefined) ?? {};
    const required = (schema["required"] as string[] | undefined) ?? [];
    return fc.record(Object.fromEntries(Object.entries(properties).map(([k, child]) => [k, near(child)])), { requiredKeys: required.filter((k) => k in properties) });
  }
  return fc.jsonValue({ maxDepth: 2 });
}

/** Values one step off each constraint of `schema`, and arbitrary JSON. */
function off(schema: Schema): fc.Arbitrary<unknown> {
  const json = fc.jsonValue({ maxDepth: 2 });
  const options: fc.Arbitrary<unknown>[] = [json];
  if (Array.isArray(schema["enum"])) options.push(fc.string());
  const type = schema["type"];
  if (type === "string") {
    const min = (schema["minLength"] as number | undefined) ?? 0;
    const max = (schema["maxLength"] as number | undefined) ?? min + 8;
    const lengths = [min - 1, min, max, max + 1].filter((n) => n >= 0);
    options.push(fc.constantFrom(...lengths).chain(codePointsString), fc.string({ unit: "binary", maxLength: max + 2 }));
    if (typeof schema["pattern"] === "string") options.push(fc.stringMatching(new RegExp(schema["pattern"])).map((s) => `${s}!`));
  }
  if (type === "integer" || type === "number") {
    const edges = [schema["minimum"], schema["maximum"]].filter((n): n is number => typeof n === "number").flatMap((n) => [n - 1, n, n + 1, n + 0.5]);
    options.push(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), ...(edges.length > 0 ? [fc.constantFrom(...edges)] : []));
  }
  if (type === "object") {
    const properties = (schema["properties"] as Record<string, Schema> | undefined) ?? {};
    // A key missing, or one the schema does not name.
    options.push(
      fc.record(Object.fromEntries(Object.entries(properties).map(([k, child]) => [k, near(child)])), { requiredKeys: [] }),
      fc.tuple(valid(schema), fc.constantFrom("extra", "__x", "a/b~c"), json).map(([o, k, v]) => ({ ...(o as object), [k]: v })),
    );
  }
  return fc.oneof(...options);
}

/** Mostly valid values, each part one step off now and then: every first error is reached. */
function near(schema: Schema): fc.Arbitrary<unknown> {
  return fc.oneof({ arbitrary: valid(schema), weight: 12 }, { arbitrary: off(schema), weight: 1 });
}


const firstError = (errors: readonly SchemaErrorObject[] | null | undefined) =>
  errors?.[0] === undefined ? undefined : { instancePath: errors[0].instancePath, keyword: errors[0].keyword, params: errors[0].params };

describe("the app side's bridge validators (subset validator)", () => {
  it.each([...BRIDGE_APP_SIDE_SCHEMA_IDS])("%s: Ajv's verdict and first error on every value", (id) => {
    const subset = validators[id]!;
    const reference = ajv.getSchema(id)!;
    let failures = 0;
    fc.assert(
      fc.property(near(jsonSchemas.get(id)!), (value) => {
        const verdict = subset(value);
        expect(verdict).toBe(reference(value));
        if (verdict) expect(subset.errors).toBeNull();
        else {
          failures += 1;
          expect(firstError(subset.errors)).toEqual(firstError(reference.errors as SchemaErrorObject[]));
        }
      }),
      { numRuns: 3_000, seed: 2025 },
    );
    // Both verdicts were exercised, not one alone.
    expect(failures).toBeGreaterThan(100);
    expect(failures).toBeLessThan(2_900);
  }, 60_000);

  it("counts string lengths in code points, as Ajv does, around each bound", () => {
    const bounded = { type: "string", minLength: 2, maxLength: 3 } as const;
    const subset = subsetValidator(bounded);
    const reference = ajv.compile(bounded);
    // A surrogate pair is one code point: a string's UTF-16 length can be twice its length in code points.
    for (const value of ["a", "ab", "abc", "abcd", "\u{1F600}", "\u{1F600}\u{1F600}", "a\u{1F600}", "\u{1F600}\u{1F600}\u{1F600}", "\u{1F600}\u{1F600}\u{1F600}\u{1F600}", "\u{1F600}ab"]) {
      expect([value, subset(value)]).toEqual([value, reference(value)]);
      if (!reference(value)) expect(firstError(subset.errors)).toEqual(firstError(reference.errors as SchemaErrorObject[]));
    }
  });

  it("refuses, at generation, a schema with a keyword the subset does not check", () => {
    expect(() => subsetSchema({ type: "object", properties: { a: { oneOf: [{ type: "string" }] } } }, "urn:x")).toThrow(/urn:x\/properties\/a: oneOf/);
    expect(() => subsetSchema({ type: "object", additionalProperties: { type: "string" } }, "urn:x")).toThrow(/additionalProperties/);
    expect(() => subsetSchema({ enum: [{ a: 1 }] }, "urn:x")).toThrow(/enum/);
    expect(() => subsetSchema({ type: ["string", "null"] }, "urn:x")).toThrow(/type/);
    expect(() => subsetSchema({ $ref: "urn:lineup:other" }, "urn:x")).toThrow(/\$ref/);
    expect(subsetSchema({ $id: "urn:x", title: "t", type: "string", maxLength: 3 }, "urn:x")).toEqual({ type: "string", maxLength: 3 });
  });
});
