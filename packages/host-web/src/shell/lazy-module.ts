/**
 * A part of the host that its first script does not carry: a module the bundler emits as its own chunk (a
 * dynamic `import()`), fetched the first time something wants it. Keeps the first paint's script small
 * (`npm run bench -- weight`); docs/architecture.md lists what loads when.
 */
import { lazyImport, type LazyImport } from "@lineup/protocol";
import { useEffect, useState } from "preact/hooks";

export type LazyModule<M> = LazyImport<M>;

/** `importer` is the dynamic `import()` the bundler splits at; `name` says which part in the console when a fetch fails. */
export function lazyModule<M>(name: string, importer: () => Promise<M>): LazyModule<M> {
  return lazyImport(importer, (error) => console.error(`[lineup] could not load the host's ${name} part`, error));
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
