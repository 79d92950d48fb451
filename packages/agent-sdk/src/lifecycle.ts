/**
 * Subscriptions and listeners: one disposable shape for the whole SDK.
 *
 * A subscription returns its own `Disposable`; whoever subscribes owns it. A listener that throws
 * never breaks the emitter or the other listeners: its error goes to the diagnostics sink.
 */
import { Emitter as ProtocolEmitter, logDiagnostic, type Diagnostic as LogShapedDiagnostic, type Logger } from "@lineup/protocol";

/** What a subscription returns; the SDK's Subscriptions are also callable and `Symbol.dispose`-able. */
export interface Disposable {
  dispose(): void;
}

/** Where the SDK reports what it cannot throw to anyone: listener errors, dropped frames, retries. */
export type DiagnosticsSink = (event: Diagnostic) => void;

/** The protocol's one diagnostic shape, with the agent SDK's kinds. */
export type Diagnostic = LogShapedDiagnostic<
  | "listener_error"
  | "frame_invalid"
  | "event_invalid"
  | "seq_gap"
  | "duplicate_terminal"
  | "late_terminal"
  | "reconnect"
  | "request_retry"
  | "session_error"
  | "agent_error"
>;

export const silentDiagnostics: DiagnosticsSink = () => undefined;

/** What an operator should see without asking for more: the agent's own failures, a session's, and reconnects. */
const NOTABLE: ReadonlySet<Diagnostic["kind"]> = new Set(["agent_error", "session_error", "reconnect"]);

/**
 * A sink that writes each diagnostic as one pino-format line (the shape of every LineUp log): notable kinds
 * at `warn`, the rest at `debug`, with `kind` and pino's `err` field (type, message, code; never a stack).
 */
export function logDiagnostics(logger: Logger): DiagnosticsSink {
  return (diagnostic) => logDiagnostic(logger, NOTABLE.has(diagnostic.kind) ? "warn" : "debug", diagnostic);
}

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
