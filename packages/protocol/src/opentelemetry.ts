/**
 * `@lineup/protocol/opentelemetry`: LineUp's spans through `@opentelemetry/api`. A separate entry so that only a
 * program that enables it loads the API; the API is a no-op until the program registers an SDK's provider.
 */
import { context, trace, type Span as OtelSpan, type Tracer, type TracerProvider } from "@opentelemetry/api";
import { setTracing, type Span } from "./tracing.js";

// Looked up per span, not once: a provider registered after enabling, or through another copy of the API
// package (which keeps its own proxy), is then the one used. Cached while the global provider stays the same.
let cached: { readonly provider: TracerProvider; readonly tracer: Tracer } | undefined;
function tracer(): Tracer {
  const provider = trace.getTracerProvider();
  if (cached?.provider !== provider) cached = { provider, tracer: provider.getTracer("lineup") };
  return cached.tracer;
}

/** Sends LineUp's spans to the OpenTelemetry API from now on. Idempotent. */
export function enableOpenTelemetry(): void {
  setTracing({
    start(name, kind, parent, links) {
      const options = links.length === 0 ? { kind } : { kind, links: links.map((span) => ({ context: (span as OtelSpan).spanContext() })) };
      return parent === undefined ? tracer().startSpan(name, options) : tracer().startSpan(name, options, trace.setSpan(context.active(), parent as OtelSpan));
    },
    with: (span, fn) => context.with(trace.setSpan(context.active(), span as OtelSpan), fn),
    active: (): Span | undefined => trace.getActiveSpan(),
  });
}
