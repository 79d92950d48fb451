/**
 * The core's listener shape is the protocol's one emitter (STYLE 10–11): `on` returns a Subscription that
 * is its own unsubscribe, and a throwing listener goes to the diagnostics sink.
 */
export { Emitter, type Subscription, type Unsubscribe } from "@lineup/protocol";

/** Where errors that must not propagate (a throwing listener, a failed background send) are reported. */
export type DiagnosticsSink = (error: unknown, context: string) => void;

export const ignoreDiagnostics: DiagnosticsSink = () => undefined;

/** An emitter's `onListenerError` that reports to `diagnostics` under `context`. */
export const listenerErrorsTo =
  (diagnostics: DiagnosticsSink, context: string) =>
  (error: unknown): void =>
    diagnostics(error, context);
