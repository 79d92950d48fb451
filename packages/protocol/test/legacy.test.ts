import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ENVELOPE_TYPES,
  LEGACY_MAPPINGS,
  LEGACY_PAYLOAD_SCHEMAS,
  LEGACY_REFUSED_TYPES,
  LEGACY_REVERSE,
  adaptLegacy,
  decodeLegacy,
  isErrorCode,
  isLegacyMessage,
  toLegacy,
  validateEnvelope,
  type LegacyContext,
  type LegacyMessage,
  type RuntimeEnvelope,
} from "@lineup/protocol";
import type { Fixture } from "./fixture-decoders.js";
import { DEFAULT_LEGACY_FIXTURE_CONTEXT, legacyContextOf, toLegacyContext } from "./legacy-fixture-context.js";

const fixtureDir = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "legacy", "valid");
const validFixtures: Array<[string, Fixture]> = readdirSync(fixtureDir)
  .filter((n) => n.endsWith(".json"))
  .sort()
  .map((n) => [n, JSON.parse(readFileSync(join(fixtureDir, n), "utf8")) as Fixture]);

const context = toLegacyContext(DEFAULT_LEGACY_FIXTURE_CONTEXT);
const legacyAppIds = Object.fromEntries(Object.entries(DEFAULT_LEGACY_FIXTURE_CONTEXT.app_id_aliases ?? {}).map(([legacy, scope]) => [scope, legacy]));

function adapt(value: unknown, ctx: LegacyContext = context): RuntimeEnvelope {
  const r = adaptLegacy(value, ctx);
  if (!r.ok) throw new Error(`refused: ${JSON.stringify(r.error)}`);
  return r.value;
}

/** What a legacy message means, with the table's normalizations applied: the thing a round trip must keep. */
function meaning(m: Record<string, unknown>, ctx: LegacyContext) {
  const payload = { ...(m["payload"] as Record<string, unknown>) };
  const app = payload["app"] as { id: string } | undefined;
  delete payload["app"];
  if (m["type"] === "lineup.v1.message") payload["format"] ??= "text";
  if (m["type"] === "lineup.v1.surface.event") payload["data"] ??= null;
  const ts = m["ts"] ?? ctx.now?.();
  // A surface event speaks as the app (sender = app scope): the legacy `from` of one is not carried.
  const from = m["type"] === "lineup.v1.surface.event" ? undefined : m["from"];
  return {
    type: m["type"],
    id: m["id"],
    instant: typeof ts === "number" ? ts : Date.parse(String(ts)),
    conversation_id: m["conversation_id"] ?? ctx.currentConversationId,
    app_scope: app === undefined ? (m["app_scope"] ?? "chat") : (ctx.appIdAliases?.[app.id] ?? app.id),
    reply_to: m["reply_to"],
    seq: m["seq"],
    from,
    payload,
  };
}

describe("legacy mapping table", () => {
  it("has one row per legacy payload schema, each naming itself and a registered envelope type", () => {
    expect(Object.keys(LEGACY_MAPPINGS).sort()).toEqual(Object.keys(LEGACY_PAYLOAD_SCHEMAS).sort());
    for (const [type, row] of Object.entries(LEGACY_MAPPINGS)) {
      expect(row.legacy_type).toBe(type);
      expect(Object.keys(ENVELOPE_TYPES)).toContain(row.envelope_type);
      expect(row.roles.length).toBeGreaterThan(0);
    }
  });

  it("refuses on purpose only types it does not map, each with a table code", () => {
    for (const [type, refusal] of Object.entries(LEGACY_REFUSED_TYPES)) {
      expect(type.startsWith("lineup.v1.")).toBe(true);
      expect(Object.keys(LEGACY_MAPPINGS)).not.toContain(type);
      expect(isErrorCode(refusal.code)).toBe(true);
      const r = adaptLegacy({ type, id: "x1", ts: 0, from: { role: "agent", id: "a" }, payload: {} }, context);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toMatchObject({ code: refusal.code, path: "/type" });
    }
  });

  it("reverse table and reversible rows agree in both directions", () => {
    const reversibleRows = Object.values(LEGACY_MAPPINGS).filter((row) => row.reversible);
    expect(Object.values(LEGACY_REVERSE).sort()).toEqual(reversibleRows.map((row) => row.legacy_type).sort());
    for (const [envelopeType, legacyType] of Object.entries(LEGACY_REVERSE)) {
      expect(LEGACY_MAPPINGS[legacyType!].envelope_type).toBe(envelopeType);
    }
  });
});

describe("adaptLegacy", () => {
  for (const [name, fixture] of validFixtures) {
    it(`valid/${name} maps to the expected envelope`, () => {
      const envelope = adapt(fixture.input, legacyContextOf(fixture));
      expect(envelope).toMatchObject(fixture["expect_envelope"] as object);
      // The output is always an envelope the rest of the Runtime accepts as is.
      expect(validateEnvelope(envelope)).toEqual({ ok: true, value: envelope });
    });
  }

  it("has at least one valid fixture for every mapped legacy type", () => {
    const covered = new Set(validFixtures.map(([, f]) => (f.input as { type: string }).type));
    for (const type of Object.keys(LEGACY_MAPPINGS)) expect(covered, type).toContain(type);
  });

  it("never invents fields: optional legacy fields that are absent stay absent", () => {
    const envelope = adapt({ type: "lineup.v1.status", id: "s1", ts: 0, from: { role: "agent", id: "a" }, payload: { state: "idle" } });
    expect(envelope.payload).toEqual({ state: "idle" });
    expect(envelope).not.toHaveProperty("correlation");
    expect(envelope.scope).toEqual({ app_scope: "chat", conversation_id: "conv-1" });
  });

  it("looks app ids up as own keys only, so prototype names are not aliases", () => {
    for (const id of ["toString", "__proto__", "hasOwnProperty", "constructor"]) {
      const r = adaptLegacy(
        { type: "lineup.v1.surface.state", id: "p1", ts: 0, from: { role: "agent", id: "a" }, payload: { app: { id }, patch: {} } },
        { ...context, appIdAliases: {} },
      );
      expect(r.ok ? "ok" : r.error.code).toBe("legacy_unmappable");
    }
  });

  it("refuses instead of throwing when the injected clock throws", () => {
    const r = adaptLegacy({ type: "lineup.v1.message", id: "m1", from: { role: "agent", id: "a" }, payload: { text: "x" } }, {
      ...context,
      now: () => {
        throw new Error("clock broken");
      },
    });
    expect(r.ok ? "ok" : r.error).toMatchObject({ code: "legacy_unmappable", path: "/ts" });
  });

  it("decodes text and bytes through the safe JSON parser", () => {
    const text = JSON.stringify({ type: "lineup.v1.message", id: "m1", ts: 0, from: { role: "agent", id: "a" }, payload: { text: "x" } });
    expect(decodeLegacy(text, context).ok).toBe(true);
    expect(decodeLegacy(new TextEncoder().encode(text), context).ok).toBe(true);
    const tooBig = decodeLegacy(text, context, { maxBytes: 16 });
    expect(tooBig.ok ? "ok" : tooBig.error.code).toBe("json_too_large");
  });

  it("never throws and refuses only with table codes, whatever it is given", () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const r = adaptLegacy(value, context);
        if (!r.ok) expect(isErrorCode(r.error.code)).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  it("either refuses a mutated legacy message or returns a valid envelope", () => {
    const base = validFixtures.map(([, f]) => f.input as Record<string, unknown>);
    const mutation = fc.record({
      index: fc.nat({ max: base.length - 1 }),
      key: fc.constantFrom("type", "id", "ts", "conversation_id", "app_scope", "from", "payload", "reply_to", "seq", "extra"),
      value: fc.oneof(fc.jsonValue(), fc.constant(undefined)),
    });
    fc.assert(
      fc.property(mutation, ({ index, key, value }) => {
        const message = { ...base[index]!, [key]: value };
        const r = adaptLegacy(JSON.parse(JSON.stringify(message)) as unknown, context);
        if (r.ok) expect(validateEnvelope(r.value).ok).toBe(true);
        else expect(isErrorCode(r.error.code)).toBe(true);
      }),
      { numRuns: 3_000 },
    );
  });
});

describe("isLegacyMessage", () => {
  it("picks the adapter path by the lineup.v1. prefix only", () => {
    expect(isLegacyMessage({ type: "lineup.v1.message" })).toBe(true);
    expect(isLegacyMessage({ type: "lineup.v1.anything.new" })).toBe(true);
    expect(isLegacyMessage({ type: "lineup.message" })).toBe(false);
    expect(isLegacyMessage({ type: "lineup.v10.message" })).toBe(false);
    expect(isLegacyMessage([{ type: "lineup.v1.message" }])).toBe(false);
    expect(isLegacyMessage(null)).toBe(false);
  });
});

describe("toLegacy", () => {
  const reversible = validFixtures.filter(([, f]) => {
    const type = (f.input as { type: string }).type as keyof typeof LEGACY_MAPPINGS;
    return LEGACY_MAPPINGS[type].reversible;
  });

  it("has round-trip fixtures for every reversible type", () => {
    const covered = new Set(reversible.map(([, f]) => (f.input as { type: string }).type));
    for (const type of Object.values(LEGACY_REVERSE)) expect(covered, type).toContain(type);
  });

  for (const [name, fixture] of reversible) {
    it(`round trip keeps the meaning of valid/${name}`, () => {
      const ctx = legacyContextOf(fixture);
      const original = fixture.input as Record<string, unknown>;
      const back = toLegacy(adapt(original, ctx), { legacyAppIds });
      if (!back.ok) return expect.fail(JSON.stringify(back.error));
      expect(meaning(back.value as unknown as Record<string, unknown>, ctx)).toEqual(meaning(original, ctx));
      // And what comes back is itself legacy the adapter accepts, meaning the same envelope.
      expect(adapt(back.value, ctx)).toEqual({ ...adapt(original, ctx), timestamp: expect.any(String) as string });
    });
  }

  it("round-trips generated messages, results and surface events", () => {
    const from = fc.record({ role: fc.constantFrom("agent", "user", "system"), id: fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/) });
    const common = {
      id: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:~-]{0,40}$/),
      ts: fc.integer({ min: 0, max: 4_102_444_800_000 }),
      conversation_id: fc.stringMatching(/^c[A-Za-z0-9-]{0,20}$/),
    };
    const message = fc.record({ type: fc.constant("lineup.v1.message"), ...common, from, payload: fc.record({ format: fc.constantFrom("text", "markdown"), text: fc.string({ maxLength: 200 }) }) });
    const result = fc.record({
      type: fc.constant("lineup.v1.tool.result"),
      ...common,
      from: fc.constant({ role: "system", id: "lineup-client" }),
      payload: fc.record({ call_id: fc.stringMatching(/^call-[0-9]{1,6}$/), result: fc.jsonValue({ maxDepth: 4 }) }),
    });
    const event = fc.record({
      type: fc.constant("lineup.v1.surface.event"),
      ...common,
      from: fc.constant({ role: "system", id: "whiteboard" }),
      payload: fc.record({ app: fc.constant({ id: "com.lineup.whiteboard" }), name: fc.stringMatching(/^[a-z][a-z0-9_]{0,10}(?:\.[a-z][a-z0-9_]{0,10})?$/), data: fc.jsonValue({ maxDepth: 4 }) }),
    });
    fc.assert(
      fc.property(fc.oneof(message, result, event), (generated) => {
        // JSON round trip first: -0 and similar values do not exist on the wire.
        const m = JSON.parse(JSON.stringify(generated)) as Record<string, unknown>;
        const envelope = adapt(m);
        const back = toLegacy(envelope, { legacyAppIds });
        if (!back.ok) throw new Error(JSON.stringify(back.error));
        expect(meaning(back.value as unknown as Record<string, unknown>, context)).toEqual(meaning(m, context));
      }),
      { numRuns: 500 },
    );
  });

  it("answers with the legacy app id the peer knows, and omits app for chat", () => {
    const event = adapt({ type: "lineup.v1.surface.event", id: "e1", ts: 0, from: { role: "system", id: "whiteboard" }, payload: { app: { id: "whiteboard" }, name: "x" } });
    const asScope = toLegacy(event);
    const asLegacyId = toLegacy(event, { legacyAppIds: { whiteboard: "com.lineup.whiteboard" } });
    expect(asScope.ok && asScope.value.payload["app"]).toEqual({ id: "whiteboard" });
    expect(asLegacyId.ok && asLegacyId.value.payload["app"]).toEqual({ id: "com.lineup.whiteboard" });
    const chat = toLegacy(adapt({ type: "lineup.v1.message", id: "m1", ts: 0, from: { role: "user", id: "u" }, payload: { text: "x" } }));
    expect(chat.ok && chat.value.payload).toEqual({ format: "text", text: "x" });
  });

  it("refuses envelope types a legacy peer never received", () => {
    const invoke = adapt({
      type: "lineup.v1.tool.call",
      id: "t1",
      ts: 0,
      from: { role: "agent", id: "a" },
      payload: { call_id: "c1", name: "board.create", arguments: {}, inventory_revision: "r1" },
    });
    const status = adapt({ type: "lineup.v1.status", id: "s1", ts: 0, from: { role: "agent", id: "a" }, payload: { state: "idle" } });
    for (const envelope of [invoke, status]) {
      const r = toLegacy(envelope);
      expect(r.ok ? "ok" : r.error).toMatchObject({ code: "legacy_unsupported_type", path: "/type" });
    }
    const receipt: RuntimeEnvelope = {
      v: 1,
      id: "r1",
      type: "lineup.tool.receipt",
      timestamp: "2026-08-06T08:00:00Z",
      sender: { kind: "runtime", id: "rt" },
      target: { kind: "runtime", app_scope: "runtime" },
      scope: { app_scope: "whiteboard", conversation_id: "c1" },
      correlation: { call_id: "c1" },
      payload: { status: "accepted" },
    } as unknown as RuntimeEnvelope;
    const r = toLegacy(receipt);
    expect(r.ok ? "ok" : r.error.code).toBe("legacy_unsupported_type");
  });

  it("refuses what the legacy shape cannot carry rather than dropping it", () => {
    const withAttachment = validateEnvelope({
      v: 1,
      id: "m9",
      type: "lineup.message",
      timestamp: "2026-08-06T08:00:00Z",
      sender: { kind: "agent", id: "a" },
      target: { kind: "app", app_scope: "chat" },
      scope: { app_scope: "chat", conversation_id: "c1" },
      payload: { format: "text", text: "see file", attachments: [{ artifact_id: "a1", name: "f.txt", mime_type: "text/plain", size: 1, sha256: "0".repeat(64) }] },
    });
    if (!withAttachment.ok) return expect.fail(JSON.stringify(withAttachment.error));
    const r = toLegacy(withAttachment.value);
    expect(r.ok ? "ok" : r.error).toMatchObject({ code: "legacy_unmappable", path: "/payload/attachments" });
  });

  it("produces legacy messages the legacy frame accepts", () => {
    for (const [, fixture] of reversible) {
      const back = toLegacy(adapt(fixture.input, legacyContextOf(fixture)), { legacyAppIds });
      expect(back.ok).toBe(true);
      if (back.ok) expect(isLegacyMessage(back.value)).toBe(true);
      const message: LegacyMessage | undefined = back.ok ? back.value : undefined;
      expect(typeof message?.ts).toBe("string");
    }
  });
});
