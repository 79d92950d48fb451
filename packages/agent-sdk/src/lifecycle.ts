/**
 * Subscriptions and listeners: one disposable shape for the whole SDK.
 *
 * A subscription returns its own `Disposable`; whoever subscribes owns it. A listener that throws
 * never breaks the emitter or the other listeners: its error goes to the diagnostics sink.
 */
import { Emitter as ProtocolEmitter } from "@lineup/protocol";

/** What a subscription returns; the SDK's Subscriptions are also callable and `Symbol.dispose`-able. */
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

/**
 * The protocol's one emitter, reporting a throwing listener to the SDK's diagnostics sink as
 * `listener_error`. `on` returns a Subscription: callable, `dispose()` and `Symbol.dispose` all stop it.
 */
export class Emitter<T> extends ProtocolEmitter<T> {
  constructor(diagnostics: DiagnosticsSink = silentDiagnostics) {
    super((error) => diagnostics({ kind: "listener_error", message: "a listener threw", error }));
  }
}

export { DisposableStore, type Subscription } from "@lineup/protocol";
