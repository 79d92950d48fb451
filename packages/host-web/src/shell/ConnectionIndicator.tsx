import { useLayoutEffect, useState } from "preact/hooks";
import type { Lifecycle, LifecycleObservable } from "@lineup/runtime";
import { describeLifecycle } from "./lifecycle-label.js";

/** The global connection state (spec 4.3): the Runtime's lifecycle, always visible in the shell's bar. */
export function ConnectionIndicator({ lifecycle }: { lifecycle: LifecycleObservable }) {
  const [current, setCurrent] = useState<Lifecycle>(lifecycle.snapshot());
  // Subscribed before the browser paints, not after: a change between the render and the paint (the Runtime going
  // online as the shell first shows) is on screen at once rather than a frame or more later.
  useLayoutEffect(() => {
    setCurrent(lifecycle.snapshot());
    return lifecycle.subscribe(setCurrent);
  }, [lifecycle]);
  const { label, tone } = describeLifecycle(current);
  return (
    <div class={`connection connection-${tone}`} role="status" aria-live="polite" data-lifecycle={current.status}>
      <span class="connection-dot" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}
