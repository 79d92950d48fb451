/**
 * The core's listener shape is the protocol's one emitter (STYLE 10–11): `on` returns a Subscription that
 * is its own unsubscribe, and a throwing listener goes to the diagnostics sink.
 */
import { logDiagnostic, type Logger } from "@lineup/protocol";

export { Emitter, type Subscription, type Unsubscribe } from "@lineup/protocol";

/** Where errors that must not propagate (a throwing listener, a failed background send) are reported. */
export type DiagnosticsSink = (error: unknown, context: string) => void;

export const ignoreDiagnostics: DiagnosticsSink = () => undefined;

/** An emitter's `onListenerError` that reports to `diagnostics` under `context`. */
export const listenerErrorsTo =
  (diagnostics: DiagnosticsSink, context: string) =>
  (error: unknown): void =>
    diagnostics(error, context);

/**
 * A sink that writes each report as one line of the one log shape (pino's): at `warn`, `msg` the context it
 * happened in, `kind` `runtime_error`, and pino's `err` field (type, message, code; never a stack).
 */
export function logRuntimeDiagnostics(logger: Logger): DiagnosticsSink {
  return (error, context) => logDiagnostic(logger, "warn", { kind: "runtime_error", message: context, error });
}
