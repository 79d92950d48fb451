/**
 * Reading a pasted `publisher.pub.json` (docs/bundle.md §4: `{ "key_id": "<64 hex>", "public_key":
 * "<base64 of 32 bytes>" }`) before it is offered to the Runtime's trust list. Refusals are data with
 * the protocol's codes: the JSON ingress codes (`json_malformed`, …) for text that is not JSON, and
 * `invalid_params` with a JSON Pointer for an entry of the wrong shape, as the bundle verifier refuses
 * a malformed trust list. Whether `key_id` is the SHA-256 of the key is the Runtime's check. Pure.
 */
import { base64ToBytes, decodeJson, fail, ok, type Result } from "@lineup/protocol";

export interface PublisherKeyEntry {
  readonly key_id: string;
  readonly public_key: string;
  readonly label?: string;
}

/** Pasted text larger than this is not a key file. */
export const MAX_PUBLISHER_KEY_TEXT = 4096;
export const MAX_PUBLISHER_LABEL = 80;
const KEY_ID = /^[0-9a-f]{64}$/;

export function parsePublisherKey(text: string, label = ""): Result<PublisherKeyEntry> {
  const trimmed = text.trim();
  if (trimmed === "") return fail("invalid_params", "paste the contents of publisher.pub.json");
  const decoded = decodeJson(trimmed, { maxBytes: MAX_PUBLISHER_KEY_TEXT, maxDepth: 4 });
  if (!decoded.ok) return decoded;
  const value = decoded.value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return fail("invalid_params", "expected an object { key_id, public_key }");
  const keyId = value["key_id"];
  const publicKey = value["public_key"];
  if (typeof keyId !== "string") return fail("invalid_params", "key_id is missing or not a string", "/key_id");
  if (!KEY_ID.test(keyId)) return fail("invalid_params", "key_id must be 64 lowercase hex digits (the SHA-256 of the key)", "/key_id");
  if (typeof publicKey !== "string") return fail("invalid_params", "public_key is missing or not a string", "/public_key");
  if (base64ToBytes(publicKey)?.length !== 32) return fail("invalid_params", "public_key must be base64 of a 32-byte Ed25519 key", "/public_key");
  const name = label.trim();
  if (name.length > MAX_PUBLISHER_LABEL) return fail("invalid_params", `the label is longer than ${MAX_PUBLISHER_LABEL} characters`, "/label");
  return ok(name === "" ? { key_id: keyId, public_key: publicKey } : { key_id: keyId, public_key: publicKey, label: name });
}
