/**
 * SHA-256 through WebCrypto (`globalThis.crypto.subtle`, in Node 20 and every browser). The digest
 * runs off the calling thread on both, which is what lets `verifyBundle` hash many files and the
 * whole archive at once.
 */

/** WebCrypto takes only ArrayBuffer-backed views; the bytes we hand it always are (see `ownedBytes`). */
export function asBufferSource(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes as Uint8Array<ArrayBuffer>;
}

/**
 * The input as an ArrayBuffer-backed view. A view of a SharedArrayBuffer is copied: WebCrypto
 * refuses it, and shared memory could change under a check.
 */
export function ownedBytes(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes.buffer instanceof ArrayBuffer ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes);
}

export async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", asBufferSource(bytes)));
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) out += HEX[byte]!;
  return out;
}

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return toHex(await sha256(bytes));
}

export const SHA256_HEX = /^[0-9a-f]{64}$/;
