/**
 * The surface SDK's emitters are the protocol's one emitter (a subscription is its own unsubscribe and
 * `Disposable`); a throwing listener's error goes to the SDK's one diagnostics sink as `listener_threw`.
 */
import type { Unsubscribe } from "@lineup/protocol";

export { Emitter, type Subscription } from "@lineup/protocol";
export type { Unsubscribe };

/** Where errors nobody can handle go: a throwing listener, a frame dropped at the port. */
export type DiagnosticsSink = (event: SurfaceDiagnostic) => void;

export type SurfaceDiagnostic =
  | { readonly kind: "listener_threw"; readonly event: string; readonly error: unknown }
  | { readonly kind: "frame_dropped"; readonly code: string; readonly message: string }
  | { readonly kind: "unexpected_response"; readonly id: number }
  | { readonly kind: "request_failed"; readonly what: string; readonly error: unknown };

/** An emitter's `onListenerError` that reports `listener_threw` for `event`. */
export const listenerThrew =
  (event: string, diagnostics: DiagnosticsSink) =>
  (error: unknown): void =>
    diagnostics({ kind: "listener_threw", event, error });
