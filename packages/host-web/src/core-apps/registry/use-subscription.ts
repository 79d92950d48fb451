/**
 * Re-render on a Runtime source's change notifications (`RuntimeAppManager.subscribe`,
 * `RuntimeSettings.subscribe`): the component reads the source's current state while rendering, so a
 * counter that changes on each notification is all the state it needs.
 */
import { useEffect, useReducer } from "preact/hooks";

export interface Subscribable {
  subscribe(listener: () => void): () => void;
}

export function useSubscription(source: Subscribable): number {
  const [version, bump] = useReducer((n: number) => n + 1, 0);
  useEffect(() => source.subscribe(() => bump(undefined)), [source]);
  return version;
}
