import { KEY_CEILING, KEY_FLOOR, assertValidKey, compareKeys } from "./keys.js";
import { StoreError } from "./store-error.js";
import type { KeyRange, RangeQuery } from "./store.js";

/**
 * A non-empty key interval, the one shape every adapter translates into its engine (a binary search,
 * `key >= ? AND key < ?`, an `IDBKeyRange`). Unbounded sides use `KEY_FLOOR` / `KEY_CEILING`, so there
 * is always a lower and an upper bound.
 */
export interface KeyBounds {
  readonly lower: string;
  /** When true the interval excludes `lower`. */
  readonly lowerOpen: boolean;
  readonly upper: string;
  /** When true the interval excludes `upper`. */
  readonly upperOpen: boolean;
}

export const ALL_KEYS: KeyBounds = { lower: KEY_FLOOR, lowerOpen: false, upper: KEY_CEILING, upperOpen: true };

/**
 * Intersects every bound and the prefix of `range` into one interval, or `undefined` when no key can
 * match. Throws `store_invalid_key` for a malformed bound and `store_invalid_value` for a non-object.
 */
export function toKeyBounds(range: KeyRange | undefined): KeyBounds | undefined {
  if (range === undefined) return ALL_KEYS;
  if (typeof range !== "object" || range === null) {
    throw new StoreError("store_invalid_value", "a key range must be an object");
  }
  let { lower, lowerOpen, upper, upperOpen } = ALL_KEYS;
  const raiseLower = (key: string, open: boolean): void => {
    const order = compareKeys(key, lower);
    if (order > 0) [lower, lowerOpen] = [key, open];
    else if (order === 0) lowerOpen ||= open;
  };
  const dropUpper = (key: string, open: boolean): void => {
    const order = compareKeys(key, upper);
    if (order < 0) [upper, upperOpen] = [key, open];
    else if (order === 0) upperOpen ||= open;
  };

  const { gte, gt, lte, lt, prefix } = range;
  if (gte !== undefined) raiseLower(checked(gte, "gte"), false);
  if (gt !== undefined) raiseLower(checked(gt, "gt"), true);
  if (lte !== undefined) dropUpper(checked(lte, "lte"), false);
  if (lt !== undefined) dropUpper(checked(lt, "lt"), true);
  if (prefix !== undefined) {
    // Keys are printable ASCII, so every key starting with `prefix` lies in [prefix, prefix + DEL).
    raiseLower(checked(prefix, "prefix"), false);
    dropUpper(prefix + KEY_CEILING, true);
  }

  const order = compareKeys(lower, upper);
  if (order > 0 || (order === 0 && (lowerOpen || upperOpen))) return undefined;
  return { lower, lowerOpen, upper, upperOpen };
}

function checked(bound: unknown, name: string): string {
  assertValidKey(bound, `range bound "${name}"`);
  return bound;
}

export function isWithin(bounds: KeyBounds, key: string): boolean {
  const low = compareKeys(key, bounds.lower);
  const high = compareKeys(key, bounds.upper);
  return (bounds.lowerOpen ? low > 0 : low >= 0) && (bounds.upperOpen ? high < 0 : high <= 0);
}

export interface ParsedRangeQuery {
  /** `undefined` when no key can match. */
  readonly bounds: KeyBounds | undefined;
  /** `undefined` means no limit. */
  readonly limit: number | undefined;
  readonly reverse: boolean;
}

/** Validates a range query; throws `store_invalid_key` or `store_invalid_value`. */
export function parseRangeQuery(query: RangeQuery | undefined): ParsedRangeQuery {
  const bounds = toKeyBounds(query);
  const limit = query?.limit;
  if (limit !== undefined && !(Number.isSafeInteger(limit) && limit >= 0)) {
    throw new StoreError("store_invalid_value", `limit must be a non-negative integer, got ${String(limit)}`);
  }
  const reverse = query?.reverse;
  if (reverse !== undefined && typeof reverse !== "boolean") {
    throw new StoreError("store_invalid_value", "reverse must be a boolean");
  }
  return { bounds, limit, reverse: reverse ?? false };
}
