/**
 * The generator rewrites Ajv's standalone code to be smaller (scripts/generate-lib.ts): a constraint
 * written out many times becomes one shared schema, the schema parts a validator reads become
 * constants, only the instance path is passed between validators, and the error-list updates are
 * shared functions. None of that may change a verdict or a first error. Every generated (Ajv code)
 * validator is compared with the schema compiled whole, here, by Ajv, on a corpus built from every
 * fixture: each input and every object and array inside it, each value a validator accepts mutated
 * leaf by leaf (strings and numbers that break common constraints, each key left out, a key the
 * schema does not name added), and, seeded, each accepted value with one node replaced by arbitrary JSON.
 */
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import Ajv2020Module from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { ALL_SCHEMAS, BRIDGE_APP_SIDE_SCHEMA_IDS, validators, type SchemaErrorObject } from "@lineup/protocol";
import { toJsonSchema } from "../scripts/generate-lib.js";

const Ajv2020 = Ajv2020Module.default;
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const whole = new Ajv2020({ strict: true, allErrors: false, unicodeRegExp: false, inlineRefs: false, messages: false });
for (const schema of ALL_SCHEMAS) whole.addSchema(toJsonSchema(schema));

const BAD_STRINGS = ["", "x", "Bad Id!", "a".repeat(300), "2026-13-40"];
const BAD_NUMBERS = [-1, 0.5, 2 ** 60];

/** The value with the leaf at `path` replaced, for every leaf and every bad value. */
function* mutations(value: unknown): Generator<unknown> {
  if (typeof value === "string") yield* BAD_STRINGS;
  else if (typeof value === "number") yield* BAD_NUMBERS;
  else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) for (const m of mutations(item)) yield value.map((x, j) => (j === i ? m : x));
  } else if (typeof value === "object" && value !== null) {
    yield { ...value, not_in_the_schema: 1 };
    for (const [key, item] of Object.entries(value)) {
      yield Object.fromEntries(Object.entries(value).filter(([k]) => k !== key));
      for (const m of mutations(item)) yield { ...value, [key]: m };
    }
  }
}

/** Every object and array inside `value`, itself included. */
function* parts(value: unknown): Generator<unknown> {
  if (typeof value !== "object" || value === null) return;
  yield value;
  for (const item of Object.values(value)) yield* parts(item);
}

/** The value with the leaf or node that `pick` chooses among all of them replaced by `by`. */
function replaceAt(value: unknown, pick: number, by: unknown): unknown {
  let n = 0;
  const walk = (v: unknown): unknown => {
    if (n++ === pick) return by;
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value);
}

function fixtureCorpus(): unknown[] {
  const seen = new Map<string, unknown>();
  const fixtures = join(root, "fixtures");
  for (const folder of readdirSync(fixtures)) {
    for (const kind of ["valid", "invalid"]) {
      let names: string[];
      try {
        names = readdirSync(join(fixtures, folder, kind));
      } catch {
        continue;
      }
      for (const name of names.filter((n) => n.endsWith(".json"))) {
        const fixture = JSON.parse(readFileSync(join(fixtures, folder, kind, name), "utf8")) as { input?: unknown };
        for (const value of parts(fixture.input)) seen.set(JSON.stringify(value), value);
      }
    }
  }
  return [...seen.values()];
}

const firstError = (errors: readonly SchemaErrorObject[] | null | undefined) =>
  errors?.[0] === undefined ? undefined : { instancePath: errors[0].instancePath, keyword: errors[0].keyword, params: errors[0].params };

// The app side's bridge validators are schema data for the subset validator, compared in subset-validator.test.ts.
const compiled = Object.keys(validators).filter((id) => !BRIDGE_APP_SIDE_SCHEMA_IDS.has(id) && whole.getSchema(id) !== undefined);

describe("generated validators against the schemas compiled whole", () => {
  it("give the same verdict and first error on every fixture value and its mutations", () => {
    const corpus = fixtureCorpus();
    const differences: unknown[] = [];
    let compared = 0;
    let accepted = 0;
    const exercised = new Set<string>();
    for (const id of compiled) {
      const generated = validators[id]!;
      const reference = whole.getSchema(id)!;
      const same = (value: unknown): boolean => {
        const verdict = generated(value);
        const expected = reference(value);
        const error = verdict ? undefined : firstError(generated.errors);
        const expectedError = expected ? undefined : firstError(reference.errors as SchemaErrorObject[]);
        if (verdict !== expected || !isDeepStrictEqual(error, expectedError)) differences.push({ id, value, verdict, expected, error, expectedError });
        compared += 1;
        return verdict;
      };
      for (const value of corpus) {
        if (!same(value)) continue;
        accepted += 1;
        exercised.add(id);
        for (const m of mutations(value)) same(m);
        fc.assert(
          fc.property(fc.nat(), fc.jsonValue({ maxDepth: 2 }), (pick, by) => {
            same(replaceAt(value, pick % 64, by));
          }),
          { numRuns: 20, seed: 25 },
        );
      }
    }
    expect(differences.slice(0, 5)).toEqual([]);
    expect(compared).toBeGreaterThan(100_000);
    expect(accepted).toBeGreaterThan(1_000);
    // Most validators accept some fixture value, so their deeper checks are compared too, not only their first.
    expect(exercised.size).toBeGreaterThan(compiled.length / 2);
  }, 240_000);
});
