/**
 * A small multi-listener event emitter. A subscription returns its own unsubscribe; a throwing
 * listener never stops the others — its error goes to the one diagnostics sink.
 */

/** Stops a subscription. Calling it twice is harmless. */
export type Unsubscribe = () => void;

/** Where errors nobody can handle go: a throwing listener, a frame dropped at the port. */
export type DiagnosticsSink = (event: SurfaceDiagnostic) => void;

export type SurfaceDiagnostic =
  | { readonly kind: "listener_threw"; readonly event: string; readonly error: unknown }
  | { readonly kind: "frame_dropped"; readonly code: string; readonly message: string }
  | { readonly kind: "unexpected_response"; readonly id: number }
  | { readonly kind: "request_failed"; readonly what: string; readonly error: unknown };

export class Emitter<T> {
  readonly #listeners = new Set<(value: T) => void>();
  readonly #name: string;
  readonly #diagnostics: DiagnosticsSink;

  constructor(name: string, diagnostics: DiagnosticsSink) {
    this.#name = name;
    this.#diagnostics = diagnostics;
  }

  get size(): number {
    return this.#listeners.size;
  }

  on(listener: (value: T) => void): Unsubscribe {
    // Wrapped so the same function subscribed twice is two subscriptions, each with its own unsubscribe.
    const entry = (value: T): void => listener(value);
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }

  fire(value: T): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(value);
      } catch (error) {
        this.#diagnostics({ kind: "listener_threw", event: this.#name, error });
      }
    }
  }

  clear(): void {
    this.#listeners.clear();
  }
}
