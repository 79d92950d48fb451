/**
 * Tools an app's MCP back-end serves (a tool descriptor's `backend`, docs/manifest.md §5): the Tool Hub hands such a
 * call here instead of to a surface, and this handler makes it a back-end call through the back-end service (its
 * checks, limits and restart policy) and reports the one result or error through the same door a surface reports
 * through (`tool.report`: owner, call still active, `output_schema`, audit, outbox). A call the Runtime cancels
 * (the agent, the deadline, the person's Stop) aborts the back-end call and reports nothing more.
 */
import { LineUpError, type JsonValue, type ToolDescriptor } from "@lineup/protocol";
import type { DiagnosticsSink } from "../core/emitter.js";
import type { ToolReport } from "../coordination/inputs.js";
import type { DeliveredToolCall, ToolCallHandler } from "../coordination/tool-hub.js";
import { APP_TOOL_ERROR_CODES } from "../tools/reports.js";
import type { BackendService } from "./service.js";

export interface BackendToolsOptions {
  readonly backends: Pick<BackendService, "call">;
  /** The tool `method` of the app's active version, if it declares one. */
  readonly toolOf: (appScope: string, method: string) => ToolDescriptor | undefined;
  readonly report: (appScope: string, callId: string, report: ToolReport, instanceId: string | undefined) => Promise<void>;
  readonly diagnostics: DiagnosticsSink;
}

/** The Tool Hub's route for calls a back-end serves: the handler for `call`, or `undefined` when a surface serves it. */
export function backendToolRoute(options: BackendToolsOptions): (call: DeliveredToolCall) => ToolCallHandler | undefined {
  const running = new Map<string, AbortController>();
  const handler: ToolCallHandler = {
    call(call) {
      const backend = options.toolOf(call.app_scope, call.method)?.backend;
      if (backend === undefined || running.has(call.call_id)) return;
      const controller = new AbortController();
      running.set(call.call_id, controller);
      const report = (outcome: ToolReport): Promise<void> => options.report(call.app_scope, call.call_id, outcome, call.instance_id);
      void options.backends
        .call(call.app_scope, backend.id, backend.method, call.arguments as JsonValue, { signal: controller.signal })
        .then(
          (result) => (controller.signal.aborted ? undefined : report({ kind: "result", result })),
          (error: unknown) => {
            if (controller.signal.aborted) return undefined;
            const refusal = error instanceof LineUpError ? error : new LineUpError("handler_failed", "the back-end failed");
            // A code a handler may not end a call with reaches the agent as handler_failed: the message keeps it.
            const kept = APP_TOOL_ERROR_CODES.includes(refusal.code);
            return report({ kind: "error", code: refusal.code, message: kept ? refusal.message : `${refusal.code}: ${refusal.message}` });
          },
        )
        .catch((error: unknown) => options.diagnostics(error, `${call.app_scope} back-end tool report`))
        .finally(() => running.delete(call.call_id));
    },
    cancel(callId) {
      running.get(callId)?.abort();
      running.delete(callId);
    },
  };
  return (call) => (options.toolOf(call.app_scope, call.method)?.backend === undefined ? undefined : handler);
}
