/**
 * Deterministic, incompressible bytes (xorshift32): the same bundle contents on every run, so a
 * bundle's store write and verification take real time (deflate cannot shrink them).
 */
export function noise(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}
