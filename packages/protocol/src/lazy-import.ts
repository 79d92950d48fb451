/**
 * A module its importer fetches only when first wanted (a dynamic `import()`, which a bundler emits as a chunk
 * of its own): fetched once, shared by every caller while it arrives, and fetched again after a failure.
 */
export interface LazyImport<M> {
  /** The module once it has arrived; undefined before (this does not start the fetch). */
  current(): M | undefined;
  /** Fetches the module once; after a failed fetch the next call tries again. */
  load(): Promise<M>;
}

/** `importer` is the dynamic `import()`; `onFailure` hears a failed fetch before its caller does. */
export function lazyImport<M>(importer: () => Promise<M>, onFailure?: (error: unknown) => void): LazyImport<M> {
  let module: M | undefined;
  let loading: Promise<M> | undefined;
  return {
    current: () => module,
    load() {
      if (module !== undefined) return Promise.resolve(module);
      loading ??= importer().then(
        (loaded) => {
          module = loaded;
          return loaded;
        },
        (error: unknown) => {
          onFailure?.(error);
          loading = undefined;
          throw error;
        },
      );
      return loading;
    },
  };
}
