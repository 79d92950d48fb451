/// <reference lib="esnext.disposable" preserve="true" />
/**
 * The one event emitter and subscription shape of LineUp (STYLE 10–11). A subscription is its own
 * unsubscribe: call it, call `dispose()`, or let `using` dispose it (`Symbol.dispose`). Any number of
 * listeners; a throwing listener never stops the emitter or the other listeners — its error goes to the
 * owner's `onListenerError`, which each package points at its diagnostics sink.
 */

// Node 20 and current Chromium have `Symbol.dispose`; older WebViews do not. The registered symbol is the
// one TypeScript's down-levelled `using` and the common polyfills fall back to, so every copy agrees.
(Symbol as { dispose?: symbol }).dispose ??= Symbol.for("Symbol.dispose");

/** Stops a subscription. Calling it twice is harmless. */
export type Unsubscribe = () => void;

/** A subscription: callable to unsubscribe, and `Disposable` both ways (`dispose()` and `Symbol.dispose`). All three are the same idempotent stop. */
export interface Subscription extends Disposable {
  (): void;
  dispose(): void;
}

/** Makes `stop` a Subscription that runs it at most once. */
export function subscription(stop: () => void): Subscription {
  let active = true;
  const unsubscribe = ((): void => {
    if (!active) return;
    active = false;
    stop();
  }) as Subscription;
  unsubscribe.dispose = unsubscribe;
  unsubscribe[Symbol.dispose] = unsubscribe;
  return unsubscribe;
}

const ignoreListenerError = (): void => undefined;

/**
 * An emitter's `onListenerError` where no diagnostics sink is at hand (a transport adapter, an app's own
 * store): the error is thrown again from a microtask, so it reaches the platform's uncaught-error handling
 * after the other listeners ran, never silently dropped.
 */
export const throwLater = (error: unknown): void =>
  queueMicrotask(() => {
    throw error;
  });

export class Emitter<T> {
  readonly #listeners = new Set<(value: T) => void>();
  readonly #onListenerError: (error: unknown) => void;

  /** `onListenerError` receives what a listener throws; it must not throw itself. */
  constructor(onListenerError: (error: unknown) => void = ignoreListenerError) {
    this.#onListenerError = onListenerError;
  }

  get size(): number {
    return this.#listeners.size;
  }

  /** Adds a listener until the returned subscription is stopped. */
  on(listener: (value: T) => void): Subscription {
    // Wrapped so the same function subscribed twice is two subscriptions, each with its own stop.
    const entry = (value: T): void => listener(value);
    this.#listeners.add(entry);
    return subscription(() => this.#listeners.delete(entry));
  }

  /** Calls every listener present when it starts, in subscription order. */
  fire(value: T): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(value);
      } catch (error) {
        this.#onListenerError(error);
      }
    }
  }

  /** Drops every listener (the owner is shutting down). */
  clear(): void {
    this.#listeners.clear();
  }
}

/** Anything that can be stopped: a Subscription, or an object with `dispose()`. */
export type Stoppable = Unsubscribe | { dispose(): void };

/** Stops many things at once, in reverse order of addition; anything added after it was disposed is stopped at once. */
export class DisposableStore implements Disposable {
  #items: Stoppable[] = [];
  #disposed = false;

  add<D extends Stoppable>(item: D): D {
    if (this.#disposed) stopOne(item);
    else this.#items.push(item);
    return item;
  }

  dispose(): void {
    this.#disposed = true;
    const items = this.#items.reverse();
    this.#items = [];
    for (const item of items) stopOne(item);
  }

  [Symbol.dispose](): void {
    this.dispose();
  }
}

function stopOne(item: Stoppable): void {
  if (typeof item === "function") item();
  else item.dispose();
}
