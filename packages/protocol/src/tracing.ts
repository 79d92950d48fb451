/**
 * Optional OpenTelemetry spans, through `@opentelemetry/api` only: without a registered tracer provider every
 * span is the API's non-recording no-op, and attributes are not even built. Whoever wants traces registers
 * an SDK's provider (and, in Node, a context manager) in their own process; LineUp registers none.
 *
 * Span names and attributes (docs/architecture.md, "Traces"): a JSON-RPC request is a `CLIENT` span at the
 * caller and a `SERVER` span at the AppServer, named by its method, with `rpc.system` = `jsonrpc`,
 * `rpc.method`, `rpc.jsonrpc.request_id`; a refusal adds `rpc.jsonrpc.error_code` and `lineup.error_code`.
 * A request carrying an envelope adds `lineup.envelope_type`, and `lineup.call_id` when it belongs to a tool
 * call (`lineup.tool_error_code` for the call's terminal error). The Runtime's `lineup.tool_call` span runs
 * from handing a call to its app to the app's terminal report; the AppServer's `store.commit` span is one
 * write transaction, a child of the first write's request and linked to the others.
 */
import { SpanKind, SpanStatusCode, context, trace, type Attributes, type Span, type Tracer, type TracerProvider } from "@opentelemetry/api";
import { isRecord } from "./json.js";

export { SpanKind, type Span };

// Looked up per span, not once at load: a provider registered later, or through another copy of the API
// package (which keeps its own proxy), is then the one used. Cached while the global provider stays the same.
let cached: { readonly provider: TracerProvider; readonly tracer: Tracer } | undefined;
function tracer(): Tracer {
  const provider = trace.getTracerProvider();
  if (cached?.provider !== provider) cached = { provider, tracer: provider.getTracer("lineup") };
  return cached.tracer;
}

export interface SpanStart {
  readonly kind: SpanKind;
  /** Built only when the span records. */
  readonly attributes?: () => Attributes;
  /** Its parent; default the active context's span. */
  readonly parent?: Span;
  /** Spans it serves besides its parent (a group commit's other writes). */
  readonly links?: readonly Span[];
}

/** Starts a span. */
export function startSpan(name: string, start: SpanStart): Span {
  const links = start.links?.map((span) => ({ context: span.spanContext() }));
  const options = links === undefined || links.length === 0 ? { kind: start.kind } : { kind: start.kind, links };
  const span = start.parent === undefined ? tracer().startSpan(name, options) : tracer().startSpan(name, options, trace.setSpan(context.active(), start.parent));
  if (start.attributes !== undefined && span.isRecording()) span.setAttributes(start.attributes());
  return span;
}

/** The active context's span, if it records (`undefined` without a provider and context manager). */
export function recordingSpan(): Span | undefined {
  const span = trace.getActiveSpan();
  return span?.isRecording() === true ? span : undefined;
}

/** Ends a span; a failure adds `lineup.error_code` (the error's LineUp code, else `internal_error`) and an error status. */
export function endSpan(span: Span, failure?: { readonly code?: unknown; readonly message?: unknown; readonly rpc?: number }): void {
  if (failure !== undefined && span.isRecording()) {
    span.setAttribute("lineup.error_code", typeof failure.code === "string" ? failure.code : "internal_error");
    if (failure.rpc !== undefined) span.setAttribute("rpc.jsonrpc.error_code", failure.rpc);
    span.setStatus({ code: SpanStatusCode.ERROR, ...(typeof failure.message === "string" ? { message: failure.message } : {}) });
  }
  span.end();
}

/** Runs `fn` with `span` active, so spans started inside (and, with a context manager, after awaits) are its children. */
export function withSpan<T>(span: Span, fn: () => T): T {
  if (!span.isRecording()) return fn();
  return context.with(trace.setSpan(context.active(), span), fn);
}

/** The attributes of a JSON-RPC request's span; `lineup.call_id` when its params carry an envelope with a call id. */
export function rpcSpanAttributes(method: string, id: number | string | null, params: unknown): Attributes {
  const attributes: Attributes = { "rpc.system": "jsonrpc", "rpc.method": method };
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
