/**
 * How each contract's golden fixtures are run: a fixture folder name → the real decoder or
 * validator that judges its cases. Every decoder returns LineUp's result shape.
 */
import { decodeBridgeMessage, decodeEnvelope, decodeServerNotification, decodeJson, decodeLegacy, validateInboundFrame, type JsonLimits, type Result } from "@lineup/protocol";
import { appServerRoleOf } from "./app-server-fixture-role.js";
import { bridgeExpectationOf, bridgeValueOf } from "./bridge-fixture-expectation.js";
import { legacyContextOf } from "./legacy-fixture-context.js";
import { decodeManifest } from "@lineup/protocol";

export interface Fixture {
  readonly description: string;
  /** A JSON value, serialized with JSON.stringify before decoding. */
  readonly input?: unknown;
  /** Raw text, for inputs JSON.stringify cannot produce (escapes, malformed text). */
  readonly input_text?: string;
  /** A nesting bomb: `open` repeated `depth` times, `inner`, then `close` repeated. */
  readonly input_nested?: { depth: number; open: string; close: string; inner?: string };
  /** A JSON array holding one string, padded to exactly `bytes` UTF-8 bytes. */
  readonly input_sized?: { bytes: number };
  readonly options?: JsonLimits;
  readonly expect: { ok: true } | { ok: false; code: string; path?: string };
  /** Contract-specific extra fields (method, direction, …). */
  readonly [extra: string]: unknown;
}

/** The text a fixture describes. */
export function fixtureText(f: Fixture): string {
  if (f.input_text !== undefined) return f.input_text;
  if (f.input_nested !== undefined) {
    const { depth, open, close, inner = "" } = f.input_nested;
    return open.repeat(depth) + inner + close.repeat(depth);
  }
  if (f.input_sized !== undefined) {
    const frame = '[""]';
    return `["${"a".repeat(f.input_sized.bytes - frame.length)}"]`;
  }
  return JSON.stringify(f.input);
}

export type FixtureDecoder = (fixture: Fixture, text: string) => Result<unknown>;

export const DECODERS: Record<string, FixtureDecoder> = {
  json: (f, text) => decodeJson(text, f.options),
  envelope: (f, text) => decodeEnvelope(text, f.options),
  /** `manifest_kind: "core"` selects the core-app rules. */
  manifest: (f, text) => decodeManifest(text, { ...f.options, kind: f["manifest_kind"] === "core" ? "core" : "installed" }),
  legacy: (f, text) => decodeLegacy(text, legacyContextOf(f), f.options),
  "surface-bridge": (f, text) => {
    const value = bridgeValueOf(f, text);
    return value.ok ? decodeBridgeMessage(value.value, bridgeExpectationOf(f)) : value;
  },
  "app-server": (f, text) => validateInboundFrame(text, appServerRoleOf(f), f.options),
  /** Server → client notification frames, as a client checks them. */
  "app-server-notifications": (f, text) => decodeServerNotification(text, f.options),
};
