/**
 * How a Surface Bridge golden fixture is received: bridge messages arrive as structured-clone
 * values, not text, so the fixture's `input` is handed over as the value itself (an
 * `input_text` case — a key JSON.stringify cannot write — is parsed first, as a host's
 * deserializer would). The fixture names the receiver's `nonce` and `direction`.
 */
import { fail, type BridgeDirection, type BridgeExpectation, type JsonValue, type Result } from "@lineup/protocol";
import type { Fixture } from "./fixture-decoders.js";

export function bridgeValueOf(f: Fixture, text: string): Result<unknown> {
  if (f.input !== undefined) return { ok: true, value: f.input };
  try {
    return { ok: true, value: JSON.parse(text) as JsonValue };
  } catch {
    return fail("json_malformed", "fixture text is not JSON");
  }
}

export function bridgeExpectationOf(f: Fixture): BridgeExpectation {
  const maxBytes = f.options?.maxBytes;
  const maxDepth = f.options?.maxDepth;
  return {
    nonce: String(f["nonce"]),
    direction: f["direction"] as BridgeDirection,
    ...(maxBytes === undefined ? {} : { maxBytes }),
    ...(maxDepth === undefined ? {} : { maxDepth }),
  };
}
