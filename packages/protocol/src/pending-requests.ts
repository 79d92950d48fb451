/**
 * The one table of requests awaiting their answers (STYLE 8), shared by the JSON-RPC client core and the
 * Surface Bridge's app end: ids, deadlines on ONE timer armed for the earliest (a request due later than the
 * armed time costs no timer work, a settled one leaves it alone), cancellation by `AbortSignal`, and every
 * waiting request rejected at once when its connection ends. It sends and decodes nothing: the owner answers
 * a request by `take`-ing it. A request past its deadline is rejected `request_timeout` (retryable), an aborted
 * one `request_cancelled`.
 */
import { LineUpError } from "./errors.js";

/** Time for deadlines: `now()` in ms and a one-shot timer that returns its own cancel. */
export interface PendingTimer {
  now(): number;
  setTimer(ms: number, fn: () => void): () => void;
}

/** The platform's own clock and timer (`performance.now`, `setTimeout`), for owners with no injected clock. */
export const platformTimer: PendingTimer = {
  now: () => performance.now(),
  setTimer(ms, fn) {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
};

/** A request waiting for its answer. */
export interface WaitingRequest<T> {
  readonly method: string;
  readonly timeoutMs: number;
  /** When it times out, on the timer's clock. */
  readonly deadline: number;
  readonly resolve: (value: T) => void;
  readonly reject: (error: LineUpError) => void;
}

export interface OpenRequest<T> extends Omit<WaitingRequest<T>, "deadline"> {
  /** Aborting it rejects the request with `request_cancelled`. */
  readonly signal?: AbortSignal | undefined;
}

interface Entry<T> extends OpenRequest<T>, WaitingRequest<T> {
  readonly onAbort: () => void;
}

/** The longest delay a platform timer honours; a later deadline is reached in steps. */
const MAX_TIMER_DELAY_MS = 2_147_483_647;

export class PendingRequests<T> {
  readonly #timer: PendingTimer;
  readonly #waiting = new Map<number, Entry<T>>();
  #nextId = 1;
  /** The armed timer and the time its firing stands for. */
  #armed: { readonly at: number; readonly cancel: () => void } | undefined;

  constructor(timer: PendingTimer) {
    this.#timer = timer;
  }

  /** Requests still waiting. */
  get size(): number {
    return this.#waiting.size;
  }

  /** Registers a request; returns its id, to send with it. */
  open(request: OpenRequest<T>): number {
    const id = this.#nextId++;
    const deadline = this.#timer.now() + request.timeoutMs;
    const onAbort = (): void => this.take(id)?.reject(new LineUpError("request_cancelled", `${request.method}: cancelled`));
    this.#waiting.set(id, { ...request, deadline, onAbort });
    request.signal?.addEventListener("abort", onAbort, { once: true });
    this.#arm(deadline);
    return id;
  }

  /** The request `id` if it still waits, left waiting. */
  get(id: number): WaitingRequest<T> | undefined {
    return this.#waiting.get(id);
  }

  /** Removes the request `id` and stops watching its signal; undefined when it already settled. */
  take(id: number): WaitingRequest<T> | undefined {
    const entry = this.#waiting.get(id);
    if (entry === undefined) return undefined;
    this.#waiting.delete(id);
    entry.signal?.removeEventListener("abort", entry.onAbort);
    return entry;
  }

  /** Stops the timer and rejects every waiting request with `error(request)`. */
  rejectAll(error: (request: WaitingRequest<T>) => LineUpError): void {
    this.#armed?.cancel();
    this.#armed = undefined;
    for (const id of [...this.#waiting.keys()]) {
      const entry = this.take(id);
      entry?.reject(error(entry));
    }
  }

  /** Makes sure the timer fires no later than `deadline`. */
  #arm(deadline: number): void {
    if (this.#armed !== undefined) {
      if (this.#armed.at <= deadline) return;
      this.#armed.cancel();
    }
    const now = this.#timer.now();
    const delay = Math.min(MAX_TIMER_DELAY_MS, Math.max(0, deadline - now));
    // A clamped delay proves only that the clamped time has passed.
    const at = delay === MAX_TIMER_DELAY_MS ? now + delay : deadline;
    this.#armed = { at, cancel: this.#timer.setTimer(delay, () => this.#expire(at)) };
  }

  /** Rejects every request due by `at` (in deadline order), then re-arms for the earliest left. */
  #expire(at: number): void {
    this.#armed = undefined;
    // The timer firing means its time has passed, even if the clock reads a hair earlier.
    const reached = Math.max(at, this.#timer.now());
    const due: [number, Entry<T>][] = [];
    let next = Infinity;
    for (const entry of this.#waiting) {
      const deadline = entry[1].deadline;
      if (deadline <= reached) due.push(entry);
      else if (deadline < next) next = deadline;
    }
    due.sort((a, b) => a[1].deadline - b[1].deadline);
    for (const [id, entry] of due) {
      this.take(id);
      entry.reject(new LineUpError("request_timeout", `${entry.method}: no response within ${entry.timeoutMs} ms`, { data: { retryable: true } }));
    }
    if (next !== Infinity) this.#arm(next);
  }
}
