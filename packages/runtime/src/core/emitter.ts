/**
 * The one listener shape of the core (STYLE 10–11): `subscribe` returns its own unsubscribe, any number
 * of listeners, and a throwing listener never breaks the emitter or the other listeners — its error
 * goes to the diagnostics sink.
 */
export type Unsubscribe = () => void;

/** Where errors that must not propagate (a throwing listener, a failed background send) are reported. */
export type DiagnosticsSink = (error: unknown, context: string) => void;

export const ignoreDiagnostics: DiagnosticsSink = () => undefined;

export class Emitter<T> {
  private readonly listeners = new Set<(value: T) => void>();

  constructor(
    private readonly diagnostics: DiagnosticsSink,
    private readonly context: string,
  ) {}

  subscribe(listener: (value: T) => void): Unsubscribe {
    // Wrapped so the same function subscribed twice gets two independent subscriptions.
    const entry = (value: T): void => listener(value);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  emit(value: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(value);
      } catch (error) {
        this.diagnostics(error, this.context);
      }
    }
  }

  get size(): number {
    return this.listeners.size;
  }
}
