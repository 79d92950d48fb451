/**
 * A part of the host that its first script does not carry: a module the bundler emits as its own chunk (a
 * dynamic `import()`), fetched the first time something wants it. Keeps the first paint's script small
 * (`npm run bench -- weight`); docs/architecture.md lists what loads when.
 */
import { useEffect, useState } from "preact/hooks";

export interface LazyModule<M> {
  /** The module once it has arrived; undefined before (this does not start the fetch). */
  current(): M | undefined;
  /** Fetches the module once; after a failed fetch the next call tries again. */
  load(): Promise<M>;
}

/** `importer` is the dynamic `import()` the bundler splits at; `name` says which part in the console when a fetch fails. */
export function lazyModule<M>(name: string, importer: () => Promise<M>): LazyModule<M> {
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
          console.error(`[lineup] could not load the host's ${name} part`, error);
          loading = undefined;
          throw error;
        },
      );
      return loading;
    },
  };
}

/** What a component reads of a lazy module: the module, or why it has not arrived. */
export type LazyState<M> = { readonly status: "loading" } | { readonly status: "loaded"; readonly module: M } | { readonly status: "failed"; readonly error: unknown };

/** Starts fetching `lazy` when the component mounts (if it has not arrived) and re-renders when it arrives or fails. */
export function useLazyModule<M>(lazy: LazyModule<M>): LazyState<M> {
  const stateOf = (): LazyState<M> => {
    const module = lazy.current();
    return module === undefined ? { status: "loading" } : { status: "loaded", module };
  };
  const [state, setState] = useState<LazyState<M>>(stateOf);
  useEffect(() => {
    if (state.status === "loaded") return;
    let live = true;
    lazy.load().then(
      (module) => live && setState({ status: "loaded", module }),
      (error: unknown) => live && setState({ status: "failed", error }),
    );
    return () => {
      live = false;
    };
  }, [lazy]);
  return state;
}
