import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isErrorCode } from "@lineup/protocol";
import { DECODERS, fixtureText, type Fixture } from "./fixture-decoders.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures");
const contracts = readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);

function cases(contract: string, kind: "valid" | "invalid"): Array<[string, Fixture]> {
  const dir = join(root, contract, kind);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".json")).sort();
  } catch {
    return [];
  }
  return names.map((n) => [n, JSON.parse(readFileSync(join(dir, n), "utf8")) as Fixture]);
}

describe("golden fixtures", () => {
  it("every contract folder has a decoder and at least 80 cases exist in all", () => {
    let total = 0;
    for (const c of contracts) {
      expect(DECODERS[c], `decoder for fixtures/${c}`).toBeDefined();
      total += cases(c, "valid").length + cases(c, "invalid").length;
    }
    expect(total).toBeGreaterThanOrEqual(80);
  });

  for (const contract of contracts) {
    describe(contract, () => {
      for (const [name, fixture] of cases(contract, "valid")) {
        it(`valid/${name}: ${fixture.description}`, () => {
          expect(fixture.expect.ok).toBe(true);
          const result = DECODERS[contract]!(fixture, fixtureText(fixture));
          if (!result.ok) expect.fail(`refused with ${JSON.stringify(result.error)}`);
          if (fixture.input !== undefined && fixture.compare_value !== false) expect(result.value).toEqual(fixture.input);
        });
      }
      for (const [name, fixture] of cases(contract, "invalid")) {
        it(`invalid/${name}: ${fixture.description}`, () => {
          const expected = fixture.expect;
          if (expected.ok) return expect.fail("an invalid fixture must expect a refusal");
          expect(isErrorCode(expected.code), `${expected.code} is in the error table`).toBe(true);
          const before = ({} as Record<string, unknown>)["polluted"];
          const result = DECODERS[contract]!(fixture, fixtureText(fixture));
          expect(result.ok).toBe(false);
          if (!result.ok) {
            expect(result.error.code).toBe(expected.code);
            if (expected.path !== undefined) expect(result.error.path).toBe(expected.path);
            expect(typeof result.error.message).toBe("string");
          }
          expect(({} as Record<string, unknown>)["polluted"]).toBe(before);
          expect(Object.prototype).not.toHaveProperty("polluted");
        });
      }
    });
  }
});
