/**
 * The surface SDK's emitters are the protocol's one emitter (a subscription is its own unsubscribe and
 * `Disposable`); a throwing listener's error goes to the SDK's one diagnostics sink as `listener_threw`.
 */
import type { Diagnostic, Unsubscribe } from "@lineup/protocol";

export { Emitter, throwLater, type Subscription } from "@lineup/protocol";
export type { Unsubscribe };

/** Where errors nobody can handle go: a throwing listener, a frame dropped at the port. */
export type DiagnosticsSink = (event: SurfaceDiagnostic) => void;

/** The protocol's one diagnostic shape (`kind`, one-line `message`, `error`), with what each kind adds. */
export type SurfaceDiagnostic =
  | (Diagnostic<"listener_threw"> & { readonly event: string; readonly error: unknown })
  | (Diagnostic<"frame_dropped"> & { readonly code: string })
  | (Diagnostic<"unexpected_response"> & { readonly id: number })
  | (Diagnostic<"request_failed"> & { readonly what: string; readonly error: unknown });

/** `request_failed` for `what`. */
export const requestFailed = (what: string, error: unknown): SurfaceDiagnostic => ({ kind: "request_failed", message: `${what} failed`, what, error });

/** `listener_threw` for `event`. */
export const threw = (event: string, error: unknown): SurfaceDiagnostic => ({ kind: "listener_threw", message: `a ${event} listener threw`, event, error });

/** An emitter's `onListenerError` that reports `listener_threw` for `event`. */
export const listenerThrew =
  (event: string, diagnostics: DiagnosticsSink) =>
  (error: unknown): void =>
    diagnostics(threw(event, error));
