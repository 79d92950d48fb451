/**
 * The generated validators carry no error sentences (scripts/generate-lib.ts compiles with
 * `messages: false`); `describeSchemaError` words them from the keyword and its params. Each case
 * fails one keyword, and the sentence must be the one Ajv itself writes for the same error.
 */
import Ajv2020Module from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { describeSchemaError, type SchemaErrorObject } from "@lineup/protocol";

const Ajv2020 = Ajv2020Module.default;
const options = { strict: true, allowUnionTypes: true, allErrors: false, unicodeRegExp: false } as const;
const withMessages = new Ajv2020(options);
const withoutMessages = new Ajv2020({ ...options, messages: false });

const cases: ReadonlyArray<readonly [string, object, unknown]> = [
  ["type", { type: "string" }, 1],
  ["type list", { type: ["object", "boolean"] }, 1],
  ["const", { const: "a" }, "b"],
  ["enum", { enum: ["a", "b"] }, "c"],
  ["pattern", { type: "string", pattern: "^[a-z]+$" }, "A"],
  ["minimum", { type: "number", minimum: 1 }, 0],
  ["maximum", { type: "number", maximum: 1 }, 2],
  ["exclusiveMinimum", { type: "number", exclusiveMinimum: 1 }, 1],
  ["exclusiveMaximum", { type: "number", exclusiveMaximum: 1 }, 1],
  ["multipleOf", { type: "number", multipleOf: 2 }, 3],
  ["minLength", { type: "string", minLength: 2 }, "a"],
  ["maxLength", { type: "string", maxLength: 1 }, "ab"],
  ["minItems", { type: "array", minItems: 1 }, []],
  ["maxItems", { type: "array", maxItems: 1 }, [1, 2]],
  ["minProperties", { type: "object", minProperties: 1 }, {}],
  ["maxProperties", { type: "object", maxProperties: 0 }, { a: 1 }],
  ["uniqueItems", { type: "array", uniqueItems: true }, [1, 1]],
  ["required", { type: "object", properties: { a: {} }, required: ["a"] }, {}],
  ["additionalProperties", { type: "object", additionalProperties: false }, { a: 1 }],
  ["nested path", { type: "object", properties: { a: { type: "object", properties: { "b/c": { type: "integer" } } } } }, { a: { "b/c": 1.5 } }],
  ["anyOf", { anyOf: [{ type: "string" }, { type: "integer" }] }, true],
  ["oneOf", { oneOf: [{ type: "number" }, { type: "integer" }] }, 1],
  ["not", { not: { type: "string" } }, "a"],
  ["propertyNames", { type: "object", propertyNames: { maxLength: 1 } }, { ab: 1 }],
  ["unevaluatedProperties", { type: "object", properties: { a: {} }, unevaluatedProperties: false }, { b: 1 }],
  ["false schema", { type: "object", properties: { a: false } }, { a: 1 }],
];

describe("schema error sentences without Ajv's messages", () => {
  it.each(cases)("%s: the same path and sentence as Ajv's", (_name, schema, value) => {
    const worded = withMessages.compile(schema);
    const bare = withoutMessages.compile(schema);
    expect(worded(value)).toBe(false);
    expect(bare(value)).toBe(false);
    const bareError = bare.errors?.[0] as SchemaErrorObject | undefined;
    expect(bareError?.message).toBeUndefined();
    expect(describeSchemaError(bareError)).toEqual(describeSchemaError(worded.errors?.[0] as SchemaErrorObject));
  });
});
