import type { RuntimeStore } from "./store.js";

/**
 * A `RuntimeStore` in front of one still opening, so that whoever needs a store can be built before it has opened (the
 * web host creates the Runtime, which starts connecting, while the profile's database opens). A call made before it has
 * opened waits for it, calls made meanwhile reach it in the order they were made, and each is then the opened store's
 * call (a batch is captured when it reaches it); once it has opened, calls go straight to it. When opening fails, every
 * call rejects with that failure. `opened` settles when it has opened or failed.
 */
export function storeWhenOpen(store: RuntimeStore | Promise<RuntimeStore>): { readonly store: RuntimeStore; readonly opened: Promise<void> } {
  if (!isOpening(store)) return { store, opened: Promise.resolve() };
  const opening = store;
  let open: RuntimeStore | undefined;
  const opened = opening.then((opened) => {
    open = opened;
  });
  // Its failure is `start()`'s (which awaits `opened`) and each call's; a Runtime never started leaves it unhandled.
  opened.catch(() => undefined);
  const use = <T>(call: (store: RuntimeStore) => Promise<T>): Promise<T> => (open !== undefined ? call(open) : opening.then(call));
  return {
    opened,
    store: {
      commit: (batch) => use((s) => s.commit(batch)),
      get: (collection, key) => use((s) => s.get(collection, key)),
      getMany: (keys) => use((s) => s.getMany(keys)),
      range: (collection, query) => use((s) => s.range(collection, query)),
      count: (collection, range) => use((s) => s.count(collection, range)),
      close: () => use((s) => s.close()),
      // Before it has opened it cannot tell.
      isNew: () => open?.isNew?.() === true,
    },
  };
}

const isOpening = (store: RuntimeStore | Promise<RuntimeStore>): store is Promise<RuntimeStore> => typeof (store as { then?: unknown }).then === "function";
