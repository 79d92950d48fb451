/**
 * The call lifecycle's state (spec 7.3), per `call_id`:
 *
 *   received → accepted → [starting → activation_ready | activation_failed | activation_cancelled]
 *            → progress* → exactly one terminal result or error
 *
 * Every `lineup.tool.*` payload emitted for a call is appended to its record before it is sent, so
 * the record is the replay log: a duplicate invoke with the same body gets the same outputs again
 * (the same envelopes, under the same idempotency keys: `sent`), and a terminal output, once
 * recorded, is never followed by another. Plain JSON: the loop persists
 * the changed records in the same commit as the outputs, and reloads them after a restart.
 */
import type { ActivationRequirement, CallModel, ErrorCode, JsonObject, ProtocolError, ToolHandling } from "@lineup/protocol";
import type { ToolErrorPayload, ToolProgressPayload, ToolReceiptPayload, ToolResultPayload } from "./payloads.js";
import type { AuditFact } from "../app-lifecycle/manager/audit-fact.js";

export type ToolOutput = (
  | { readonly type: "lineup.tool.receipt"; readonly call_id: string; readonly payload: ToolReceiptPayload }
  | { readonly type: "lineup.tool.progress"; readonly call_id: string; readonly payload: ToolProgressPayload }
  | { readonly type: "lineup.tool.result"; readonly call_id: string; readonly payload: ToolResultPayload }
  | { readonly type: "lineup.tool.error"; readonly call_id: string; readonly payload: ToolErrorPayload }
) & {
  /** Set by the loop when the output is queued for the agent; absent on what no agent is sent (a workflow's call). */
  readonly sent?: SentEnvelope;
};

/**
 * What makes an output's request to the AppServer the same request when a duplicate invoke replays it: the
 * envelope's id and timestamp and the outbox entry's idempotency key. The server answers a repeat of them
 * from its record, so the agent's log holds each output once, however often the call is replayed.
 */
export interface SentEnvelope {
  readonly envelope_id: string;
  readonly timestamp: string;
  readonly idempotency_key: string;
}

export type CallPhase =
  /** Triggered an activation; reported `starting`. */
  | "starting"
  /** Arrived while an activation was under way; runs when it is ready (in arrival order). */
  | "waiting_activation"
  /** Delivered to the app's handler. */
  | "running"
  /** A runtime-owned operation waits to be started (app in front, operation created). */
  | "awaiting_operation"
  | "operation_running"
  | "terminal";

export interface RuntimeOperationState {
  readonly operation_id: string;
  readonly started_at: number;
  /** Timed operations end here with the Runtime's result; app-run ones must finish by here. */
  readonly ends_at: number;
  /** The app does the work and reports the one result (an export); absent: a timed operation (pomodoro). */
  readonly app_run?: true;
}

export interface CallRecord {
  readonly call_id: string;
  /** Canonical JSON of what makes two invokes the same call. */
  readonly body: string;
  readonly agent_id: string;
  readonly conversation_id: string;
  readonly app_scope: string;
  readonly method: string;
  readonly arguments: JsonObject;
  readonly handling: ToolHandling;
  readonly activation_requirement: ActivationRequirement;
  readonly call_model: CallModel;
  readonly received_at: number;
  /** The invoke envelope's id: outputs name it as `reply_to`. */
  readonly reply_to?: string;
  /**
   * The turn running in the conversation when the invoke was applied (the log's order; the server runs one
   * turn at a time); absent for a call made outside any turn. Cancelling that turn ends the call.
   */
  readonly turn_id?: string;
  /**
   * A workflow step made the call, not an agent (`agent_id` is then `workflow:<app_scope>`): its outputs go to no
   * agent, and its terminal output settles that step (a `tool.settled` delivery).
   */
  readonly workflow?: { readonly run_id: string; readonly step_id: string };
  readonly deadline_at: number;
  /** The tool's `requires_foreground`: the call needs its instance in front until it ends; leaving the front ends it `foreground_required`. */
  readonly requires_foreground?: true;
  /** The tool's `idempotent: false`: delivered at most once, so after a restart a call already delivered ends `handler_failed` instead of running again. */
  readonly at_most_once?: true;
  /**
   * The tool's `restore_focus`, when this call brought its instance to the front: once the call ends, if the
   * instance is still on top, the focus goes back to the instance it displaced (absent: none was in front — the
   * shell showed one of its own screens, such as the chat — so the instance goes to the background).
   */
  readonly focus_return?: { readonly displaced_instance_id?: string };
  readonly phase: CallPhase;
  /**
   * Another device of the user answered this call (the session's inventory was its, handlers/inventory-sync.ts): kept,
   * terminal and without outputs, so that the call_id coming again once this device's inventory is the session's is
   * not run again here. The same body replays nothing (the other device's outputs are the call's); another body is
   * `duplicate_call`, as on the device that ran it. Only `call_id`, `body` and what names the call are meaningful.
   */
  readonly answered_elsewhere?: true;
  readonly instance_id?: string;
  readonly operation?: RuntimeOperationState;
  readonly outputs: readonly ToolOutput[];
}

/** One activation (an app starting or coming to the front) and the calls waiting for it. */
export interface Activation {
  readonly instance_id: string;
  readonly app_scope: string;
  readonly conversation_id: string;
  readonly trigger_call_id: string;
  /** Arrival order. */
  readonly waiting: readonly string[];
}

export interface ToolCallsState {
  readonly calls: Readonly<Record<string, CallRecord>>;
  /** Keyed by instance id. */
  readonly activations: Readonly<Record<string, Activation>>;
}

export const EMPTY_TOOL_CALLS: ToolCallsState = { calls: {}, activations: {} };

/** What the loop must do after committing a decision. */
export type CallAction =
  | { readonly kind: "deliver_to_app"; readonly call_id: string; readonly app_scope: string; readonly conversation_id: string; readonly instance_id?: string; readonly method: string; readonly arguments: JsonObject }
  | { readonly kind: "launch_instance"; readonly call_id: string; readonly instance_id: string; readonly app_scope: string; readonly conversation_id: string; readonly foreground: boolean; readonly new_instance: boolean }
  | { readonly kind: "focus_instance"; readonly call_id: string; readonly instance_id: string }
  /** Give a suspended instance its surface back without bringing it forward. */
  | { readonly kind: "restore_instance"; readonly call_id: string; readonly instance_id: string }
  /** Bring the app to the front if needed, create the operation, then call `startOperation`. */
  | { readonly kind: "start_operation"; readonly call_id: string; readonly instance_id?: string }
  /** Tell the app's handler the call is over (cancelled, expired). */
  | { readonly kind: "cancel_in_app"; readonly call_id: string; readonly instance_id?: string };

export interface CallDecision {
  readonly state: ToolCallsState;
  /** Payloads to send to the agent, in order (already recorded in `state`). */
  readonly outputs: readonly ToolOutput[];
  readonly actions: readonly CallAction[];
  readonly audit: readonly AuditFact[];
  /** The input was refused and nothing was recorded (duplicate call_id with another body, a report for a finished call). */
  readonly refusal?: ProtocolError;
  /** A duplicate invoke: `outputs` is the stored replay, nothing changed. */
  readonly replayed?: boolean;
}

export function getCall(state: ToolCallsState, callId: string): CallRecord | undefined {
  return Object.prototype.hasOwnProperty.call(state.calls, callId) ? state.calls[callId] : undefined;
}

export function isTerminalOutput(output: ToolOutput): boolean {
  return output.type === "lineup.tool.result" || output.type === "lineup.tool.error";
}

/** A copy-on-write draft of the calls state that collects outputs, actions and audit facts. */
export class CallDraft {
  readonly calls: Record<string, CallRecord>;
  readonly activations: Record<string, Activation>;
  readonly outputs: ToolOutput[] = [];
  readonly actions: CallAction[] = [];
  readonly audit: AuditFact[] = [];
  private readonly before: ToolCallsState;
  constructor(state: ToolCallsState) {
    this.before = state;
    this.calls = { ...state.calls };
    this.activations = { ...state.activations };
  }
  get(callId: string): CallRecord | undefined {
    return Object.prototype.hasOwnProperty.call(this.calls, callId) ? this.calls[callId] : undefined;
  }
  update(callId: string, patch: Partial<CallRecord>): CallRecord {
    const next = { ...this.calls[callId]!, ...patch } as CallRecord;
    this.calls[callId] = next;
    return next;
  }
  emit(callId: string, output: ToolOutput): void {
    const call = this.calls[callId]!;
    if (call.phase === "terminal") return; // one terminal per call_id, ever
    this.calls[callId] = { ...call, outputs: [...call.outputs, output], ...(isTerminalOutput(output) ? { phase: "terminal" as const } : {}) };
    this.outputs.push(output);
  }
  receipt(callId: string, status: ToolReceiptPayload["status"], code?: ErrorCode, message?: string, tool?: ToolReceiptPayload["tool"]): void {
    this.emit(callId, {
      type: "lineup.tool.receipt",
      call_id: callId,
      payload: { status, ...(code === undefined ? {} : { code }), ...(message === undefined ? {} : { message }), ...(tool === undefined ? {} : { tool }) },
    });
  }
  error(callId: string, code: ErrorCode, message: string): void {
    const call = this.calls[callId];
    if (call === undefined || call.phase === "terminal") return;
    this.emit(callId, { type: "lineup.tool.error", call_id: callId, payload: { code, message: message.slice(0, 2_000) } });
    this.audit.push({ type: "tool.call.error", code, conversation_id: call.conversation_id, subject: callId, detail: `${call.app_scope}/${call.method}` });
  }
  result(callId: string, result: ToolResultPayload["result"]): void {
    const call = this.calls[callId];
    if (call === undefined || call.phase === "terminal") return;
    this.emit(callId, { type: "lineup.tool.result", call_id: callId, payload: { result } });
    this.audit.push({ type: "tool.call.result", conversation_id: call.conversation_id, subject: callId, detail: `${call.app_scope}/${call.method}` });
  }
  done(extra: { refusal?: ProtocolError } = {}): CallDecision {
    // Activations rarely change: unchanged, the state keeps the same object, so nothing rewrites it.
    const activations = sameEntries(this.activations, this.before.activations) ? this.before.activations : this.activations;
    return { state: { calls: this.calls, activations }, outputs: this.outputs, actions: this.actions, audit: this.audit, ...extra };
  }
}

/** A refusal that records nothing. */
export function refuseReport(state: ToolCallsState, error: ProtocolError, audit?: AuditFact): CallDecision {
  return { state, outputs: [], actions: [], audit: audit === undefined ? [] : [audit], refusal: error };
}

/** The earliest moment `expireDueCalls` has something to do, for the loop's single timer. */
export function nextDeadline(state: ToolCallsState): number | undefined {
  let next: number | undefined;
  for (const call of Object.values(state.calls)) {
    if (call.phase === "terminal") continue;
    const at = call.phase === "operation_running" && call.operation !== undefined ? call.operation.ends_at : call.deadline_at;
    if (next === undefined || at < next) next = at;
  }
  return next;
}

/** Whether two records hold the same keys with the same (identical) values. */
function sameEntries<T>(a: Readonly<Record<string, T>>, b: Readonly<Record<string, T>>): boolean {
  let count = 0;
  for (const key in a) {
    if (!Object.prototype.hasOwnProperty.call(b, key) || a[key] !== b[key]) return false;
    count += 1;
  }
  return count === Object.keys(b).length;
}
