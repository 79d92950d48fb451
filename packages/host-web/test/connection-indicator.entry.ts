// The shell's connection indicator over a lifecycle the test publishes, under the host's CSP: window.__conn
// mounts one and changes its lifecycle in the same task, then reads what the indicator says.
import { h, render } from "preact";
import type { Lifecycle, LifecycleObservable } from "@lineup/runtime";
import { ConnectionIndicator } from "../src/shell/ConnectionIndicator.js";
import "../src/styles.css";

function lifecycleOf(first: Lifecycle): LifecycleObservable & { publish(next: Lifecycle): void } {
  let current = first;
  const listeners = new Set<(lifecycle: Lifecycle) => void>();
  return {
    snapshot: () => current,
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    publish(next) {
      current = next;
      for (const listener of listeners) listener(next);
    },
  };
}

const microtasks = async (n: number) => {
  for (let i = 0; i < n; i++) await Promise.resolve();
};

const api = {
  /** Mounts an indicator on `synchronizing`, publishes `online` before the browser paints, and reads it after microtasks only. */
  async mountThenGoOnline(): Promise<{ beforePaint: string | undefined; afterFrame: string | undefined }> {
    const root = document.createElement("div");
    document.body.append(root);
    const lifecycle = lifecycleOf({ status: "synchronizing" });
    render(h(ConnectionIndicator, { lifecycle }), root);
    lifecycle.publish({ status: "online", since: Date.now() });
    await microtasks(5);
    const read = () => (root.querySelector(".connection") as HTMLElement | null)?.dataset["lifecycle"];
    const beforePaint = read();
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 50)));
    return { beforePaint, afterFrame: read() };
  },
};

(window as unknown as { __conn: typeof api }).__conn = api;
