/**
 * Bounded memory of recent things (ids seen, heights remembered, cached reads): a `Map` or `Set` keeps its
 * insertion order, so its first key is its oldest. Re-inserting a key (delete, then set) makes it the newest.
 */

/** Drops the oldest entries of `collection` until it holds at most `max`. */
export function dropOldest<K>(collection: { readonly size: number; keys(): IterableIterator<K>; delete(key: K): boolean }, max: number): void {
  if (collection.size <= max) return;
  const keys = collection.keys();
  while (collection.size > max) {
    const next = keys.next();
    if (next.done === true) return;
    collection.delete(next.value);
  }
}
