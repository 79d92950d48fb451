/**
 * Item ids. `crypto.getRandomValues` works in every context, including an opaque-origin sandbox
 * where `crypto.randomUUID` (secure contexts only) may be missing.
 */
const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

export function newItemId(): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  let id = "i";
  for (const b of bytes) id += ALPHABET[b % ALPHABET.length];
  return id;
}
