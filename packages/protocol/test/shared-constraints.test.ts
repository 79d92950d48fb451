/**
 * The generator compiles a constraint written out many times as one shared schema every place
 * references (scripts/generate-lib.ts). That must change no verdict and no first error: each valid
 * fixture of the envelope and manifest contracts, and many mutations of it (each string and number
 * replaced by values that break common constraints), get the same answer from the generated
 * validator as from the schema compiled whole, here, by Ajv.
 */
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv2020Module from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { ALL_SCHEMAS, validators, type SchemaErrorObject } from "@lineup/protocol";
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
    for (const [key, item] of Object.entries(value)) for (const m of mutations(item)) yield { ...value, [key]: m };
  }
}

const firstError = (errors: readonly SchemaErrorObject[] | null | undefined) =>
  errors?.[0] === undefined ? undefined : { instancePath: errors[0].instancePath, keyword: errors[0].keyword, params: errors[0].params };

const contracts: ReadonlyArray<readonly [string, string]> = [
  ["envelope", "urn:lineup:runtime-envelope.v1"],
  ["manifest", "urn:lineup:app-manifest.v1"],
];

describe("shared constraints in the generated validators", () => {
  it.each(contracts)("%s: the same verdict and first error as the schema compiled whole", (folder, id) => {
    const generated = validators[id]!;
    const reference = whole.getSchema(id)!;
    let compared = 0;
    for (const name of readdirSync(join(root, "fixtures", folder, "valid"))) {
      const fixture = JSON.parse(readFileSync(join(root, "fixtures", folder, "valid", name), "utf8")) as { input?: unknown };
      if (fixture.input === undefined) continue;
      for (const value of [fixture.input, ...mutations(fixture.input)]) {
        const verdict = generated(value);
        expect(verdict, name).toBe(reference(value));
        if (!verdict) expect(firstError(generated.errors), name).toEqual(firstError(reference.errors as SchemaErrorObject[]));
        compared += 1;
      }
    }
    expect(compared).toBeGreaterThan(100);
  }, 60_000);
});
