import type { PreparedWrite } from "./engine.js";
import { toKeyBounds } from "./key-range.js";
import { assertValidKey } from "./keys.js";
import { StoreError } from "./store-error.js";
import type { StoreWrite } from "./store.js";
import { encodeValue } from "./value-codec.js";

/**
 * Checks a whole batch before anything is applied — this is what makes bad input all-or-nothing in every
 * adapter — and copies its values, so later mutation by the caller cannot reach the store. Throws
 * `store_unknown_collection`, `store_invalid_key` or `store_invalid_value`.
 */
export function prepareBatch(batch: readonly StoreWrite[], collections: ReadonlySet<string>): PreparedWrite[] {
  if (!Array.isArray(batch)) throw new StoreError("store_invalid_value", "a batch must be an array of writes");
  const prepared: PreparedWrite[] = [];
  for (const write of batch) {
    const op: unknown = (write as { op?: unknown } | null)?.op;
    switch (op) {
      case "put": {
        const { collection, key, value } = write as Extract<StoreWrite, { op: "put" }>;
        assertKnownCollection(collection, collections);
        assertValidKey(key);
        prepared.push({ op, collection, key, value: encodeValue(value) });
        break;
      }
      case "delete": {
        const { collection, key } = write as Extract<StoreWrite, { op: "delete" }>;
        assertKnownCollection(collection, collections);
        assertValidKey(key);
        prepared.push({ op, collection, key });
        break;
      }
      case "deleteRange": {
        const { collection, range } = write as Extract<StoreWrite, { op: "deleteRange" }>;
        assertKnownCollection(collection, collections);
        if (range === undefined) throw new StoreError("store_invalid_value", "deleteRange needs a range ({} for all keys)");
        const bounds = toKeyBounds(range);
        // An empty range removes nothing, so it is dropped here rather than translated per engine.
        if (bounds !== undefined) prepared.push({ op, collection, bounds });
        break;
      }
      default:
        throw new StoreError("store_invalid_value", `unknown write op ${JSON.stringify(op) ?? String(op)}`);
    }
  }
  return prepared;
}

/** Throws `store_unknown_collection` unless the open schema declares `collection`. */
export function assertKnownCollection(collection: unknown, collections: ReadonlySet<string>): asserts collection is string {
  if (typeof collection !== "string" || !collections.has(collection)) {
    throw new StoreError("store_unknown_collection", `unknown collection ${JSON.stringify(collection) ?? String(collection)}`);
  }
}
