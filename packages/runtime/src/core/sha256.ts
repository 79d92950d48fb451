/**
 * A synchronous SHA-256 (FIPS 180-4), dependency-free and platform-neutral, for small inputs on hot
 * paths — the audit chain hashes one ~300-byte record per audit draft inside every loop turn, where
 * awaiting WebCrypto costs a round trip to its thread per record. Strings are hashed as their UTF-8
 * bytes (`TextEncoder`, so a lone surrogate becomes U+FFFD as everywhere else). Bulk data (bundles)
 * keeps WebCrypto (`app-lifecycle/bundle/digest.ts`), which is faster per byte and runs off the calling thread.
 */

/** The first 32 bits of the fractional parts of the cube roots of the first 64 primes (FIPS 180-4 4.2.2). */
const K = Int32Array.of(
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
);

/** The first 32 bits of the fractional parts of the square roots of the first 8 primes (FIPS 180-4 5.3.3). */
const H0 = Int32Array.of(0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19);

/** Inputs whose padded message fits here reuse one buffer; larger ones get their own, so nothing big is kept. */
const SCRATCH_BYTES = 64 * 1024;

const encoder = new TextEncoder();
const scratch = new Uint8Array(SCRATCH_BYTES);
const schedule = new Int32Array(64);
const state = new Int32Array(8);
/** The ASCII codes of "0123456789abcdef". */
const HEX_DIGITS = Uint8Array.from("0123456789abcdef", (c) => c.charCodeAt(0));
const hexScratch = new Uint8Array(64);
// ASCII only, so any single-byte decoding gives the same text: one flat string, not a chain of 32 joins
// (a joined string keeps its pieces alive for as long as a stored hash does).
const hexDecoder = new TextDecoder("latin1");

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;

/** Bytes of the padded message for `length` bytes of input: a 0x80 byte and a 64-bit length, to a multiple of 64. */
function paddedLength(length: number): number {
  return Math.ceil((length + 9) / 64) * 64;
}

/**
 * The SHA-256 digest of `input` (a string is hashed as its UTF-8 bytes) as 32 bytes; with `suffix`, of
 * `input` followed by `suffix`'s UTF-8 bytes (the hash of the joined text, without joining it).
 */
export function sha256(input: string | Uint8Array, suffix = ""): Uint8Array {
  // A surrogate pair split between the two encodes as one character only when joined.
  if (suffix.length > 0 && typeof input === "string" && isHighSurrogate(input.charCodeAt(input.length - 1))) return sha256(input + suffix);
  // A string of n UTF-16 code units encodes to at most 3n UTF-8 bytes.
  const capacity = paddedLength((typeof input === "string" ? input.length * 3 : input.length) + suffix.length * 3);
  const message = capacity <= SCRATCH_BYTES ? scratch : new Uint8Array(capacity);
  let length: number;
  if (typeof input === "string") length = encoder.encodeInto(input, message).written;
  else {
    message.set(input);
    length = input.length;
  }
  if (suffix.length > 0) length += encoder.encodeInto(suffix, message.subarray(length)).written;
  const total = paddedLength(length);
  message[length] = 0x80;
  message.fill(0, length + 1, total - 8);
  // The length in bits, big-endian in the last 8 bytes (inputs stay far below 2^53 bits).
  const high = Math.floor(length / 0x20000000);
  const low = (length * 8) >>> 0;
  message[total - 8] = high >>> 24;
  message[total - 7] = high >>> 16;
  message[total - 6] = high >>> 8;
  message[total - 5] = high;
  message[total - 4] = low >>> 24;
  message[total - 3] = low >>> 16;
  message[total - 2] = low >>> 8;
  message[total - 1] = low;

  state.set(H0);
  for (let offset = 0; offset < total; offset += 64) compress(message, offset);

  const digest = new Uint8Array(32);
  for (let i = 0; i < 8; i++) {
    const word = state[i]!;
    digest[i * 4] = word >>> 24;
    digest[i * 4 + 1] = word >>> 16;
    digest[i * 4 + 2] = word >>> 8;
    digest[i * 4 + 3] = word;
  }
  return digest;
}

/** The SHA-256 digest of `input` (and `suffix`, as in `sha256`) as 64 lowercase hex digits. */
export function sha256Hex(input: string | Uint8Array, suffix = ""): string {
  const digest = sha256(input, suffix);
  for (let i = 0; i < 32; i++) {
    hexScratch[i * 2] = HEX_DIGITS[digest[i]! >>> 4]!;
    hexScratch[i * 2 + 1] = HEX_DIGITS[digest[i]! & 15]!;
  }
  return hexDecoder.decode(hexScratch);
}

/** One 64-byte block at `offset` of `m` into `state` (FIPS 180-4 6.2.2). */
function compress(m: Uint8Array, offset: number): void {
  const w = schedule;
  for (let t = 0; t < 16; t++) {
    const j = offset + t * 4;
    w[t] = (m[j]! << 24) | (m[j + 1]! << 16) | (m[j + 2]! << 8) | m[j + 3]!;
  }
  for (let t = 16; t < 64; t++) {
    const x = w[t - 15]!;
    const y = w[t - 2]!;
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    w[t] = (w[t - 16]! + s0 + w[t - 7]! + s1) | 0;
  }
  let a = state[0]!;
  let b = state[1]!;
  let c = state[2]!;
  let d = state[3]!;
  let e = state[4]!;
  let f = state[5]!;
  let g = state[6]!;
  let h = state[7]!;
  for (let t = 0; t < 64; t++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const ch = (e & f) ^ (~e & g);
    const t1 = (h + S1 + ch + K[t]! + w[t]!) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const maj = (a & b) ^ (a & c) ^ (b & c);
    const t2 = (S0 + maj) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  state[0] = (state[0]! + a) | 0;
  state[1] = (state[1]! + b) | 0;
  state[2] = (state[2]! + c) | 0;
  state[3] = (state[3]! + d) | 0;
  state[4] = (state[4]! + e) | 0;
  state[5] = (state[5]! + f) | 0;
  state[6] = (state[6]! + g) | 0;
  state[7] = (state[7]! + h) | 0;
}
