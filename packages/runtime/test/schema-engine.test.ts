/**
 * The Runtime's app-schema engine (`tools/schema-engine.ts`) is loaded by `import()`. Before it is loaded no app
 * schema is checked loosely: asking for a validator throws `invalid_state`. Once loaded, a schema's patterns run
 * on the linear-time engine with ECMAScript's meaning.
 */
import { describe, expect, it, vi } from "vitest";

const schema = { type: "object", properties: { name: { type: "string", pattern: "^\\s*[a-z]+\\s*$" } }, required: ["name"] };

describe("the app-schema engine", () => {
  it("refuses to make a validator before it is loaded, then checks patterns once it is", { timeout: 30_000 }, async () => {
    // A copy of its own: another file in this process may have loaded the engine (vitest.config.ts).
    vi.resetModules();
    const { LineUpError } = await import("@lineup/protocol");
    const { createToolSchemaValidator, loadToolSchemaEngine } = await import("../src/tools/schema-engine.js");
    let refusal: unknown;
    try {
      createToolSchemaValidator(schema, { code: "invalid_arguments" });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(LineUpError);
    expect((refusal as InstanceType<typeof LineUpError>).code).toBe("invalid_state");

    // Two callers share one load.
    await Promise.all([loadToolSchemaEngine(), loadToolSchemaEngine()]);
    const made = createToolSchemaValidator(schema, { code: "invalid_arguments" });
    if (!made.ok) throw new Error(made.error.message);
    const check = made.value;
    // `\s` keeps ECMAScript's meaning (a no-break space is one) on the linear-time engine.
    expect(check({ name: "\u00a0pomodoro " }).ok).toBe(true);
    const refused = check({ name: "Pomodoro" });
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.error.code).toBe("invalid_arguments");
      expect(refused.error.path).toBe("/name");
    }
    // A long run of spaces that a backtracking engine would take quadratic time on is answered.
    expect(check({ name: `${" ".repeat(100_000)}!` }).ok).toBe(false);
  });
});
