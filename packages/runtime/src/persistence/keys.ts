import { StoreError } from "./store-error.js";

export const MAX_KEY_LENGTH = 512;

/**
 * A string above every valid key: 0x7F (DEL) is the first code unit past printable ASCII. Used as the
 * exclusive upper bound of "the whole collection" and of a prefix range, in every adapter.
 */
export const KEY_CEILING = "\x7F";

/** The exclusive lower floor: the empty string sorts below every (non-empty) valid key. */
export const KEY_FLOOR = "";

const PRINTABLE_ASCII = /^[\x20-\x7E]+$/;

export function isValidKey(key: unknown): key is string {
  return typeof key === "string" && key.length <= MAX_KEY_LENGTH && PRINTABLE_ASCII.test(key);
}

/** Throws `store_invalid_key` unless `key` is 1–512 printable ASCII characters. */
export function assertValidKey(key: unknown, what = "key"): asserts key is string {
  if (!isValidKey(key)) {
    const shown = typeof key === "string" ? JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key) : typeof key;
    throw new StoreError("store_invalid_key", `${what} must be 1-${MAX_KEY_LENGTH} printable ASCII characters, got ${shown}`);
  }
}

/** Plain string order, the one order every adapter uses. */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Zero-padded decimal so that string order is numeric order (safe integers have at most 16 digits). */
export function padNumber(n: number): string {
  return String(n).padStart(16, "0");
}
