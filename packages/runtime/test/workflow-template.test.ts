/**
 * Workflow templates (`workflows/template.ts`): `{ "$from": pointer }` replaced by the run's values, JSON
 * Pointer escapes, typed refusals for pointers to nothing, the bounds, and the references a template names.
 */
import { describe, expect, it } from "vitest";
import type { JsonValue } from "@lineup/protocol";
import { MAX_TEMPLATE_DEPTH, MAX_TEMPLATE_NODES, parsePointer, pointerTarget, resolveTemplate, templateRefs, valueAt, type TemplateDocument } from "../src/workflows/template.js";

const doc: TemplateDocument = {
  input: { query: "cats", limit: 3, tags: ["a", "b"], "a/b": "slash", "m~n": "tilde", "": "empty", nested: { deep: [{ x: 1 }] } },
  steps: {
    search: { output: { hits: [{ id: "h1" }, { id: "h2" }], total: 2 } },
    nothing: { output: null },
  },
};

const resolved = (template: JsonValue): JsonValue => {
  const result = resolveTemplate(template, doc);
  if (!result.ok) throw new Error(`refused: ${result.error.message}`);
  return result.value;
};

describe("resolveTemplate", () => {
  it("returns a template without references as it is", () => {
    const template = { a: [1, "two", { three: true }], b: null };
    expect(resolveTemplate(template, doc)).toEqual({ ok: true, value: template });
    expect(resolved(template)).toBe(template);
    expect(resolved(42)).toBe(42);
    expect(resolved("x")).toBe("x");
  });

  it("replaces references deep inside objects and arrays", () => {
    const template = {
      q: { $from: "/input/query" },
      list: [{ $from: "/input/tags/1" }, "fixed", { first: { $from: "/steps/search/output/hits/0/id" } }],
      whole: { $from: "/steps/search/output" },
      none: { $from: "/steps/nothing/output" },
      deep: { $from: "/input/nested/deep/0/x" },
    };
    expect(resolved(template)).toEqual({
      q: "cats",
      list: ["b", "fixed", { first: "h1" }],
      whole: { hits: [{ id: "h1" }, { id: "h2" }], total: 2 },
      none: null,
      deep: 1,
    });
  });

  it("does not change the template it was given", () => {
    const template = { q: { $from: "/input/query" }, keep: { same: [1] } };
    const before = JSON.stringify(template);
    const out = resolved(template) as { keep: unknown };
    expect(JSON.stringify(template)).toBe(before);
    expect(out.keep).toBe(template.keep);
  });

  it("replaces a whole template that is one reference", () => {
    expect(resolved({ $from: "/input/limit" })).toBe(3);
    expect(resolved({ $from: "/input" })).toEqual(doc.input);
  });

  it("reads ~1 as / and ~0 as ~, and the empty key", () => {
    expect(resolved({ $from: "/input/a~1b" })).toBe("slash");
    expect(resolved({ $from: "/input/m~0n" })).toBe("tilde");
    expect(resolved({ $from: "/input/" })).toBe("empty");
  });

  it("treats an object with $from and other keys as plain data", () => {
    const template = { $from: "/input/query", note: "not a ref" };
    expect(resolved(template)).toEqual(template);
  });

  it("does not read values that a pointer brought in as templates", () => {
    const out = resolveTemplate({ $from: "/input/raw" }, { input: { raw: { $from: "/input/secret" }, secret: "s" }, steps: {} });
    expect(out).toEqual({ ok: true, value: { $from: "/input/secret" } });
  });

  it("refuses a pointer to nothing with invalid_params and the pointer as path", () => {
    for (const pointer of ["/input/missing", "/input/tags/2", "/input/tags/-", "/input/tags/01", "/input/query/length", "/steps/later/output", "/steps/search/output/hits/5", "/steps/search/input", "/other"]) {
      const out = resolveTemplate({ a: [{ $from: pointer }] }, doc);
      expect(out.ok, pointer).toBe(false);
      if (!out.ok) {
        expect(out.error.code).toBe("invalid_params");
        expect(out.error.path).toBe(pointer);
      }
    }
  });

  it("never reads a key off the prototype", () => {
    for (const pointer of ["/input/constructor", "/input/__proto__", "/steps/toString/output", "/input/tags/length"]) {
      const out = resolveTemplate({ $from: pointer }, doc);
      expect(out.ok, pointer).toBe(false);
    }
  });

  it("refuses a $from that is not a pointer", () => {
    const notString = resolveTemplate({ x: { $from: 7 } }, doc);
    expect(notString).toMatchObject({ ok: false, error: { code: "invalid_params", path: "/x/$from" } });
    const noSlash = resolveTemplate({ $from: "input/query" }, doc);
    expect(noSlash).toMatchObject({ ok: false, error: { code: "invalid_params" } });
    const badEscape = resolveTemplate({ $from: "/input/a~2b" }, doc);
    expect(badEscape).toMatchObject({ ok: false, error: { code: "invalid_params" } });
  });

  it("refuses a template nested deeper than the bound", () => {
    let ok: JsonValue = { $from: "/input/query" };
    for (let i = 0; i < MAX_TEMPLATE_DEPTH - 1; i++) ok = [ok];
    expect(resolveTemplate(ok, doc).ok).toBe(true);
    const tooDeep: JsonValue = [ok];
    const out = resolveTemplate(tooDeep, doc);
    expect(out).toMatchObject({ ok: false, error: { code: "invalid_params" } });
  });

  it("refuses a template with more values than the bound", () => {
    const fits = Array.from({ length: MAX_TEMPLATE_NODES - 1 }, (_, i) => i);
    expect(resolveTemplate(fits, doc).ok).toBe(true);
    const tooMany = Array.from({ length: MAX_TEMPLATE_NODES }, (_, i) => i);
    expect(resolveTemplate(tooMany, doc)).toMatchObject({ ok: false, error: { code: "invalid_params" } });
  });

  it("keeps a __proto__ key of the template as a key", () => {
    const template = JSON.parse('{"__proto__": {"$from": "/input/query"}, "b": 1}') as JsonValue;
    const out = resolved(template) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(out, "__proto__")).toBe(true);
    expect(JSON.stringify(out)).toBe('{"__proto__":"cats","b":1}');
  });
});

describe("templateRefs", () => {
  it("lists every pointer once, in order", () => {
    const template = { a: { $from: "/input/x" }, b: [{ $from: "/steps/one/output/y" }, { c: { $from: "/input/x" } }], d: { $from: "/steps/two/output" } };
    expect(templateRefs(template)).toEqual({ ok: true, value: ["/input/x", "/steps/one/output/y", "/steps/two/output"] });
  });

  it("has nothing for an absent template or one without references", () => {
    expect(templateRefs(undefined)).toEqual({ ok: true, value: [] });
    expect(templateRefs({ a: [1, 2, { b: "c" }] })).toEqual({ ok: true, value: [] });
  });

  it("refuses what resolveTemplate refuses", () => {
    expect(templateRefs({ $from: 1 })).toMatchObject({ ok: false, error: { code: "invalid_params" } });
    expect(templateRefs(Array.from({ length: MAX_TEMPLATE_NODES }, () => 0))).toMatchObject({ ok: false, error: { code: "invalid_params" } });
  });

  it("names the run part each pointer reads", () => {
    expect(pointerTarget("/input")).toEqual({ kind: "input" });
    expect(pointerTarget("/input/a/b")).toEqual({ kind: "input" });
    expect(pointerTarget("/steps/fetch/output")).toEqual({ kind: "step", step_id: "fetch" });
    expect(pointerTarget("/steps/a~1b/output/x")).toEqual({ kind: "step", step_id: "a/b" });
    expect(pointerTarget("/steps/fetch")).toBeUndefined();
    expect(pointerTarget("/steps/fetch/input")).toBeUndefined();
    expect(pointerTarget("")).toBeUndefined();
    expect(pointerTarget("/other")).toBeUndefined();
  });
});

describe("JSON Pointer", () => {
  it("parses segments with escapes", () => {
    expect(parsePointer("")).toEqual([]);
    expect(parsePointer("/")).toEqual([""]);
    expect(parsePointer("/a~1b/~01")).toEqual(["a/b", "~1"]);
    expect(parsePointer("a")).toBeUndefined();
    expect(parsePointer("/a~")).toBeUndefined();
  });

  it("finds values by RFC 6901's examples", () => {
    const rfc = JSON.parse('{"foo":["bar","baz"],"":0,"a/b":1,"c%d":2,"e^f":3,"g|h":4,"i\\\\j":5,"k\\"l":6," ":7,"m~n":8}') as JsonValue;
    expect(valueAt(rfc, "")).toEqual(rfc);
    expect(valueAt(rfc, "/foo")).toEqual(["bar", "baz"]);
    expect(valueAt(rfc, "/foo/0")).toBe("bar");
    expect(valueAt(rfc, "/")).toBe(0);
    expect(valueAt(rfc, "/a~1b")).toBe(1);
    expect(valueAt(rfc, "/c%d")).toBe(2);
    expect(valueAt(rfc, "/e^f")).toBe(3);
    expect(valueAt(rfc, "/g|h")).toBe(4);
    expect(valueAt(rfc, "/i\\j")).toBe(5);
    expect(valueAt(rfc, '/k"l')).toBe(6);
    expect(valueAt(rfc, "/ ")).toBe(7);
    expect(valueAt(rfc, "/m~0n")).toBe(8);
  });
});
