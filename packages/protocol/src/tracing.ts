/**
 * Optional OpenTelemetry spans. This module has no dependency: until `enableOpenTelemetry()` (from
 * `@lineup/protocol/opentelemetry`, which imports `@opentelemetry/api`) installs the API as the tracer, every
 * span is one shared no-op and no attribute is built, so a browser bundle that never enables it carries no
 * OpenTelemetry code. The AppServer and the agent SDK's Node `connectAgent` enable it; the API itself stays a
 * no-op until an application registers an SDK's tracer provider (and, in Node, a context manager).
 *
 * Span names and attributes (docs/architecture.md, "Traces"): a JSON-RPC request is a `CLIENT` span at the
 * caller and a `SERVER` span at the AppServer, named by its method, with `rpc.system` = `jsonrpc`,
 * `rpc.method`, `rpc.jsonrpc.request_id`; a refusal adds `rpc.jsonrpc.error_code` and `lineup.error_code`.
 * A request carrying an envelope adds `lineup.envelope_type`, and `lineup.call_id` when it belongs to a tool
 * call (`lineup.tool_error_code` for the call's terminal error). The Runtime's `lineup.tool_call` span runs
 * from handing a call to its app to the app's terminal report; the AppServer's `store.commit` span is one
 * write transaction, a child of the first write's request and linked to the others; the Runtime's
 * `runtime.commit` span is one group commit of its loop (`lineup.inputs`, `lineup.writes`).
 */
import { isRecord } from "./json.js";

/** OpenTelemetry's span kinds, by its numbers. */
export const SpanKind = { INTERNAL: 0, SERVER: 1, CLIENT: 2 } as const;
export type SpanKind = (typeof SpanKind)[keyof typeof SpanKind];

export type SpanAttributes = Record<string, string | number | boolean>;

/** The part of an OpenTelemetry span LineUp uses. */
export interface Span {
  isRecording(): boolean;
  setAttribute(key: string, value: string | number | boolean): unknown;
  setAttributes(attributes: SpanAttributes): unknown;
  /** `code` 2 is OpenTelemetry's ERROR. */
  setStatus(status: { code: 2; message?: string }): unknown;
  end(): void;
}

/** What `enableOpenTelemetry` installs. */
export interface Tracing {
  start(name: string, kind: SpanKind, parent: Span | undefined, links: readonly Span[]): Span;
  /** Runs `fn` with `span` as the active context's span. */
  with<T>(span: Span, fn: () => T): T;
  /** The active context's span, if any. */
  active(): Span | undefined;
}

const NOOP_SPAN: Span = {
  isRecording: () => false,
  setAttribute: () => undefined,
  setAttributes: () => undefined,
  setStatus: () => undefined,
  end: () => undefined,
};

let tracing: Tracing | undefined;

/** Installs (or, with `undefined`, removes) the tracer every later span goes to. */
export function setTracing(next: Tracing | undefined): void {
  tracing = next;
}

export interface SpanStart {
  readonly kind: SpanKind;
  /** Built only when the span records. */
  readonly attributes?: () => SpanAttributes;
  /** Its parent; default the active context's span. */
  readonly parent?: Span;
  /** Spans it serves besides its parent (a group commit's other writes). */
  readonly links?: readonly Span[];
}

/** Starts a span. */
export function startSpan(name: string, start: SpanStart): Span {
  if (tracing === undefined) return NOOP_SPAN;
  const span = tracing.start(name, start.kind, start.parent, start.links ?? []);
  if (start.attributes !== undefined && span.isRecording()) span.setAttributes(start.attributes());
  return span;
}

/** The active context's span, if it records (`undefined` without a provider and context manager). */
export function recordingSpan(): Span | undefined {
  const span = tracing?.active();
  return span?.isRecording() === true ? span : undefined;
}

/** Ends a span; a failure adds `lineup.error_code` (the error's LineUp code, else `internal_error`) and an error status. */
export function endSpan(span: Span, failure?: { readonly code?: unknown; readonly message?: unknown; readonly rpc?: number }): void {
  if (failure !== undefined && span.isRecording()) {
    span.setAttribute("lineup.error_code", typeof failure.code === "string" ? failure.code : "internal_error");
    if (failure.rpc !== undefined) span.setAttribute("rpc.jsonrpc.error_code", failure.rpc);
    span.setStatus(typeof failure.message === "string" ? { code: 2, message: failure.message } : { code: 2 });
  }
  span.end();
}

/** Runs `fn` with `span` active, so spans started inside (and, with a context manager, after awaits) are its children. */
export function withSpan<T>(span: Span, fn: () => T): T {
  if (tracing === undefined || !span.isRecording()) return fn();
  return tracing.with(span, fn);
}

/** The attributes of a JSON-RPC request's span; `lineup.call_id` when its params carry an envelope with a call id. */
export function rpcSpanAttributes(method: string, id: number | string | null, params: unknown): SpanAttributes {
  const attributes: SpanAttributes = { "rpc.system": "jsonrpc", "rpc.method": method };
  if (id !== null) attributes["rpc.jsonrpc.request_id"] = String(id);
  const envelope = isRecord(params) ? params["envelope"] : undefined;
  const correlation = isRecord(envelope) ? envelope["correlation"] : undefined;
  const callId = isRecord(correlation) ? correlation["call_id"] : undefined;
  if (typeof callId === "string") attributes["lineup.call_id"] = callId;
  if (!isRecord(envelope)) return attributes;
  if (typeof envelope["type"] === "string") attributes["lineup.envelope_type"] = envelope["type"];
  // A tool call's terminal error: its code, so a trace shows why the call failed without opening the log.
  const payload = envelope["payload"];
  if (envelope["type"] === "lineup.tool.error" && isRecord(payload) && typeof payload["code"] === "string") attributes["lineup.tool_error_code"] = payload["code"];
  return attributes;
}
