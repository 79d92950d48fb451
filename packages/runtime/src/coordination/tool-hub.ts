/**
 * Hands committed tool calls to the app handlers that serve them (after the commit that accepted
 * them, never before). An app registers one handler for itself, or one per instance (a sandboxed
 * surface: the host registers on the instance's behalf). A call for an app with no handler yet waits
 * here until one registers — an app that is starting registers before it reports ready — and a call
 * delivered twice (after a restart) reaches the handler again: handlers deduplicate by `call_id`.
 */
import { SpanKind, endSpan, startSpan, type Span } from "@lineup/protocol";
import type { DiagnosticsSink, Unsubscribe } from "../core/emitter.js";
import type { DeliveredToolCall, Delivery, ToolReport } from "./inputs.js";

export type { DeliveredToolCall };

export interface ToolCallHandler {
  call(call: DeliveredToolCall): void;
  /** The call is over (cancelled, expired, app disabled): stop, report nothing more. */
  cancel(callId: string): void;
}

interface Registration {
  readonly app_scope: string;
  readonly instance_id?: string;
  readonly handler: ToolCallHandler;
}

export class ToolHub {
  private readonly registrations: Registration[] = [];
  private readonly waiting: DeliveredToolCall[] = [];
  /** call_id → the handler it went to, for cancels. */
  private readonly routed = new Map<string, ToolCallHandler>();
  /** call_id → its `lineup.tool_call` span, while traces are recorded: from the hand-off to the handler's terminal report. */
  private readonly spans = new Map<string, Span>();

  /**
   * `route`: a handler that serves a call before any registration (a tool an app's back-end serves,
   * `backends/tool-handler.ts`), or `undefined` to leave it to the app's or instance's handler.
   */
  constructor(
    private readonly diagnostics: DiagnosticsSink,
    private readonly route: (call: DeliveredToolCall) => ToolCallHandler | undefined = () => undefined,
  ) {}

  register(appScope: string, instanceId: string | undefined, handler: ToolCallHandler): Unsubscribe {
    const registration: Registration = { app_scope: appScope, handler, ...(instanceId === undefined ? {} : { instance_id: instanceId }) };
    this.registrations.push(registration);
    const ready = this.waiting.filter((call) => this.find(call) === handler);
    for (const call of ready) {
      this.waiting.splice(this.waiting.indexOf(call), 1);
      this.deliver(call, handler);
    }
    return () => {
      const index = this.registrations.indexOf(registration);
      if (index >= 0) this.registrations.splice(index, 1);
      for (const [callId, routedTo] of this.routed) if (routedTo === handler) this.routed.delete(callId);
    };
  }

  run(deliveries: readonly Delivery[]): void {
    for (const delivery of deliveries) {
      if (delivery.kind === "tool.call") {
        const { kind: _kind, ...call } = delivery;
        const handler = this.find(call);
        if (handler === undefined) this.waiting.push(call);
        else this.deliver(call, handler);
      } else if (delivery.kind === "tool.cancel") {
        const waitingIndex = this.waiting.findIndex((c) => c.call_id === delivery.call_id);
        if (waitingIndex >= 0) this.waiting.splice(waitingIndex, 1);
        const handler = this.routed.get(delivery.call_id);
        this.routed.delete(delivery.call_id);
        this.endSpan(delivery.call_id, { code: "cancelled_by_user", message: "the call was cancelled" });
        if (handler !== undefined) this.guard(() => handler.cancel(delivery.call_id), "tool cancel handler");
      } else if (delivery.kind === "app.removed") {
        for (let i = this.waiting.length - 1; i >= 0; i--) if (this.waiting[i]!.app_scope === delivery.app_scope) this.waiting.splice(i, 1);
      }
    }
  }

  /** The route's handler first, then the instance's own, then the app's. */
  private find(call: DeliveredToolCall): ToolCallHandler | undefined {
    const routed = this.route(call);
    if (routed !== undefined) return routed;
    let appWide: ToolCallHandler | undefined;
    for (let i = this.registrations.length - 1; i >= 0; i--) {
      const r = this.registrations[i]!;
      if (r.app_scope !== call.app_scope) continue;
      if (r.instance_id !== undefined && r.instance_id === call.instance_id) return r.handler;
      if (r.instance_id === undefined) appWide ??= r.handler;
    }
    return appWide;
  }

  /** The handler reported on a call: a result or an error ends its span. */
  reported(callId: string, report: ToolReport): void {
    if (report.kind === "result") this.endSpan(callId);
    else if (report.kind === "error") this.endSpan(callId, { code: report.code, message: report.message });
  }

  private endSpan(callId: string, failure?: { readonly code: string; readonly message?: string | undefined }): void {
    const span = this.spans.get(callId);
    if (span === undefined) return;
    this.spans.delete(callId);
    endSpan(span, failure);
  }

  private deliver(call: DeliveredToolCall, handler: ToolCallHandler): void {
    this.routed.set(call.call_id, handler);
    if (!this.spans.has(call.call_id)) {
      const span = startSpan("lineup.tool_call", { kind: SpanKind.INTERNAL, attributes: () => ({ "lineup.call_id": call.call_id, "lineup.app_scope": call.app_scope, "lineup.tool": call.method }) });
      if (span.isRecording()) this.spans.set(call.call_id, span);
    }
    this.guard(() => handler.call(call), `${call.app_scope} tool handler`);
  }

  private guard(fn: () => void, context: string): void {
    try {
      fn();
    } catch (error) {
      this.diagnostics(error, context);
    }
  }
}
