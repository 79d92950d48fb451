import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkJsonValue, decodeJson, findForbiddenKey, utf8ByteLength } from "@lineup/protocol";

const FORBIDDEN = new Set(["__proto__", "constructor", "prototype"]);
const safeJson = fc.jsonValue().filter((v) => findForbiddenKey(v) === undefined);

describe("decodeJson", () => {
  it("agrees with JSON.parse on any JSON without forbidden keys", () => {
    fc.assert(
      fc.property(safeJson, (value) => {
        const text = JSON.stringify(value);
        const result = decodeJson(text, { maxBytes: 10_000_000, maxDepth: 1_000 });
        expect(result).toEqual({ ok: true, value: JSON.parse(text) });
      }),
      { numRuns: 500 },
    );
  });

  it("never throws on arbitrary text and always returns a typed result", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (text) => {
        const result = decodeJson(text);
        if (!result.ok) expect(["json_malformed", "json_too_deep", "json_too_large", "json_forbidden_key"]).toContain(result.error.code);
      }),
      { numRuns: 2_000 },
    );
  });

  it("finds forbidden keys however deep they are, in any escape spelling", () => {
    fc.assert(
      fc.property(fc.constantFrom(...FORBIDDEN), fc.integer({ min: 0, max: 20 }), fc.boolean(), (key, depth, escape) => {
        const spelled = escape ? [...key].map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`).join("") : key;
        const text = `${'{"a":'.repeat(depth)}{"${spelled}":{"polluted":true}}${"}".repeat(depth)}`;
        const result = decodeJson(text);
        expect(result.ok).toBe(false);
        if (!result.ok) {
          expect(result.error.code).toBe("json_forbidden_key");
          expect(result.error.path).toBe(`${"/a".repeat(depth)}/${key}`);
        }
        expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
      }),
    );
  });

  it("measures size in UTF-8 bytes at the exact limit", () => {
    const text = JSON.stringify(["é".repeat(100)]); // 4 + 200 bytes
    expect(utf8ByteLength(text)).toBe(204);
    expect(decodeJson(text, { maxBytes: 204 }).ok).toBe(true);
    expect(decodeJson(text, { maxBytes: 203 })).toMatchObject({ ok: false, error: { code: "json_too_large" } });
    expect(utf8ByteLength("😀")).toBe(4);
  });

  it("accepts UTF-8 bytes and refuses invalid UTF-8", () => {
    expect(decodeJson(new TextEncoder().encode('{"a":"é"}'))).toEqual({ ok: true, value: { a: "é" } });
    expect(decodeJson(new Uint8Array([0x22, 0xff, 0x22]))).toMatchObject({ ok: false, error: { code: "json_malformed" } });
  });

  it("refuses a nesting bomb of 1,000,000 without a RangeError", () => {
    const text = "[".repeat(1_000_000) + "]".repeat(1_000_000);
    expect(decodeJson(text, { maxBytes: 4_000_000 })).toMatchObject({ ok: false, error: { code: "json_too_deep" } });
  });
});

describe("checkJsonValue", () => {
  it("accepts plain JSON values", () => {
    fc.assert(fc.property(safeJson, (v) => {
        expect(checkJsonValue(v, { maxDepth: 1_000, maxBytes: 10_000_000 }).ok).toBe(true);
      }), { numRuns: 300 });
  });
  it("refuses non-JSON values, forbidden own keys, and depth", () => {
    expect(checkJsonValue({ a: () => 1 })).toMatchObject({ ok: false, error: { code: "json_malformed", path: "/a" } });
    expect(checkJsonValue({ a: Number.NaN })).toMatchObject({ ok: false, error: { code: "json_malformed" } });
    expect(checkJsonValue(new Date())).toMatchObject({ ok: false, error: { code: "json_malformed" } });
    expect(checkJsonValue(JSON.parse('{"__proto__":{"x":1}}'))).toMatchObject({ ok: false, error: { code: "json_forbidden_key", path: "/__proto__" } });
    let deep: unknown = 1;
    for (let i = 0; i < 65; i++) deep = [deep];
    expect(checkJsonValue(deep)).toMatchObject({ ok: false, error: { code: "json_too_deep" } });
    expect(checkJsonValue("x".repeat(2_000), { maxBytes: 1_000 })).toMatchObject({ ok: false, error: { code: "json_too_large" } });
  });
});
