/**
 * Keeps the host's frame as tall as the content (inline cards and picture-in-picture size to it):
 * a `ResizeObserver` on the content, at most one `surface.resize` per animation frame, and only
 * when the rounded height changed.
 */
import type { Unsubscribe } from "./emitter.js";

export function observeContentHeight(resize: (height: number) => Promise<void>, element?: Element): Unsubscribe {
  const g = globalThis as { ResizeObserver?: typeof ResizeObserver; document?: Document; requestAnimationFrame?: (cb: () => void) => number };
  const target = element ?? g.document?.documentElement;
  if (g.ResizeObserver === undefined || target === undefined) return () => {};
  let last = -1;
  let scheduled = false;
  const schedule = g.requestAnimationFrame ?? ((cb: () => void) => setTimeout(cb, 16));
  const measure = (): void => {
    scheduled = false;
    const height = Math.min(16_384, Math.max(0, Math.ceil(target.getBoundingClientRect().height)));
    if (height === last) return;
    last = height;
    resize(height).catch(() => {
      last = -1; // try again on the next change
    });
  };
  const observer = new g.ResizeObserver(() => {
    if (scheduled) return;
    scheduled = true;
    schedule(measure);
  });
  observer.observe(target);
  return () => observer.disconnect();
}
