/**
 * An agent's tool call as a host shows it beside the conversation (an MCP Apps view's card, issue 22 §3): which
 * tool of which app, its input, where it stands, and its one result or error — read from the call's stored record
 * (`tool-calls`, the replay log; finished calls are kept 7 days), so a host rebuilds the same card after a reload.
 */
import type { ErrorCode, JsonObject, JsonValue } from "@lineup/protocol";
import type { CallRecord } from "./call-state.js";

export interface ToolCallView {
  readonly call_id: string;
  readonly conversation_id: string;
  readonly app_scope: string;
  readonly method: string;
  readonly arguments: JsonObject;
  /** `running` until the one terminal output; then `succeeded` (with `result`) or `failed` (with `error`). */
  readonly status: "running" | "succeeded" | "failed";
  readonly result?: JsonValue;
  readonly error?: { readonly code: ErrorCode; readonly message: string };
  /** The MCP Apps view the tool names (`tools[].view` of the app's active manifest), if any. */
  readonly view?: { readonly resource_uri: string };
}

/** The view of a stored call record; `view` is the tool's declaration in the app's active manifest. */
export function toolCallViewOf(record: CallRecord, view: { readonly resource_uri: string } | undefined): ToolCallView {
  const terminal = record.phase === "terminal" ? record.outputs.at(-1) : undefined;
  const base = {
    call_id: record.call_id,
    conversation_id: record.conversation_id,
    app_scope: record.app_scope,
    method: record.method,
    arguments: record.arguments,
    ...(view === undefined ? {} : { view: { resource_uri: view.resource_uri } }),
  };
  if (terminal?.type === "lineup.tool.result") return { ...base, status: "succeeded", result: terminal.payload.result as JsonValue };
  if (terminal?.type === "lineup.tool.error") return { ...base, status: "failed", error: { code: terminal.payload.code as ErrorCode, message: terminal.payload.message } };
  return { ...base, status: "running" };
}
