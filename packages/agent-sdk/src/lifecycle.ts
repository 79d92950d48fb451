/**
 * Subscriptions and listeners: one disposable shape for the whole SDK.
 *
 * A subscription returns its own `Disposable`; whoever subscribes owns it. A listener that throws
 * never breaks the emitter or the other listeners: its error goes to the diagnostics sink.
 */

export interface Disposable {
  dispose(): void;
}

/** Where the SDK reports what it cannot throw to anyone: listener errors, dropped frames, retries. */
export type DiagnosticsSink = (event: Diagnostic) => void;

export interface Diagnostic {
  readonly kind:
    | "listener_error"
    | "frame_invalid"
    | "event_invalid"
    | "seq_gap"
    | "duplicate_terminal"
    | "late_terminal"
    | "reconnect"
    | "request_retry"
    | "session_error"
    | "agent_error";
  readonly message: string;
  readonly error?: unknown;
}

export const silentDiagnostics: DiagnosticsSink = () => undefined;

export class Emitter<T> {
  private readonly listeners = new Set<(value: T) => void>();
  constructor(private readonly diagnostics: DiagnosticsSink = silentDiagnostics) {}

  /** Adds a listener; the returned disposable removes it (idempotent). */
  on(listener: (value: T) => void): Disposable {
    // Wrap so the same function can be registered twice and removed independently.
    const entry = (value: T): void => listener(value);
    this.listeners.add(entry);
    return { dispose: () => void this.listeners.delete(entry) };
  }

  fire(value: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(value);
      } catch (error) {
        this.diagnostics({ kind: "listener_error", message: "a listener threw", error });
      }
    }
  }

  get size(): number {
    return this.listeners.size;
  }

  clear(): void {
    this.listeners.clear();
  }
}

/** Disposes many things at once, in reverse order of addition. */
export class DisposableStore implements Disposable {
  private items: Disposable[] = [];
  private disposed = false;
  add<D extends Disposable>(item: D): D {
    if (this.disposed) item.dispose();
    else this.items.push(item);
    return item;
  }
  dispose(): void {
    this.disposed = true;
    const items = this.items.reverse();
    this.items = [];
    for (const item of items) item.dispose();
  }
}
