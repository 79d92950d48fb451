import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeEnvelope, encodeEnvelope, ENVELOPE_TYPES, isErrorCode, validateEnvelope, type RuntimeEnvelope } from "@lineup/protocol";
import { soakSized, timeLimitFor } from "../../../test/support/soak.js";

const base: RuntimeEnvelope = JSON.parse(
  JSON.stringify({
    v: 1,
    id: "m-1",
    type: "lineup.message",
    timestamp: "2026-11-30T06:00:00.000Z",
    sender: { kind: "agent", id: "agent-1" },
    target: { kind: "app", app_scope: "chat" },
    scope: { app_scope: "chat", conversation_id: "conv-1" },
    payload: { format: "text", text: "hi" },
  }),
);

const MESSAGES = soakSized(100_000, 1_000_000);

describe("RuntimeEnvelope v1", () => {
  it("round-trips a valid envelope through encode and decode", () => {
    expect(decodeEnvelope(encodeEnvelope(base))).toEqual({ ok: true, value: base });
  });

  it("every registered type names its payload schema by $id and a sender", () => {
    for (const spec of Object.values(ENVELOPE_TYPES)) {
      expect(spec.payload.$id).toMatch(/^urn:lineup:payload\./);
      expect(spec.senders.length).toBeGreaterThan(0);
    }
  });

  // RELIABILITY B4: generated garbage never throws, always gets a typed error, and does not
  // change shared state. 10^5 messages in npm test, 10^6 in the soak.
  it(`fuzz: ${MESSAGES.toLocaleString("en")} mutated envelopes never throw and get typed errors`, () => {
    const mutation = fc.record({
      path: fc.constantFrom("v", "id", "type", "timestamp", "sender", "target", "scope", "correlation", "payload", "extra"),
      value: fc.oneof(
        fc.jsonValue({ maxDepth: 3 }),
        fc.string({ maxLength: 2_000 }),
        fc.constantFrom(2, "1", null, "lineup.unknown", "lineup.tool.invoke", { kind: "user", id: "u" }, { app_scope: "runtime", conversation_id: "runtime:global" }),
      ),
      asText: fc.boolean(),
    });
    let refused = 0;
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (mutations) => {
        const candidate: Record<string, unknown> = structuredClone(base) as unknown as Record<string, unknown>;
        for (const m of mutations) candidate[m.path] = m.value;
        const text = JSON.stringify(candidate);
        const result = mutations[0]!.asText ? decodeEnvelope(text.slice(0, Math.max(1, text.length - 3))) : validateEnvelope(candidate);
        if (!result.ok) {
          refused++;
          expect(isErrorCode(result.error.code)).toBe(true);
        }
      }),
      { numRuns: MESSAGES, seed: 20261130 },
    );
    expect(refused).toBeGreaterThan(0);
    expect(Object.prototype).not.toHaveProperty("polluted");
  }, timeLimitFor(MESSAGES, 100_000, 120_000));
});
