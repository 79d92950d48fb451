/**
 * What the surface bench's pages and the suite agree on: the globals the suite drives through
 * Playwright, the fixed session-data answer, and the per-call timing loop both frames run.
 */

/** The session data the host answers `session_data.get` with (a few hundred bytes, like a small app's state). */
export const SESSION = {
  data: { title: "Bench board", items: [{ id: "a", type: "rect", x: 10, y: 20, width: 120, height: 40, label: "Design" }] },
  revision: 1,
} as const;

/** One timed round inside a frame: the per-call times in milliseconds and the round's wall time. */
export interface TimedRound {
  readonly times: number[];
  readonly totalMs: number;
}

/** The global each frame exposes once it can run round trips. */
export interface FrameBench {
  run(calls: number): Promise<TimedRound>;
}

export const FRAME_GLOBAL = "__lineupSurfaceBench";

/** Runs `calls` sequential round trips, timing each one and the whole round. */
export async function timeCalls(calls: number, roundTrip: () => Promise<unknown>): Promise<TimedRound> {
  const times: number[] = new Array<number>(calls);
  const start = performance.now();
  let last = start;
  for (let i = 0; i < calls; i++) {
    await roundTrip();
    const now = performance.now();
    times[i] = now - last;
    last = now;
  }
  return { times, totalMs: last - start };
}

/** A round asked of a frame by its host page (`{ type: RUN, calls }`), answered `{ type: RAN, result }`. */
export const FRAME_RUN = "bench.run";
export const FRAME_RAN = "bench.ran";

/**
 * Exposes the frame's bench as a global (the Chromium suite evaluates in the frame) and answers its host
 * page's run requests (the desktop suite can evaluate only in the top frame's own world).
 */
export function exposeFrameBench(bench: FrameBench): void {
  (globalThis as unknown as Record<string, FrameBench>)[FRAME_GLOBAL] = bench;
  window.addEventListener("message", (event: MessageEvent) => {
    const data = event.data as { type?: unknown; calls?: unknown } | null;
    if (event.source !== window.parent || data?.type !== FRAME_RUN || typeof data.calls !== "number") return;
    void bench.run(data.calls).then((result) => window.parent.postMessage({ type: FRAME_RAN, result }, "*"));
  });
}
