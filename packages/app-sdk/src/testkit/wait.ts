/**
 * Waiting in the testkit: real macrotasks (so the Runtime's promise chains and the in-memory
 * transport run), bounded by a real-time limit. Platform-neutral: only `setTimeout`.
 */
import { LineUpError } from "@lineup/protocol";

/** One macrotask: every queued microtask has run when it resolves. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Resolves with `probe()`'s first defined value; rejects with `request_timeout` after `timeoutMs` of real time. */
export async function waitFor<T>(probe: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new LineUpError("request_timeout", `timed out after ${timeoutMs} ms waiting for ${what}`);
    await nextTurn();
  }
}
