import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkJsonSchema, createToolSchemaValidator, MAX_SCHEMA_DEPTH, validateManifest, type Result, type ToolValueValidator } from "@lineup/protocol";
import { voiceManifest } from "./manifest-samples.js";

function validatorFor(schema: unknown, code: "invalid_arguments" | "invalid_result" = "invalid_arguments"): ToolValueValidator {
  const created = createToolSchemaValidator(schema, { code });
  if (!created.ok) throw new Error(`schema refused: ${JSON.stringify(created.error)}`);
  return created.value;
}

function refusal(result: Result<unknown>) {
  if (result.ok) throw new Error("expected a refusal");
  return result.error;
}

const boardArgs = {
  type: "object",
  required: ["title", "shapes"],
  properties: {
    title: { type: "string", minLength: 1, maxLength: 20 },
    shapes: { type: "array", items: { $ref: "#/$defs/shape" } },
    "a/b": { type: "integer" },
    due: { type: "string", format: "date-time" },
  },
  additionalProperties: false,
  $defs: {
    shape: { type: "object", required: ["kind"], properties: { kind: { enum: ["rect", "circle"] }, size: { type: "number", minimum: 0 } } },
  },
};

describe("createToolSchemaValidator", () => {
  const validate = validatorFor(boardArgs);

  it("accepts values that match and returns them unchanged", () => {
    const args = { title: "Plan", shapes: [{ kind: "rect", size: 2 }], "a/b": 3, due: "2026-08-06T10:00:00Z" };
    expect(validate(args)).toEqual({ ok: true, value: args });
  });

  it("refuses with the code the caller chose", () => {
    expect(refusal(validate({})).code).toBe("invalid_arguments");
    const output = validatorFor({ type: "object", properties: { board_id: { type: "string" } }, required: ["board_id"] }, "invalid_result");
    expect(refusal(output({ board_id: 7 })).code).toBe("invalid_result");
  });

  it("points at the first problem with a JSON Pointer", () => {
    expect(refusal(validate({ shapes: [] }))).toMatchObject({ path: "/title" });
    expect(refusal(validate({ title: "x", shapes: [{ kind: "rect" }, { kind: "star" }] }))).toMatchObject({ path: "/shapes/1/kind" });
    expect(refusal(validate({ title: "x", shapes: [{ kind: "rect", size: -1 }] }))).toMatchObject({ path: "/shapes/0/size" });
    expect(refusal(validate({ title: "x", shapes: [], extra: true }))).toMatchObject({ path: "/extra" });
    expect(refusal(validate({ title: "x", shapes: [], "a/b": 1.5 }))).toMatchObject({ path: "/a~1b" });
    expect(refusal(validate([]))).toMatchObject({ path: "" });
  });

  it("names the broken rule rather than only the enclosing one", () => {
    const error = refusal(validate({ title: "x", shapes: [{ kind: "rect", size: "big" }] }));
    expect(error.path).toBe("/shapes/0/size");
    expect(error.message).toMatch(/type|number/i);
  });

  it("checks formats", () => {
    expect(refusal(validate({ title: "x", shapes: [], due: "tomorrow" }))).toMatchObject({ code: "invalid_arguments", path: "/due" });
  });

  it("refuses values that are not plain JSON, with the caller's code", () => {
    expect(refusal(validate({ title: "x", shapes: [{ kind: "rect", size: Number.NaN }] }))).toMatchObject({ code: "invalid_arguments", path: "/shapes/0/size" });
    expect(refusal(validate({ title: "x", shapes: [], due: new Date() }))).toMatchObject({ code: "invalid_arguments", path: "/due" });
    expect(refusal(validate(undefined)).code).toBe("invalid_arguments");
    expect(refusal(validate(JSON.parse('{"title":"x","shapes":[],"__proto__":{"polluted":1}}'))).code).toBe("invalid_arguments");
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("keeps its own copy of the schema: the caller's object is neither annotated nor able to change it later", () => {
    const schema = { type: "object", properties: { n: { type: "integer" } } };
    const before = JSON.stringify(schema);
    const check = validatorFor(schema);
    expect(Object.getOwnPropertyNames(schema)).toEqual(["type", "properties"]);
    expect(JSON.stringify(schema)).toBe(before);
    schema.properties.n.type = "string";
    expect(check({ n: 1 }).ok).toBe(true);
  });

  it("refuses schemas the Runtime cannot safely interpret", () => {
    const cases: Array<[unknown, string]> = [
      [{ type: "object", properties: { a: { $ref: "https://example.com/a.json" } } }, "/properties/a/$ref"],
      [{ type: "object", properties: { a: { $ref: "#/$defs/none" } } }, "/properties/a/$ref"],
      [{ type: "object", properties: { a: { $ref: "#nowhere" } } }, "/properties/a/$ref"],
      [{ type: "object", properties: { a: { $ref: "#/properties" } } }, "/properties/a/$ref"],
      [{ type: "object", patternProperties: { "[": { type: "string" } } }, "/patternProperties/["],
      [{ type: "object", $dynamicAnchor: "x" }, "/$dynamicAnchor"],
      [{ type: "object", properties: { a: { type: 5 } } }, "/properties/a/type"],
      [{ type: "array" }, "/type"],
      [[], ""],
    ];
    for (const [schema, path] of cases) {
      const created = createToolSchemaValidator(schema, { code: "invalid_arguments", requireObjectRoot: true });
      expect(created.ok, JSON.stringify(schema)).toBe(false);
      if (!created.ok) expect(created.error, JSON.stringify(schema)).toMatchObject({ code: "manifest_invalid_tool_schema", path });
    }
    expect(createToolSchemaValidator({ type: "object", x: () => 1 }, { code: "invalid_arguments" }).ok).toBe(false);
  });

  it("never throws, whatever value it is given", () => {
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, withBigInt: true, withDate: true, withMap: true }), (value) => {
        const result = validate(value);
        if (!result.ok) expect(result.error.code).toBe("invalid_arguments");
      }),
      { numRuns: 500 },
    );
  });
});

describe("patterns that backtrack catastrophically", () => {
  // `^(a+)+$` against "aaa…a!" takes 2^n steps in a backtracking engine: n = 40 would run for hours.
  const REDOS = "^(a+)+$";
  const attack = `${"a".repeat(40)}!`;

  it("are refused at install with the pattern named, so no agent input ever reaches them", { timeout: 10_000 }, () => {
    const manifest = voiceManifest();
    const tool = manifest.tools![0]!;
    const withPattern = { ...tool, input_schema: { type: "object", properties: { name: { type: "string", pattern: REDOS } } } };
    const refused = validateManifest({ ...manifest, tools: [withPattern] });
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.error.code).toBe("manifest_invalid_tool_schema");
      expect(refused.error.path).toBe("/tools/0/input_schema/properties/name/pattern");
      expect(refused.error.message).toContain(JSON.stringify(REDOS));
    }
  });

  it("are refused wherever a pattern appears, as a pattern or a patternProperties key", () => {
    const cases: Array<[unknown, string]> = [
      [{ type: "object", properties: { a: { type: "string", pattern: REDOS } } }, "/properties/a/pattern"],
      [{ type: "object", properties: { a: { type: "string", pattern: "^(\\w+\\s?)*$" } } }, "/properties/a/pattern"],
      [{ type: "object", properties: { a: { type: "string", pattern: "(x{1,9}){1,9}" } } }, "/properties/a/pattern"],
      [{ type: "object", patternProperties: { "^(a*)*$": { type: "string" } } }, "/patternProperties/^(a*)*$"],
    ];
    for (const [schema, path] of cases) {
      const checked = checkJsonSchema(schema);
      expect(checked.ok, JSON.stringify(schema)).toBe(false);
      if (!checked.ok) expect(checked.error, JSON.stringify(schema)).toMatchObject({ code: "manifest_invalid_tool_schema", path });
    }
  });

  it("are refused when a repeated alternation's alternatives may begin alike, the exponential case star height misses", () => {
    // `(a|a)*$` against 27 characters backtracks about 2^27 times: a minute of the Runtime's loop.
    for (const pattern of ["(a|a)*$", "^(a|ab)*$", "^(\\w|\\d)+$", "^(x(a|ab)y|z)+$", "^([a-z]|\\p{L})*$", "^(a|b|[^b])+$", "(\\d|1){2,}"]) {
      const checked = checkJsonSchema({ type: "object", properties: { a: { type: "string", pattern } } });
      expect(checked.ok, pattern).toBe(false);
      if (!checked.ok) {
        expect(checked.error, pattern).toMatchObject({ code: "manifest_invalid_tool_schema", path: "/properties/a/pattern" });
        expect(checked.error.message, pattern).toContain("factor the common start out");
      }
    }
  });

  it("leave alternations that cannot share a start accepted, repeated or not, and they answer hostile input at once", { timeout: 10_000 }, () => {
    const patterns = ["^(a|b)*$", "^(\\w|-|\\.)+$", "^(https?|ftp)://", "^(?:[a-z]|[0-9])+$", "^(a[bc])*$", "^(ab|ab)?$", "^(\\s|,)+$", "^([A-Z]|[a-z])+$"];
    for (const pattern of patterns) {
      const created = createToolSchemaValidator({ type: "object", properties: { a: { type: "string", pattern } } }, { code: "invalid_arguments" });
      expect(created.ok, pattern).toBe(true);
      if (created.ok) created.value({ a: `${"ab".repeat(50_000)}!` });
    }
  });

  it("leave ordinary patterns accepted, and those run in linear time on long hostile input", { timeout: 10_000 }, () => {
    const patterns = ["^[a-z0-9_-]{1,64}$", "^\\p{L}+$", "^[^\\s@]+@[^\\s@]+$", "^#[0-9a-fA-F]{6}$", "^https?://", "(?<year>\\d{4})-\\d{2}"];
    for (const pattern of patterns) {
      const created = createToolSchemaValidator({ type: "object", properties: { a: { type: "string", pattern } } }, { code: "invalid_arguments" });
      expect(created.ok, pattern).toBe(true);
      if (!created.ok) continue;
      // Each check of 100 000 characters answers (the test's timeout is the bound; a catastrophic pattern would never return).
      created.value({ a: `${"a".repeat(100_000)}!` });
      created.value({ a: attack });
    }
  });
});

describe("patterns that backtrack polynomially", () => {
  // Star height 1 and no ambiguous alternation, yet a backtracking search is quadratic or worse: `\s+$` in
  // 200 000 spaces and an x takes minutes, `a*a*a*b` in 5 000 a's far longer. The Runtime runs them in linear time.
  const cases: Array<[string, string]> = [
    ["\\s+$", `${" ".repeat(200_000)}x`],
    ["\\s*\\s*\\s*!", `${" ".repeat(100_000)}x`],
    ["a*a*a*b", "a".repeat(5_000)],
    [",*[,;]*x", ",".repeat(100_000)],
    ["\\d+x", "1".repeat(200_000)],
  ];

  it("install, and answer hostile agent input at once through the Runtime's validator", { timeout: 20_000 }, () => {
    for (const [pattern, attack] of cases) {
      expect(checkJsonSchema({ type: "object", properties: { a: { type: "string", pattern } } }).ok, pattern).toBe(true);
      const validate = validatorFor({ type: "object", properties: { a: { type: "string", pattern } } });
      expect(refusal(validate({ a: attack })), pattern).toMatchObject({ code: "invalid_arguments", path: "/a" });
    }
  });

  it("run as patternProperties keys in linear time too, against an agent's property names", { timeout: 20_000 }, () => {
    const validate = validatorFor({ type: "object", patternProperties: { "\\s+$": { type: "number" } } });
    // The long key does not match, so its value is not checked as a number; a key that ends in a space is.
    expect(validate({ [`${" ".repeat(200_000)}x`]: "text" }).ok).toBe(true);
    expect(refusal(validate({ "a ": "text" }))).toMatchObject({ code: "invalid_arguments", path: "/a " });
  });

  it("keep ECMAScript's meaning: anchors, classes, Unicode properties and spaces, counted repeats, named groups", () => {
    const matches = (pattern: string, text: string): boolean => validatorFor({ type: "object", properties: { a: { type: "string", pattern } } })({ a: text }).ok;
    expect(matches("^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "2026-12-06")).toBe(true);
    expect(matches("^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "2026-12-6")).toBe(false);
    expect(matches("^\\p{L}+$", "日本語")).toBe(true);
    expect(matches("^\\p{L}+$", "日本1")).toBe(false);
    expect(matches("b", "abc")).toBe(true);
    expect(matches("^b", "abc")).toBe(false);
    expect(matches("(?<y>\\d{4})-(a|b)", "x2026-b")).toBe(true);
    expect(matches("^\\u00e9$", "é")).toBe(true);
    expect(matches("^.$", "😀")).toBe(true);
    // Where RE2's own sets differ, ECMAScript's hold: `\s` takes Unicode spaces, `.` stops at any line terminator.
    expect(matches("^\\s$", "\u00a0")).toBe(true);
    expect(matches("^\\S$", "\u3000")).toBe(false);
    expect(matches("^[\\s,]+$", "\ufeff,")).toBe(true);
    expect(matches("^.$", "\r")).toBe(false);
    expect(matches("^[\\s\\S]$", "\r")).toBe(true);
    expect(matches("^[^]$", "\n")).toBe(true);
    expect(matches("a[]", "a")).toBe(false);
    expect(matches("^[[:a]+$", "[:a")).toBe(true);
  });

  it("are refused at install when the linear-time engine cannot run them (lookaround, back-references)", () => {
    for (const pattern of ["^(?!tmp)[a-z]+$", "(?=a)a", "(?<!x)y", "^(a)\\1$", "^(?<q>a)\\k<q>$", "[\\S,]"]) {
      const checked = checkJsonSchema({ type: "object", properties: { a: { type: "string", pattern } } });
      expect(checked.ok, pattern).toBe(false);
      if (!checked.ok) expect(checked.error, pattern).toMatchObject({ code: "manifest_invalid_tool_schema", path: "/properties/a/pattern" });
    }
  });
});

describe("checkJsonSchema depth", () => {
  const nest = (levels: number): Record<string, unknown> => {
    let schema: Record<string, unknown> = { type: "string" };
    for (let i = 1; i < levels; i++) schema = { type: "array", items: schema };
    return schema;
  };

  it(`accepts ${MAX_SCHEMA_DEPTH} levels and refuses ${MAX_SCHEMA_DEPTH + 1}, counting the root as level 1`, () => {
    expect(checkJsonSchema(nest(MAX_SCHEMA_DEPTH)).ok).toBe(true);
    const refused = checkJsonSchema(nest(MAX_SCHEMA_DEPTH + 1));
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.path).toBe("/items".repeat(MAX_SCHEMA_DEPTH));
  });

  it("counts nesting through every kind of subschema", () => {
    let schema: Record<string, unknown> = { type: "string" };
    const wrappers = [
      (s: unknown) => ({ properties: { p: s } }),
      (s: unknown) => ({ anyOf: [true, s] }),
      (s: unknown) => ({ $defs: { d: s } }),
      (s: unknown) => ({ not: s }),
    ];
    for (let i = 1; i <= MAX_SCHEMA_DEPTH; i++) schema = wrappers[i % wrappers.length]!(schema);
    expect(checkJsonSchema(schema).ok).toBe(false);
  });
});

describe("no code generation at run time", () => {
  it("validates manifests and app schemas with string code generation disabled, as under the browser host's CSP", () => {
    const here = dirname(fileURLToPath(import.meta.url));
    const dir = mkdtempSync(join(tmpdir(), "lineup-no-eval-"));
    const script = join(dir, "probe.ts");
    writeFileSync(
      script,
      [
        `import { validateManifest, createToolSchemaValidator } from ${JSON.stringify(join(here, "..", "src", "index.ts"))};`,
        `let blocked = false; try { new Function("return 1"); } catch { blocked = true; }`,
        `const manifest = validateManifest(${JSON.stringify({
          format: "lineup.app.v1",
          app_scope: "whiteboard",
          version: "1.0.0",
          runtime_sdk: { api_version: "1", required_features: ["app.tools.v1"] },
          entrypoints: [{ id: "canvas", kind: "primary" }],
          tools: [{ method: "board.create", contract_version: "1", input_schema: boardArgs, output_schema: {} }],
        })});`,
        `const v = createToolSchemaValidator(${JSON.stringify(boardArgs)}, { code: "invalid_arguments" });`,
        `const checked = v.ok ? [v.value({ title: "x", shapes: [] }).ok, v.value({ title: "x", shapes: [{ kind: "star" }] }).ok] : null;`,
        `process.stdout.write(JSON.stringify({ blocked, manifest: manifest.ok, checked }));`,
      ].join("\n"),
    );
    try {
      const out = execFileSync(process.execPath, ["--disallow-code-generation-from-strings", "--conditions=source", "--import", "tsx", script], {
        cwd: join(here, ".."),
        encoding: "utf8",
      });
      expect(JSON.parse(out)).toEqual({ blocked: true, manifest: true, checked: [true, false] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
