/**
 * Publisher keys and `lineup.sig.json` (docs/bundle.md §4): Ed25519 through WebCrypto, the same
 * code in Node 20 and Chromium. A key is named by its `key_id`, the lowercase hex SHA-256 of the
 * 32-byte raw public key; the Runtime's settings list the keys it trusts as
 * `{ key_id, public_key }` with the raw key in base64.
 */
import { base64ToBytes, bytesToBase64, decodeJson, fail, ok, type Result } from "@lineup/protocol";
import { asBufferSource, SHA256_HEX, sha256Hex } from "./digest.js";
import { MAX_SIGNATURE_BYTES, SIGNATURE_ALG, SIGNATURE_PATH } from "./format.js";

/** A publisher key the Runtime trusts, as its settings store it. */
export interface TrustedKey {
  readonly key_id: string;
  /** Standard padded base64 of the 32-byte raw Ed25519 public key. */
  readonly public_key: string;
}

/** A new publisher key pair, as `generatePublisherKey` returns it. */
export interface PublisherKey {
  readonly keyId: string;
  /** The 32-byte raw public key. */
  readonly publicKeyRaw: Uint8Array;
  /** The entry to put in a Runtime's trusted keys. */
  readonly trustedKey: TrustedKey;
  /** The private key as PKCS #8 DER bytes (what `signBundle` takes). Keep it secret. */
  readonly privateKey: Uint8Array;
}

/** The parsed `lineup.sig.json`. */
export interface SignatureFile {
  readonly alg: typeof SIGNATURE_ALG;
  readonly key_id: string;
  /** Standard padded base64 of the 64-byte signature. */
  readonly signature: string;
}

const ED25519 = { name: "Ed25519" } as const;
const subtle = () => globalThis.crypto.subtle;

export const PUBLIC_KEY_BYTES = 32;
export const SIGNATURE_BYTES = 64;

export function keyIdOf(publicKeyRaw: Uint8Array): Promise<string> {
  return sha256Hex(publicKeyRaw);
}

export async function generatePublisherKey(): Promise<PublisherKey> {
  const pair = (await subtle().generateKey(ED25519, true, ["sign", "verify"])) as CryptoKeyPair;
  const publicKeyRaw = new Uint8Array(await subtle().exportKey("raw", pair.publicKey));
  const privateKey = new Uint8Array(await subtle().exportKey("pkcs8", pair.privateKey));
  const keyId = await keyIdOf(publicKeyRaw);
  return { keyId, publicKeyRaw, privateKey, trustedKey: { key_id: keyId, public_key: bytesToBase64(publicKeyRaw) } };
}

function base64UrlToBytes(text: string): Uint8Array | undefined {
  const standard = text.replace(/-/g, "+").replace(/_/g, "/");
  return base64ToBytes(standard + "=".repeat((4 - (standard.length % 4)) % 4));
}

/** Imports a PKCS #8 Ed25519 private key and derives its public key and key id. Refusal: `invalid_params`. */
export async function importSigningKey(pkcs8: Uint8Array): Promise<Result<{ key: CryptoKey; keyId: string; publicKeyRaw: Uint8Array }>> {
  try {
    const extractable = await subtle().importKey("pkcs8", asBufferSource(pkcs8), ED25519, true, ["sign"]);
    const jwk = await subtle().exportKey("jwk", extractable);
    const publicKeyRaw = typeof jwk.x === "string" ? base64UrlToBytes(jwk.x) : undefined;
    if (publicKeyRaw?.length !== PUBLIC_KEY_BYTES) return fail("invalid_params", "the private key does not carry an Ed25519 public key");
    const key = await subtle().importKey("pkcs8", asBufferSource(pkcs8), ED25519, false, ["sign"]);
    return ok({ key, keyId: await keyIdOf(publicKeyRaw), publicKeyRaw });
  } catch {
    return fail("invalid_params", "the private key is not a PKCS #8 Ed25519 key");
  }
}

export async function signBytes(key: CryptoKey, data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await subtle().sign(ED25519, key, asBufferSource(data)));
}

/** A trusted key after `checkTrustedKeys`: its raw bytes and where it was in the list. */
export interface CheckedTrustedKey {
  readonly raw: Uint8Array;
  readonly index: number;
}

/**
 * Checks the shape of the trusted keys (each `public_key` is base64 of 32 bytes, each `key_id` 64
 * lowercase hex digits) and returns the raw keys by id. Refusal: `invalid_params` pointing at the
 * bad entry — a misconfigured trust list is the caller's error, never silently skipped.
 */
export function checkTrustedKeys(trusted: readonly TrustedKey[]): Result<ReadonlyMap<string, CheckedTrustedKey>> {
  const byId = new Map<string, CheckedTrustedKey>();
  for (const [index, entry] of trusted.entries()) {
    const raw = typeof entry.public_key === "string" ? base64ToBytes(entry.public_key) : undefined;
    if (raw?.length !== PUBLIC_KEY_BYTES) return fail("invalid_params", `trusted key ${index}: public_key must be base64 of a 32-byte Ed25519 key`, `/trustedKeys/${index}/public_key`);
    if (typeof entry.key_id !== "string" || !SHA256_HEX.test(entry.key_id)) return fail("invalid_params", `trusted key ${index}: key_id must be 64 lowercase hex digits`, `/trustedKeys/${index}/key_id`);
    byId.set(entry.key_id, { raw, index });
  }
  return ok(byId);
}

/**
 * Bindings already proven (`key_id` + base64 key), so a Runtime that verifies with the same trust
 * list again does not hash its keys again. A memo of a pure function: bounded, and safe to drop.
 */
const provenBindings = new Set<string>();
const MAX_PROVEN_BINDINGS = 1_024;
const bindingKey = (keyId: string, raw: Uint8Array) => `${keyId}:${bytesToBase64(raw)}`;

/**
 * Checks that every trusted `key_id` is the SHA-256 of its key. Async (one digest per key), so a
 * verifier starts it first and awaits it later. Refusal: `invalid_params` at the first bad entry.
 */
export async function checkKeyBindings(trusted: ReadonlyMap<string, CheckedTrustedKey>): Promise<Result<true>> {
  try {
    const entries = [...trusted.entries()].filter(([keyId, key]) => !provenBindings.has(bindingKey(keyId, key.raw)));
    const ids = await Promise.all(entries.map(([, key]) => keyIdOf(key.raw)));
    for (const [i, [keyId, key]] of entries.entries()) {
      if (ids[i] !== keyId) return fail("invalid_params", `trusted key ${key.index}: key_id is not the SHA-256 of public_key`, `/trustedKeys/${key.index}/key_id`);
      if (provenBindings.size >= MAX_PROVEN_BINDINGS) provenBindings.clear();
      provenBindings.add(bindingKey(keyId, key.raw));
    }
    return ok(true);
  } catch (error) {
    return fail("internal_error", `SHA-256 failed: ${String(error)}`);
  }
}

/** Verifies an Ed25519 signature with a raw public key; false for any failure, never throws. */
export async function verifySignature(publicKeyRaw: Uint8Array, signature: Uint8Array, data: Uint8Array): Promise<boolean> {
  try {
    const key = await subtle().importKey("raw", asBufferSource(publicKeyRaw), ED25519, false, ["verify"]);
    return await subtle().verify(ED25519, key, asBufferSource(signature), asBufferSource(data));
  } catch {
    return false;
  }
}

export function encodeSignatureFile(keyId: string, signature: Uint8Array): Uint8Array {
  const file: SignatureFile = { alg: SIGNATURE_ALG, key_id: keyId, signature: bytesToBase64(signature) };
  return new TextEncoder().encode(JSON.stringify(file));
}

/** Parses `lineup.sig.json`. Refusal: `bundle_signature_malformed`. */
export function decodeSignatureFile(bytes: Uint8Array): Result<{ file: SignatureFile; signature: Uint8Array }> {
  const malformed = (message: string, path?: string) => fail("bundle_signature_malformed", `${SIGNATURE_PATH}: ${message}`, path);
  const json = decodeJson(bytes, { maxBytes: MAX_SIGNATURE_BYTES, maxDepth: 2 });
  if (!json.ok) return malformed(json.error.message, json.error.path);
  const value = json.value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return malformed("must be a JSON object", "");
  const keys = Object.keys(value);
  const extra = keys.find((key) => key !== "alg" && key !== "key_id" && key !== "signature");
  if (extra !== undefined) return malformed(`unknown key "${extra}"`, `/${extra}`);
  if (value["alg"] !== SIGNATURE_ALG) return malformed(`alg must be "${SIGNATURE_ALG}"`, "/alg");
  const keyId = value["key_id"];
  if (typeof keyId !== "string" || !SHA256_HEX.test(keyId)) return malformed("key_id must be 64 lowercase hex digits", "/key_id");
  const encoded = value["signature"];
  const signature = typeof encoded === "string" ? base64ToBytes(encoded) : undefined;
  // Canonical base64 only: one signature, one spelling (no stray bits in the last character).
  if (signature?.length !== SIGNATURE_BYTES || typeof encoded !== "string" || bytesToBase64(signature) !== encoded) {
    return malformed(`signature must be canonical base64 of ${SIGNATURE_BYTES} bytes`, "/signature");
  }
  return ok({ file: { alg: SIGNATURE_ALG, key_id: keyId, signature: encoded }, signature });
}
